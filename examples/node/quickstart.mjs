#!/usr/bin/env node
// quickstart: an MCP server over stdio written the way the TypeScript SDK's
// documentation teaches (McpServer, registerTool with a zod inputSchema,
// StdioServerTransport), plus heal(server) and gatedStdin(). Without heal
// the model would get the SDK's plain text for bad arguments, for a
// handler's failure and for a tool name it made up; with it, every failure
// reaches the model as an envelope rendered by toolerr.wasm (a made-up tool
// as UNKNOWN_ACTION, listing the tools below). heal() also starts loading
// the module, in the background, so that the first failing call does not
// wait for it. gatedStdin() puts the module's stdio gate in
// front of the transport, so that a hostile line is answered (or ignored)
// instead of dropped. Nothing here writes XML or checks arguments by hand.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { gatedStdin, heal, toolError } from 'toolerr';
import { z } from 'zod';

// The demo's invoices, in memory.
const invoices = new Map([
  ['inv_001', { id: 'inv_001', status: 'open', amount: 120.5, currency: 'EUR' }],
  ['inv_002', { id: 'inv_002', status: 'paid', amount: 75, currency: 'USD' }],
  ['inv_003', { id: 'inv_003', status: 'open', amount: 9.99, currency: 'USD' }],
]);

const server = new McpServer({ name: 'billing-quickstart', version: '0.1.0' });
heal(server); // toolerr answers validation errors and failures

server.registerTool(
  'billing.get_invoice',
  {
    description: 'Get one invoice by its ID',
    inputSchema: { id: z.string().regex(/^inv_[0-9]{3}$/).describe('Invoice ID, such as inv_001') },
  },
  async ({ id }) => {
    const invoice = invoices.get(id);
    if (!invoice) {
      throw toolError('NOT_FOUND', {
        message: 'No invoice with that ID',
        suggestion: 'List invoices first, then retry with a real ID',
        availableActions: ['billing.list_invoices'],
        details: { requestedId: id },
      });
    }
    return { content: [{ type: 'text', text: JSON.stringify(invoice) }] };
  },
);

server.registerTool(
  'billing.export_invoices',
  { description: 'Export every invoice' },
  async () => {
    // Stands for a dependency that fails: the model gets INTERNAL_ERROR.
    throw new Error('exporter backend unavailable');
  },
);

// toolerr's stdio gate in front of the SDK's transport: no line the client
// sends goes unanswered, and arguments no SDK reads intact get a validation error.
await server.connect(new StdioServerTransport(gatedStdin()));
