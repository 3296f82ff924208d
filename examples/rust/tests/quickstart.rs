//! Drives the quickstart-rust binary over stdio with rmcp's own client: the
//! rmcp-style server, healed in one line, answers bad arguments with a
//! validation error and failures with tool errors.

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};

type Client = RunningService<RoleClient, ()>;

async fn start() -> Client {
    let bin = env!("CARGO_BIN_EXE_quickstart-rust");
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin).configure(|cmd| {
        cmd.env_remove(toolerr::WASI_OUTPUT_VARIABLE);
    }))
    .expect("start quickstart-rust");
    ().serve(transport).await.expect("initialize")
}

/// The one text block of the result and its `isError` (absent is false).
async fn call(client: &Client, tool: &str, args: &str) -> (String, bool) {
    let mut params = CallToolRequestParams::new(tool.to_string());
    params.arguments = Some(serde_json::from_str::<JsonObject>(args).expect("a JSON object"));
    let result: CallToolResult = client
        .call_tool(params)
        .await
        .unwrap_or_else(|e| panic!("{tool} {args}: {e}"));
    assert_eq!(result.content.len(), 1, "{tool} {args}: {result:?}");
    let text = result.content[0]
        .as_text()
        .expect("a text block")
        .text
        .clone();
    (text, result.is_error.unwrap_or(false))
}

/// The exact text examples/quickstart.json gives for the call of `tool`
/// with `args`, which every language's quickstart answers alike.
fn shared_text(tool: &str, args: &str) -> &'static str {
    static SHARED: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    let shared = SHARED.get_or_init(|| {
        serde_json::from_str(include_str!("../../quickstart.json"))
            .expect("examples/quickstart.json")
    });
    let args: serde_json::Value = serde_json::from_str(args).expect("a JSON object");
    shared["calls"]
        .as_array()
        .expect("calls")
        .iter()
        .find(|c| c["tool"] == tool && c["arguments"] == args)
        .and_then(|c| c["text"].as_str())
        .unwrap_or_else(|| panic!("examples/quickstart.json has no text for {tool} {args}"))
}

const RECOVERY: &str =
    "<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>";

fn validation_error(field: &str) -> (String, bool) {
    (
        format!(
            "<validation_error action=\"billing.get_invoice\">\n<field name=\"id\">{field}</field>\n{RECOVERY}\n</validation_error>"
        ),
        true,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quickstart_answers() {
    let client = start().await;

    // The advertised schema is schemars' own, pattern included.
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["billing.export_invoices", "billing.get_invoice"]);
    assert_eq!(
        tools[1].input_schema["properties"]["id"]["pattern"],
        "^inv_[0-9]{3}$"
    );

    let get = "billing.get_invoice";
    assert_eq!(
        call(&client, get, "{}").await,
        validation_error(
            "Required property is missing. You sent: (missing). Expected type: string."
        )
    );
    assert_eq!(
        call(&client, get, r#"{"id": 5}"#).await,
        validation_error("Expected string, received number. You sent: 5. Expected type: string.")
    );
    assert_eq!(
        call(&client, get, r#"{"id": "INV-1"}"#).await,
        validation_error(
            "Does not match the pattern ^inv_[0-9]{3}$. You sent: 'INV-1'. Value does not match the required pattern."
        )
    );

    let (text, is_error) = call(&client, get, r#"{"id": "inv_404"}"#).await;
    assert!(text.starts_with("<tool_error code=\"NOT_FOUND\""), "{text}");
    assert_eq!(
        (text.as_str(), is_error),
        (shared_text(get, r#"{"id": "inv_404"}"#), true)
    );

    assert_eq!(
        call(&client, get, r#"{"id": "inv_001"}"#).await,
        (
            r#"{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}"#.to_string(),
            false
        )
    );
    assert_eq!(
        call(&client, get, r#"{"id": "inv_002"}"#).await,
        (
            r#"{"id":"inv_002","status":"paid","amount":75,"currency":"USD"}"#.to_string(),
            false
        )
    );

    let (text, is_error) = call(&client, "billing.export_invoices", "{}").await;
    assert!(
        text.starts_with("<tool_error code=\"INTERNAL_ERROR\""),
        "{text}"
    );
    assert_eq!(
        (text.as_str(), is_error),
        (shared_text("billing.export_invoices", "{}"), true)
    );

    client.cancel().await.expect("close the server");
}
