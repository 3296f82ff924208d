//! billing-rust: the billing demo (examples/README.md) as an MCP server over
//! stdio, built with rmcp. Every error it returns, validation errors included,
//! is an envelope rendered by toolerr.wasm through the `toolerr` crate, so its
//! answers are byte-identical to those of the other languages' servers.
//!
//! # Notes
//! - Only the MCP transport writes to stdout; logs go to stderr.
//! - The invoices live in memory and are reset when the process starts.
//! - Tools, descriptions and input schemas are examples/schemas.json, included
//!   at build time and advertised as they are; arguments are checked by
//!   toolerr's `validate` before any handler runs (rmcp only deserializes).
//! - At start-up the server diffs the older contract in
//!   examples/billing.lock.json against its own tools (`contract_diff`);
//!   validation errors on a changed tool carry what changed.
//! - Every line from the client passes the module's stdio gate
//!   (`toolerr::stdio()`) before rmcp reads it, as in every billing server: a
//!   message serde_json refuses (a lone surrogate, 1e309, deep nesting) would
//!   be dropped without an answer; the gate answers malformed requests with
//!   their JSON-RPC error, and arguments no SDK reads intact (too large, too
//!   deep, a number beyond a 64-bit float, not valid Unicode, not an object)
//!   with its `<validation_error>`, the same bytes in every language.

mod billing;

use std::process::ExitCode;

use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("billing-rust: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Serves the billing tools on stdin/stdout until the client leaves.
async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let host = toolerr::host()?;
    let server = billing::Billing::new(host)?;
    // rmcp's stdio transport, reading the client's lines through the gate.
    let service = match server.serve(host.stdio()).await {
        Ok(service) => service,
        // stdin ended before any client initialized: nothing to serve (this is
        // how build.sh starts it once, to fill wasmtime's compilation cache).
        Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    service.waiting().await?;
    Ok(())
}
