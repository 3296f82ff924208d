//! Test helpers: the conformance vectors of tests/vectors/v1 and the
//! canonical JSON form their expected outputs are compared in
//! (tests/README.md, "How a runner compares").

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

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
/// decoded `Value` (or a Rust `String`) could not carry.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub description: String,
    pub input: Box<RawValue>,
    #[serde(default)]
    pub output: Option<Box<RawValue>>,
    #[serde(default)]
    pub error: Option<ExpectedError>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ExpectedError {
    pub code: String,
    pub message: String,
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

    /// The expected response in canonical form.
    pub fn canonical_output(&self) -> Option<String> {
        self.output.as_ref().map(|raw| {
            let value: Value = serde_json::from_str(raw.get())
                .unwrap_or_else(|e| panic!("output of {:?}: {e}", self.description));
            canonical(&value)
        })
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

/// Writes `value` as the module writes JSON (tests/README.md): compact, object
/// members in their order (serde_json's `preserve_order`), strings as
/// `JSON.stringify` writes them, numbers as `Number.prototype.toString`.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&js_number(n.as_f64().expect("a finite number"))),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_value(out, v);
            }
            out.push('}');
        }
    }
}

/// `JSON.stringify` of a string: only `"`, `\` and control characters are
/// escaped; `\b \f \n \r \t` short, others `\u00xx` lowercase.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// ECMAScript `Number.prototype.toString` (radix 10) of a finite number, from
/// Rust's shortest round-trip digits (`{:e}`), for the test's canonical form.
pub fn js_number(f: f64) -> String {
    if !f.is_finite() {
        return "null".into(); // as JSON.stringify writes NaN and ±Infinity
    }
    if f == 0.0 {
        return "0".into(); // -0 too
    }
    let sign = if f < 0.0 { "-" } else { "" };
    let sci = format!("{:e}", f.abs());
    let (mantissa, exponent) = sci.split_once('e').expect("{:e} has an exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i32;
    let n = exponent.parse::<i32>().expect("exponent") + 1; // value = 0.digits × 10^n
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let e = if e >= 0 {
            format!("+{e}")
        } else {
            e.to_string()
        };
        if k == 1 {
            format!("{digits}e{e}")
        } else {
            format!("{}.{}e{e}", &digits[..1], &digits[1..])
        }
    };
    format!("{sign}{body}")
}
