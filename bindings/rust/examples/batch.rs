//! The batch protocol (docs/CONTRACT.md, "Batch protocol") on the Rust binding.
//!
//! Reads JSON lines `{"op": EXPORT, "input": …}` on stdin and writes, for each,
//! exactly one line on stdout: the response as the module wrote it, or
//! `{"error":{"code":…,"message":…}}`. A string `input` is the raw request
//! text (so malformed requests can be sent); any other `input` is passed to
//! the module as written, escapes included. A bad line gets an error line and
//! the batch goes on. Nothing else is written to stdout.
//!
//! ```sh
//! echo '{"op":"simple_error","input":{"message":"m"}}' | cargo run --example batch
//! ```

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use serde::Deserialize;
use serde_json::value::RawValue;
use toolerr::{Error, ErrorCode, Host};

/// One request line. `input` keeps its raw text.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(default)]
    op: Option<String>,
    // Present is always Some, even `null` (sent as the request `null`).
    #[serde(borrow, default, deserialize_with = "present")]
    input: Option<&'a RawValue>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

fn main() -> ExitCode {
    let host = match Host::new() {
        Ok(host) => host,
        Err(e) => {
            eprintln!("batch: {e}");
            return ExitCode::FAILURE;
        }
    };
    let stdin = io::stdin().lock();
    let mut out = BufWriter::new(io::stdout().lock());
    match run(&host, stdin, &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("batch: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(host: &Host, mut input: impl BufRead, out: &mut impl Write) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        let text = match std::str::from_utf8(&line) {
            Ok(text) => text.trim(),
            Err(e) => {
                write_error(
                    out,
                    &Error::new(
                        ErrorCode::InvalidRequest,
                        format!("batch: line is not UTF-8: {e}"),
                    ),
                )?;
                continue;
            }
        };
        if text.is_empty() {
            continue;
        }
        match one(host, text) {
            Ok(response) => {
                out.write_all(response.as_bytes())?;
                out.write_all(b"\n")?;
            }
            Err(e) => write_error(out, &e)?,
        }
        out.flush()?;
    }
}

/// Answers one line.
fn one(host: &Host, text: &str) -> Result<String, Error> {
    let line: Line = serde_json::from_str(text).map_err(|e| {
        Error::new(
            ErrorCode::InvalidRequest,
            format!("batch: line is not {{\"op\",\"input\"}}: {e}"),
        )
    })?;
    let op = match line.op.as_deref() {
        Some(op) if !op.is_empty() => op,
        _ => {
            return Err(Error::new(
                ErrorCode::InvalidRequest,
                "batch: \"op\" is required",
            ));
        }
    };
    let raw = line.input.map(RawValue::get).unwrap_or("{}");
    if raw.starts_with('"') {
        let request: String = serde_json::from_str(raw)
            .map_err(|e| Error::new(ErrorCode::InvalidRequest, format!("batch: raw input: {e}")))?;
        return host.call_raw(op, request.as_bytes());
    }
    host.call_raw(op, raw.as_bytes())
}

fn write_error(out: &mut impl Write, e: &Error) -> io::Result<()> {
    let line = serde_json::json!({"error": {"code": e.code.as_str(), "message": e.message}});
    writeln!(out, "{line}")?;
    out.flush()
}
