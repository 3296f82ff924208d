//! The host: the included module, its checks at load, typed errors, the pool.

mod common;

use std::sync::Arc;

use serde_json::json;
use toolerr::{ErrorCode, Host, Options, WASM, WASM_SHA256_FILE, wasm_sha256};

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn included_wasm_matches_committed_sha256() {
    assert_eq!(sha256_hex(WASM), wasm_sha256());
    assert_eq!(
        WASM_SHA256_FILE.trim_end(),
        format!("{}  toolerr.wasm", wasm_sha256())
    );
    // The included bytes are the committed artifact's, not a stale copy.
    let committed = std::fs::read(common::repo_root().join("plugin/toolerr.wasm")).unwrap();
    assert!(
        committed == WASM,
        "plugin/toolerr.wasm changed since this crate was built"
    );
}

#[test]
fn host_loads_and_checks_abi_major() {
    let host = Host::new().expect("host");
    let d = host.description();
    assert_eq!(d.abi_version.split('.').next(), Some("1"));
    assert!(host.has_export("tool_error") && host.has_export("describe"));
    assert_eq!(host.describe().unwrap(), *d);
}

#[test]
fn host_refuses_bytes_with_another_sha256() {
    let mut bytes = WASM.to_vec();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let err = Host::with_options(Options {
        wasm: Some((bytes, wasm_sha256().into())),
        ..Options::default()
    })
    .expect_err("a tampered module loads");
    assert_eq!(err.code, ErrorCode::Trap);
    assert!(err.message.contains("sha256"), "{err}");
}

#[test]
fn bad_input_is_a_typed_error_naming_the_field_and_the_plugin_keeps_serving() {
    let host = Host::with_options(Options {
        max_instances: 1,
        ..Options::default()
    })
    .unwrap();
    for _ in 0..3 {
        let err = host.call("tool_error", &json!({"code": "X"})).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
        assert_eq!(err.message, "tool_error: \"message\" is required");
        assert_eq!(
            err.to_string(),
            "INVALID_REQUEST: tool_error: \"message\" is required"
        );

        let err = host
            .call(
                "tool_error",
                &json!({"code": "X", "message": "m", "details": {"k": {}}}),
            )
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
        assert!(err.message.contains("\"details.k\""), "{err}");

        let err = host.call_raw("tool_error", b"{\"code\":").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);

        // The same instance answers the next request.
        let ok = host
            .call("simple_error", &json!({"message": "still here"}))
            .unwrap();
        assert_eq!(
            ok,
            r#"{"content":[{"type":"text","text":"<tool_error>\n<message>still here</message>\n</tool_error>"}],"isError":true}"#
        );
    }
    assert_eq!(
        host.live_instances(),
        1,
        "a bad request discards no instance"
    );

    // The typed API reports the module's own message too.
    let err = host
        .tool_error(&toolerr::ToolErrorRequest {
            code: String::new(),
            message: "m".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(err.message.starts_with("tool_error: \"code\""), "{err}");
}

#[test]
fn unknown_export_and_oversized_request_are_refused() {
    let host = Host::new().unwrap();
    let err = host.call("nope", &json!({})).unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (ErrorCode::InvalidRequest, "unknown export \"nope\"")
    );

    let limit = host.description().limits.max_request_bytes as usize;
    let mut big = b"{\"text\":\"".to_vec();
    big.resize(limit + 1 - 2, b'a');
    big.extend_from_slice(b"\"}");
    assert_eq!(big.len(), limit + 1);
    let err = host.call_raw("parse", &big).unwrap_err();
    assert_eq!(err.code, ErrorCode::RequestTooLarge);
    assert_eq!(
        err.message,
        format!(
            "parse: request is {} bytes, over the limit of {limit}",
            limit + 1
        )
    );
}

#[test]
fn host_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Host>();
    assert_send_sync::<toolerr::Error>();
    assert_send_sync::<toolerr::ToolError>();
}

/// 8 threads × 1,000 calls on one shared host; every result is checked.
#[test]
fn pool_serves_8_threads_x_1000_calls() {
    let host = Arc::new(
        Host::with_options(Options {
            max_instances: 4,
            ..Options::default()
        })
        .unwrap(),
    );
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let host = Arc::clone(&host);
            std::thread::spawn(move || {
                for i in 0..1000 {
                    let message = format!("thread {t} call {i} <&>");
                    let got = host.call("tool_error", &json!({"code": "X", "message": message})).unwrap();
                    let want = format!(
                        r#"{{"content":[{{"type":"text","text":"<tool_error code=\"X\" severity=\"error\">\n<message>thread {t} call {i} &lt;&amp;></message>\n</tool_error>"}}],"isError":true}}"#
                    );
                    assert_eq!(got, want);
                    if i % 100 == 0 {
                        // A bad request in the middle changes nothing.
                        assert!(host.call("tool_error", &json!({"code": "X"})).is_err());
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a thread failed");
    }
    assert!(
        host.live_instances() <= 4,
        "live instances {}",
        host.live_instances()
    );
}

#[test]
fn typed_api_round_trips_through_parse() {
    let host = Host::new().unwrap();
    let err = toolerr::tool_error("RATE_LIMITED", "Too many requests.")
        .suggest("Wait, then retry.")
        .actions(["status", "cancel"])
        .severity(toolerr::Severity::Critical)
        .details([("zeta", 1)])
        .detail("alpha", "two")
        .detail("on", true)
        .retry_after(12.5);
    let rendered = err.render(&host).unwrap();
    assert!(rendered.is_error);
    match host.parse_result(&rendered).unwrap() {
        Some(toolerr::Envelope::ToolError(e)) => {
            assert_eq!(e.code, "RATE_LIMITED");
            assert_eq!(e.severity, "critical");
            assert_eq!(e.message, "Too many requests.");
            assert_eq!(e.recovery.as_deref(), Some("Wait, then retry."));
            assert_eq!(e.available_actions, ["status", "cancel"]);
            let details: Vec<(String, String)> = e
                .details
                .iter()
                .map(|(k, v)| (k.into(), v.to_string()))
                .collect();
            assert_eq!(
                details,
                [
                    ("zeta".into(), "1".into()),
                    ("alpha".into(), "two".into()),
                    ("on".into(), "true".into())
                ]
            );
            assert_eq!(e.retry_after, Some(12.5));
        }
        other => panic!("parsed {other:?}"),
    }
    assert_eq!(host.parse("no envelope here").unwrap(), None);
    assert_eq!(
        host.escape("a<b>&\"", toolerr::EscapeContext::Attribute)
            .unwrap(),
        "a&lt;b&gt;&amp;&quot;"
    );
    let warning = toolerr::tool_error("DEPRECATED", "Use v2.")
        .severity(toolerr::Severity::Warning)
        .render(&host)
        .unwrap();
    assert!(!warning.is_error);
}
