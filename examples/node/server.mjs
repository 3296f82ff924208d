#!/usr/bin/env node
// billing-node: the billing demo as an MCP server over stdio, built with the
// official TypeScript SDK. Every error it returns, validation errors
// included, is rendered by toolerr.wasm through the toolerr binding, so its
// answers are byte-identical to those of the other languages' servers.
//
// Notes:
// - Only the MCP transport writes to stdout; logs go to stderr.
// - The invoices live in memory and are reset when the process starts.
// - Tool names, descriptions and inputSchemas are read from the canonical
//   examples/schemas.json at start-up.
// - At start-up the server diffs the older contract in
//   examples/billing.lock.json against its own tools (contract_diff);
//   validation errors on a changed tool carry what changed.
// - The low-level Server is used because McpServer refuses a plain JSON
//   Schema as inputSchema; arguments are checked by toolerr's validate.
// - Every line from the client passes the module's stdio gate (the binding's
//   gatedStdin) before the SDK reads it, as in every billing server: a
//   malformed request gets its JSON-RPC error, and arguments no SDK reads
//   intact (too large, too deep, a number beyond a 64-bit float, not valid
//   Unicode, not an object) are answered with the gate's <validation_error>,
//   the same bytes in every language.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolerrError, load } from 'toolerr';

/** MAX_PAY_CALLS is how many validated pay_invoice calls one process accepts. */
const MAX_PAY_CALLS = 3;

// schemasURL is the canonical tool list shared by every language's server.
const schemasURL = new URL('../schemas.json', import.meta.url);
// lockURL is the lockfile of an older billing contract.
const lockURL = new URL('../billing.lock.json', import.meta.url);

// createServer returns the billing MCP server, its state fresh.
async function createServer(toolerr) {
  const defs = JSON.parse(readFileSync(schemasURL, 'utf8'));
  const billing = new Billing(toolerr);
  const handlers = {
    'billing.get_invoice': (args) => billing.getInvoice(args),
    'billing.list_invoices': (args) => billing.listInvoices(args),
    'billing.pay_invoice': (args) => billing.payInvoice(args),
    'billing.void_invoice': (args) => billing.voidInvoice(args),
    'billing.export_invoices': (args) => billing.exportInvoices(args),
  };
  const names = Object.keys(defs).sort();
  for (const name of names) {
    if (!handlers[name]) throw new Error(`schemas.json: no handler for tool ${JSON.stringify(name)}`);
  }
  for (const name of Object.keys(handlers)) {
    if (!(name in defs)) throw new Error(`schemas.json: no schema for tool ${JSON.stringify(name)}`);
  }
  // definitions are exactly what tools/list advertises.
  const definitions = names.map((name) => ({ name, description: defs[name].description, inputSchema: defs[name].inputSchema }));
  // What changed since the locked contract, computed once.
  const lockfile = JSON.parse(readFileSync(lockURL, 'utf8'));
  const { deltas } = await toolerr.contractDiff(lockfile, definitions).catch((err) => {
    throw new Error(`billing.lock.json: ${err.message}`);
  });
  const tools = new Map();
  for (const definition of definitions) {
    const { name, inputSchema } = definition;
    const handler = handlers[name];
    // A validation error on a changed tool carries what changed.
    const contract = deltas.length > 0 ? { tool: name, deltas } : undefined;
    tools.set(name, {
      definition,
      // wrap: a thrown tool error reaches the client intact; anything else
      // thrown becomes INTERNAL_ERROR naming the tool.
      call: toolerr.wrap(name, async (args) => {
        let check;
        try {
          check = await toolerr.validate(name, inputSchema, args, { contract });
        } catch (err) {
          // Arguments that fit a message but not a check beside the schema (bytes or values):
          // too large, not a failure of the server.
          if (err instanceof ToolerrError && err.code === 'REQUEST_TOO_LARGE') {
            return toolerr.argumentsTooLarge(name, Buffer.byteLength(JSON.stringify(args)));
          }
          throw err;
        }
        if (!check.valid) return check.result;
        return handler(args);
      }),
    });
  }

  const server = new Server({ name: 'billing-node', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: definitions,
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.get(request.params.name);
    if (!tool) {
      // What the SDK's McpServer answers for an unknown tool, by default.
      const err = new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
      return { content: [{ type: 'text', text: err.message }], isError: true };
    }
    return tool.call(request.params.arguments ?? {});
  });
  return server;
}

/** Billing is the server's state: the invoices and the pay_invoice counter. */
class Billing {
  constructor(toolerr) {
    this.toolerr = toolerr;
    this.payCalls = 0;
    this.invoices = [
      invoice('inv_001', 'open', 120.5, 'EUR'),
      invoice('inv_002', 'paid', 75, 'USD'),
      invoice('inv_003', 'open', 9.99, 'USD'),
    ]; // in id order
  }

  find(id) {
    return this.invoices.find((inv) => inv.id === id);
  }

  notFound(id) {
    return this.toolerr.error('NOT_FOUND', 'No invoice with that ID')
      .suggest('List invoices first, then retry with a real ID')
      .actions('billing.list_invoices')
      .details({ requestedId: id });
  }

  getInvoice({ id }) {
    const inv = this.find(id);
    if (!inv) throw this.notFound(id);
    return textResult(inv);
  }

  async listInvoices({ status, limit, page_size: pageSize }) {
    const deprecated = pageSize !== undefined;
    const max = limit ?? pageSize ?? 10;
    const invoices = this.invoices.filter((inv) => status === undefined || inv.status === status).slice(0, max);
    const list = textResult({ invoices });
    if (!deprecated) return list;
    const warning = await this.toolerr.error('DEPRECATED', 'page_size is deprecated; use limit')
      .suggest('Call billing.list_invoices with limit instead')
      .severity('warning');
    // isError false: a warning rides the success path, its envelope first.
    return { content: [...warning.content, ...list.content], isError: warning.isError };
  }

  payInvoice({ id, amount, currency }) {
    this.payCalls++;
    if (this.payCalls > MAX_PAY_CALLS) {
      return this.toolerr.rateLimited({ max: MAX_PAY_CALLS, windowSeconds: 60, retryAfter: 60, key: 'billing.pay_invoice' });
    }
    const inv = this.find(id);
    if (!inv) throw this.notFound(id);
    if (inv.status === 'paid') {
      throw this.toolerr.error('CONFLICT', `Invoice ${id} is already paid`)
        .suggest('Call billing.get_invoice to check the status before paying')
        .actions('billing.get_invoice');
    }
    if (amount !== inv.amount || currency !== inv.currency) {
      throw this.toolerr.error('VALIDATION_ERROR', `Amount or currency does not match invoice ${id}`)
        .details({ expectedAmount: inv.amount, expectedCurrency: inv.currency });
    }
    inv.status = 'paid';
    return textResult({ id, status: 'paid', paid: amount, currency });
  }

  // voidInvoice always fails: the caller lacks the role. The tool error it
  // throws reaches the client intact through wrap.
  voidInvoice() {
    throw this.toolerr.error('FORBIDDEN', 'Voiding invoices requires the billing-admin role').severity('critical');
  }

  // exportInvoices stands for a bug in a dependency: a plain Error, which
  // wrap turns into INTERNAL_ERROR naming the tool.
  exportInvoices() {
    throw new Error('exporter backend unavailable');
  }
}

// invoice builds an invoice with its keys in the demo's order.
function invoice(id, status, amount, currency) {
  return { id, status, amount, currency };
}

// textResult is one text block of compact JSON, keys in insertion order.
function textResult(value) {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

async function main() {
  const toolerr = await load();
  const server = await createServer(toolerr);
  await server.connect(new StdioServerTransport(toolerr.gatedStdin()));
}

main().catch((err) => {
  process.stderr.write(`billing-node: ${err?.stack ?? err}\n`);
  process.exit(1);
});
