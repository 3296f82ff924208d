//! The serde types of the JSON ABI (abi/ABI.md): one request type per export
//! and the responses. Field names are camelCase on the wire; optional fields
//! are left out when absent. These types only carry data: every rule (what is
//! required, what a value may be) is checked by the module, which answers a
//! bad request with an [`Error`](crate::Error) naming the field.
//!
//! Most of them, and the ABI's version, limits, constants and host policy
//! defaults, are generated from abi/abi.json (`go run ./abi/gen` writes
//! src/abi_gen.rs, re-exported here). This file holds what is written by
//! hand: their methods, [`Details`], the [`Contract`]'s serialization, the
//! [`Lockfile`], and the types a Rust user is better served by than by a
//! struct of the spec's members ([`Envelope`], [`GateVerdict`] and the
//! borrowing [`ContractLockRequest`] and [`ContractDiffRequest`]).

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

pub use crate::abi_gen::*;

/// The limits `describe` reports: the name this crate gave
/// [`DescribeLimits`] before its types were generated.
pub type Limits = DescribeLimits;

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Content {
        Content {
            kind: "text".into(),
            text: text.into(),
        }
    }
}

/// Convert a [`CallToolResult`] into rmcp's `CallToolResult` with `.into()`.
impl CallToolResult {
    /// The text of the first text block, or "".
    pub fn text(&self) -> &str {
        self.content
            .iter()
            .find(|c| c.kind == "text")
            .map(|c| c.text.as_str())
            .unwrap_or("")
    }
}

/// One detail value: a string, a number or a boolean.
#[derive(Debug, Clone, PartialEq)]
pub enum DetailValue {
    /// A string, rendered as escaped content.
    String(String),
    /// A number, rendered as JavaScript writes it (by the module).
    Number(f64),
    /// A boolean, rendered `true` or `false`.
    Bool(bool),
}

impl fmt::Display for DetailValue {
    /// Shows a string as it is and a boolean as `true`/`false`. A number is
    /// shown with Rust's formatting, which is not the envelope's: the module
    /// alone writes numbers the JavaScript way.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DetailValue::String(s) => f.write_str(s),
            DetailValue::Number(n) => write!(f, "{n}"),
            DetailValue::Bool(b) => write!(f, "{b}"),
        }
    }
}

impl DetailValue {
    /// The string inside, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            DetailValue::String(s) => Some(s),
            _ => None,
        }
    }
}

/// `From` for the types a detail value is made of: `detail_from!(T, U => |v| expr)`.
macro_rules! detail_from {
    ($($t:ty),+ => |$v:ident| $e:expr) => {$(
        impl From<$t> for DetailValue {
            fn from($v: $t) -> Self {
                $e
            }
        }
    )+};
}
detail_from!(&str => |v| DetailValue::String(v.to_string()));
detail_from!(String => |v| DetailValue::String(v));
detail_from!(&String => |v| DetailValue::String(v.clone()));
detail_from!(bool => |v| DetailValue::Bool(v));
detail_from!(f64, f32, i8, i16, i32, i64, u8, u16, u32, u64, isize, usize => |v| DetailValue::Number(v as f64));

impl Serialize for DetailValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            DetailValue::String(v) => s.serialize_str(v),
            // A non-finite number is written as null, which the module refuses
            // with a message naming the detail.
            DetailValue::Number(v) => s.serialize_f64(*v),
            DetailValue::Bool(v) => s.serialize_bool(*v),
        }
    }
}

impl<'de> Deserialize<'de> for DetailValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) => Ok(DetailValue::String(s)),
            Value::Bool(b) => Ok(DetailValue::Bool(b)),
            Value::Number(n) => n
                .as_f64()
                .map(DetailValue::Number)
                .ok_or_else(|| de::Error::custom("detail number out of range")),
            other => Err(de::Error::custom(format!(
                "a detail value is a string, number or boolean, got {other}"
            ))),
        }
    }
}

/// A tool error's details: key/value pairs **in order**. The order given is
/// the order rendered and the order parsed back, which a map could not keep.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Details(Vec<(String, DetailValue)>);

impl Details {
    /// No details.
    pub fn new() -> Details {
        Details(Vec::new())
    }

    /// Appends `key: value`; a key given twice is sent twice, and the module
    /// keeps the first position and the last value, as `JSON.parse` does.
    pub fn push(&mut self, key: impl Into<String>, value: impl Into<DetailValue>) {
        self.0.push((key.into(), value.into()));
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&DetailValue> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The pairs in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &DetailValue)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// How many pairs.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K: Into<String>, V: Into<DetailValue>> FromIterator<(K, V)> for Details {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Details(
            iter.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

impl Serialize for Details {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Details {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct OrderedVisitor;
        impl<'de> Visitor<'de> for OrderedVisitor {
            type Value = Details;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object of details")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Details, E> {
                Ok(Details::new())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Details, A::Error> {
                let mut out: Vec<(String, DetailValue)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, DetailValue>()? {
                    match out.iter_mut().find(|(key, _)| *key == k) {
                        Some(entry) => entry.1 = v,
                        None => out.push((k, v)),
                    }
                }
                Ok(Details(out))
            }
        }
        d.deserialize_any(OrderedVisitor)
    }
}

impl Contract {
    /// `{tool, deltas}`: the changes already computed (by
    /// [`Host::contract_diff`](crate::Host::contract_diff)).
    pub fn with_deltas(tool: impl Into<String>, deltas: Vec<Delta>) -> Contract {
        Contract {
            tool: tool.into(),
            deltas,
            ..Contract::default()
        }
    }

    /// `{tool, lockfile, tools}`: the module diffs the locked contract
    /// against the tools offered now.
    pub fn with_lockfile(tool: impl Into<String>, lockfile: Value, tools: Value) -> Contract {
        Contract {
            tool: tool.into(),
            lockfile: Some(lockfile),
            tools: Some(tools),
            ..Contract::default()
        }
    }
}

impl Serialize for Contract {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let diffed = self.lockfile.is_some() || self.tools.is_some();
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("tool", &self.tool)?;
        if let Some(action) = &self.action {
            map.serialize_entry("action", action)?;
        }
        if !diffed || !self.deltas.is_empty() {
            map.serialize_entry("deltas", &self.deltas)?;
        }
        if let Some(lockfile) = &self.lockfile {
            map.serialize_entry("lockfile", lockfile)?;
        }
        if let Some(tools) = &self.tools {
            map.serialize_entry("tools", tools)?;
        }
        if let Some(max) = self.max_deltas {
            map.serialize_entry("maxDeltas", &max)?;
        }
        if self.include_all_severities {
            map.serialize_entry("includeAllSeverities", &true)?;
        }
        map.end()
    }
}

/// A contract lockfile, as `contract_lock` writes it (ABI 1.2): the
/// canonical contract of each tool, its digest, tools sorted by name, and an
/// overall digest. It is also a valid `before`/`after` of
/// [`Host::contract_diff`](crate::Host::contract_diff) and `lockfile` of a
/// [`Contract`]. Serialized, its keys come in the module's order; pretty
/// printed (`serde_json::to_string_pretty`, plus a newline) it is the file
/// `toolerr lock` writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Lockfile {
    /// 1.
    pub lockfile_version: u64,
    /// `sha256:` of the lines `NAME DIGEST\n`, in order.
    pub digest: String,
    /// The tools, sorted by name.
    pub tools: Vec<LockedTool>,
}

/// One tool of a [`Lockfile`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedTool {
    /// The tool's name.
    pub name: String,
    /// `sha256:` of the canonical JSON of `contract`.
    pub digest: String,
    /// The tool's `name`, `title`, `description`, `inputSchema`,
    /// `outputSchema` and `annotations` (whichever are present), keys sorted.
    /// It is serialized with every object's keys sorted as the module sorts
    /// them (by UTF-16 code units), whether or not serde_json keeps the order
    /// of a map.
    #[serde(serialize_with = "serialize_canonical")]
    pub contract: Value,
}

/// Writes `value` with every object's keys in the module's canonical order
/// (UTF-16 code units, as `contract_lock` sorts them): a `Value` parsed from
/// the module keeps that order only with serde_json's `preserve_order`, and a
/// `BTreeMap` sorts by UTF-8 bytes, which differs for keys beyond U+E000.
fn serialize_canonical<S: Serializer>(value: &Value, s: S) -> Result<S::Ok, S::Error> {
    Canonical(value).serialize(s)
}

struct Canonical<'a>(&'a Value);

impl Serialize for Canonical<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        match self.0 {
            Value::Object(members) => {
                let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
                sorted.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
                let mut map = s.serialize_map(Some(sorted.len()))?;
                for (k, v) in sorted {
                    map.serialize_entry(k, &Canonical(v))?;
                }
                map.end()
            }
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Canonical(item))?;
                }
                seq.end()
            }
            scalar => scalar.serialize(s),
        }
    }
}

/// The request of `contract_lock`. Written by hand, not generated: it
/// borrows any `Serialize` value (rmcp's `Vec<Tool>` or `ListToolsResult`, a
/// [`Lockfile`], a `serde_json::Value`) where the spec's `json` member would
/// make the caller build a `serde_json::Value` first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContractLockRequest<'a, T: Serialize + ?Sized> {
    /// A tools array, a tools/list result or a lockfile.
    pub tools: &'a T,
}

/// The request of `contract_diff`; written by hand, as
/// [`ContractLockRequest`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContractDiffRequest<'a, B: Serialize + ?Sized, A: Serialize + ?Sized> {
    /// The older contract: a lockfile, a tools array or a tools/list result.
    pub before: &'a B,
    /// The newer one, in any of the same forms.
    pub after: &'a A,
}

/// The outcome of [`Host::validate`](crate::Host::validate).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Validation {
    /// The arguments passed: run the tool.
    Valid,
    /// They did not: answer with this `<validation_error>` result.
    Invalid(CallToolResult),
}

impl Validation {
    /// Whether the arguments passed.
    pub fn is_valid(&self) -> bool {
        matches!(self, Validation::Valid)
    }
}

/// The stdio gate's verdict on one line a client sent (the response of
/// `gate`, abi/ABI.md "The stdio gate").
///
/// Written by hand, not generated: the spec's `GateResponse` is a struct of a
/// verdict and optional members; each variant here holds the member its
/// verdict sets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "lowercase")]
pub enum GateVerdict {
    /// Hand the line on as it is.
    Pass,
    /// Hand `line` on instead.
    Rewrite {
        /// The line to hand on, without its line feed.
        line: String,
    },
    /// Write `response` and a line feed back to the client instead.
    Answer {
        /// A JSON-RPC response, without its line feed.
        response: String,
    },
    /// Do not hand the line on; `reason` says why.
    Ignore {
        /// Why, to note on stderr.
        reason: String,
    },
}

/// A parsed envelope.
///
/// Written by hand, not generated: the spec's `Envelope` is one struct whose
/// members of the other kind are zero; each variant here holds its kind's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Envelope {
    /// A `<tool_error>`.
    ToolError(ParsedToolError),
    /// A `<validation_error>`.
    ValidationError(ParsedValidationError),
}

impl Envelope {
    /// Its recovery, if any.
    pub fn recovery(&self) -> Option<&str> {
        match self {
            Envelope::ToolError(e) => e.recovery.as_deref(),
            Envelope::ValidationError(e) => e.recovery.as_deref(),
        }
    }
}

/// A `<tool_error>` read back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParsedToolError {
    /// `UNKNOWN` when the envelope has none.
    pub code: String,
    /// `error` when the envelope has none.
    pub severity: String,
    /// False only for a warning.
    pub is_error: bool,
    /// The message, trimmed and decoded.
    pub message: String,
    /// The recovery, if any.
    pub recovery: Option<String>,
    /// The actions, in order.
    pub available_actions: Vec<String>,
    /// The details as the envelope shows them (text), in order.
    pub details: Details,
    /// Seconds, if any.
    pub retry_after: Option<f64>,
}

/// A `<validation_error>` read back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParsedValidationError {
    /// The action attribute.
    pub action: String,
    /// The fields, in order.
    pub fields: Vec<Field>,
    /// The recovery, if any.
    pub recovery: Option<String>,
    /// The `<contract_awareness>` block, if any.
    pub contract: Option<ParsedContract>,
}
