//! Every case of tests/vectors/v1 through the binding's raw call (on
//! Wasmtime's compiled code and on the interpreter a first start answers
//! from) and through the batch example, compared byte for byte with the
//! case's output (the exact response text, tests/README.md), or with the
//! exact error code and message. Nothing is re-encoded: the module's response
//! text must equal the output string as the file holds it.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use common::{Case, VectorFile, compact, host_on, load_vectors};
use toolerr::{Host, Options, Tiers};

fn describe(file: &VectorFile, case: &Case) -> String {
    format!(
        "{} / {:?}",
        file.path.file_name().unwrap().to_string_lossy(),
        case.description
    )
}

/// Checks one outcome; returns a description of the mismatch, if any.
fn check(
    file: &VectorFile,
    case: &Case,
    outcome: Result<String, (String, String)>,
) -> Option<String> {
    let what = describe(file, case);
    match (case.output.as_deref(), &case.error, outcome) {
        (Some(want), None, Ok(got)) if got == want => None,
        (Some(want), None, Ok(got)) => Some(format!("{what}:\n  got  {got}\n  want {want}")),
        (Some(_), None, Err((code, message))) => {
            Some(format!("{what}: unexpected error {code}: {message}"))
        }
        (None, Some(want), Err((code, message)))
            if code == want.code && message == want.message =>
        {
            None
        }
        (None, Some(want), Err((code, message))) => Some(format!(
            "{what}:\n  got error  {code}: {message}\n  want error {}: {}",
            want.code, want.message
        )),
        (None, Some(want), Ok(got)) => Some(format!("{what}: got {got}, want error {want:?}")),
        _ => Some(format!(
            "{what}: the case needs exactly one of output and error"
        )),
    }
}

#[test]
fn vectors_v1_through_call_raw() {
    let host = host_on(Tiers::Compiled, Options::default());
    every_vector(&host, "call_raw");
}

/// The same on the interpreter tier (wasmi), which answers a first start's
/// calls while Wasmtime compiles: the same module, so the same bytes.
#[test]
fn vectors_v1_on_the_interpreter() {
    let host = host_on(Tiers::Interpreter, Options::default());
    every_vector(&host, "call_raw on the interpreter");
    assert_eq!(host.interpreted_instances(), host.live_instances());
}

fn every_vector(host: &Host, how: &str) {
    let files = load_vectors();
    let mut failures = Vec::new();
    let mut count = 0;
    for file in &files {
        assert_eq!(
            file.path.file_stem().unwrap().to_string_lossy(),
            file.export,
            "{}: export must equal the file name",
            file.path.display()
        );
        for case in &file.cases {
            count += 1;
            let outcome = host
                .call_raw(&file.export, &case.request())
                .map_err(|e| (e.code.as_str().to_string(), e.message));
            failures.extend(check(file, case, outcome));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} vectors failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{count} vectors passed through {how}");
}

/// Every export the module lists has a vector file, and every vector file
/// names an export the module has.
#[test]
fn vectors_v1_cover_every_export() {
    let host = Host::new().expect("host");
    let files: Vec<String> = load_vectors().into_iter().map(|f| f.export).collect();
    for export in &host.description().exports {
        assert!(
            files.contains(export),
            "export {export:?} has no vector file"
        );
    }
    for export in &files {
        assert!(
            host.has_export(export),
            "vector file {export}.json names no export of the module"
        );
    }
}

/// The batch example, built by `cargo test` next to this test's binary.
fn batch_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target profile dir");
    let bin = profile_dir
        .join("examples")
        .join(format!("batch{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: `cargo test` builds the examples",
        bin.display()
    );
    bin
}

#[test]
fn vectors_v1_through_batch() {
    let files = load_vectors();
    let mut input = String::new();
    let mut cases = Vec::new();
    for file in &files {
        for case in &file.cases {
            // A string input travels as the JSON string it is: the batch
            // command sends its text as the raw request.
            let line = format!(
                "{{\"op\":{},\"input\":{}}}\n",
                serde_json::to_string(&file.export).unwrap(),
                compact(case.input.get())
            );
            input.push_str(&line);
            cases.push((file, case));
        }
    }
    // Lines the protocol must answer with an error line, the batch going on.
    input.push_str("not json\n{\"input\":{}}\n{\"op\":\"no_such_export\",\"input\":{}}\n\n");
    let mut child = Command::new(batch_binary())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the batch example");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let lines: Vec<String> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| l.unwrap())
        .collect();
    writer.join().unwrap().expect("write stdin");
    let status = child.wait().unwrap();
    assert!(status.success(), "batch exited with {status}");
    assert_eq!(
        lines.len(),
        cases.len() + 3,
        "one line out per request line"
    );

    let mut failures = Vec::new();
    for ((file, case), line) in cases.iter().zip(&lines) {
        let outcome = if case.error.is_some() {
            let v: serde_json::Value = serde_json::from_str(line).expect("an error line is JSON");
            match (v["error"]["code"].as_str(), v["error"]["message"].as_str()) {
                (Some(code), Some(message)) => Err((code.to_string(), message.to_string())),
                _ => Ok(line.clone()),
            }
        } else {
            Ok(line.clone())
        };
        failures.extend(check(file, case, outcome));
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    let tail: Vec<serde_json::Value> = lines[cases.len()..]
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let message = |i: usize| tail[i]["error"]["message"].as_str().unwrap().to_string();
    assert!(
        message(0).starts_with("batch: line ")
            && message(0).ends_with(" is not a JSON object {\"op\",\"input\"}"),
        "{}",
        message(0)
    );
    assert!(
        message(1).starts_with("batch: line ")
            && message(1).ends_with(": \"op\" must be a non-empty string"),
        "{}",
        message(1)
    );
    assert_eq!(tail[2]["error"]["code"], "INVALID_REQUEST");
    assert_eq!(
        tail[2]["error"]["message"],
        "unknown export \"no_such_export\""
    );
    eprintln!("{} vectors passed through the batch example", cases.len());
}

#[test]
fn compact_keeps_escapes_as_written() {
    assert_eq!(
        compact("{ \"a\" : \"x \\ud800 \\\" y\" ,\n \"b\": [1, 2] }"),
        "{\"a\":\"x \\ud800 \\\" y\",\"b\":[1,2]}"
    );
}
