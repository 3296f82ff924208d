//! rmcp glue: conversions into and out of rmcp's `CallToolResult`, the
//! handler wrapper (raise or return), and the client side's `ClientError`.

use std::any::Any;
use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};

use futures::FutureExt;
use rmcp::model::{CallToolResult as McpResult, ContentBlock};
use serde::Deserialize;

use crate::abi::{self, CallToolResult, CheckResultRequest, Envelope, InternalErrorRequest};
use crate::builder::ToolError;
use crate::error::Result;
use crate::host::{Host, host};

/// What a wrapped handler may fail with: a [`ToolError`] (rendered intact) or
/// any other error (rendered as `INTERNAL_ERROR`).
pub type HandlerError = Box<dyn StdError + Send + Sync + 'static>;

impl From<CallToolResult> for McpResult {
    /// The same text blocks and `isError`.
    fn from(result: CallToolResult) -> Self {
        let blocks = result
            .content
            .into_iter()
            .map(|c| ContentBlock::text(c.text))
            .collect();
        if result.is_error {
            McpResult::error(blocks)
        } else {
            McpResult::success(blocks)
        }
    }
}

impl From<&McpResult> for CallToolResult {
    /// Keeps the text blocks of an rmcp result; `isError` absent is false.
    fn from(result: &McpResult) -> Self {
        CallToolResult {
            content: result
                .content
                .iter()
                .filter_map(|c| c.as_text().map(|t| abi::Content::text(t.text.clone())))
                .collect(),
            is_error: result.is_error.unwrap_or(false),
        }
    }
}

impl ToolError {
    /// Renders through `host` into rmcp's result type.
    pub fn into_mcp(self, host: &Host) -> Result<McpResult> {
        Ok(self.render(host)?.into())
    }
}

impl From<ToolError> for McpResult {
    /// Renders through the process-wide [`host()`]. A tool error the module
    /// refuses (an empty code, say) becomes the `INTERNAL_ERROR` envelope
    /// saying why; only when the module cannot load at all is the result a
    /// plain text block naming the failure.
    fn from(err: ToolError) -> Self {
        match host() {
            Ok(h) => h.failure_result(None, &err).unwrap_or_else(unrenderable),
            Err(e) => unrenderable(e),
        }
    }
}

fn unrenderable(e: crate::Error) -> McpResult {
    McpResult::error(vec![ContentBlock::text(format!("toolerr: {e}"))])
}

/// The panic payload as an error message.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "the handler panicked".to_string()
    }
}

impl Host {
    /// Guards an async tool handler: `Ok` passes through; an `Err` holding a
    /// [`ToolError`] anywhere in its `source()` chain, or a panic with a
    /// `ToolError` payload, is rendered intact; any other error or panic
    /// becomes the `INTERNAL_ERROR` envelope naming `tool`, with the error's
    /// message and no stack trace. An `Err` here means the envelope itself
    /// could not be rendered.
    pub async fn wrap<F>(&self, tool: &str, handler: F) -> Result<McpResult>
    where
        F: Future<Output = std::result::Result<McpResult, HandlerError>>,
    {
        match AssertUnwindSafe(handler).catch_unwind().await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(err)) => self.failure_result(Some(tool), &*err),
            Err(payload) => self.panic_result(tool, payload),
        }
    }

    /// [`Host::wrap`] for a synchronous handler.
    pub fn wrap_sync<F>(&self, tool: &str, handler: F) -> Result<McpResult>
    where
        F: FnOnce() -> std::result::Result<McpResult, HandlerError>,
    {
        match catch_unwind(AssertUnwindSafe(handler)) {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(err)) => self.failure_result(Some(tool), &*err),
            Err(payload) => self.panic_result(tool, payload),
        }
    }

    pub(crate) fn panic_result(
        &self,
        tool: &str,
        payload: Box<dyn Any + Send>,
    ) -> Result<McpResult> {
        match payload.downcast::<ToolError>() {
            Ok(err) => self.failure_result(Some(tool), &*err),
            Err(payload) => self.internal(Some(tool), panic_message(&*payload)),
        }
    }

    /// Renders what a handler failed with.
    fn failure_result(
        &self,
        tool: Option<&str>,
        failure: &(dyn StdError + 'static),
    ) -> Result<McpResult> {
        let mut cause: Option<&(dyn StdError + 'static)> = Some(failure);
        while let Some(err) = cause {
            if let Some(tool_err) = err.downcast_ref::<ToolError>() {
                return match tool_err.render(self) {
                    Ok(result) => Ok(result.into()),
                    Err(e) => self.internal(
                        tool,
                        format!("tool error {} could not be rendered: {e}", tool_err.code()),
                    ),
                };
            }
            cause = err.source();
        }
        self.internal(tool, failure.to_string())
    }

    pub(crate) fn internal(&self, tool: Option<&str>, message: String) -> Result<McpResult> {
        let request = InternalErrorRequest {
            message,
            tool: tool.map(Into::into),
            action: None,
        };
        Ok(self.internal_error(&request)?.into())
    }

    /// Returns `result` when it succeeded (warnings included) and a
    /// [`ClientError`] when `isError` is set: its code, severity and message
    /// as the module's `check_result` projects them (a tool error's own,
    /// `VALIDATION_ERROR` for a validation error, `UNKNOWN` and the first
    /// text block when there is no envelope), and the envelope as
    /// [`Host::parse_result`] reads it.
    pub fn check(&self, result: McpResult) -> std::result::Result<McpResult, ClientError> {
        if !result.is_error.unwrap_or(false) {
            return Ok(result);
        }
        let request = CheckResultRequest {
            result: CallToolResult::from(&result),
        };
        let read = self
            .call_json::<_, CheckResultResponse>("check_result", &request)
            .and_then(|response| match response.client_error {
                None => Ok(None),
                Some(p) => Ok(Some((p, self.parse_result(&request.result)?))),
            });
        match read {
            Ok(None) => Ok(result),
            Ok(Some((p, envelope))) => Err(ClientError {
                code: p.code,
                severity: p.severity,
                message: p.message,
                envelope,
                raw: result,
            }),
            Err(_) => Err(ClientError::unread(result)),
        }
    }
}

/// The response of `check_result`: the error a client raises, or None for a
/// result that is not an error.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CheckResultResponse {
    client_error: Option<Projection>,
}

/// What a [`ClientError`] takes of `check_result`'s `clientError`: the
/// projection. Its other members are the envelope's, which `parse` reads
/// whole, as an [`Envelope`] (`check_result` leaves out a tool error's
/// `isError`).
#[derive(Deserialize)]
struct Projection {
    code: String,
    severity: String,
    message: String,
}

/// What a [`ClientError`] was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientErrorKind {
    /// A `<tool_error>`.
    ToolError,
    /// A `<validation_error>`.
    ValidationError,
    /// An `isError` result with no envelope (or one that could not be read).
    NoEnvelope,
}

/// A tool's failure as a client sees it: the module's `check_result`
/// projection of an `isError` result, the same in every binding, and the
/// envelope it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientError {
    /// The tool error's code; `VALIDATION_ERROR` for a validation error;
    /// `UNKNOWN` with no envelope.
    pub code: String,
    /// The severity (`error` unless the envelope says otherwise).
    pub severity: String,
    /// The message. For a validation error, `invalid arguments for ACTION:
    /// f1, f2`; with no envelope, the first text block's text.
    pub message: String,
    /// The envelope, as [`parse`](crate::parse) reads it: a tool error's
    /// recovery, actions, details and retry_after, or a validation error's
    /// action, fields, recovery and contract; `None` for a result with no
    /// envelope (or one that could not be read).
    pub envelope: Option<Envelope>,
    /// The result as received.
    pub raw: McpResult,
}

impl ClientError {
    /// The error of a result the module could not read (it could not load,
    /// or refused the result): `UNKNOWN`, with the result's text.
    fn unread(raw: McpResult) -> ClientError {
        ClientError {
            code: "UNKNOWN".into(),
            severity: "error".into(),
            message: CallToolResult::from(&raw).text().to_string(),
            envelope: None,
            raw,
        }
    }

    /// What it was read from.
    pub fn kind(&self) -> ClientErrorKind {
        match self.envelope {
            Some(Envelope::ToolError(_)) => ClientErrorKind::ToolError,
            Some(Envelope::ValidationError(_)) => ClientErrorKind::ValidationError,
            None => ClientErrorKind::NoEnvelope,
        }
    }

    /// The envelope's recovery, if any.
    pub fn recovery(&self) -> Option<&str> {
        self.envelope.as_ref().and_then(Envelope::recovery)
    }
}

impl fmt::Display for ClientError {
    /// `CODE: message (recovery: …)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)?;
        if let Some(recovery) = self.recovery() {
            write!(f, " (recovery: {recovery})")?;
        }
        Ok(())
    }
}

impl StdError for ClientError {}

/// [`Host::check`] on the process-wide [`host()`]: `Ok(result)` for a
/// success or a warning, `Err(ClientError)` for an `isError` result. When the
/// module cannot load, the error carries code `UNKNOWN` and the result's text.
pub fn check(result: McpResult) -> std::result::Result<McpResult, ClientError> {
    match host() {
        Ok(h) => h.check(result),
        Err(_) => {
            if !result.is_error.unwrap_or(false) {
                return Ok(result);
            }
            Err(ClientError::unread(result))
        }
    }
}
