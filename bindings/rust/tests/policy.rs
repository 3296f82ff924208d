//! The host policy of abi/ABI.md ("Host policy"): this binding's defaults are
//! the table's. The table is the one statement of the defaults every toolerr
//! host applies (Go, Node, Python, Rust); each host's tests read it. Here: the
//! values, and that a host made with `Options::default()` applies them, on
//! Wasmtime's compiled code and on the interpreter (wasmi) that answers a
//! first start's calls while the module compiles.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::{host_on, load_vectors};
use serde_json::json;
use toolerr::{ErrorCode, Host, Options, Tiers};

/// The rows of the first table of ABI.md's "## Host policy" section, as cells.
fn policy_table() -> Vec<Vec<String>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../abi/ABI.md");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (_, section) = text
        .split_once("\n## Host policy\n")
        .expect("ABI.md has a \"## Host policy\" section");
    let section = section.split("\n## ").next().unwrap_or_default();
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in section.lines() {
        if !line.starts_with('|') {
            if in_table {
                break; // the first table ends
            }
            continue;
        }
        in_table = true;
        // No cell of this table holds a '|'.
        let cells: Vec<String> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect();
        assert_eq!(cells.len(), 4, "host policy row {line:?}");
        if cells[0] == "rule" || cells[0].starts_with("---") {
            continue;
        }
        rows.push(cells);
    }
    assert!(!rows.is_empty(), "ABI.md's host policy table has no rows");
    rows
}

/// The named rows: `name` to its default, a whole number.
fn policy_defaults() -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for row in policy_table() {
        let (rule, name, default) = (&row[0], &row[1], &row[2]);
        if name.is_empty() {
            assert!(
                default.is_empty(),
                "host policy row {rule:?} has a default but no name"
            );
            continue;
        }
        let name = name
            .strip_prefix('`')
            .and_then(|n| n.strip_suffix('`'))
            .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphabetic()))
            .unwrap_or_else(|| {
                panic!("host policy row {rule:?}: name {name:?} is not one `identifier`")
            });
        let value = default.parse::<u64>().unwrap_or_else(|_| {
            panic!("host policy row {rule:?}: default {default:?} is not a whole number")
        });
        out.insert(name.to_string(), value);
    }
    out
}

/// Two tests of `$check`, in a module named `$name`: `compiled`, on
/// Wasmtime's compiled code, and `on_the_interpreter`, on wasmi.
macro_rules! on_both_tiers {
    ($name:ident => $check:ident) => {
        mod $name {
            #[test]
            fn compiled() {
                super::$check(toolerr::Tiers::Compiled);
            }

            #[test]
            fn on_the_interpreter() {
                super::$check(toolerr::Tiers::Interpreter);
            }
        }
    };
}

#[test]
fn defaults_are_the_abi_table() {
    let options = Options::default();
    let host = Host::new().expect("host");
    let mine = BTreeMap::from([
        (
            "memoryMaxPages".to_string(),
            u64::from(options.memory_max_pages),
        ),
        (
            "callTimeoutMs".to_string(),
            options.call_timeout.expect("a default timeout").as_millis() as u64,
        ),
        // From the module's describe, which the host checks requests against.
        (
            "maxRequestBytes".to_string(),
            host.description().limits.max_request_bytes,
        ),
        (
            "retireMemoryPages".to_string(),
            u64::from(Host::RETIRE_MEMORY_PAGES),
        ),
    ]);
    assert_eq!(policy_defaults(), mine);
}

#[test]
fn a_request_over_the_limit_is_refused_before_the_module() {
    let host = Host::new().expect("host");
    let limit = host.description().limits.max_request_bytes as usize;
    let body = format!(r#"{{"text":"{}"}}"#, "a".repeat(limit - 10));
    let err = host
        .call_raw("parse", body.as_bytes())
        .expect_err("an over-limit request answered");
    assert_eq!(err.code, ErrorCode::RequestTooLarge);
    assert_eq!(
        err.message,
        format!(
            "parse: request is {} bytes, over the limit of {limit}",
            body.len()
        )
    );
}

on_both_tiers!(an_instance_is_retired_by_what_its_memory_grew_to => retired_by_growth);

fn retired_by_growth(tiers: Tiers) {
    // Not by the request's size: a 4 MB parse that grows memory little keeps
    // its instance, a 4 MB required_field that grows it past
    // retireMemoryPages does not.
    let row = policy_table()
        .into_iter()
        .find(|r| r[1] == "`retireMemoryPages`")
        .expect("a retireMemoryPages row");
    assert!(
        row[3].contains(&format!("is over {} KiB", Host::MEMORY_CHECK_BYTES >> 10)),
        "{}",
        row[3]
    );
    let host = one_instance(tiers, Options::default());
    small_call(&host, "a small call");
    assert_eq!(
        host.live_instances(),
        1,
        "a small request leaves its instance in the pool"
    );
    host.call("parse", &json!({"text": "&amp;".repeat(800_000)}))
        .unwrap();
    assert_eq!(
        host.live_instances(),
        1,
        "a large request that grew memory little leaves its instance"
    );
    host.call("required_field", &json!({"field": "f".repeat(4_000_000)}))
        .unwrap();
    assert_eq!(
        host.live_instances(),
        0,
        "the instance grown past retireMemoryPages is retired"
    );
    small_call(&host, "a small call");
    assert_eq!(host.live_instances(), 1);
}

on_both_tiers!(small_requests_that_grow_memory_retire_the_instance => small_growth);

fn small_growth(tiers: Tiers) {
    // The memory is read after every call, not only after one over 64 KiB:
    // forty small requests in a row that each leave megabytes of garbage
    // (collected only between calls) once grew an instance to a 2048-page
    // cap, where a call that needed more trapped.
    let (request, message) = heavy_diff_request();
    assert!(request.to_string().len() < Host::MEMORY_CHECK_BYTES);
    let host = one_instance(
        tiers,
        Options {
            memory_max_pages: 2048,
            ..Options::default()
        },
    );
    for i in 1..=40 {
        let err = host
            .call("contract_diff", &request)
            .expect_err("a diff over its budget");
        assert_eq!(err.code, ErrorCode::RequestTooLarge, "call {i}: {err}");
        assert_eq!(err.message, message, "call {i}");
    }
}

/// The contract_diff vector every host sends forty times in a row (an 18 KB
/// request refused at its work budget after allocating several megabytes
/// inside the module): its request and its error's message.
fn heavy_diff_request() -> (serde_json::Value, String) {
    let wanted = "error a long string among the shared subschemas: refused at the budget after megabytes of work (hosts send it forty times in a row)";
    let case = load_vectors()
        .into_iter()
        .filter(|f| f.export == "contract_diff")
        .flat_map(|f| f.cases)
        .find(|c| c.description == wanted)
        .expect(wanted);
    // The input is a JSON string holding the request's text.
    let text: String = serde_json::from_str(case.input.get()).expect("a raw input");
    let request = serde_json::from_str(&text).expect("the input's JSON");
    (request, case.error.expect("an error case").message)
}

on_both_tiers!(the_memory_cap_applies => memory_cap);

fn memory_cap(tiers: Tiers) {
    // An adversarial parse of 4 MiB answers under the default cap, and traps
    // (the instance replaced, the next call answered) under a cap that leaves
    // a new instance 1 MiB (16 pages) more than it starts with: not enough for
    // the request, let alone its parse.
    let request = adversarial_parse();
    let host = one_instance(tiers, Options::default());
    let described: serde_json::Value = serde_json::from_str(
        &host
            .call("describe", &json!({"memory": true}))
            .expect("describe"),
    )
    .expect("describe's JSON");
    let start = described["memoryPages"].as_u64().expect("memoryPages");
    host.call("parse", &request)
        .expect("the default cap answers");
    let small = one_instance(
        tiers,
        Options {
            memory_max_pages: u32::try_from(start + 16).expect("pages"),
            ..Options::default()
        },
    );
    let err = small
        .call("parse", &request)
        .expect_err("the capped instance answered");
    assert_eq!(err.code, ErrorCode::Trap, "{err}");
    assert_eq!(small.live_instances(), 0, "the trapped instance is retired");
    small_call(&small, "the next call");
    assert_eq!(small.live_instances(), 1);
}

on_both_tiers!(a_call_past_its_deadline_times_out_and_its_instance_is_retired => deadline);

/// wasmi has no epoch interruption: a call with a deadline runs on fuel, a
/// slice at a time, and stops at the first slice that ends past it.
fn deadline(tiers: Tiers) {
    // The adversarial parse runs for far longer than 20 ms; a small call
    // takes well under it.
    let request = adversarial_parse();
    let host = one_instance(tiers, timeout_ms(20));
    // The instance is made first: starting one (its `_initialize`) is not
    // part of the call the deadline bounds, and on a loaded machine it can
    // take longer than the bound below.
    small_call(&host, "the first call");
    for round in 0..2 {
        let started = Instant::now();
        let err = host.call("parse", &request).expect_err("answered in 20 ms");
        assert_eq!(err.code, ErrorCode::Timeout, "{err}");
        assert_eq!(err.message, "parse: the call ran out of time");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "round {round}: stopped after {:?}",
            started.elapsed()
        );
        assert_eq!(host.live_instances(), 0, "the instance is retired");
        small_call(&host, "the next call");
        assert_eq!(host.live_instances(), 1);
        // Idle for over a second: the clock that bounds calls sleeps, and
        // the next call wakes it.
        std::thread::sleep(Duration::from_millis(1500));
    }
}

on_both_tiers!(a_short_call_timeout_still_makes_instances => short_timeout);

fn short_timeout(tiers: Tiers) {
    // Starting an instance (the module's `_initialize`) takes far longer
    // than 1 ms; it is bounded by the default timeout, and a small call
    // then answers within 1 ms (on the interpreter too, on a quiet machine;
    // a loaded one may take longer, so the call gets 5 ms there).
    let bound = match tiers {
        Tiers::Interpreter => 5,
        _ => 1,
    };
    let host = one_instance(tiers, timeout_ms(bound));
    for _ in 0..3 {
        let text = small_call(&host, "a small call answers");
        assert!(text.contains("MISSING_REQUIRED_FIELD"), "{text}");
    }
}

/// A host of `options` on `tiers` with one instance at the most, so that
/// what a call does to its instance shows in `live_instances`.
fn one_instance(tiers: Tiers, options: Options) -> Host {
    host_on(
        tiers,
        Options {
            max_instances: 1,
            ..options
        },
    )
}

/// The default options but for a call timeout of `ms` milliseconds.
fn timeout_ms(ms: u64) -> Options {
    Options {
        call_timeout: Some(Duration::from_millis(ms)),
        ..Options::default()
    }
}

/// A small call, which any instance answers (`required_field` of `id`):
/// its answer; `what` names it in the failure.
fn small_call(host: &Host, what: &str) -> String {
    host.call("required_field", &json!({"field": "id"}))
        .expect(what)
}

/// A parse request of 4 MiB whose every detail opens another: slow, and
/// some 150 MiB of the module's memory.
fn adversarial_parse() -> serde_json::Value {
    let text = format!(
        "<tool_error code='X'><message>m</message>{}",
        "<detail key='v' k2='<detail key=' ".repeat(120_000)
    );
    json!({"text": text})
}
