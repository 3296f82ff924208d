//! Test helpers: the conformance vectors of tests/vectors/v1 (tests/README.md,
//! "How a runner compares"). A case's output is the exact response text, so
//! it is compared as it is; an error by its code and message.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use rmcp::schemars;
use serde::Deserialize;
use serde_json::value::RawValue;
use toolerr::{Host, Options, Tier, Tiers};

/// The recovery line of every INTERNAL_ERROR envelope, as the module writes
/// it: the wrap and heal tests build their expected texts with it.
pub const INTERNAL_RECOVERY: &str = "<recovery>This is an unexpected server-side failure, not a problem with your arguments. Do not blindly retry the same call: tell the user what failed, or try a different approach.</recovery>";

/// The argument of the test servers' invoice tools: an ID with the billing
/// demo's pattern, which the tool's `inputSchema` advertises.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Id {
    #[schemars(regex(pattern = r"^inv_[0-9]{3}$"))]
    pub id: String,
}

/// One vector file: the cases of one export.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VectorFile {
    pub export: String,
    pub cases: Vec<Case>,
    #[serde(skip)]
    pub path: PathBuf,
}

/// One case. `input` keeps its raw text, escapes as written: a lone
/// surrogate escape such as `\ud800` must reach the module as written, which a
/// decoded `Value` (or a Rust `String`) could not carry. `output` is the exact
/// response text the module must give.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub description: String,
    pub input: Box<RawValue>,
    #[serde(default)]
    pub output: Option<String>,
    #[serde(default)]
    pub error: Option<ExpectedError>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ExpectedError {
    pub code: String,
    pub message: String,
}

/// A host of `options` whose calls run on `tiers`, `Tiers::Compiled` or
/// `Tiers::Interpreter`, and nowhere else: its tier is checked.
pub fn host_on(tiers: Tiers, options: Options) -> Host {
    let host = Host::with_options(Options { tiers, ..options }).expect("host");
    let tier = match tiers {
        Tiers::Interpreter => Tier::Interpreter,
        _ => Tier::Compiled,
    };
    assert_eq!(host.tier(), tier);
    host
}

/// The repository root (bindings/rust is two levels down).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

/// Loads every tests/vectors/v1/*.json, in name order.
pub fn load_vectors() -> Vec<VectorFile> {
    let dir = repo_root().join("tests/vectors/v1");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no vector file in {}", dir.display());
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mut file: VectorFile =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            file.path = path;
            file
        })
        .collect()
}

impl Case {
    /// The bytes to send: the text of a JSON string input, or else the input
    /// compacted with its escapes kept as written.
    pub fn request(&self) -> Vec<u8> {
        let raw = self.input.get();
        if raw.starts_with('"') {
            let text: String = serde_json::from_str(raw)
                .unwrap_or_else(|e| panic!("raw input of {:?}: {e}", self.description));
            return text.into_bytes();
        }
        compact(raw).into_bytes()
    }
}

/// Removes the whitespace between JSON tokens, leaving strings (and their
/// escapes) exactly as written.
pub fn compact(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in raw.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    out
}
