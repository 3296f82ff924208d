//! The hostile ABI requests of the security issue, sent as raw request bytes
//! through `Host::call_raw`: each one is refused with the expected typed error
//! (or answered correctly) within a bound, and the very next valid call on the
//! same instance still answers exactly.

use std::time::{Duration, Instant};

use toolerr::{ErrorCode, Host, Options};

const MAX_REQUEST_BYTES: usize = 4194304;
const BOUND: Duration = Duration::from_secs(10);
const REQUIRED_ID: &str = "<tool_error code=\"MISSING_REQUIRED_FIELD\">\n<message>Required field \"id\" is missing.</message>\n<recovery>Provide the \"id\" parameter and retry.</recovery>\n</tool_error>";

/// A `parse` request whose JSON text is exactly `size` bytes.
fn parse_of_size(size: usize) -> Vec<u8> {
    let (pre, post) = ("{\"text\":\"", "\"}");
    let mut v = pre.as_bytes().to_vec();
    v.resize(size - post.len(), b'a');
    v.extend_from_slice(post.as_bytes());
    assert_eq!(v.len(), size);
    v
}

fn with_details(n: usize) -> Vec<u8> {
    let body: Vec<String> = (0..n).map(|i| format!("\"k{i}\":1")).collect();
    format!("{{\"code\":\"X\",\"message\":\"m\",\"details\":{{{}}}}}", body.join(",")).into_bytes()
}

fn rate(max: &str) -> Vec<u8> {
    format!("{{\"max\":{max},\"windowSeconds\":60,\"retryAfter\":60}}").into_bytes()
}

enum Msg {
    Any,
    Exact(&'static str),
    Contains(&'static str),
    StartsWith(&'static str),
}

enum Want {
    Err(ErrorCode, Msg),
    Ok(fn(&str)),
}

fn null_envelope(out: &str) {
    assert_eq!(out, r#"{"envelope":null}"#);
}

/// Pinned: 100,000 details (about 1 MB, at most 200,000 values) are answered, in order.
fn hundred_thousand_details(out: &str) {
    let v: serde_json::Value = serde_json::from_str(out).unwrap();
    assert_eq!(v["isError"], serde_json::Value::Bool(true));
    let text = v["content"][0]["text"].as_str().unwrap();
    let lines: Vec<&str> = text
        .split('\n')
        .filter(|l| l.starts_with("  <detail key="))
        .collect();
    assert_eq!(lines.len(), 100_000);
    assert_eq!(lines[0], "  <detail key=\"k0\">1</detail>");
    assert_eq!(lines[99_999], "  <detail key=\"k99999\">1</detail>");
}

fn minus_zero_is_zero(out: &str) {
    let v: serde_json::Value = serde_json::from_str(out).unwrap();
    let text = v["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("<tool_error code=\"RATE_LIMITED\" severity=\"error\">\n<message>Rate limit exceeded. Maximum 0 requests per 60s window.</message>"),
        "{text}"
    );
}

#[test]
fn hostile_requests_are_refused_in_bound_and_the_plugin_keeps_serving() {
    use ErrorCode::{InvalidRequest, RequestTooLarge};
    let mut sixty_four_mib = b"{\"text\":\"".to_vec();
    sixty_four_mib.resize(sixty_four_mib.len() + 64 * 1024 * 1024, b'a');
    sixty_four_mib.extend_from_slice(b"\"}");
    let mut deep = vec![b'['; 100_000];
    deep.extend(std::iter::repeat_n(b']', 100_000));

    let cases: Vec<(&str, &str, Vec<u8>, Want)> = vec![
        ("malformed JSON", "tool_error", b"{\"code\":".to_vec(),
            Want::Err(InvalidRequest, Msg::Exact("tool_error: request is not valid JSON: unexpected end of input at offset 8"))),
        ("wrong type", "tool_error", br#"{"code":"X","message":42}"#.to_vec(),
            Want::Err(InvalidRequest, Msg::Exact(r#"tool_error: "message" must be a string, got number"#))),
        ("missing required field", "tool_error", br#"{"code":"X"}"#.to_vec(),
            Want::Err(InvalidRequest, Msg::Exact(r#"tool_error: "message" is required"#))),
        ("just over maxRequestBytes", "parse", parse_of_size(MAX_REQUEST_BYTES + 1),
            Want::Err(RequestTooLarge, Msg::Any)),
        ("just under (at) maxRequestBytes", "parse", parse_of_size(MAX_REQUEST_BYTES),
            Want::Ok(null_envelope)),
        ("nested 100,000 deep", "tool_error", deep,
            Want::Err(InvalidRequest, Msg::Contains("nesting deeper than 256"))),
        ("64 MiB string", "parse", sixty_four_mib, Want::Err(RequestTooLarge, Msg::Any)),
        ("1,000,000 details", "tool_error", with_details(1_000_000), Want::Err(RequestTooLarge, Msg::Any)),
        ("100,000 details", "tool_error", with_details(100_000), Want::Ok(hundred_thousand_details)),
        ("NaN", "rate_limited", rate("NaN"), Want::Err(InvalidRequest, Msg::Contains("not valid JSON"))),
        ("Infinity", "rate_limited", rate("Infinity"), Want::Err(InvalidRequest, Msg::Contains("not valid JSON"))),
        ("-Infinity", "rate_limited", rate("-Infinity"), Want::Err(InvalidRequest, Msg::Contains("not valid JSON"))),
        ("1e999", "rate_limited", rate("1e999"),
            Want::Err(InvalidRequest, Msg::Exact(r#"rate_limited: "max" must be a finite number"#))),
        ("-0 renders as 0", "rate_limited", rate("-0"), Want::Ok(minus_zero_is_zero)),
        ("$ref '#' schema", "validate", br##"{"action":"a","schema":{"$ref":"#"},"args":{}}"##.to_vec(),
            Want::Err(InvalidRequest, Msg::StartsWith("validate: "))),
    ];

    let host = Host::with_options(Options {
        max_instances: 1, // the next call runs on the instance the hostile one ran on
        ..Options::default()
    })
    .expect("host");
    let expected_next = serde_json::json!({"content": [{"type": "text", "text": REQUIRED_ID}], "isError": true});
    let mut count = 0;
    for (name, export, request, want) in &cases {
        count += 1;
        let started = Instant::now();
        let got = host.call_raw(export, request);
        let elapsed = started.elapsed();
        assert!(elapsed < BOUND, "{name}: took {elapsed:?}");
        match (want, got) {
            (Want::Ok(check), Ok(out)) => check(&out),
            (Want::Ok(_), Err(e)) => panic!("{name}: unexpected error {e}"),
            (Want::Err(code, msg), Err(e)) => {
                assert_eq!(&e.code, code, "{name}: {e}");
                match msg {
                    Msg::Any => {}
                    Msg::Exact(m) => assert_eq!(e.message, *m, "{name}"),
                    Msg::Contains(m) => assert!(e.message.contains(m), "{name}: {e}"),
                    Msg::StartsWith(m) => assert!(e.message.starts_with(m), "{name}: {e}"),
                }
            }
            (Want::Err(code, _), Ok(out)) => {
                panic!("{name}: expected {code}, got {}", &out[..out.len().min(100)])
            }
        }
        let next = host
            .call_raw("required_field", br#"{"field":"id"}"#)
            .unwrap_or_else(|e| panic!("after {name}: {e}"));
        let next: serde_json::Value = serde_json::from_str(&next).unwrap();
        assert_eq!(next, expected_next, "after {name}");
    }
    eprintln!("hostile requests sent: {count}");
    assert_eq!(count, cases.len());
    assert_eq!(host.live_instances(), 1, "no hostile request discarded the instance");
}
