//! toolerr::heal on an rmcp server written with rmcp's macros, driven by
//! rmcp's own client over an in-memory pipe: what each kind of outcome
//! reaches the client as, byte for byte.

#![cfg(feature = "server")]

mod common;
use common::{INTERNAL_RECOVERY, Id};
use std::panic::panic_any;
use std::time::Duration;

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, JsonObject};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::{ErrorData, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::json;
use toolerr::{HealOptions, HealedRouter, Severity, ToolError, UnknownTool, tool_error};

/// Every outcome a handler can have, one tool each.
#[derive(Clone)]
struct Server {
    tool_router: HealedRouter<Server>,
}

#[tool_router]
impl Server {
    #[tool(name = "billing.get_invoice")]
    async fn get_invoice(
        &self,
        Parameters(Id { id }): Parameters<Id>,
    ) -> Result<String, ToolError> {
        if id == "inv_001" {
            return Ok(r#"{"id":"inv_001"}"#.into());
        }
        Err(tool_error("NOT_FOUND", "No invoice with that ID").detail("requestedId", id))
    }

    /// A hand-written schema looser than the type: serde refuses what the
    /// schema let through.
    #[tool(name = "loose", input_schema = rmcp::model::object(json!({"type": "object"})))]
    async fn loose(&self, Parameters(Id { id }): Parameters<Id>) -> String {
        id
    }

    #[tool(name = "plain_err")]
    async fn plain_err(&self) -> Result<String, ErrorData> {
        Err(ErrorData::internal_error(
            "exporter backend unavailable",
            None,
        ))
    }

    #[tool(name = "string_err")]
    async fn string_err(&self) -> Result<String, String> {
        Err("disk <full> & gone".into())
    }

    #[tool(name = "is_error_text")]
    async fn is_error_text(&self) -> CallToolResult {
        CallToolResult::error(vec![ContentBlock::text("quota exceeded")])
    }

    /// An envelope the handler rendered itself, returned as a success value.
    #[tool(name = "envelope")]
    async fn envelope(&self) -> CallToolResult {
        conflict().into()
    }

    #[tool(name = "warning")]
    async fn warning(&self) -> CallToolResult {
        tool_error("DEPRECATED", "page_size is deprecated; use limit")
            .severity(Severity::Warning)
            .into()
    }

    #[tool(name = "panics")]
    async fn panics(&self) -> String {
        panic!("index out of range")
    }

    #[tool(name = "panics_sync")]
    fn panics_sync(&self) -> String {
        panic!("called synchronously")
    }

    #[tool(name = "panics_tool_error")]
    async fn panics_tool_error(&self) -> String {
        panic_any(conflict())
    }

    #[tool(name = "hidden")]
    async fn hidden(&self) -> String {
        "never".into()
    }

    /// Two fields, declared `b` then `a`.
    #[tool(name = "pair")]
    async fn pair(&self, Parameters(Pair { b, a }): Parameters<Pair>) -> String {
        b + &a
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Pair {
    b: String,
    a: String,
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {}

fn conflict() -> ToolError {
    tool_error("CONFLICT", "Invoice inv_002 is already paid").actions(["billing.get_invoice"])
}

type Client = RunningService<RoleClient, ()>;

/// A healed server (or, with `heal` false, the same server as rmcp alone
/// runs it) and a client connected to it.
async fn connect(heal: bool) -> Client {
    let mut router = Server::tool_router();
    router.disable_route("hidden");
    let tool_router = if heal {
        toolerr::heal(router)
    } else {
        HealedRouter::unhealed(router)
    };
    serve(Server { tool_router }).await
}

/// A server healed with `options`, and a client connected to it.
async fn connect_with(options: HealOptions) -> Client {
    let mut router = toolerr::heal_with(Server::tool_router(), options);
    // Disabled after heal: the healed router is rmcp's underneath.
    router.disable_route("hidden");
    serve(Server {
        tool_router: router,
    })
    .await
}

/// `server` served over an in-memory pipe, and a client connected to it.
async fn serve<S: ServerHandler>(server: S) -> Client {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let server = server.serve(server_io).await?;
        server.waiting().await?;
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
    });
    ().serve(client_io).await.expect("initialize")
}

async fn call(client: &Client, tool: &str, args: &str) -> Result<CallToolResult, ServiceError> {
    let mut params = CallToolRequestParams::new(tool.to_string());
    if !args.is_empty() {
        params.arguments = Some(serde_json::from_str::<JsonObject>(args).unwrap());
    }
    // A panic that nothing catches kills rmcp's request task and the answer
    // never comes: fail instead of waiting forever.
    tokio::time::timeout(Duration::from_secs(30), client.call_tool(params))
        .await
        .unwrap_or_else(|_| panic!("{tool} {args}: no answer in 30 s"))
}

/// The answer to a call: its text blocks and `isError`.
async fn answer(client: &Client, tool: &str, args: &str) -> (Vec<String>, bool) {
    let result = call(client, tool, args)
        .await
        .unwrap_or_else(|e| panic!("{tool} {args}: {e}"));
    texts_and_error(&result)
}

/// A result's text blocks and `isError` (absent counts as false).
fn texts_and_error(result: &CallToolResult) -> (Vec<String>, bool) {
    let texts = result
        .content
        .iter()
        .map(|c| c.as_text().expect("a text block").text.clone())
        .collect();
    (texts, result.is_error.unwrap_or(false))
}

/// An answer of one text block, `isError: true`.
fn error_answer(text: impl Into<String>) -> (Vec<String>, bool) {
    (vec![text.into()], true)
}

/// An answer of one text block, not an error.
fn success_answer(text: impl Into<String>) -> (Vec<String>, bool) {
    (vec![text.into()], false)
}

fn internal(message: &str) -> (Vec<String>, bool) {
    error_answer(format!(
        "<tool_error code=\"INTERNAL_ERROR\" severity=\"error\">\n<message>{message}</message>\n{INTERNAL_RECOVERY}\n</tool_error>"
    ))
}

/// A call and the answer it must get: the tool, its arguments (`""`:
/// none) and the answer's text blocks and `isError`.
type Case<'a> = (&'a str, &'a str, (Vec<String>, bool));

/// Makes each call of `cases` on `client`: its answer must be the one given.
async fn assert_answers(client: &Client, cases: &[Case<'_>]) {
    for (tool, args, want) in cases {
        assert_eq!(&answer(client, tool, args).await, want, "{tool} {args}");
    }
}

/// [`assert_answers`] on a new client of the healed server.
async fn assert_healed_answers(cases: &[Case<'_>]) {
    let client = connect(true).await;
    assert_answers(&client, cases).await;
    client.cancel().await.unwrap();
}

/// Calls each tool without arguments: its answer must be INTERNAL_ERROR
/// with the message `[tool] message`.
async fn assert_internal(client: &Client, cases: &[(&str, &str)]) {
    let cases: Vec<Case> = cases
        .iter()
        .map(|&(tool, message)| (tool, "", internal(&format!("[{tool}] {message}"))))
        .collect();
    assert_answers(client, &cases).await;
}

fn validation(fields: &[&str]) -> (Vec<String>, bool) {
    let mut text = String::from("<validation_error action=\"billing.get_invoice\">\n");
    for field in fields {
        text.push_str(field);
        text.push('\n');
    }
    text.push_str("<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>");
    error_answer(text)
}

/// `billing.get_invoice` called with an ID that fails its pattern: the
/// handler does not run, the answer is the `<validation_error>` on `id`.
fn pattern_refused() -> Case<'static> {
    (
        "billing.get_invoice",
        r#"{"id": "INV-1"}"#,
        validation(&[
            "<field name=\"id\">Does not match the pattern ^inv_[0-9]{3}$. You sent: 'INV-1'.</field>",
        ]),
    )
}

const CONFLICT: &str = "<tool_error code=\"CONFLICT\" severity=\"error\">\n<message>Invoice inv_002 is already paid</message>\n<available_actions>\n  <action>billing.get_invoice</action>\n</available_actions>\n</tool_error>";

#[tokio::test]
async fn invalid_arguments_get_a_validation_error_and_the_handler_does_not_run() {
    let missing = "<field name=\"id\">Required property is missing. You sent: (missing). Expected type: string.</field>";
    assert_healed_answers(&[
        ("billing.get_invoice", "{}", validation(&[missing])),
        // No arguments at all read as {}.
        ("billing.get_invoice", "", validation(&[missing])),
        (
            "billing.get_invoice",
            r#"{"id": 5}"#,
            validation(&[
                "<field name=\"id\">Expected string, received number. You sent: 5.</field>",
            ]),
        ),
        pattern_refused(),
    ])
    .await;
}

/// The module lists the fields in the order the arguments came in, as every
/// toolerr server does; rmcp's argument map keeps that order because the
/// `server` feature turns on serde_json's `preserve_order`.
#[tokio::test]
async fn validation_errors_list_fields_in_the_order_the_arguments_came() {
    let client = connect(true).await;
    let field = |name: &str, sent: u8| {
        format!(
            "<field name=\"{name}\">Expected string, received number. You sent: {sent}.</field>\n"
        )
    };
    let recovery = "<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>";
    for (args, order) in [
        (r#"{"b": 1, "a": 2}"#, [("b", 1), ("a", 2)]),
        (r#"{"a": 2, "b": 1}"#, [("a", 2), ("b", 1)]),
    ] {
        let want = format!(
            "<validation_error action=\"pair\">\n{}{}{recovery}",
            field(order[0].0, order[0].1),
            field(order[1].0, order[1].1)
        );
        assert_eq!(
            answer(&client, "pair", args).await,
            error_answer(want),
            "{args}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn successes_and_warnings_pass_untouched() {
    assert_healed_answers(&[
        (
            "billing.get_invoice",
            r#"{"id": "inv_001"}"#,
            success_answer(r#"{"id":"inv_001"}"#),
        ),
        (
            "warning",
            "",
            success_answer("<tool_error code=\"DEPRECATED\" severity=\"warning\">\n<message>page_size is deprecated; use limit</message>\n</tool_error>"),
        ),
    ])
    .await;
}

#[tokio::test]
async fn a_returned_tool_error_reaches_the_client_intact() {
    let client = connect(true).await;
    assert_answers(
        &client,
        &[(
            "billing.get_invoice",
            r#"{"id": "inv_404"}"#,
            error_answer("<tool_error code=\"NOT_FOUND\" severity=\"error\">\n<message>No invoice with that ID</message>\n<details>\n  <detail key=\"requestedId\">inv_404</detail>\n</details>\n</tool_error>"),
        )],
    )
    .await;
    // Returning the error needs no heal: IntoCallToolResult renders it.
    let unhealed = connect(false).await;
    assert_eq!(
        answer(&unhealed, "billing.get_invoice", r#"{"id": "inv_404"}"#).await,
        answer(&client, "billing.get_invoice", r#"{"id": "inv_404"}"#).await
    );
    client.cancel().await.unwrap();
    unhealed.cancel().await.unwrap();
}

#[tokio::test]
async fn envelopes_pass_byte_for_byte() {
    assert_healed_answers(&[("envelope", "", error_answer(CONFLICT))]).await;
}

#[tokio::test]
async fn plain_failures_become_internal_error() {
    let client = connect(true).await;
    assert_internal(
        &client,
        &[
            ("plain_err", "exporter backend unavailable"),
            ("string_err", "disk &lt;full> &amp; gone"),
            ("is_error_text", "quota exceeded"),
        ],
    )
    .await;
    // Without heal, rmcp sends the plain error as a JSON-RPC error.
    let unhealed = connect(false).await;
    match call(&unhealed, "plain_err", "").await {
        Err(ServiceError::McpError(e)) => assert_eq!(e.message, "exporter backend unavailable"),
        other => panic!("{other:?}"),
    }
    client.cancel().await.unwrap();
    unhealed.cancel().await.unwrap();
}

#[tokio::test]
async fn panics_become_internal_error() {
    let client = connect(true).await;
    assert_internal(
        &client,
        &[
            ("panics", "index out of range"),
            ("panics_sync", "called synchronously"),
        ],
    )
    .await;
    assert_answers(
        &client,
        &[("panics_tool_error", "", error_answer(CONFLICT))],
    )
    .await;
    // The server survived all three.
    let (_, is_error) = answer(&client, "billing.get_invoice", r#"{"id": "inv_001"}"#).await;
    assert!(!is_error);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn what_serde_refuses_after_the_schema_is_a_validation_error() {
    assert_healed_answers(&[(
        "loose",
        r#"{"ident": "inv_001"}"#,
        error_answer("<validation_error action=\"loose\">\n<field name=\"(root)\">missing field `id`. You sent: {\"ident\":\"inv_001\"}.</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>"),
    )])
    .await;
}

/// The names tools/list gives, in its order.
async fn listed(client: &Client) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect()
}

/// The envelope of a call to `tool`, which the server does not have: the
/// module's `unknown_tool` with the tools the server lists.
fn unknown_action(tool: &str, tools: &[String]) -> (Vec<String>, bool) {
    texts_and_error(&toolerr::unknown_tool(tool, tools).unwrap())
}

#[tokio::test]
async fn unknown_and_disabled_tools_get_unknown_action() {
    let client = connect(true).await;
    let tools = listed(&client).await;
    assert_eq!(tools.len(), 11);
    assert!(!tools.iter().any(|n| n == "hidden"));
    // The name called, and the server's tools closest to it first.
    let (texts, is_error) = answer(&client, "billing.refund_invoice", "{}").await;
    assert!(is_error);
    assert_eq!(texts.len(), 1);
    assert!(
        texts[0].starts_with(
            "<tool_error code=\"UNKNOWN_ACTION\">\n<message>The tool \"billing.refund_invoice\" does not exist.</message>\n<available_actions>billing.get_invoice, "
        ),
        "{}",
        texts[0]
    );
    assert!(texts[0].ends_with("</available_actions>\n<recovery>Choose a valid action from available_actions and call the tool again.</recovery>\n</tool_error>"));
    assert_eq!(
        (texts, is_error),
        unknown_action("billing.refund_invoice", &tools)
    );
    // A disabled tool is one the server does not have; so is a call with no
    // arguments, or with arguments no tool would take.
    for (tool, args) in [("hidden", ""), ("hidden", "{}"), ("", r#"{"id": 5}"#)] {
        assert_eq!(
            answer(&client, tool, args).await,
            unknown_action(tool, &tools),
            "{tool:?} {args}"
        );
    }
    // A name that is markup is escaped as the module escapes content.
    let (texts, _) = answer(&client, "</message><x>", "").await;
    assert!(
        texts[0].contains("<message>The tool \"&lt;/message>&lt;x>\" does not exist.</message>"),
        "{}",
        texts[0]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_option_keeps_rmcps_protocol_error_for_unknown_tools() {
    let options = HealOptions {
        unknown_tool: UnknownTool::ProtocolError,
        ..HealOptions::default()
    };
    let unhealed = connect(false).await;
    for client in [connect_with(options).await, unhealed] {
        for tool in ["billing.refund_invoice", "hidden"] {
            match call(&client, tool, "{}").await {
                Err(ServiceError::McpError(e)) => assert_eq!(
                    (e.code, e.message.as_ref()),
                    (rmcp::model::ErrorCode::INVALID_PARAMS, "tool not found")
                ),
                other => panic!("{tool}: {other:?}"),
            }
        }
        // The rest is healed as ever.
        client.cancel().await.unwrap();
    }
    let client = connect_with(options).await;
    assert_answers(&client, &[pattern_refused()]).await;
    client.cancel().await.unwrap();
}

/// What heal leaves alone: tools/list (every member of every tool) and the
/// answers of calls that succeed are those of the same server unhealed.
#[tokio::test]
async fn tools_list_and_successes_are_unchanged() {
    let healed = connect(true).await;
    let unhealed = connect(false).await;
    let healed_tools = serde_json::to_value(healed.list_all_tools().await.unwrap()).unwrap();
    let unhealed_tools = serde_json::to_value(unhealed.list_all_tools().await.unwrap()).unwrap();
    assert_eq!(healed_tools, unhealed_tools);
    assert_eq!(healed_tools.as_array().map(Vec::len), Some(11));
    for (tool, args) in [
        ("billing.get_invoice", r#"{"id": "inv_001"}"#),
        ("pair", r#"{"b": "x", "a": "y"}"#),
        ("warning", ""),
        ("envelope", ""),
    ] {
        let healed_answer = call(&healed, tool, args).await.unwrap();
        let unhealed_answer = call(&unhealed, tool, args).await.unwrap();
        assert_eq!(
            serde_json::to_value(&healed_answer).unwrap(),
            serde_json::to_value(&unhealed_answer).unwrap(),
            "{tool} {args}"
        );
    }
    healed.cancel().await.unwrap();
    unhealed.cancel().await.unwrap();
}

#[tokio::test]
async fn a_host_of_its_own() {
    let host: &'static toolerr::Host = Box::leak(Box::new(toolerr::Host::new().unwrap()));
    let client = serve(Server {
        tool_router: host.heal(Server::tool_router()),
    })
    .await;
    let tools = listed(&client).await;
    assert_answers(
        &client,
        &[
            (
                "plain_err",
                "",
                internal("[plain_err] exporter backend unavailable"),
            ),
            ("nope", "", unknown_action("nope", &tools)),
        ],
    )
    .await;
    client.cancel().await.unwrap();
    // With options, on the same host.
    let options = HealOptions {
        unknown_tool: UnknownTool::ProtocolError,
        ..HealOptions::default()
    };
    let client = serve(Server {
        tool_router: host.heal_with(Server::tool_router(), options),
    })
    .await;
    assert!(matches!(
        call(&client, "nope", "").await,
        Err(ServiceError::McpError(_))
    ));
    client.cancel().await.unwrap();
}

/// A server without a router field, healed in the attribute itself.
#[derive(Clone)]
struct Fieldless;

#[tool_router]
impl Fieldless {
    #[tool(name = "billing.get_invoice")]
    async fn get_invoice(&self, Parameters(Id { id }): Parameters<Id>) -> String {
        id
    }
}

#[tool_handler(router = toolerr::heal(Self::tool_router()))]
impl ServerHandler for Fieldless {}

#[tokio::test]
async fn healed_in_the_attribute() {
    let client = serve(Fieldless).await;
    assert_answers(
        &client,
        &[
            pattern_refused(),
            (
                "billing.get_invoice",
                r#"{"id": "inv_003"}"#,
                success_answer("inv_003"),
            ),
            (
                "billing.get_invoce",
                "{}",
                unknown_action("billing.get_invoce", &["billing.get_invoice".to_string()]),
            ),
        ],
    )
    .await;
    client.cancel().await.unwrap();
}

/// The healed router is still the ToolRouter underneath.
#[test]
fn a_healed_router_derefs_to_its_tool_router() {
    let mut healed = toolerr::heal(Server::tool_router());
    assert!(healed.has_route("pair"));
    assert!(healed.disable_route("pair"));
    assert!(healed.get("pair").is_none());
    assert_eq!(healed.list_all().len(), 11);
    let router: ToolRouter<Server> = healed.clone().into_router();
    assert!(router.is_disabled("pair"));
    assert!(format!("{healed:?}").starts_with("HealedRouter"));
}
