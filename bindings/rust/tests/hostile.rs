//! The hostile ABI requests of tests/hostile/corpus.json, sent as raw request
//! bytes through `Host::call_raw`: each one gets the corpus's outcome (a typed
//! refusal, or an answer) within its bound, and the very next valid call on
//! the same instance still answers exactly.

use std::time::{Duration, Instant};

use serde_json::Value;
use toolerr::{ErrorCode, Host, Options, Tier, Tiers};

fn load_corpus() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/hostile/corpus.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// One {repeat, times, separator} run of a request; "{i}" is the run's index.
fn run(spec: &serde_json::Map<String, Value>, out: &mut Vec<u8>) {
    assert!(
        spec.keys()
            .all(|k| ["repeat", "times", "separator"].contains(&k.as_str())),
        "{spec:?}"
    );
    let unit = spec["repeat"].as_str().expect("repeat");
    let times = spec["times"].as_u64().expect("times") as usize;
    let separator = spec.get("separator").and_then(Value::as_str).unwrap_or("");
    let indexed = unit.contains("{i}");
    for i in 0..times {
        if i > 0 {
            out.extend_from_slice(separator.as_bytes());
        }
        if indexed {
            out.extend_from_slice(unit.replace("{i}", &i.to_string()).as_bytes());
        } else {
            out.extend_from_slice(unit.as_bytes());
        }
    }
}

/// A corpus request or response as bytes: a string's text, base64, or parts.
fn build(spec: &Value) -> Vec<u8> {
    if let Some(s) = spec.as_str() {
        return s.as_bytes().to_vec();
    }
    if let Some(b64) = spec.get("base64") {
        return base64_decode(b64.as_str().expect("base64 text"));
    }
    let mut out = Vec::new();
    for part in spec["parts"].as_array().expect("parts") {
        match part {
            Value::String(s) => out.extend_from_slice(s.as_bytes()),
            Value::Object(run_spec) => run(run_spec, &mut out),
            other => panic!("a part is a string or a run, got {other}"),
        }
    }
    if let Some(size) = spec.get("size") {
        assert_eq!(out.len() as u64, size.as_u64().unwrap(), "built size");
    }
    out
}

/// Standard base64 (the corpus holds a few bytes that are not UTF-8).
fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = ALPHABET
            .iter()
            .position(|&a| a == c)
            .expect("base64 character") as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// How an outcome differs from the case's, or None. Every engine here is
/// wasm, so a tolerated TRAP is allowed.
fn problem(case: &Value, got: &Result<String, toolerr::Error>) -> Option<String> {
    let tolerated = |code: &str| {
        case.get("tolerate")
            .and_then(Value::as_array)
            .is_some_and(|t| t.iter().any(|c| c == code))
    };
    if let Err(e) = got {
        if tolerated(e.code.as_str()) {
            return None;
        }
    }
    if let Some(want) = case.get("error") {
        let code = want["code"].as_str().unwrap();
        let e = match got {
            Ok(out) => {
                return Some(format!(
                    "a response ({}), want {code}",
                    &out[..out.len().min(100)]
                ));
            }
            Err(e) => e,
        };
        let message = e.message.as_str();
        if e.code.as_str() != code {
            return Some(format!("{e}, want {code}"));
        }
        if let Some(m) = want.get("message").and_then(Value::as_str) {
            if message != m {
                return Some(format!("message {message:?}, want {m:?}"));
            }
        }
        if let Some(m) = want.get("messageContains").and_then(Value::as_str) {
            if !message.contains(m) {
                return Some(format!("message {message:?}, want one containing {m:?}"));
            }
        }
        if let Some(m) = want.get("messagePrefix").and_then(Value::as_str) {
            if !message.starts_with(m) {
                return Some(format!("message {message:?}, want one starting {m:?}"));
            }
        }
        return None;
    }
    let out = match got {
        Ok(out) => out,
        Err(e) => return Some(format!("{e}, want a response")),
    };
    if !out.starts_with('{') || serde_json::from_str::<Value>(out).is_err() {
        return Some(format!(
            "response is not a JSON object: {}",
            &out[..out.len().min(100)]
        ));
    }
    if let Some(want) = case.get("response") {
        if out.as_bytes() != build(want) {
            return Some(format!("response {}", &out[..out.len().min(300)]));
        }
    }
    None
}

#[test]
fn hostile_requests_get_the_corpus_outcome_in_bound_and_the_plugin_keeps_serving() {
    hostile(Tiers::Compiled);
}

/// The same outcomes on the interpreter that answers a first start's calls
/// while the module compiles, which runs them many times slower: with no
/// time bound (the corpus's bounds are for compiled code), and so left out
/// of the usual run (`cargo test --test hostile -- --ignored`).
#[test]
#[ignore = "minutes on the interpreter; run with --ignored"]
fn hostile_requests_get_the_corpus_outcome_on_the_interpreter() {
    hostile(Tiers::Interpreter);
}

fn hostile(tiers: Tiers) {
    let bounded = tiers != Tiers::Interpreter;
    let corpus = load_corpus();
    // The per-call timeout is the corpus's longest bound: a loaded machine
    // then gives a late answer, which each case's bound judges, rather than
    // a TIMEOUT.
    let longest = corpus["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter_map(|c| c.get("maxSeconds").and_then(Value::as_f64))
        .fold(corpus["maxSeconds"].as_f64().unwrap(), f64::max);
    let host = Host::with_options(Options {
        max_instances: 1, // the next call runs on the instance the hostile one ran on
        call_timeout: bounded.then(|| Duration::from_secs_f64(longest)),
        tiers,
        ..Options::default()
    })
    .expect("host");
    let tier = if bounded {
        Tier::Compiled
    } else {
        Tier::Interpreter
    };
    assert_eq!(host.tier(), tier);
    let next = &corpus["next"];
    let (next_export, next_request) = (next["export"].as_str().unwrap(), build(&next["request"]));
    let want_next = String::from_utf8(build(&next["response"])).unwrap();
    let default_bound = corpus["maxSeconds"].as_f64().unwrap();
    let cases = corpus["cases"].as_array().expect("cases");
    let mut failures = Vec::new();
    let mut count = 0;
    let mut traps = 0;
    for case in cases {
        let name = case["description"].as_str().unwrap();
        let request = build(&case["request"]);
        count += 1;
        let started = Instant::now();
        let got = host.call_raw(case["export"].as_str().unwrap(), &request);
        let elapsed = started.elapsed();
        let bound = Duration::from_secs_f64(
            case.get("maxSeconds")
                .and_then(Value::as_f64)
                .unwrap_or(default_bound),
        );
        if elapsed > bound && bounded {
            failures.push(format!("{name}: took {elapsed:?}, over {bound:?}"));
        }
        if !bounded {
            eprintln!("{name}: {elapsed:?}");
        }
        if let Some(p) = problem(case, &got) {
            failures.push(format!("{name}: {p}"));
        }
        if matches!(&got, Err(e) if e.code == ErrorCode::Trap) {
            eprintln!("{name}: TRAP (tolerated)");
            traps += 1;
        }
        let after = host
            .call_raw(next_export, &next_request)
            .unwrap_or_else(|e| panic!("after {name}: {e}"));
        assert_eq!(after, want_next, "after {name}");
    }
    eprintln!("hostile requests sent: {count}");
    assert_eq!(count, cases.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // A trap replaces the instance; otherwise the one instance served them all.
    assert_eq!(
        host.live_instances(),
        1,
        "one live instance after {traps} trap(s)"
    );
}
