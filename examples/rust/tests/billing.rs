//! Drives the billing-rust binary over stdio with rmcp's own client, through
//! every behaviour of the demo, and asserts the exact text of every content
//! block: the same scenario, byte for byte, as examples/go/main_test.go.

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use toolerr::ClientErrorKind;

/// One tools/call and exactly what comes back.
struct Step {
    name: &'static str,
    tool: &'static str,
    /// The arguments as raw JSON; "" sends none.
    args: &'static str,
    /// The text of every content block.
    want: &'static [&'static str],
    /// For an isError result, what toolerr::check reads back.
    error: Option<Expect>,
}

struct Expect {
    kind: ClientErrorKind,
    code: &'static str,
    severity: &'static str,
    recovery: bool,
}

// The scenario of examples/go/main_test.go, played in order on one server
// process: the state (paid invoices, the pay_invoice counter) carries over.
include!("scenario/steps.rs");

type Client = RunningService<RoleClient, ()>;

async fn start() -> Client {
    let bin = env!("CARGO_BIN_EXE_billing-rust");
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin).configure(|cmd| {
        cmd.env_remove(toolerr::WASI_OUTPUT_VARIABLE);
    }))
    .expect("start billing-rust");
    ().serve(transport).await.expect("initialize")
}

fn texts(res: &CallToolResult) -> Vec<&str> {
    res.content
        .iter()
        .map(|c| c.as_text().expect("a text block").text.as_str())
        .collect()
}

async fn call(client: &Client, tool: &str, args: &str) -> Result<CallToolResult, ServiceError> {
    let mut params = CallToolRequestParams::new(tool.to_string());
    if !args.is_empty() {
        params.arguments =
            Some(serde_json::from_str::<JsonObject>(args).expect("args are a JSON object"));
    }
    client.call_tool(params).await
}

async fn run_steps(client: &Client, steps: &[Step], failures: &mut Vec<String>) {
    for step in steps {
        let res = match call(client, step.tool, step.args).await {
            Ok(res) => res,
            Err(e) => {
                failures.push(format!("{}: call failed: {e}", step.name));
                continue;
            }
        };
        let got = texts(&res);
        if got != step.want {
            failures.push(format!(
                "{}: content:\n{}\nwant:\n{}",
                step.name,
                got.join("\n----\n"),
                step.want.join("\n----\n")
            ));
        }
        let is_error = res.is_error.unwrap_or(false);
        if is_error != step.error.is_some() {
            failures.push(format!("{}: isError = {is_error}", step.name));
        }
        match (toolerr::check(res), &step.error) {
            (Ok(_), None) => {}
            (Err(ce), Some(want)) => {
                if ce.kind != want.kind
                    || ce.code != want.code
                    || ce.severity != want.severity
                    || ce.recovery.is_some() != want.recovery
                {
                    failures.push(format!(
                        "{}: check: kind {:?} code {} severity {} recovery {}",
                        step.name,
                        ce.kind,
                        ce.code,
                        ce.severity,
                        ce.recovery.is_some()
                    ));
                }
            }
            (outcome, _) => failures.push(format!("{}: check = {outcome:?}", step.name)),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn billing_scenario() {
    let client = start().await;

    let info = client.peer_info().expect("server info after initialize");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("billing-rust")
    );
    assert!(info.capabilities.tools.is_some());

    // tools/list gives the five tools of schemas.json, schemas as they are
    // (same key order), sorted by name.
    let tools = client.list_all_tools().await.expect("tools/list");
    let defs: JsonObject = serde_json::from_str(include_str!("../../schemas.json")).unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "billing.export_invoices",
            "billing.get_invoice",
            "billing.list_invoices",
            "billing.pay_invoice",
            "billing.void_invoice"
        ]
    );
    for tool in &tools {
        let def = &defs[tool.name.as_ref()];
        assert_eq!(
            tool.description.as_deref(),
            def["description"].as_str(),
            "{}",
            tool.name
        );
        assert_eq!(
            serde_json::to_string(&*tool.input_schema).unwrap(),
            serde_json::to_string(&def["inputSchema"]).unwrap(),
            "{}: inputSchema",
            tool.name
        );
    }

    let mut failures = Vec::new();
    run_steps(&client, SCENARIO, &mut failures).await;

    // An unknown tool is answered by the SDK as rmcp's router does.
    match call(&client, "billing.refund_invoice", "{}").await {
        Err(ServiceError::McpError(e)) => assert_eq!(e.message, "tool not found"),
        other => failures.push(format!("unknown tool: {other:?}")),
    }
    client.cancel().await.expect("close the first server");

    let fresh = start().await;
    run_steps(&fresh, FRESH_PROCESS, &mut failures).await;
    fresh.cancel().await.expect("close the second server");

    assert!(
        failures.is_empty(),
        "{} failures:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
