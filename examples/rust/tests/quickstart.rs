//! Drives the quickstart-rust binary over stdio with rmcp's own client: the
//! rmcp-style server, healed in one line, answers bad arguments with a
//! validation error, failures (a panic included) with tool errors and an
//! unknown tool with UNKNOWN_ACTION, and writes nothing on stderr.

use std::process::Stdio;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};

type Client = RunningService<RoleClient, ()>;

async fn start() -> Client {
    start_with(&[], Stdio::inherit()).await
}

/// The server with `env` set (and the variables that change what Rust
/// prints removed otherwise), its stderr going to `stderr`.
async fn start_with(env: &[(&str, &str)], stderr: Stdio) -> Client {
    let bin = env!("CARGO_BIN_EXE_quickstart-rust");
    let command = tokio::process::Command::new(bin).configure(|cmd| {
        for name in [
            toolerr::WASI_OUTPUT_VARIABLE,
            "RUST_BACKTRACE",
            "RUST_LIB_BACKTRACE",
            "RUST_LOG",
        ] {
            cmd.env_remove(name);
        }
        cmd.envs(env.iter().copied());
    });
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(stderr)
        .spawn()
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
        validation_error("Expected string, received number. You sent: 5.")
    );
    assert_eq!(
        call(&client, get, r#"{"id": "INV-1"}"#).await,
        validation_error("Does not match the pattern ^inv_[0-9]{3}$. You sent: 'INV-1'.")
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

    // export_invoices panics: INTERNAL_ERROR with the panic's message.
    let (text, is_error) = call(&client, "billing.export_invoices", "{}").await;
    assert!(
        text.starts_with("<tool_error code=\"INTERNAL_ERROR\""),
        "{text}"
    );
    assert_eq!(
        (text.as_str(), is_error),
        (shared_text("billing.export_invoices", "{}"), true)
    );

    // A tool the server does not have: UNKNOWN_ACTION with the tools it
    // lists, the closest to the name called first.
    assert_eq!(
        call(&client, "billing.refund_invoice", r#"{"id": "inv_001"}"#).await,
        (
            "<tool_error code=\"UNKNOWN_ACTION\">\n<message>The tool \"billing.refund_invoice\" does not exist.</message>\n<available_actions>billing.get_invoice, billing.export_invoices</available_actions>\n<recovery>Choose a valid action from available_actions and call the tool again.</recovery>\n</tool_error>".to_string(),
            true
        )
    );
    let unknown = toolerr::unknown_tool("billing.refund_invoice", &names).expect("unknown_tool");
    assert_eq!(
        call(&client, "billing.refund_invoice", "{}").await.0,
        unknown.content[0].as_text().expect("a text block").text
    );

    client.cancel().await.expect("close the server");
}

/// The failures a model commits in its first hour, 200 calls in all: bad
/// arguments, a returned toolerr error, a panic and an unknown tool. Each
/// gets its envelope, and the server writes nothing on stderr, with
/// `RUST_BACKTRACE=1` as without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_calls_write_nothing_on_stderr() {
    let failing = [
        ("billing.get_invoice", r#"{"id": 5}"#, "<validation_error "),
        (
            "billing.get_invoice",
            r#"{"id": "inv_404"}"#,
            "<tool_error code=\"NOT_FOUND\"",
        ),
        (
            "billing.export_invoices",
            "{}",
            "<tool_error code=\"INTERNAL_ERROR\"",
        ),
        (
            "billing.refund_invoice",
            "{}",
            "<tool_error code=\"UNKNOWN_ACTION\"",
        ),
    ];
    for env in [&[][..], &[("RUST_BACKTRACE", "1")][..]] {
        let path = std::env::temp_dir().join(format!(
            "quickstart-rust-stderr-{}-{}.txt",
            std::process::id(),
            env.len()
        ));
        let file = std::fs::File::create(&path).expect("a stderr file");
        let client = start_with(env, Stdio::from(file)).await;
        for i in 0..200 {
            let (tool, args, start) = failing[i % failing.len()];
            let (text, is_error) = call(&client, tool, args).await;
            assert!(
                is_error && text.starts_with(start),
                "{env:?} {tool} {args}: {text}"
            );
        }
        // Still serving.
        assert!(
            !call(&client, "billing.get_invoice", r#"{"id": "inv_003"}"#)
                .await
                .1
        );
        client.cancel().await.expect("close the server");
        let stderr = std::fs::read_to_string(&path).expect("the stderr file");
        let _ = std::fs::remove_file(&path);
        assert_eq!(stderr, "", "{env:?}: the server wrote on stderr");
    }
}
