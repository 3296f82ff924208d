//! rmcp glue: conversions into and out of rmcp's `CallToolResult`, the
//! handler wrapper (raise or return), and the client side's `ClientError`.

use std::any::Any;
use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};

use futures::FutureExt;
use rmcp::model::{CallToolResult as McpResult, ContentBlock};

use crate::abi::{self, CallToolResult, Details, Envelope, Field, InternalErrorRequest};
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
    /// [`ClientError`] read from its envelope when `isError` is set.
    pub fn check(&self, result: McpResult) -> std::result::Result<McpResult, ClientError> {
        if !result.is_error.unwrap_or(false) {
            return Ok(result);
        }
        let ours = CallToolResult::from(&result);
        let envelope = self.parse_result(&ours).ok().flatten();
        Err(ClientError::from_envelope(
            envelope,
            ours.text().to_string(),
            result,
        ))
    }
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

/// A tool's failure as a client sees it: the parsed envelope of an `isError`
/// result.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientError {
    /// What it was read from.
    pub kind: ClientErrorKind,
    /// The tool error's code; `VALIDATION_ERROR` for a validation error;
    /// `UNKNOWN` with no envelope.
    pub code: String,
    /// The severity (`error` unless the envelope says otherwise).
    pub severity: String,
    /// The message. For a validation error, `invalid arguments for ACTION:
    /// f1, f2`; with no envelope, the result's text.
    pub message: String,
    /// The recovery, if any.
    pub recovery: Option<String>,
    /// The tools the model may call next.
    pub available_actions: Vec<String>,
    /// The details, as text, in order.
    pub details: Details,
    /// Seconds to wait, if any.
    pub retry_after: Option<f64>,
    /// The fields of a validation error.
    pub fields: Vec<Field>,
    /// The result as received.
    pub raw: McpResult,
}

impl ClientError {
    fn from_envelope(envelope: Option<Envelope>, text: String, raw: McpResult) -> ClientError {
        let mut ce = ClientError {
            kind: ClientErrorKind::NoEnvelope,
            code: "UNKNOWN".into(),
            severity: "error".into(),
            message: text,
            recovery: None,
            available_actions: Vec::new(),
            details: Details::new(),
            retry_after: None,
            fields: Vec::new(),
            raw,
        };
        match envelope {
            None => {}
            Some(Envelope::ToolError(e)) => {
                ce.kind = ClientErrorKind::ToolError;
                ce.code = e.code;
                ce.severity = e.severity;
                ce.message = e.message;
                ce.recovery = e.recovery;
                ce.available_actions = e.available_actions;
                ce.details = e.details;
                ce.retry_after = e.retry_after;
            }
            Some(Envelope::ValidationError(e)) => {
                let names: Vec<&str> = e.fields.iter().map(|f| f.name.as_str()).collect();
                ce.kind = ClientErrorKind::ValidationError;
                ce.code = "VALIDATION_ERROR".into();
                ce.message = format!("invalid arguments for {}: {}", e.action, names.join(", "));
                ce.recovery = e.recovery;
                ce.fields = e.fields;
            }
        }
        ce
    }
}

impl fmt::Display for ClientError {
    /// `CODE: message (recovery: …)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)?;
        if let Some(recovery) = &self.recovery {
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
            let text = CallToolResult::from(&result).text().to_string();
            Err(ClientError::from_envelope(None, text, result))
        }
    }
}
