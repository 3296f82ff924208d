//! quickstart-rust: an MCP server over stdio written the way rmcp teaches
//! (`#[tool_router]`, `#[tool]`, `Parameters<T>` with a schemars schema,
//! `#[tool_handler]`), healed by toolerr: bad arguments get a
//! `<validation_error>` the model can act on, failures a `<tool_error>`.
//!
//! The toolerr part is the healed router in `Billing::new` (its field a
//! `toolerr::HealedRouter`, and `#[tool_handler]` pointed at it) and
//! `toolerr::stdio()` for rmcp's `stdio()`, so that no line the client sends
//! goes unanswered; the handlers hold no XML and no validation. A panic in a
//! handler becomes INTERNAL_ERROR and prints nothing; a call to a tool the
//! server does not have gets UNKNOWN_ACTION listing the two it has.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::json;
use toolerr::{ToolError, tool_error};

#[derive(Deserialize, schemars::JsonSchema)]
struct GetInvoice {
    /// The invoice's ID, e.g. inv_001.
    #[schemars(regex(pattern = r"^inv_[0-9]{3}$"))]
    id: String,
}

#[derive(Clone)]
struct Billing {
    tool_router: toolerr::HealedRouter<Self>,
}

#[tool_router]
impl Billing {
    fn new() -> Self {
        Self {
            tool_router: toolerr::heal(Self::tool_router()),
        }
    }

    #[tool(
        name = "billing.get_invoice",
        description = "Get one invoice by its ID."
    )]
    async fn get_invoice(
        &self,
        Parameters(GetInvoice { id }): Parameters<GetInvoice>,
    ) -> Result<String, ToolError> {
        let invoice = match id.as_str() {
            "inv_001" => {
                json!({"id": "inv_001", "status": "open", "amount": 120.5, "currency": "EUR"})
            }
            "inv_002" => {
                json!({"id": "inv_002", "status": "paid", "amount": 75, "currency": "USD"})
            }
            "inv_003" => {
                json!({"id": "inv_003", "status": "open", "amount": 9.99, "currency": "USD"})
            }
            _ => {
                return Err(tool_error("NOT_FOUND", "No invoice with that ID")
                    .suggest("List invoices first, then retry with a real ID")
                    .actions(["billing.list_invoices"])
                    .detail("requestedId", id));
            }
        };
        Ok(invoice.to_string())
    }

    #[tool(
        name = "billing.export_invoices",
        description = "Export every invoice."
    )]
    async fn export_invoices(&self) -> String {
        // Stands for a dependency that is down, and code that did not expect
        // it: the panic reaches the model as INTERNAL_ERROR with its message.
        panic!("exporter backend unavailable")
    }
}

// rmcp 3.11 routes through `Self::tool_router()` unless told to use the field.
#[tool_handler(router = self.tool_router)]
impl ServerHandler for Billing {}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // toolerr::stdio(): rmcp's stdio transport behind the stdio gate.
    let service = Billing::new().serve(toolerr::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
