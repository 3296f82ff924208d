//! Drives the billing-rust binary over stdio with rmcp's own client, through
//! the billing scenario of examples/scenario.json: every call, with the exact
//! text of every content block (the same bytes every server returns), then
//! what toolerr::check reads back from it, against the call's expectation.

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde::Deserialize;
use toolerr::{ClientErrorKind, Envelope};

/// examples/scenario.json: sessions of calls, each a new server process.
#[derive(Deserialize)]
struct Scenario {
    sessions: Vec<Session>,
}

#[derive(Deserialize)]
struct Session {
    name: String,
    calls: Vec<Call>,
}

/// One tools/call: what is sent, what it must mean (written by hand) and
/// exactly what comes back (rewritten from the Go server by
/// `go test ./examples/go -run TestBilling_Scenario -update`).
#[derive(Deserialize)]
struct Call {
    name: String,
    tool: String,
    /// None: the call sends no arguments.
    arguments: Option<JsonObject>,
    expect: Expect,
    answer: Answer,
}

/// What the answer must say, as a typed client reads it back.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Expect {
    /// success, warning, tool_error or validation_error.
    kind: String,
    #[serde(default)]
    code: String,
    #[serde(default)]
    severity: String,
    /// Whether a recovery is present.
    #[serde(default)]
    recovery: bool,
    message: Option<String>,
    actions: Option<Vec<String>>,
    /// XML carries no types: details read back as their text.
    details: Option<toolerr::Details>,
    retry_after: Option<f64>,
    /// validation_error: the fields named, in order.
    fields: Option<Vec<String>>,
    /// validation_error: the awareness block's max severity.
    contract: Option<String>,
    /// success and warning: the JSON value of the last block.
    payload: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    is_error: bool,
    content: Vec<String>,
}

fn load_scenario() -> Scenario {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenario.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const VALIDATION_RECOVERY: &str =
    "Fix the fields above and call the tool again. Do not explain the error.";

/// docs/CONTRACT.md's CONTENT(), enough for the scenario's texts.
fn content(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace("]]>", "]]&gt;")
}

/// docs/CONTRACT.md's ATTR(), enough for the scenario's texts.
fn attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

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

async fn call(
    client: &Client,
    tool: &str,
    args: Option<&JsonObject>,
) -> Result<CallToolResult, ServiceError> {
    let mut params = CallToolRequestParams::new(tool.to_string());
    params.arguments = args.cloned();
    client.call_tool(params).await
}

/// How the answer's payload differs from the expectation's, if it does.
fn payload_failure(text: &str, want: &Option<serde_json::Value>) -> Option<String> {
    let got: Option<serde_json::Value> = serde_json::from_str(text).ok();
    (got.is_none() || got != *want).then(|| format!("payload {text}, want {want:?}"))
}

/// The failures of one answer against the call's expectation.
fn check_answer(c: &Call, res: CallToolResult) -> Vec<String> {
    let e = &c.expect;
    let mut failures = Vec::new();
    let got: Vec<String> = texts(&res).into_iter().map(String::from).collect();
    if got != c.answer.content {
        failures.push(format!(
            "content:\n{}\nwant:\n{}",
            got.join("\n----\n"),
            c.answer.content.join("\n----\n")
        ));
    }
    let is_error = res.is_error.unwrap_or(false);
    if is_error != c.answer.is_error {
        failures.push(format!("isError = {is_error}"));
    }
    let Some(first) = got.first() else {
        failures.push("no content".into());
        return failures;
    };
    let kind = match e.kind.as_str() {
        "success" | "warning" => {
            match toolerr::check(res) {
                Ok(_) => {}
                Err(ce) => failures.push(format!("check = {ce:?}")),
            }
            let blocks = if e.kind == "success" { 1 } else { 2 };
            if got.len() != blocks {
                failures.push(format!("{} blocks, want {blocks}", got.len()));
            }
            failures.extend(payload_failure(got.last().unwrap(), &e.payload));
            if e.kind == "warning" {
                match toolerr::parse(first) {
                    Ok(Some(Envelope::ToolError(w)))
                        if w.code == e.code
                            && w.severity == e.severity
                            && !w.is_error
                            && w.recovery.is_some() == e.recovery => {}
                    other => failures.push(format!("warning read back as {other:?}")),
                }
            }
            return failures;
        }
        "tool_error" => ClientErrorKind::ToolError,
        "validation_error" => ClientErrorKind::ValidationError,
        other => panic!("{}: unknown kind {other}", c.name),
    };
    let ce = match toolerr::check(res) {
        Err(ce) => ce,
        Ok(_) => {
            failures.push("check = Ok, want a ClientError".into());
            return failures;
        }
    };
    if ce.kind() != kind
        || ce.code != e.code
        || ce.severity != e.severity
        || ce.recovery().is_some() != e.recovery
    {
        failures.push(format!(
            "check: kind {:?} code {} severity {} recovery {}",
            ce.kind(),
            ce.code,
            ce.severity,
            ce.recovery().is_some()
        ));
    }
    // What is read back is what the text says.
    if let Some(r) = ce.recovery() {
        if !first.contains(&format!("\n<recovery>{}</recovery>\n", content(r))) {
            failures.push(format!("recovery {r:?} is not the text's"));
        }
    }
    if e.message.as_ref().is_some_and(|m| *m != ce.message) {
        failures.push(format!("message {:?}, want {:?}", ce.message, e.message));
    }
    let v = match &ce.envelope {
        Some(Envelope::ToolError(t)) => {
            if !first.contains(&format!("\n<message>{}</message>\n", content(&ce.message))) {
                failures.push(format!("message {:?} is not the text's", ce.message));
            }
            if e.actions
                .as_ref()
                .is_some_and(|a| *a != t.available_actions)
            {
                failures.push(format!("actions {:?}", t.available_actions));
            }
            if e.details.as_ref().is_some_and(|d| *d != t.details) {
                failures.push(format!("details {:?}", t.details));
            }
            if e.retry_after.is_some() && e.retry_after != t.retry_after {
                failures.push(format!("retry_after {:?}", t.retry_after));
            }
            return failures;
        }
        Some(Envelope::ValidationError(v)) => v,
        None => return failures,
    };
    let names: Vec<String> = v.fields.iter().map(|f| f.name.clone()).collect();
    if Some(&names) != e.fields.as_ref() {
        failures.push(format!("fields {names:?}"));
    }
    for f in &v.fields {
        let line = format!(
            "\n<field name=\"{}\">{}</field>\n",
            attr(&f.name),
            content(&f.message)
        );
        if !first.contains(&line) {
            failures.push(format!("field {f:?} is not the text's"));
        }
    }
    if v.recovery.as_deref() != Some(VALIDATION_RECOVERY) {
        failures.push(format!("recovery {:?}", v.recovery));
    }
    let contract = v.contract.as_ref().map(|c| c.max_severity.clone());
    if v.action != c.tool || contract != e.contract {
        failures.push(format!(
            "action {}, contract awareness {contract:?}",
            v.action
        ));
    }
    if let Some(pc) = &v.contract {
        if pc.tool != c.tool || pc.action != c.tool || pc.change_count != pc.changes.len() as u64 {
            failures.push(format!("contract {pc:?}"));
        }
    }
    failures
}

async fn run_calls(client: &Client, session: &Session, failures: &mut Vec<String>) {
    for c in &session.calls {
        match call(client, &c.tool, c.arguments.as_ref()).await {
            Ok(res) => failures.extend(
                check_answer(c, res)
                    .into_iter()
                    .map(|f| format!("{}/{}: {f}", session.name, c.name)),
            ),
            Err(e) => failures.push(format!("{}/{}: call failed: {e}", session.name, c.name)),
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

    let scenario = load_scenario();
    let mut failures = Vec::new();
    let (first, rest) = scenario.sessions.split_first().expect("a session");
    run_calls(&client, first, &mut failures).await;

    // An unknown tool is answered by the SDK as rmcp's router does.
    match call(&client, "billing.refund_invoice", Some(&JsonObject::new())).await {
        Err(ServiceError::McpError(e)) => assert_eq!(e.message, "tool not found"),
        other => failures.push(format!("unknown tool: {other:?}")),
    }
    client.cancel().await.expect("close the first server");

    // Every other session on a server process of its own.
    for session in rest {
        let fresh = start().await;
        run_calls(&fresh, session, &mut failures).await;
        fresh.cancel().await.expect("close the server");
    }

    assert!(
        failures.is_empty(),
        "{} failures:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
