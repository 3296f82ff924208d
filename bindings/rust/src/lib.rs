//! toolerr for Rust: MCP Fusion's error contract — `<tool_error>` and
//! `<validation_error>` envelopes for language models — from the one
//! `toolerr.wasm` every toolerr binding loads, run by Wasmtime.
//!
//! This crate holds no contract logic: it builds a request, calls the module,
//! and wraps the response. Every envelope it returns is byte-identical to what
//! the Go, Node and Python bindings return for the same request.
//!
//! - [`Host`]: the module, sha256- and ABI-checked at load, with a pool of
//!   instances (`Send + Sync`); raw [`Host::call`] and typed methods.
//! - [`tool_error`]: a builder and an error ([`ToolError`]) that converts into
//!   rmcp's `CallToolResult`; [`Host::wrap`] renders a handler's `Err` or
//!   panic as the right envelope.
//! - The free functions below run on the process-wide [`host()`].
//! - [`check`] turns an rmcp client's result into `Result<_, ClientError>`.
//! - [`heal`] (cargo feature `server`, on by default) puts all of it inside
//!   an rmcp `ToolRouter`: arguments validated against each tool's schema,
//!   handler errors and panics rendered as envelopes, a call to a tool the
//!   router does not have answered with `UNKNOWN_ACTION` ([`HealedRouter`],
//!   [`HealOptions`]).
//! - [`stdio`] (feature `server`) is rmcp's stdio transport behind the
//!   module's stdio gate ([`Host::gate`]): `server.serve(toolerr::stdio())`
//!   answers every request a client sends, however malformed.
//!
//! ```
//! use rmcp::model::CallToolResult;
//!
//! let not_found: CallToolResult = toolerr::tool_error("NOT_FOUND", "No invoice with that ID")
//!     .suggest("List invoices first, then retry with a real ID")
//!     .actions(["billing.list_invoices"])
//!     .details([("requestedId", "inv_999")])
//!     .into();
//! assert_eq!(not_found.is_error, Some(true));
//! let err = toolerr::check(not_found).unwrap_err();
//! assert_eq!(err.code, "NOT_FOUND");
//! ```

#![warn(missing_docs)]

pub mod abi;
mod abi_gen;
mod builder;
mod engine;
mod error;
#[cfg(feature = "server")]
mod heal;
mod host;
mod interp;
mod mcp;
mod raw;
#[cfg(feature = "server")]
mod stdio;
mod tiers;

pub use abi::{
    CallToolResult, Content, Contract, ContractDiff, Delta, DetailValue, Details, Envelope,
    EscapeContext, Field, FormatValidationRequest, GateVerdict, LockedTool, Lockfile, Severity,
    ToolErrorRequest, ValidateRequest, Validation,
};
pub use builder::{ErrorBuilder, ToolError, tool_error};
pub use error::{Error, ErrorCode, Result};
#[cfg(feature = "server")]
pub use heal::{HealOptions, HealedRouter, UnknownTool, heal, heal_with};
pub use host::{
    ABI_MAJOR, Host, Options, WASI_OUTPUT_VARIABLE, WASM, WASM_SHA256_FILE, host, wasm_sha256,
};
pub use mcp::{ClientError, ClientErrorKind, HandlerError, check};
#[cfg(feature = "server")]
pub use stdio::{GatedStdin, GatedStdout, stdio};
pub use tiers::{Tier, Tiers};

use rmcp::model::CallToolResult as McpResult;

/// The stdio gate's verdict on one line a client sent, on the process-wide
/// host; see [`Host::gate`].
pub fn gate(line: &[u8]) -> Result<GateVerdict> {
    host()?.gate(line)
}

/// Renders the reference's `error()`: a message and, when `code` is given, a
/// code attribute.
pub fn simple_error(message: &str, code: Option<&str>) -> Result<McpResult> {
    Ok(host()?.simple_error(message, code)?.into())
}

/// Renders the `MISSING_REQUIRED_FIELD` envelope for `field`.
pub fn required(field: &str) -> Result<McpResult> {
    Ok(host()?.required(field)?.into())
}

/// Renders the `INTERNAL_ERROR` envelope of an unmarked failure in `tool`.
pub fn internal_error(message: &str, tool: Option<&str>) -> Result<McpResult> {
    let request = abi::InternalErrorRequest {
        message: message.into(),
        tool: tool.map(Into::into),
        action: None,
    };
    Ok(host()?.internal_error(&request)?.into())
}

/// Renders the `RATE_LIMITED` envelope: at most `max` calls per
/// `window_seconds`, retry after `retry_after` seconds; `key` defaults to
/// `__global__`.
pub fn rate_limited(
    max: f64,
    window_seconds: f64,
    retry_after: f64,
    key: Option<&str>,
) -> Result<McpResult> {
    let request = abi::RateLimitedRequest {
        max,
        window_seconds,
        retry_after,
        key: key.map(Into::into),
    };
    Ok(host()?.rate_limited(&request)?.into())
}

/// Renders the `UNKNOWN_ACTION` envelope of a call to a tool the server does
/// not have: `tool` is the name called, `tools` the server's tools in its
/// order; see [`Host::unknown_tool`].
pub fn unknown_tool<I>(tool: &str, tools: I) -> Result<McpResult>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    Ok(host()?.unknown_tool(tool, tools)?.into())
}

/// Renders the `SERVER_BUSY` envelope of a concurrency guard.
pub fn server_busy(tool: &str, active: f64, queued: f64) -> Result<McpResult> {
    let request = abi::ServerBusyRequest {
        tool: tool.into(),
        active,
        queued,
    };
    Ok(host()?.server_busy(&request)?.into())
}

/// Renders a `<validation_error>` from a validator's issues.
pub fn format_validation(request: &FormatValidationRequest) -> Result<McpResult> {
    Ok(host()?.format_validation(request)?.into())
}

/// Checks `args` against a tool's JSON Schema (`schema`); `action` names the
/// tool in the `<validation_error>` of an `Invalid` outcome.
pub fn validate(
    action: &str,
    schema: &serde_json::Value,
    args: &serde_json::Value,
) -> Result<Validation> {
    let request = abi::ValidateRequest {
        action: action.into(),
        schema: schema.clone(),
        args: args.clone(),
        contract: None,
    };
    host()?.validate(&request)
}

/// Like [`validate`], with contract awareness: an `Invalid` outcome carries
/// the `<contract_awareness>` block of the changes that concern
/// `contract.tool` (see [`Contract`]).
pub fn validate_with_contract(
    action: &str,
    schema: &serde_json::Value,
    args: &serde_json::Value,
    contract: &Contract,
) -> Result<Validation> {
    let request = abi::ValidateRequest {
        action: action.into(),
        schema: schema.clone(),
        args: args.clone(),
        contract: Some(contract.clone()),
    };
    host()?.validate(&request)
}

/// Locks the contract of a set of MCP tools (a tools array, a tools/list
/// result or a lockfile); see [`Host::contract_lock`].
pub fn contract_lock<T: serde::Serialize + ?Sized>(tools: &T) -> Result<Lockfile> {
    host()?.contract_lock(tools)
}

/// Compares two contracts (each a lockfile, a tools array or a tools/list
/// result); see [`Host::contract_diff`].
pub fn contract_diff<B: serde::Serialize + ?Sized, A: serde::Serialize + ?Sized>(
    before: &B,
    after: &A,
) -> Result<ContractDiff> {
    host()?.contract_diff(before, after)
}

/// Reads the first envelope in `text`; `None` when there is none.
pub fn parse(text: &str) -> Result<Option<Envelope>> {
    host()?.parse(text)
}

/// Escapes `text` for an element body or a double-quoted attribute.
pub fn escape(text: &str, context: EscapeContext) -> Result<String> {
    host()?.escape(text, context)
}

/// The README's snippets, run as doctests (its first one heals an rmcp
/// router, so they need the `server` feature).
#[cfg(all(doctest, feature = "server"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
