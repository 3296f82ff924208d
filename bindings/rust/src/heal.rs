//! `heal`: toolerr inside rmcp's own tool router, so a server written the
//! usual rmcp way (`#[tool_router]`, `#[tool]`, `Parameters<T>`) answers every
//! failure with an envelope without changing its handlers.
//!
//! Each route of the router is replaced by one that checks the arguments
//! against the tool's advertised `inputSchema` in the module (`validate`)
//! before the handler runs, then reads what the handler gave back. Nothing is
//! rendered here: every envelope comes from the module.

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use futures::FutureExt;
use rmcp::ErrorData;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::{DynCallToolHandler, IntoCallToolResult, ToolCallContext};
use rmcp::model::{CallToolResponse, CallToolResult as McpResult, ErrorCode, JsonObject};
use rmcp::service::MaybeSend;
use serde::Serialize;
use serde_json::{Value, json};

use crate::abi::{FormatValidationRequest, Validation};
use crate::builder::ToolError;
use crate::error::Result;
use crate::host::{Host, host};

/// How rmcp's `Parameters<T>` extractor starts the message of a serde
/// failure; the rest is serde's own text.
const DESERIALIZE_PREFIX: &str = "failed to deserialize parameters:";

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
///   intact);
/// - unknown and disabled tools are still answered by rmcp.
///
/// Heal the whole router (after any `+` or `merge`): routes added later are
/// not healed. A router cannot reach the transport: serve the server on
/// [`stdio()`](crate::stdio) instead of rmcp's `stdio()` so that lines rmcp
/// would drop (a lone surrogate, `1e400`, nesting over 128 levels) are
/// answered by the module's stdio gate. It loads the process-wide host now, so the first call does not
/// wait for the module to compile.
///
/// rmcp 3.11's `#[tool_handler]` calls `Self::tool_router()` on every
/// request unless told otherwise, so a healed router in a field needs
/// `#[tool_handler(router = self.tool_router)]`; a server without the field
/// can write `#[tool_handler(router = toolerr::heal(Self::tool_router()))]`.
pub fn heal<S: MaybeSend + 'static>(router: ToolRouter<S>) -> ToolRouter<S> {
    // Loaded now for speed only; a failure is reported by each call.
    let _ = host();
    heal_with(Source::Process, router)
}

impl Host {
    /// [`heal`] on this host instead of the process-wide one (a host with
    /// its own [`Options`](crate::Options), leaked or in a `static`).
    pub fn heal<S: MaybeSend + 'static>(&'static self, router: ToolRouter<S>) -> ToolRouter<S> {
        heal_with(Source::Given(self), router)
    }
}

fn heal_with<S: MaybeSend + 'static>(source: Source, mut router: ToolRouter<S>) -> ToolRouter<S> {
    // The map is rmcp's public field: replacing routes in place keeps the
    // router's disabled tools and list-changed notifier as they were.
    for route in router.map.values_mut() {
        let healer = Arc::new(Healer {
            source,
            tool: route.attr.name.clone(),
            schema: route.attr.input_schema.clone(),
            inner: route.call.clone(),
        });
        *route = ToolRoute::new_dyn(route.attr.clone(), move |ctx: ToolCallContext<'_, S>| {
            let healer = healer.clone();
            Box::pin(async move { healer.call(ctx).await })
        });
    }
    router
}

/// One healed route: the tool's name and schema, and the route it wraps.
struct Healer<S: 'static> {
    source: Source,
    tool: Cow<'static, str>,
    schema: Arc<JsonObject>,
    inner: Arc<DynCallToolHandler<S>>,
}

/// The `validate` request, borrowing the route's schema rather than copying
/// it on every call.
#[derive(Serialize)]
struct ValidateCall<'a> {
    action: &'a str,
    schema: &'a JsonObject,
    args: &'a Value,
}

impl<S: 'static> Healer<S> {
    async fn call(&self, ctx: ToolCallContext<'_, S>) -> Result<CallToolResponse, ErrorData> {
        let host = self.source.get().map_err(unavailable)?;
        let tool = self.tool.as_ref();
        // Absent arguments are `{}`, as rmcp's extractor reads them.
        let args = Value::Object(ctx.arguments.clone().unwrap_or_default());
        let request = ValidateCall {
            action: tool,
            schema: &self.schema,
            args: &args,
        };
        match host.validate_json(&request) {
            Ok(Validation::Valid) => {}
            Ok(Validation::Invalid(result)) => return complete(McpResult::from(result)),
            // Arguments that fit a message but not a check beside their
            // schema: too large, not a failure of the server.
            Err(e) if e.code == crate::ErrorCode::RequestTooLarge => {
                let size = serde_json::to_vec(&args).map_or(0, |b| b.len());
                return complete(McpResult::from(
                    host.arguments_too_large(tool, size).map_err(unavailable)?,
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
        let outcome = match catch_unwind(AssertUnwindSafe(|| (self.inner)(ctx))) {
            Ok(future) => AssertUnwindSafe(future).catch_unwind().await,
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
        args: Value,
    ) -> Result<McpResult, ErrorData> {
        let tool = self.tool.as_ref();
        if error.code == ErrorCode::INVALID_PARAMS
            && let Some(detail) = error.message.strip_prefix(DESERIALIZE_PREFIX)
        {
            let request = FormatValidationRequest {
                action: tool.to_string(),
                issues: json!([{"instancePath": "", "message": detail.trim()}]),
                args: Some(args),
                dialect: Some("jsonschema".into()),
                contract: None,
            };
            if let Ok(result) = host.format_validation(&request) {
                return Ok(result.into());
            }
        }
        host.internal(Some(tool), error.message.into_owned())
            .map_err(unavailable)
    }
}

fn complete(result: McpResult) -> Result<CallToolResponse, ErrorData> {
    Ok(result.into())
}

/// The module could not load or render: the one case left to rmcp's
/// JSON-RPC error, since there is no envelope to give.
fn unavailable(e: crate::Error) -> ErrorData {
    ErrorData::internal_error(format!("toolerr: {e}"), None)
}

/// Lets a `#[tool]` method return `Result<T, ToolError>` (or a bare
/// `ToolError`): the error is rendered by the process-wide host and reaches
/// the model as the envelope, with `isError: true` (rmcp sets it on every
/// error branch).
impl IntoCallToolResult for ToolError {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        Ok(McpResult::from(self).into())
    }
}
