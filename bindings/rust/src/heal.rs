//! `heal`: toolerr inside rmcp's own tool router, so a server written the
//! usual rmcp way (`#[tool_router]`, `#[tool]`, `Parameters<T>`) answers every
//! failure with an envelope without changing its handlers.
//!
//! Each route of the router is replaced by one that checks the arguments
//! against the tool's advertised `inputSchema` in the module (`validate`)
//! before the handler runs, then reads what the handler gave back; the
//! router itself comes back as a [`HealedRouter`], which answers a call to a
//! tool it does not have. Nothing is rendered here: every envelope comes from
//! the module.

use std::borrow::Cow;
use std::cell::Cell;
use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Once};
use std::task::{Context, Poll};

use futures::FutureExt;
use rmcp::ErrorData;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::{DynCallToolHandler, IntoCallToolResult, ToolCallContext};
use rmcp::model::{CallToolResponse, CallToolResult as McpResult, ErrorCode, JsonObject};
use rmcp::service::MaybeSend;
use serde_json::{Value, json};

use crate::abi::{FormatValidationRequest, Validation};
use crate::builder::ToolError;
use crate::error::Result;
use crate::host::{Host, host};

/// How rmcp's `Parameters<T>` extractor starts the message of a serde
/// failure; the rest is serde's own text.
const DESERIALIZE_PREFIX: &str = "failed to deserialize parameters:";

/// How a healed router answers a call to a tool it does not have (or has
/// disabled): [`HealOptions::unknown_tool`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnknownTool {
    /// An `isError` tool result holding the module's `UNKNOWN_ACTION`
    /// envelope: the name called and the router's tools as available
    /// actions, the closest to that name first. The default: a model reads a
    /// tool result and can choose again (SEP-1303 made argument errors tool
    /// results for that reason), where a JSON-RPC error ends the call for
    /// it, and a made-up tool name is one of its commonest mistakes.
    #[default]
    Envelope,
    /// rmcp's own JSON-RPC error, -32602 `tool not found`, as without heal.
    ProtocolError,
}

/// What [`heal_with`] (and [`Host::heal_with`]) adds to, or keeps from,
/// what [`heal`] does. `HealOptions::default()` is `heal`'s behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HealOptions {
    /// How a call to a tool the router does not have is answered; default
    /// [`UnknownTool::Envelope`].
    pub unknown_tool: UnknownTool,
    /// Let the process's panic hook report a healed handler's panic (std's
    /// default hook prints the message on stderr, and a backtrace under
    /// `RUST_BACKTRACE=1`), as it would without heal. Default `false`: the
    /// panic becomes the `INTERNAL_ERROR` envelope, which carries its
    /// message, and nothing is printed. Panics outside healed handlers reach
    /// the hook either way.
    pub print_panics: bool,
}

/// Where a healed route finds its host.
#[derive(Clone, Copy)]
enum Source {
    /// The process-wide [`host()`], looked up on each call: a module that
    /// could not load fails every call the same way, with the reason.
    Process,
    /// A host the server loaded itself.
    Given(&'static Host),
}

impl Source {
    fn get(self) -> Result<&'static Host> {
        match self {
            Source::Process => host(),
            Source::Given(h) => Ok(h),
        }
    }
}

/// Heals every tool of an rmcp `ToolRouter`, on the process-wide
/// [`host()`]:
///
/// - the arguments are checked against the tool's `inputSchema` inside the
///   module before the handler runs; invalid ones get the
///   `<validation_error>` (`isError: true`) and the handler is not called;
/// - a success (warnings included) passes through untouched;
/// - an `Err(ErrorData)` from the handler, or an `isError` result whose first
///   text is not an envelope, becomes `INTERNAL_ERROR` naming the tool, with
///   that message; an envelope (a returned [`ToolError`]) passes byte for
///   byte;
/// - arguments the schema accepts but serde refuses get a
///   `<validation_error>` on the root; arguments too large to check beside
///   the schema get the stdio gate's too-large `<validation_error>`;
/// - a panic becomes `INTERNAL_ERROR` (a [`ToolError`] payload is rendered
///   intact), and prints nothing (see [`HealOptions::print_panics`]);
/// - a call to a tool the router does not have, or has disabled, gets the
///   `UNKNOWN_ACTION` envelope listing the router's tools (see
///   [`UnknownTool`]); tools/list is the router's, unchanged.
///
/// It returns a [`HealedRouter`]: the healed `ToolRouter`, which it derefs
/// to, and the answer to unknown tools, which only its own
/// [`call`](HealedRouter::call) gives. Keep it in the server's router field
/// (`tool_router: toolerr::HealedRouter<Self>`) and route through it with
/// `#[tool_handler(router = self.tool_router)]` (rmcp 3.11's bare
/// `#[tool_handler]` calls `Self::tool_router()` on every request); a server
/// without the field can write `#[tool_handler(router =
/// toolerr::heal(Self::tool_router()))]`.
///
/// Heal the whole router (after any `+` or `merge`): routes added later are
/// not healed. A router cannot reach the transport: serve the server on
/// [`stdio()`](crate::stdio) instead of rmcp's `stdio()` so that lines rmcp
/// would drop (a lone surrogate, `1e400`, nesting over 128 levels) are
/// answered by the module's stdio gate. It loads the process-wide host now,
/// so the first call does not wait for the module to compile.
pub fn heal<S: MaybeSend + 'static>(router: ToolRouter<S>) -> HealedRouter<S> {
    heal_with(router, HealOptions::default())
}

/// [`heal`] with options: `toolerr::heal_with(router, HealOptions {
/// unknown_tool: UnknownTool::ProtocolError, ..Default::default() })` keeps
/// rmcp's JSON-RPC error for unknown tools.
pub fn heal_with<S: MaybeSend + 'static>(
    router: ToolRouter<S>,
    options: HealOptions,
) -> HealedRouter<S> {
    // Loaded now for speed only; a failure is reported by each call.
    let _ = host();
    heal_on(Source::Process, router, options)
}

impl Host {
    /// [`heal`] on this host instead of the process-wide one (a host with
    /// its own [`Options`](crate::Options), leaked or in a `static`).
    pub fn heal<S: MaybeSend + 'static>(&'static self, router: ToolRouter<S>) -> HealedRouter<S> {
        self.heal_with(router, HealOptions::default())
    }

    /// [`heal_with`] on this host.
    pub fn heal_with<S: MaybeSend + 'static>(
        &'static self,
        router: ToolRouter<S>,
        options: HealOptions,
    ) -> HealedRouter<S> {
        heal_on(Source::Given(self), router, options)
    }
}

/// An rmcp `ToolRouter` healed by [`heal`]: every route checks its arguments
/// in the module and renders its failures, and [`call`](Self::call) answers
/// a tool the router does not have with `UNKNOWN_ACTION` (unless
/// [`UnknownTool::ProtocolError`] was asked for).
///
/// It derefs to the `ToolRouter`, so `list_all`, `get`, `has_route`,
/// `disable_route` and the rest are rmcp's, and `#[tool_handler(router =
/// self.tool_router)]` routes through it as through a `ToolRouter`.
/// [`into_router`](Self::into_router) gives the healed `ToolRouter` back,
/// for an API that takes one; rmcp then answers unknown tools itself.
/// [`unhealed`](Self::unhealed) holds a router left as rmcp runs it, for a
/// server that chooses at start whether to heal.
pub struct HealedRouter<S> {
    router: ToolRouter<S>,
    source: Source,
    unknown_tool: UnknownTool,
}

impl<S> Clone for HealedRouter<S> {
    fn clone(&self) -> Self {
        HealedRouter {
            router: self.router.clone(),
            source: self.source,
            unknown_tool: self.unknown_tool,
        }
    }
}

impl<S> std::fmt::Debug for HealedRouter<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HealedRouter")
            .field("router", &self.router)
            .field("unknown_tool", &self.unknown_tool)
            .finish()
    }
}

impl<S> Deref for HealedRouter<S> {
    type Target = ToolRouter<S>;
    fn deref(&self) -> &ToolRouter<S> {
        &self.router
    }
}

impl<S> DerefMut for HealedRouter<S> {
    fn deref_mut(&mut self) -> &mut ToolRouter<S> {
        &mut self.router
    }
}

impl<S: MaybeSend + 'static> HealedRouter<S> {
    /// Runs a tools/call: the healed route of the tool called, or, for a
    /// tool the router does not have or has disabled, the `UNKNOWN_ACTION`
    /// envelope naming it and listing the router's tools in their tools/list
    /// order (the module puts the closest first). With
    /// [`UnknownTool::ProtocolError`], rmcp's own `tool not found`.
    pub async fn call(
        &self,
        context: ToolCallContext<'_, S>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        if self.unknown_tool == UnknownTool::Envelope && !self.router.has_route(context.name()) {
            return self.unknown(context.name());
        }
        self.router.call(context).await
    }

    /// The healed `ToolRouter`, without the answer to unknown tools.
    pub fn into_router(self) -> ToolRouter<S> {
        self.router
    }

    /// `router` not healed, in the healed router's type: no route is
    /// changed and a tool the router does not have gets rmcp's own `tool
    /// not found`, every call answered as rmcp alone answers it. For a
    /// server that chooses at start whether to heal (a flag to turn toolerr
    /// off, a comparison with and without it) without a router field of
    /// each type.
    pub fn unhealed(router: ToolRouter<S>) -> Self {
        HealedRouter {
            router,
            source: Source::Process,
            unknown_tool: UnknownTool::ProtocolError,
        }
    }

    fn unknown(&self, name: &str) -> std::result::Result<CallToolResponse, ErrorData> {
        let host = self.source.get().map_err(unavailable)?;
        // tools/list's order: list_all sorts the enabled routes by name.
        let mut tools: Vec<&str> = self
            .router
            .map
            .keys()
            .map(|name| name.as_ref())
            .filter(|name| self.router.has_route(name))
            .collect();
        tools.sort_unstable();
        let result = host.unknown_tool(name, tools).map_err(unavailable)?;
        complete(result.into())
    }
}

fn heal_on<S: MaybeSend + 'static>(
    source: Source,
    mut router: ToolRouter<S>,
    options: HealOptions,
) -> HealedRouter<S> {
    if !options.print_panics {
        install_panic_hook();
    }
    // The map is rmcp's public field: replacing routes in place keeps the
    // router's disabled tools and list-changed notifier as they were.
    for route in router.map.values_mut() {
        let healer = Arc::new(Healer {
            source,
            tool: route.attr.name.clone(),
            prefix: validate_prefix(&route.attr.name, &route.attr.input_schema),
            silence_panics: !options.print_panics,
            inner: route.call.clone(),
        });
        *route = ToolRoute::new_dyn(route.attr.clone(), move |ctx: ToolCallContext<'_, S>| {
            let healer = healer.clone();
            Box::pin(async move { healer.call(ctx).await })
        });
    }
    HealedRouter {
        router,
        source,
        unknown_tool: options.unknown_tool,
    }
}

/// The start of every `validate` request of a tool, written once when the
/// router is healed: `{"action":TOOL,"schema":SCHEMA,"args":`. A call adds
/// its arguments and the closing brace.
fn validate_prefix(tool: &str, schema: &JsonObject) -> Box<[u8]> {
    #[derive(serde::Serialize)]
    struct Head<'a> {
        action: &'a str,
        schema: &'a JsonObject,
    }
    // A map of strings and JSON values always serializes.
    let mut prefix = serde_json::to_vec(&Head {
        action: tool,
        schema,
    })
    .unwrap_or_default();
    prefix.pop(); // the closing brace
    prefix.extend_from_slice(br#","args":"#);
    prefix.into_boxed_slice()
}

/// One healed route: the tool's name, the start of its `validate` request,
/// and the route it wraps.
struct Healer<S: 'static> {
    source: Source,
    tool: Cow<'static, str>,
    prefix: Box<[u8]>,
    silence_panics: bool,
    inner: Arc<DynCallToolHandler<S>>,
}

impl<S: 'static> Healer<S> {
    async fn call(
        &self,
        ctx: ToolCallContext<'_, S>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let host = self.source.get().map_err(unavailable)?;
        let tool = self.tool.as_ref();
        // The request: the tool's prefix, the arguments as rmcp parsed them
        // (absent arguments are `{}`, as rmcp's extractor reads them), `}`.
        let mut request = Vec::with_capacity(self.prefix.len() + 256);
        request.extend_from_slice(&self.prefix);
        let encoded = match &ctx.arguments {
            Some(args) => serde_json::to_writer(&mut request, args),
            None => {
                request.extend_from_slice(b"{}");
                Ok(())
            }
        };
        if let Err(e) = encoded {
            return complete(
                host.internal(
                    Some(tool),
                    format!("the arguments could not be checked: {e}"),
                )
                .map_err(unavailable)?,
            );
        }
        request.push(b'}');
        let args = Args {
            request: &request,
            start: self.prefix.len(),
        };
        match host.validate_bytes(&request) {
            Ok(Validation::Valid) => {}
            Ok(Validation::Invalid(result)) => return complete(McpResult::from(result)),
            // Arguments that fit a message but not a check beside their
            // schema: too large, not a failure of the server.
            Err(e) if e.code == crate::ErrorCode::RequestTooLarge => {
                return complete(McpResult::from(
                    host.arguments_too_large(tool, args.bytes().len())
                        .map_err(unavailable)?,
                ));
            }
            // A schema the module refuses: the handler never runs on
            // arguments nobody checked.
            Err(e) => {
                return complete(
                    host.internal(
                        Some(tool),
                        format!("the arguments could not be checked: {e}"),
                    )
                    .map_err(unavailable)?,
                );
            }
        }
        // The handler may run (and panic) when called, not only when polled:
        // rmcp runs synchronous handlers and extractors in the call itself.
        let silence = self.silence_panics;
        let outcome = match catch_unwind(AssertUnwindSafe(|| {
            let _quiet = Quiet::enter(silence);
            (self.inner)(ctx)
        })) {
            Ok(future) => {
                AssertUnwindSafe(Silenced {
                    future,
                    on: silence,
                })
                .catch_unwind()
                .await
            }
            Err(payload) => Err(payload),
        };
        match outcome {
            Ok(Ok(CallToolResponse::Complete(result))) if result.is_error == Some(true) => {
                Ok(self.error_result(host, result).into())
            }
            Ok(Ok(response)) => Ok(response),
            Ok(Err(error)) => complete(self.error_data(host, error, args)?),
            Err(payload) => complete(host.panic_result(tool, payload).map_err(unavailable)?),
        }
    }

    /// An `isError` result: an envelope passes as it is; plain text becomes
    /// `INTERNAL_ERROR` with that text. A result with no text, or one the
    /// module cannot read or render, passes unchanged.
    fn error_result(&self, host: &Host, result: McpResult) -> McpResult {
        let Some(text) = result.content.iter().find_map(|c| c.as_text()) else {
            return result;
        };
        match host.parse(&text.text) {
            Ok(None) => host
                .internal(Some(&self.tool), text.text.clone())
                .unwrap_or(result),
            Ok(Some(_)) | Err(_) => result,
        }
    }

    /// An `Err(ErrorData)`: rmcp's serde failure of the arguments (which the
    /// schema let through) is a validation error on the root; anything else
    /// is `INTERNAL_ERROR` with the error's message.
    fn error_data(
        &self,
        host: &Host,
        error: ErrorData,
        args: Args<'_>,
    ) -> std::result::Result<McpResult, ErrorData> {
        let tool = self.tool.as_ref();
        if error.code == ErrorCode::INVALID_PARAMS
            && let Some(detail) = error.message.strip_prefix(DESERIALIZE_PREFIX)
            && let Ok(args) = serde_json::from_slice::<Value>(args.bytes())
        {
            let request = FormatValidationRequest {
                action: tool.to_string(),
                issues: json!([{"instancePath": "", "message": detail.trim()}]),
                args: Some(args),
                dialect: Some("jsonschema".into()),
                ..FormatValidationRequest::default()
            };
            if let Ok(result) = host.format_validation(&request) {
                return Ok(result.into());
            }
        }
        host.internal(Some(tool), error.message.into_owned())
            .map_err(unavailable)
    }
}

/// The arguments of a call, as the JSON text inside its `validate` request.
#[derive(Clone, Copy)]
struct Args<'a> {
    request: &'a [u8],
    start: usize,
}

impl Args<'_> {
    fn bytes(&self) -> &[u8] {
        &self.request[self.start..self.request.len() - 1]
    }
}

fn complete(result: McpResult) -> std::result::Result<CallToolResponse, ErrorData> {
    Ok(result.into())
}

/// The module could not load or render: the one case left to rmcp's
/// JSON-RPC error, since there is no envelope to give.
fn unavailable(e: crate::Error) -> ErrorData {
    ErrorData::internal_error(format!("toolerr: {e}"), None)
}

thread_local! {
    /// How many healed handlers whose panics are silenced are running on
    /// this thread right now (being called or polled): the panic hook stays
    /// quiet while it is not 0.
    static QUIET: Cell<u32> = const { Cell::new(0) };
}

/// Installs, once, a panic hook that says nothing about a panic raised
/// while a healed handler runs on the panicking thread (heal catches it and
/// answers with its message) and hands every other panic to the hook that
/// was there before. The hook runs on the panicking thread before it
/// unwinds, so the thread-local count tells which panics are the healed
/// handlers', whichever thread of a runtime polls them.
///
/// A program built with `panic = "abort"` keeps its hook as it is: heal
/// cannot catch a panic there, and the message is all that is left of it.
fn install_panic_hook() {
    if cfg!(not(panic = "unwind")) {
        return;
    }
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
}

/// Marks this thread as running a healed handler while it lives.
struct Quiet(bool);

impl Quiet {
    fn enter(on: bool) -> Quiet {
        if on {
            QUIET.with(|q| q.set(q.get() + 1));
        }
        Quiet(on)
    }
}

impl Drop for Quiet {
    fn drop(&mut self) {
        if self.0 {
            QUIET.with(|q| q.set(q.get() - 1));
        }
    }
}

/// A handler's future, polled with this thread marked (each poll may run on
/// another thread of the runtime).
struct Silenced<F> {
    future: F,
    on: bool,
}

impl<F: Future + Unpin> Future for Silenced<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let _quiet = Quiet::enter(self.on);
        Pin::new(&mut self.future).poll(cx)
    }
}

/// Lets a `#[tool]` method return `Result<T, ToolError>` (or a bare
/// `ToolError`): the error is rendered by the process-wide host and reaches
/// the model as the envelope, with `isError: true` (rmcp sets it on every
/// error branch).
impl IntoCallToolResult for ToolError {
    fn into_call_tool_result(self) -> std::result::Result<CallToolResponse, ErrorData> {
        Ok(McpResult::from(self).into())
    }
}
