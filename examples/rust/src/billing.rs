//! The billing tools: their state, their handlers, and the rmcp
//! `ServerHandler` that lists them and routes calls to them.

use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Number, Value};
use toolerr::{
    Contract, Delta, ErrorCode, HandlerError, Host, Severity, ToolError, ValidateRequest,
    Validation, tool_error,
};

/// Each tool's description and inputSchema, the same text for every language.
const SCHEMAS: &str = include_str!("../../schemas.json");

/// The contract the tools had before (a `toolerr lock` of the older
/// schemas): at start-up the server diffs it against its own tools, and the
/// validation errors of a changed tool say what changed.
const LOCKFILE: &str = include_str!("../../billing.lock.json");

/// The tools this server implements; schemas.json must list exactly these.
const TOOLS: [&str; 5] = [
    "billing.export_invoices",
    "billing.get_invoice",
    "billing.list_invoices",
    "billing.pay_invoice",
    "billing.void_invoice",
];

/// The invoices every process starts with, as JSON so that each amount keeps
/// the number text JavaScript writes for it (120.5, 75, 9.99).
const INVOICES: &str = r#"[
  {"id": "inv_001", "status": "open", "amount": 120.5, "currency": "EUR"},
  {"id": "inv_002", "status": "paid", "amount": 75, "currency": "USD"},
  {"id": "inv_003", "status": "open", "amount": 9.99, "currency": "USD"}
]"#;

/// How many pay_invoice calls with valid arguments one process accepts.
const MAX_PAY_CALLS: u32 = 3;

/// One invoice; its JSON keys are in the demo's order.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Invoice {
    id: String,
    status: String,
    amount: Number,
    currency: String,
}

/// The result of pay_invoice.
#[derive(Serialize)]
struct Payment<'a> {
    id: &'a str,
    status: &'a str,
    paid: &'a Number,
    currency: &'a str,
}

/// The result of list_invoices.
#[derive(Serialize)]
struct InvoiceList<'a> {
    invoices: Vec<&'a Invoice>,
}

/// The mutable state: the invoices and the pay_invoice counter.
struct State {
    invoices: Vec<Invoice>, // in id order
    pay_calls: u32,
}

/// The billing server.
pub struct Billing {
    host: &'static Host,
    tools: Vec<Tool>,   // in name order
    deltas: Vec<Delta>, // the locked contract against these tools
    state: Mutex<State>,
}

impl Billing {
    /// Reads schemas.json and the initial invoices.
    pub fn new(host: &'static Host) -> Result<Billing, Box<dyn std::error::Error>> {
        let defs: JsonObject =
            serde_json::from_str(SCHEMAS).map_err(|e| format!("schemas.json: {e}"))?;
        let mut tools = Vec::new();
        for (name, def) in &defs {
            if !TOOLS.contains(&name.as_str()) {
                return Err(format!("schemas.json: no handler for tool {name:?}").into());
            }
            let description = def["description"]
                .as_str()
                .ok_or(format!("schemas.json: {name}: no description"))?;
            let schema = def["inputSchema"]
                .as_object()
                .ok_or(format!("schemas.json: {name}: no inputSchema"))?;
            tools.push(Tool::new(
                name.clone(),
                description.to_string(),
                Arc::new(schema.clone()),
            ));
        }
        for name in TOOLS {
            if !defs.contains_key(name) {
                return Err(format!("schemas.json: no schema for tool {name:?}").into());
            }
        }
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        // What changed since the locked contract, computed once by the module
        // on exactly what tools/list advertises.
        let lockfile: &RawValue =
            serde_json::from_str(LOCKFILE).map_err(|e| format!("billing.lock.json: {e}"))?;
        let deltas = host
            .contract_diff(lockfile, &tools)
            .map_err(|e| format!("billing.lock.json: {e}"))?
            .deltas;
        let invoices = serde_json::from_str(INVOICES)?;
        Ok(Billing {
            host,
            tools,
            deltas,
            state: Mutex::new(State {
                invoices,
                pay_calls: 0,
            }),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Validates the arguments, then runs the tool. Runs inside
    /// `Host::wrap`: a `ToolError` comes out intact, anything else as
    /// INTERNAL_ERROR naming the tool.
    async fn run(&self, tool: &Tool, args: Value) -> Result<CallToolResult, HandlerError> {
        // Validation errors carry the contract changes that concern this
        // tool (the module keeps those of actions.<tool>).
        let request = ValidateRequest {
            action: tool.name.to_string(),
            schema: Value::Object((*tool.input_schema).clone()),
            args,
            contract: self.contract(tool),
        };
        match self.host.validate(&request) {
            Ok(Validation::Valid) => {}
            Ok(Validation::Invalid(result)) => return Ok(result.into()),
            // Arguments that fit a message but not a check beside the schema
            // (bytes or values): too large, not a failure of the server.
            Err(e) if e.code == ErrorCode::RequestTooLarge => {
                let size = serde_json::to_vec(&request.args).map_or(0, |b| b.len());
                return Ok(self.host.arguments_too_large(&tool.name, size)?.into());
            }
            Err(e) => return Err(e.into()),
        }
        let args = request.args;
        let arg = |name: &str| args.get(name).and_then(Value::as_str).unwrap_or("");
        match tool.name.as_ref() {
            "billing.get_invoice" => self.get_invoice(arg("id")),
            "billing.list_invoices" => self.list_invoices(&args),
            "billing.pay_invoice" => self.pay_invoice(arg("id"), &args["amount"], arg("currency")),
            "billing.void_invoice" => Err(void_invoice().into()),
            "billing.export_invoices" => Err("exporter backend unavailable".into()),
            other => Err(format!("no handler for {other}").into()),
        }
    }

    /// The contract changes that concern `tool`, for its validation errors.
    fn contract(&self, tool: &Tool) -> Option<Contract> {
        (!self.deltas.is_empty())
            .then(|| Contract::with_deltas(tool.name.to_string(), self.deltas.clone()))
    }

    fn get_invoice(&self, id: &str) -> Result<CallToolResult, HandlerError> {
        let state = self.state();
        let invoice = state
            .invoices
            .iter()
            .find(|i| i.id == id)
            .ok_or_else(|| not_found(id))?;
        text_result(invoice)
    }

    fn list_invoices(&self, args: &Value) -> Result<CallToolResult, HandlerError> {
        let page_size = args.get("page_size").and_then(Value::as_f64);
        let limit = args
            .get("limit")
            .and_then(Value::as_f64)
            .or(page_size)
            .unwrap_or(10.0);
        let status = args.get("status").and_then(Value::as_str);
        let state = self.state();
        let invoices = state
            .invoices
            .iter()
            .filter(|i| status.is_none_or(|s| i.status == s))
            .take(limit as usize)
            .collect();
        let list = text_result(&InvoiceList { invoices })?;
        if page_size.is_none() {
            return Ok(list);
        }
        // A warning rides the success path: the envelope first, then the list.
        let warning = tool_error("DEPRECATED", "page_size is deprecated; use limit")
            .suggest("Call billing.list_invoices with limit instead")
            .severity(Severity::Warning)
            .render(self.host)?;
        let mut blocks: Vec<ContentBlock> = warning
            .content
            .into_iter()
            .map(|c| ContentBlock::text(c.text))
            .collect();
        blocks.extend(list.content);
        Ok(CallToolResult::success(blocks))
    }

    fn pay_invoice(
        &self,
        id: &str,
        amount: &Value,
        currency: &str,
    ) -> Result<CallToolResult, HandlerError> {
        let mut state = self.state();
        state.pay_calls += 1;
        if state.pay_calls > MAX_PAY_CALLS {
            return Ok(toolerr::rate_limited(
                MAX_PAY_CALLS.into(),
                60.0,
                60.0,
                Some("billing.pay_invoice"),
            )?);
        }
        let invoice = state
            .invoices
            .iter_mut()
            .find(|i| i.id == id)
            .ok_or_else(|| not_found(id))?;
        if invoice.status == "paid" {
            return Err(
                tool_error("CONFLICT", format!("Invoice {id} is already paid"))
                    .suggest("Call billing.get_invoice to check the status before paying")
                    .actions(["billing.get_invoice"])
                    .into(),
            );
        }
        let expected = invoice.amount.as_f64();
        if amount.as_f64() != expected || currency != invoice.currency {
            return Err(tool_error(
                "VALIDATION_ERROR",
                format!("Amount or currency does not match invoice {id}"),
            )
            .detail("expectedAmount", expected.unwrap_or(f64::NAN))
            .detail("expectedCurrency", invoice.currency.as_str())
            .into());
        }
        invoice.status = "paid".into();
        // The amount paid equals the invoice's, whose number text is kept.
        text_result(&Payment {
            id,
            status: "paid",
            paid: &invoice.amount,
            currency,
        })
    }
}

fn not_found(id: &str) -> ToolError {
    tool_error("NOT_FOUND", "No invoice with that ID")
        .suggest("List invoices first, then retry with a real ID")
        .actions(["billing.list_invoices"])
        .detail("requestedId", id)
}

/// void_invoice always fails: the caller lacks the role. The tool error
/// reaches the client intact through `Host::wrap`.
fn void_invoice() -> ToolError {
    tool_error(
        "FORBIDDEN",
        "Voiding invoices requires the billing-admin role",
    )
    .severity(Severity::Critical)
}

/// One text block of compact JSON, keys in struct order (serde_json does not
/// escape `<`, `>` or `&`, as JSON.stringify does not).
fn text_result<T: Serialize>(value: &T) -> Result<CallToolResult, HandlerError> {
    Ok(CallToolResult::success(vec![ContentBlock::text(
        serde_json::to_string(value)?,
    )]))
}

impl ServerHandler for Billing {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("billing-rust", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // An unknown tool is answered as rmcp's tool router answers it.
        let tool = self
            .tools
            .iter()
            .find(|t| t.name == request.name)
            .ok_or_else(|| ErrorData::invalid_params("tool not found", None))?;
        let args = Value::Object(request.arguments.unwrap_or_default()); // absent: {}
        match self.host.wrap(&tool.name, self.run(tool, args)).await {
            Ok(result) => Ok(result.into()),
            Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
        }
    }
}
