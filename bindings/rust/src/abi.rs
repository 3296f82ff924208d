//! The serde types of the JSON ABI (abi/ABI.md): one request type per export
//! and the responses. Field names are camelCase on the wire; optional fields
//! are left out when absent. These types only carry data: every rule (what is
//! required, what a value may be) is checked by the module, which answers a
//! bad request with an [`Error`](crate::Error) naming the field.

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// One text block of a [`CallToolResult`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Content {
    /// Always `"text"`: toolerr only produces and reads text blocks.
    #[serde(rename = "type")]
    pub kind: String,
    /// The block's text.
    pub text: String,
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Content {
        Content {
            kind: "text".into(),
            text: text.into(),
        }
    }
}

/// The MCP result every rendering export returns:
/// `{"content":[{"type":"text","text":…}],"isError":…}`.
///
/// Convert it into rmcp's `CallToolResult` with `.into()`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// The blocks, in order.
    pub content: Vec<Content>,
    /// False for success and for warnings (`severity: warning`).
    pub is_error: bool,
}

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

/// A tool error's severity: `isError` is false only for `Warning`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The default.
    #[default]
    Error,
    /// A failure the model must not work around.
    Critical,
    /// Guidance on the success path (deprecated parameter, fallback, truncation).
    Warning,
}

impl Severity {
    /// The severity as the ABI writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Critical => "critical",
            Severity::Warning => "warning",
        }
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

impl From<&str> for DetailValue {
    fn from(v: &str) -> Self {
        DetailValue::String(v.to_string())
    }
}
impl From<String> for DetailValue {
    fn from(v: String) -> Self {
        DetailValue::String(v)
    }
}
impl From<&String> for DetailValue {
    fn from(v: &String) -> Self {
        DetailValue::String(v.clone())
    }
}
impl From<bool> for DetailValue {
    fn from(v: bool) -> Self {
        DetailValue::Bool(v)
    }
}
macro_rules! detail_number {
    ($($t:ty),*) => {$(
        impl From<$t> for DetailValue {
            fn from(v: $t) -> Self {
                DetailValue::Number(v as f64)
            }
        }
    )*};
}
detail_number!(f64, f32, i8, i16, i32, i64, u8, u16, u32, u64, isize, usize);

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

/// The request of `tool_error`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolErrorRequest {
    /// Not empty; canonical codes are listed by `describe`, any other is allowed.
    pub code: String,
    /// What went wrong, for the model.
    pub message: String,
    /// Rendered as `<recovery>` when not empty.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub suggestion: Option<String>,
    /// Tools the model may call next.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub available_actions: Vec<String>,
    /// `error` when absent.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub severity: Option<Severity>,
    /// Key/value details, in order.
    #[serde(skip_serializing_if = "Details::is_empty", default)]
    pub details: Details,
    /// Seconds to wait; rendered only when finite and > 0.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub retry_after: Option<f64>,
}

/// The request of `simple_error`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SimpleErrorRequest {
    /// The message.
    pub message: String,
    /// No `code` attribute when absent.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub code: Option<String>,
}

/// The request of `required_field`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RequiredFieldRequest {
    /// The missing field.
    pub field: String,
}

/// The request of `internal_error`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct InternalErrorRequest {
    /// The failure's message; prefixed `[tool/action] ` or `[tool] `.
    pub message: String,
    /// The tool that failed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tool: Option<String>,
    /// The action that failed; needs `tool`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub action: Option<String>,
}

/// The request of `rate_limited`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RateLimitedRequest {
    /// Requests allowed per window.
    pub max: f64,
    /// The window, in seconds.
    pub window_seconds: f64,
    /// Seconds to wait.
    pub retry_after: f64,
    /// The limited key; `__global__` when absent.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub key: Option<String>,
}

/// The request of `server_busy`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ServerBusyRequest {
    /// The tool at capacity.
    pub tool: String,
    /// Calls running.
    pub active: f64,
    /// Calls waiting.
    pub queued: f64,
}

/// The request of `unknown_tool` (ABI 1.5).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct UnknownToolRequest {
    /// The name of the tool called.
    pub tool: String,
    /// The server's tools, in its order (as tools/list gives them).
    pub tools: Vec<String>,
}

/// Where escaped text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EscapeContext {
    /// An element body: `&` and `<` (and the `>` of `]]>`).
    Content,
    /// A double-quoted attribute: `&` `<` `>` `"` `'`.
    Attribute,
}

/// The request of `escape`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EscapeRequest {
    /// The text to escape.
    pub text: String,
    /// Where it goes.
    pub context: EscapeContext,
}

/// The response of `escape`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EscapeResponse {
    /// The escaped text.
    pub text: String,
}

/// One change of a tool's contract.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Delta {
    /// Not rendered.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub category: Option<String>,
    /// The changed field, e.g. `actions.create.title`.
    pub field: String,
    /// `BREAKING`, `RISKY`, `SAFE` or `COSMETIC`.
    pub severity: String,
    /// What changed.
    pub description: String,
    /// The old value, if any.
    #[serde(default)]
    pub before: Option<String>,
    /// The new value, if any.
    #[serde(default)]
    pub after: Option<String>,
}

/// Asks a validation error to tell the model what changed in the contract:
/// either the changes themselves (`{tool, deltas}`, e.g. from
/// [`Host::contract_diff`](crate::Host::contract_diff) at start-up), or a
/// lockfile and the tools offered now (`{tool, lockfile, tools}`), which the
/// module diffs itself (cached by their digests).
///
/// `deltas` is sent when neither `lockfile` nor `tools` is set, and also when
/// it is not empty (the module refuses both at once).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Contract {
    /// The tool whose contract changed; the module keeps the deltas whose
    /// field is `actions.<tool>` or under it.
    pub tool: String,
    /// The action; the request's `action` when absent.
    #[serde(default)]
    pub action: Option<String>,
    /// The changes, in order.
    #[serde(default)]
    pub deltas: Vec<Delta>,
    /// The locked contract (a lockfile, a tools array or a tools/list
    /// result), instead of `deltas`; needs `tools`.
    #[serde(default)]
    pub lockfile: Option<Value>,
    /// The tools offered now (a tools array or a tools/list result), diffed
    /// against `lockfile`.
    #[serde(default)]
    pub tools: Option<Value>,
    /// How many to keep; 5 when absent.
    #[serde(default)]
    pub max_deltas: Option<u32>,
    /// Keep every severity, not only BREAKING and RISKY.
    #[serde(default)]
    pub include_all_severities: bool,
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

/// The request of `contract_lock`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContractLockRequest<'a, T: Serialize + ?Sized> {
    /// A tools array, a tools/list result or a lockfile.
    pub tools: &'a T,
}

/// The request of `contract_diff`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContractDiffRequest<'a, B: Serialize + ?Sized, A: Serialize + ?Sized> {
    /// The older contract: a lockfile, a tools array or a tools/list result.
    pub before: &'a B,
    /// The newer one, in any of the same forms.
    pub after: &'a A,
}

/// The response of `contract_diff`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContractDiff {
    /// The changes, sorted by severity (BREAKING, RISKY, SAFE, COSMETIC),
    /// then field, then description.
    pub deltas: Vec<Delta>,
    /// The first delta's severity; `None` with no deltas.
    pub max_severity: Option<String>,
    /// False exactly when a delta is BREAKING.
    pub backwards_compatible: bool,
}

/// The request of `format_validation`: a validator's issues, rendered as a
/// `<validation_error>`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FormatValidationRequest {
    /// The tool or action the arguments were for.
    pub action: String,
    /// The validator's issue objects (Zod v3 by default), read leniently.
    pub issues: Value,
    /// What the model sent, for `You sent:`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub args: Option<Value>,
    /// `zod` (default), `pydantic` or `jsonschema`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub dialect: Option<String>,
    /// Contract awareness.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub contract: Option<Contract>,
}

/// The request of `validate`: arguments checked against a tool's JSON Schema.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ValidateRequest {
    /// The tool or action; the `action` of the `<validation_error>`.
    pub action: String,
    /// The tool's `inputSchema`.
    pub schema: Value,
    /// The arguments the model sent (`{}` when it sent none).
    pub args: Value,
    /// Contract awareness.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub contract: Option<Contract>,
}

/// The response of `validate`, as the module writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidateResponse {
    /// Whether the arguments passed.
    pub valid: bool,
    /// The `<validation_error>` result when they did not.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub result: Option<CallToolResult>,
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

/// The request of `parse`: `{text}` or `{result}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParseRequest {
    /// Text that may hold an envelope.
    Text(String),
    /// A result whose first text block holding an envelope is read.
    Result(CallToolResult),
}

/// The response of `parse`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParseResponse {
    /// None when there is no envelope.
    pub envelope: Option<Envelope>,
}

/// The request of `check_result`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckResultRequest {
    /// The result a client received.
    pub result: CallToolResult,
}

/// A parsed envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Envelope {
    /// A `<tool_error>`.
    ToolError(ParsedToolError),
    /// A `<validation_error>`.
    ValidationError(ParsedValidationError),
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

/// One `<field>` of a validation error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Field {
    /// The issue path, or `(root)`.
    pub name: String,
    /// The line: message, `You sent: …`, suggestion.
    pub message: String,
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

/// A `<contract_awareness>` block read back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParsedContract {
    /// The tool.
    pub tool: String,
    /// The action.
    pub action: String,
    /// How many changes the block lists.
    pub change_count: u64,
    /// The first change's severity.
    pub max_severity: String,
    /// The changes.
    pub changes: Vec<Delta>,
}

/// Limits the module enforces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    /// The largest request, in bytes.
    pub max_request_bytes: u64,
    /// The deepest nesting of arrays and objects.
    pub max_depth: u64,
}

/// The response of `describe`: what the module says of itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Description {
    /// `major.minor`, e.g. `1.0`.
    pub abi_version: String,
    /// The release of the contract logic.
    pub version: String,
    /// The JSON exports, in order.
    pub exports: Vec<String>,
    /// The canonical tool error codes.
    pub codes: Vec<String>,
    /// The severities.
    pub severities: Vec<String>,
    /// The validator dialects `format_validation` reads (ABI 1.1).
    #[serde(default)]
    pub dialects: Vec<String>,
    /// The limits.
    pub limits: Limits,
}
