//! The stdio gate: a filter on the client's lines between stdin and rmcp.
//!
//! The four billing servers (Go, Node, Python, Rust) run the same gate, line
//! for line the same rules (the Go one, examples/go/gate.go, says why each
//! exists), so that arguments no SDK hands over intact reach every server's
//! handler in the same form, and a line an SDK would choke on never reaches
//! it:
//!
//! - a line that is not UTF-8 JSON, or not a JSON-RPC 2.0 message (an object
//!   with `"jsonrpc": "2.0"` and a method, a result or an error, no member the
//!   gate reads given twice), is ignored, with a note on stderr (rmcp answers
//!   one that is JSON with an error that has no id);
//! - a lone surrogate escape (`\ud800` not in a pair) anywhere in a string
//!   becomes `\ufffd`, as the module reads it (serde_json refuses the whole
//!   message, which rmcp then drops without an answer);
//! - the arguments of a tools/call that no SDK reads intact are replaced by a
//!   marker, `{"toolerr.gate": KIND}`: over 4 MiB of JSON (`too_large`), nested
//!   more than 64 levels (`too_deep`: serde_json stops at 128 levels of the
//!   whole message, and rmcp drops it), or holding a number beyond a 64-bit
//!   float such as 1e309 (`out_of_range`: serde_json refuses it, and rmcp drops
//!   the message); arguments that are not an object are wrapped,
//!   `{"toolerr.gate": "not_object", "arguments": VALUE}` (rmcp answers them
//!   with "method not found"); null arguments become `{}`.
//!
//! Every other line passes byte for byte.

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader, DuplexStream};

/// The key of the marker that replaces arguments.
pub const GATE_MARKER: &str = "toolerr.gate";
const MAX_ARGUMENT_BYTES: usize = 4 << 20; // the module's request limit
const MAX_ARGUMENT_DEPTH: usize = 64;

/// The message of the `<validation_error>` that answers a marker, the same in
/// every server.
pub fn gate_message(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "too_large" => {
            "The arguments are too large: this tool reads at most 4194304 bytes of JSON and 200000 values."
        }
        "too_deep" => {
            "The arguments are nested too deeply: this tool reads at most 64 levels of objects and arrays."
        }
        "out_of_range" => {
            "A number in the arguments is beyond the range of a 64-bit float (such as 1e309): send finite numbers."
        }
        _ => return None,
    })
}

/// The gate's marker in a call's arguments.
pub enum Marker {
    /// Arguments the server does not read: their kind.
    Refused(&'static str),
    /// Arguments that are not an object, as they were sent.
    NotObject(Value),
}

/// Reads the gate's marker in a call's arguments.
pub fn gate_marker(args: &Value) -> Option<Marker> {
    let object = args.as_object()?;
    let kind = object.get(GATE_MARKER)?.as_str()?;
    match (kind, object.len()) {
        ("too_large", 1) => Some(Marker::Refused("too_large")),
        ("too_deep", 1) => Some(Marker::Refused("too_deep")),
        ("out_of_range", 1) => Some(Marker::Refused("out_of_range")),
        ("not_object", 2) => object.get("arguments").cloned().map(Marker::NotObject),
        _ => None,
    }
}

/// Copies the lines of `input` that pass the gate to `output`, until
/// `input` ends or `output` is closed.
pub async fn run_gate<R: AsyncRead + Unpin>(input: R, mut output: DuplexStream) {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let raw_len = line.len();
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        match admit(text) {
            Ok(mut out) => {
                out.push(b'\n');
                if output.write_all(&out).await.is_err() {
                    break;
                }
            }
            Err(why) => {
                eprintln!("billing-rust: ignored a line of {raw_len} bytes from the client: {why}")
            }
        }
    }
    let _ = output.shutdown().await;
}

/// The line to hand to the SDK, or why it is ignored.
pub fn admit(line: &[u8]) -> Result<Vec<u8>, &'static str> {
    if line
        .iter()
        .all(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
    {
        return Err("blank");
    }
    if std::str::from_utf8(line).is_err() {
        return Err("not UTF-8");
    }
    let s = scan_line(line).ok_or("not JSON")?;
    if !s.message {
        return Err("not a JSON-RPC 2.0 message");
    }
    let mut edits: Vec<(usize, usize, Vec<u8>)> = Vec::new();
    let mut cut = (usize::MAX, usize::MAX); // arguments replaced whole: their own edits go
    if let (Some("tools/call"), Some((start, end))) = (s.method.as_deref(), s.args) {
        match s.arguments_kind() {
            "" => {}
            "null" => {
                edits.push((start, end, b"{}".to_vec()));
                cut = (start, end);
            }
            "not_object" => {
                let open = format!(r#"{{"{GATE_MARKER}":"not_object","arguments":"#);
                edits.push((start, start, open.into_bytes()));
                edits.push((end, end, b"}".to_vec()));
            }
            kind => {
                let marker = format!(r#"{{"{GATE_MARKER}":"{kind}"}}"#);
                edits.push((start, end, marker.into_bytes()));
                cut = (start, end);
            }
        }
    }
    for &(start, end) in &s.surrogates {
        if start < cut.0 || start >= cut.1 {
            edits.push((start, end, br"\ufffd".to_vec()));
        }
    }
    if edits.is_empty() {
        return Ok(line.to_vec());
    }
    // Never overlapping; an insertion before a replacement at one place.
    edits.sort_by_key(|e| e.0);
    let mut out = Vec::with_capacity(line.len());
    let mut at = 0;
    for (start, end, text) in edits {
        out.extend_from_slice(&line[at..start]);
        out.extend_from_slice(&text);
        at = end;
    }
    out.extend_from_slice(&line[at..]);
    Ok(out)
}

/// What the gate reads of one line.
#[derive(Default)]
struct LineScan {
    message: bool,                   // a JSON-RPC 2.0 message
    method: Option<String>,          // its method, if a string
    args: Option<(usize, usize)>,    // params.arguments
    args_first: u8,                  // the first byte of the arguments
    args_depth: usize,               // their nesting: {} is 1, a scalar 0
    args_huge: bool,                 // a number in them is beyond a 64-bit float
    surrogates: Vec<(usize, usize)>, // lone surrogate escapes
}

impl LineScan {
    /// Classifies the arguments: "" for ones the SDKs read intact.
    fn arguments_kind(&self) -> &'static str {
        let (start, end) = self.args.unwrap_or_default();
        if end - start > MAX_ARGUMENT_BYTES {
            "too_large"
        } else if self.args_depth > MAX_ARGUMENT_DEPTH {
            "too_deep"
        } else if self.args_huge {
            "out_of_range"
        } else if self.args_first == b'n' {
            "null"
        } else if self.args_first != b'{' {
            "not_object"
        } else {
            ""
        }
    }
}

/// An open array or object; for the top-level object and params, the member
/// being read.
struct Frame {
    object: bool,
    key: Option<String>,
    seen: Vec<String>, // members read twice make the message ambiguous
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    Value,      // a value is expected
    ValueOrEnd, // after '['
    KeyOrEnd,   // after '{'
    Key,        // after ',' in an object
    Colon,
    After, // after a value
}

const TOP_TRACKED: [&str; 6] = ["jsonrpc", "method", "params", "id", "result", "error"];
const PARAMS_TRACKED: [&str; 2] = ["arguments", "name"];

/// Reads `b` as JSON without recursion (any depth), keeping what the gate
/// needs; `None` when `b` is not one JSON value.
fn scan_line(b: &[u8]) -> Option<LineScan> {
    let mut s = LineScan::default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut state = State::Value;
    // While the arguments are read: where they start, and at what height.
    let (mut args_start, mut args_level) = (0usize, None::<usize>);
    let (mut version, mut has_method, mut has_result, mut has_error, mut dup) =
        (false, false, false, false, false);
    let mut i = 0;
    macro_rules! ended {
        ($end:expr) => {{
            let end = $end;
            if args_level == Some(stack.len()) {
                s.args = Some((args_start, end));
                args_level = None;
            }
            state = State::After;
        }};
    }
    loop {
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n') {
            i += 1;
        }
        if i == b.len() {
            break;
        }
        let c = b[i];
        match state {
            State::KeyOrEnd | State::Key => {
                if c == b'}' && state == State::KeyOrEnd {
                    stack.pop();
                    i += 1;
                    ended!(i);
                    continue;
                }
                if c != b'"' {
                    return None;
                }
                let end = scan_string(b, i, &mut s)?;
                if stack.len() <= 2 {
                    let in_params = stack.len() == 2 && stack[0].key.as_deref() == Some("params");
                    let height = stack.len();
                    let top = stack.last_mut()?;
                    top.key = decode_string(&b[i..end]);
                    if let Some(key) = top.key.as_deref() {
                        let tracked = if height == 1 {
                            TOP_TRACKED.contains(&key)
                        } else {
                            in_params && PARAMS_TRACKED.contains(&key)
                        };
                        if tracked {
                            dup |= top.seen.iter().any(|k| k == key);
                            top.seen.push(key.to_string());
                        }
                    }
                }
                i = end;
                state = State::Colon;
                continue;
            }
            State::Colon => {
                if c != b':' {
                    return None;
                }
                i += 1;
                state = State::Value;
                continue;
            }
            State::After => {
                let object = stack.last()?.object; // none: more after the value
                if c == b',' {
                    state = if object { State::Key } else { State::Value };
                    i += 1;
                    continue;
                }
                if (c == b'}' && object) || (c == b']' && !object) {
                    stack.pop();
                    i += 1;
                    ended!(i);
                    continue;
                }
                return None;
            }
            State::Value | State::ValueOrEnd => {}
        }
        // A value starts at i (or an empty array ends).
        if c == b']' && state == State::ValueOrEnd {
            stack.pop();
            i += 1;
            ended!(i);
            continue;
        }
        if stack.len() == 1 && stack[0].object {
            has_result |= stack[0].key.as_deref() == Some("result");
            has_error |= stack[0].key.as_deref() == Some("error");
        }
        if stack.len() == 2
            && stack[0].object
            && stack[0].key.as_deref() == Some("params")
            && stack[1].object
            && stack[1].key.as_deref() == Some("arguments")
        {
            args_start = i;
            args_level = Some(2);
            s.args_first = c;
        }
        let in_args = args_level.is_some();
        match c {
            b'{' | b'[' => {
                stack.push(Frame {
                    object: c == b'{',
                    key: None,
                    seen: Vec::new(),
                });
                if let Some(level) = args_level {
                    s.args_depth = s.args_depth.max(stack.len() - level);
                }
                i += 1;
                state = if c == b'{' {
                    State::KeyOrEnd
                } else {
                    State::ValueOrEnd
                };
                continue;
            }
            b'"' => {
                let end = scan_string(b, i, &mut s)?;
                if stack.len() == 1 && stack[0].object {
                    match stack[0].key.as_deref() {
                        Some("jsonrpc") => {
                            version = decode_string(&b[i..end]).as_deref() == Some("2.0")
                        }
                        Some("method") => {
                            s.method = decode_string(&b[i..end]);
                            has_method = true;
                        }
                        _ => {}
                    }
                }
                i = end;
            }
            b't' | b'f' | b'n' => {
                let word: &[u8] = match c {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                if !b[i..].starts_with(word) {
                    return None;
                }
                i += word.len();
            }
            _ => {
                let end = scan_number(b, i)?;
                if in_args {
                    // ASCII digits: valid UTF-8, a valid float literal.
                    let text = std::str::from_utf8(&b[i..end]).ok()?;
                    if !text.parse::<f64>().is_ok_and(f64::is_finite) {
                        s.args_huge = true;
                    }
                }
                i = end;
            }
        }
        ended!(i);
    }
    if state != State::After || !stack.is_empty() {
        return None;
    }
    let first = b
        .iter()
        .find(|c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'));
    s.message = first == Some(&b'{') && version && (has_method || has_result || has_error) && !dup;
    Some(s)
}

/// Reads the string starting at `b[i] == b'"'`; the index after it, or
/// `None`. Records its lone surrogate escapes.
fn scan_string(b: &[u8], mut i: usize, s: &mut LineScan) -> Option<usize> {
    i += 1;
    let mut pending: Option<usize> = None; // a high surrogate escape not yet paired
    let lone = |pending: &mut Option<usize>, s: &mut LineScan| {
        if let Some(p) = pending.take() {
            s.surrogates.push((p, p + 6));
        }
    };
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            lone(&mut pending, s);
            return Some(i + 1);
        }
        if c < 0x20 {
            return None;
        }
        if c != b'\\' {
            lone(&mut pending, s);
            i += 1;
            continue;
        }
        match *b.get(i + 1)? {
            b'u' => {
                let hex = std::str::from_utf8(b.get(i + 2..i + 6)?).ok()?;
                if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                    return None;
                }
                let unit = u16::from_str_radix(hex, 16).ok()?;
                match unit {
                    0xD800..=0xDBFF => {
                        lone(&mut pending, s);
                        pending = Some(i);
                    }
                    0xDC00..=0xDFFF => {
                        if pending.is_some_and(|p| p + 6 == i) {
                            pending = None; // a pair
                        } else {
                            lone(&mut pending, s);
                            s.surrogates.push((i, i + 6));
                        }
                    }
                    _ => lone(&mut pending, s),
                }
                i += 6;
            }
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                lone(&mut pending, s);
                i += 2;
            }
            _ => return None,
        }
    }
    None
}

/// Reads a JSON number starting at `b[i]`; the index after it, or `None`.
fn scan_number(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(i),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        let j = digits(i + 1);
        if j == i + 1 {
            return None;
        }
        i = j;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let j = digits(i);
        if j == i {
            return None;
        }
        i = j;
    }
    Some(i)
}

/// Decodes a JSON string token; `None` when serde_json cannot (a lone
/// surrogate: such a key or method matches nothing the gate looks for).
fn decode_string(token: &[u8]) -> Option<String> {
    serde_json::from_slice(token).ok()
}

#[cfg(test)]
mod tests {
    //! The stdio gate's rules, examples/gate-cases.json, through this
    //! server's gate; the Go, Node and Python servers' tests run the same
    //! cases through theirs.

    use super::*;

    /// A case's line: a string, or parts (strings, repeat runs, bytes).
    fn build(spec: &Value) -> Vec<u8> {
        if let Some(text) = spec.as_str() {
            return text.as_bytes().to_vec();
        }
        let mut out = Vec::new();
        for part in spec.as_array().expect("a line is a string or parts") {
            if let Some(text) = part.as_str() {
                out.extend_from_slice(text.as_bytes());
            } else if let Some(unit) = part.get("repeat").and_then(Value::as_str) {
                let times = part["times"].as_u64().expect("times") as usize;
                out.extend_from_slice(unit.repeat(times).as_bytes());
            } else {
                let bytes = part["bytes"].as_array().expect("bytes");
                out.extend(bytes.iter().map(|b| b.as_u64().expect("a byte") as u8));
            }
        }
        out
    }

    #[test]
    fn every_case_of_gate_cases_json() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../gate-cases.json");
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let file: Value = serde_json::from_str(&text).expect("gate-cases.json");
        let cases = file["cases"].as_array().expect("cases");
        assert!(!cases.is_empty());
        for case in cases {
            let name = case["name"].as_str().unwrap_or_default();
            let got = admit(&build(&case["line"]));
            match case.get("why").and_then(Value::as_str) {
                Some(why) => assert_eq!(got.err(), Some(why), "{name}"),
                None => {
                    let out = got.unwrap_or_else(|why| panic!("{name}: ignored ({why})"));
                    assert!(
                        out == build(&case["want"]),
                        "{name}: {:.200}",
                        String::from_utf8_lossy(&out)
                    );
                }
            }
        }
    }

    #[test]
    fn the_handler_reads_the_markers_and_nothing_else() {
        let refused = |v: Value| matches!(gate_marker(&v), Some(Marker::Refused(_)));
        assert!(refused(serde_json::json!({"toolerr.gate": "too_deep"})));
        assert!(matches!(
            gate_marker(&serde_json::json!({"toolerr.gate": "not_object", "arguments": [1]})),
            Some(Marker::NotObject(v)) if v == serde_json::json!([1])
        ));
        for args in [
            serde_json::json!({"toolerr.gate": "too_deep", "x": 1}),
            serde_json::json!({"toolerr.gate": "other"}),
            serde_json::json!({"toolerr.gate": "not_object"}),
            serde_json::json!({"id": "toolerr.gate"}),
            serde_json::json!([1]),
        ] {
            assert!(gate_marker(&args).is_none(), "{args}");
        }
    }
}
