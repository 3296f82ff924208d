//! Raise or return: what a wrapped handler's outcome becomes, and the client
//! side's ClientError.

mod common;
use common::INTERNAL_RECOVERY;
use rmcp::model::{CallToolResult, ContentBlock};
use toolerr::{ClientErrorKind, Envelope, HandlerError, Host, Severity, tool_error};

const FORBIDDEN: &str = "<tool_error code=\"FORBIDDEN\" severity=\"critical\">\n<message>Voiding invoices requires the billing-admin role</message>\n</tool_error>";

fn text(r: &CallToolResult) -> Vec<&str> {
    r.content
        .iter()
        .map(|c| c.as_text().expect("a text block").text.as_str())
        .collect()
}

fn internal(message: &str) -> String {
    format!(
        "<tool_error code=\"INTERNAL_ERROR\" severity=\"error\">\n<message>{message}</message>\n{INTERNAL_RECOVERY}\n</tool_error>"
    )
}

fn forbidden() -> toolerr::ToolError {
    tool_error(
        "FORBIDDEN",
        "Voiding invoices requires the billing-admin role",
    )
    .severity(Severity::Critical)
}

#[derive(Debug)]
struct Outer(toolerr::ToolError);
impl std::fmt::Display for Outer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("outer")
    }
}
impl std::error::Error for Outer {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

#[tokio::test]
async fn wrap_renders_each_outcome() {
    let host = Host::new().unwrap();
    let tool = "billing.void_invoice";

    let ok = host
        .wrap(tool, async {
            Ok::<_, HandlerError>(CallToolResult::success(vec![ContentBlock::text("fine")]))
        })
        .await
        .unwrap();
    assert_eq!((text(&ok), ok.is_error), (vec!["fine"], Some(false)));

    let returned = host
        .wrap(tool, async {
            Err::<CallToolResult, HandlerError>(forbidden().into())
        })
        .await
        .unwrap();
    assert_eq!(
        (text(&returned), returned.is_error),
        (vec![FORBIDDEN], Some(true))
    );

    let nested = host
        .wrap(tool, async {
            Err::<CallToolResult, HandlerError>(Outer(forbidden()).into())
        })
        .await
        .unwrap();
    assert_eq!(text(&nested), vec![FORBIDDEN]);

    let plain = host
        .wrap("billing.export_invoices", async {
            Err::<CallToolResult, HandlerError>("exporter backend unavailable".into())
        })
        .await
        .unwrap();
    assert_eq!(
        text(&plain),
        vec![internal(
            "[billing.export_invoices] exporter backend unavailable"
        )]
    );
    assert_eq!(plain.is_error, Some(true));

    let io = host
        .wrap(tool, async {
            let _ = std::fs::read("/definitely/not/here")?;
            Ok::<_, HandlerError>(CallToolResult::success(vec![]))
        })
        .await
        .unwrap();
    assert!(text(&io)[0].starts_with("<tool_error code=\"INTERNAL_ERROR\" severity=\"error\">\n<message>[billing.void_invoice] No such file"));

    let panicked = host
        .wrap(tool, async {
            if true {
                panic!("index out of bounds & <oops>");
            }
            Ok::<_, HandlerError>(CallToolResult::success(vec![]))
        })
        .await
        .unwrap();
    assert_eq!(
        text(&panicked),
        vec![internal(
            "[billing.void_invoice] index out of bounds &amp; &lt;oops>"
        )]
    );

    let panicked_tool_error = host
        .wrap(tool, async {
            if true {
                std::panic::panic_any(forbidden());
            }
            Ok::<_, HandlerError>(CallToolResult::success(vec![]))
        })
        .await
        .unwrap();
    assert_eq!(text(&panicked_tool_error), vec![FORBIDDEN]);

    // A tool error the module refuses becomes an INTERNAL_ERROR saying why.
    let unrenderable = host
        .wrap(tool, async {
            Err::<CallToolResult, HandlerError>(tool_error("", "m").into())
        })
        .await
        .unwrap();
    assert!(text(&unrenderable)[0].contains("[billing.void_invoice] tool error  could not be rendered: INVALID_REQUEST: tool_error: "), "{:?}", text(&unrenderable));

    let sync = host.wrap_sync(tool, || Err(forbidden().into())).unwrap();
    assert_eq!(text(&sync), vec![FORBIDDEN]);
}

#[test]
fn tool_error_converts_into_an_rmcp_result() {
    let result: CallToolResult = forbidden().into();
    assert_eq!(
        (text(&result), result.is_error),
        (vec![FORBIDDEN], Some(true))
    );
    let warning: CallToolResult = tool_error("DEPRECATED", "page_size is deprecated; use limit")
        .suggest("Call billing.list_invoices with limit instead")
        .severity(Severity::Warning)
        .into();
    assert_eq!(warning.is_error, Some(false));
    assert_eq!(
        text(&warning),
        vec![
            "<tool_error code=\"DEPRECATED\" severity=\"warning\">\n<message>page_size is deprecated; use limit</message>\n<recovery>Call billing.list_invoices with limit instead</recovery>\n</tool_error>"
        ]
    );
}

#[test]
fn check_turns_results_into_client_errors() {
    let ok = CallToolResult::success(vec![ContentBlock::text("{}")]);
    assert!(toolerr::check(ok).is_ok());
    let warning: CallToolResult = tool_error("DEPRECATED", "Use v2.")
        .severity(Severity::Warning)
        .into();
    assert!(toolerr::check(warning).is_ok(), "a warning is a success");

    let not_found: CallToolResult = tool_error("NOT_FOUND", "No invoice with that ID")
        .suggest("List invoices first, then retry with a real ID")
        .actions(["billing.list_invoices"])
        .details([("requestedId", "inv_999")])
        .into();
    let err = toolerr::check(not_found.clone()).unwrap_err();
    assert_eq!(err.kind(), ClientErrorKind::ToolError);
    assert_eq!(
        (err.code.as_str(), err.severity.as_str()),
        ("NOT_FOUND", "error")
    );
    let Some(Envelope::ToolError(envelope)) = &err.envelope else {
        panic!("{:?}", err.envelope);
    };
    assert_eq!(envelope.available_actions, ["billing.list_invoices"]);
    assert_eq!(
        envelope.details.get("requestedId").and_then(|v| v.as_str()),
        Some("inv_999")
    );
    assert_eq!(err.raw, not_found);
    assert_eq!(
        err.to_string(),
        "NOT_FOUND: No invoice with that ID (recovery: List invoices first, then retry with a real ID)"
    );

    let validation: CallToolResult = toolerr::format_validation(&toolerr::FormatValidationRequest {
        action: "billing.pay_invoice".into(),
        issues: serde_json::json!([
            {"code": "invalid_type", "expected": "number", "received": "undefined", "path": ["amount"], "message": "Required"},
            {"code": "invalid_type", "expected": "'EUR' | 'USD'", "received": "undefined", "path": ["currency"], "message": "Required"}
        ]),
        args: Some(serde_json::json!({"id": "inv_003"})),
        ..Default::default()
    })
    .unwrap();
    let err = toolerr::check(validation).unwrap_err();
    assert_eq!(err.kind(), ClientErrorKind::ValidationError);
    assert_eq!(err.code, "VALIDATION_ERROR");
    assert_eq!(
        err.message,
        "invalid arguments for billing.pay_invoice: amount, currency"
    );
    let Some(Envelope::ValidationError(envelope)) = &err.envelope else {
        panic!("{:?}", err.envelope);
    };
    assert_eq!(
        envelope.fields[0].message,
        "Required You sent: (missing). Expected type: number."
    );

    let bare = CallToolResult::error(vec![ContentBlock::text("something broke")]);
    let err = toolerr::check(bare).unwrap_err();
    assert_eq!(
        (err.kind(), err.code.as_str(), err.message.as_str()),
        (ClientErrorKind::NoEnvelope, "UNKNOWN", "something broke")
    );

    let two = CallToolResult::error(vec![
        ContentBlock::text("first"),
        ContentBlock::text("second"),
    ]);
    let err = toolerr::check(two).unwrap_err();
    assert_eq!((err.message.as_str(), &err.envelope), ("first", &None));

    let aware = CallToolResult::error(vec![ContentBlock::text(
        "<validation_error action=\"pay\">\n<field name=\"currency\">Required You sent: (missing).</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n\n\n<contract_awareness>\n  <system_note>IMPORTANT: The behavioral contract for tool \"billing\" has changed since your last calibration.</system_note>\n  <action>pay</action>\n  <change_count>1</change_count>\n  <max_severity>BREAKING</max_severity>\n\n  <instructions>\n    Review the contract changes below and adjust your next invocation accordingly.\n    These changes may explain why your previous arguments were rejected.\n  </instructions>\n\n  <contract_changes>\n    <change severity=\"BREAKING\" field=\"actions.pay.currency\">\n      <description>currency is now required</description>\n      <after>required</after>\n    </change>\n  </contract_changes>\n</contract_awareness>\n</validation_error>",
    )]);
    let err = toolerr::check(aware).unwrap_err();
    assert_eq!(err.message, "invalid arguments for pay: currency");
    let Some(Envelope::ValidationError(envelope)) = err.envelope else {
        panic!("{:?}", err.envelope);
    };
    assert_eq!(envelope.action, "pay");
    let contract = envelope.contract.expect("the contract awareness block");
    assert_eq!(contract.changes[0].field, "actions.pay.currency");
}

#[test]
fn free_functions_render_through_the_process_host() {
    let r = toolerr::rate_limited(3.0, 60.0, 60.0, Some("billing.pay_invoice")).unwrap();
    assert_eq!(
        text(&r),
        vec![
            "<tool_error code=\"RATE_LIMITED\" severity=\"error\">\n<message>Rate limit exceeded. Maximum 3 requests per 60s window.</message>\n<recovery>Wait 60 seconds before retrying. Current key: \"billing.pay_invoice\".</recovery>\n<retry_after>60 seconds</retry_after>\n</tool_error>"
        ]
    );
    let r = toolerr::required("id").unwrap();
    assert!(text(&r)[0].contains("Required field \"id\" is missing."));
    let r = toolerr::server_busy("search", 4.0, 2.0).unwrap();
    assert!(text(&r)[0].contains("Tool \"search\" is at capacity (4 active, 2 queued)."));
    let r = toolerr::simple_error("m", Some("C")).unwrap();
    assert_eq!(
        text(&r),
        vec!["<tool_error code=\"C\">\n<message>m</message>\n</tool_error>"]
    );
    assert!(
        toolerr::parse("<tool_error><message>x</message></tool_error>")
            .unwrap()
            .is_some()
    );
}
