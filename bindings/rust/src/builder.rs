//! `tool_error(code, message)`: a tool error under construction, and an
//! error a handler can return.

use std::fmt;

use crate::abi::{self, DetailValue, Severity, ToolErrorRequest};
use crate::error::Result;
use crate::host::Host;

/// Starts a tool error with its code and message; chain `.suggest()`,
/// `.actions()`, `.severity()`, `.details()`, `.retry_after()`.
///
/// ```
/// let err = toolerr::tool_error("NOT_FOUND", "No invoice with that ID")
///     .suggest("List invoices first, then retry with a real ID")
///     .actions(["billing.list_invoices"])
///     .details([("requestedId", "inv_999")]);
/// assert_eq!(err.to_string(), "NOT_FOUND: No invoice with that ID");
/// ```
pub fn tool_error(code: impl Into<String>, message: impl Into<String>) -> ToolError {
    ToolError {
        request: ToolErrorRequest {
            code: code.into(),
            message: message.into(),
            ..Default::default()
        },
    }
}

/// A tool error: what a tool tells the model when it fails (or warns).
///
/// It is a builder ([`tool_error`] starts one) and an error in its own right:
/// a handler returns `Err(tool_error(…).into())` (or panics with it through
/// `std::panic::panic_any`), and [`Host::wrap`] renders it intact. It converts
/// into rmcp's `CallToolResult` by rendering through the process-wide
/// [`host()`](crate::host()).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    request: ToolErrorRequest,
}

/// The builder's name in the other bindings (`ErrorBuilder` in Go).
pub type ErrorBuilder = ToolError;

impl ToolError {
    /// Sets the recovery the model should follow.
    pub fn suggest(mut self, suggestion: impl Into<String>) -> Self {
        self.request.suggestion = Some(suggestion.into());
        self
    }

    /// Appends tools the model may call next.
    pub fn actions<I, S>(mut self, actions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.request
            .available_actions
            .extend(actions.into_iter().map(Into::into));
        self
    }

    /// Sets the severity; `Severity::Warning` renders with `isError: false`.
    pub fn severity(mut self, severity: Severity) -> Self {
        self.request.severity = Some(severity);
        self
    }

    /// Appends key/value details, in order. Values are strings, numbers or
    /// booleans.
    pub fn details<I, K, V>(mut self, details: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<DetailValue>,
    {
        for (k, v) in details {
            self.request.details.push(k, v);
        }
        self
    }

    /// Appends one detail.
    pub fn detail(mut self, key: impl Into<String>, value: impl Into<DetailValue>) -> Self {
        self.request.details.push(key, value);
        self
    }

    /// Sets the seconds to wait before retrying.
    pub fn retry_after(mut self, seconds: f64) -> Self {
        self.request.retry_after = Some(seconds);
        self
    }

    /// The `tool_error` request built so far.
    pub fn request(&self) -> &ToolErrorRequest {
        &self.request
    }

    /// The error's code.
    pub fn code(&self) -> &str {
        &self.request.code
    }

    /// Renders the envelope through `host`.
    pub fn render(&self, host: &Host) -> Result<abi::CallToolResult> {
        host.tool_error(&self.request)
    }
}

impl From<ToolErrorRequest> for ToolError {
    fn from(request: ToolErrorRequest) -> Self {
        ToolError { request }
    }
}

impl fmt::Display for ToolError {
    /// `CODE: message`, for logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.request.code, self.request.message)
    }
}

impl std::error::Error for ToolError {}
