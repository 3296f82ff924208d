// heal() inside the TypeScript SDK's v2 packages (@modelcontextprotocol/server
// 2.x), driven over stdio by its own client (@modelcontextprotocol/client) in
// the stateless protocol (2026-07-28) and in the handshake one: every failure
// reaches the client as the module's envelope, in a result the client reads
// (the v2 client refuses a 2026-07-28 result without resultType).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';

import { formatValidation, unknownTool } from '../src/index.js';


async function connect(t, mode) {
  const client = new Client({ name: 'heal-v2-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--input-type=module', '-e', serverCode], cwd: packageDir, stderr: 'pipe' }));
  t.after(() => client.close());
  return client;
}

const text = (result) => result.content[0].text;

// The server: on the v2 packages, written the way their documentation
// teaches (McpServer, registerTool with a zod inputSchema, and serveStdio,
// which serves the stateless protocol and the handshake one alike), plus
// heal() and gatedStdin(). It runs with node -e from this package's folder,
// where its imports resolve, and imports this package's own source.
const SERVER = `import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

import { gatedStdin, heal, toolError } from 'TOOLERR';

const invoices = new Map([['inv_001', { id: 'inv_001', status: 'open', amount: 120.5, currency: 'EUR' }]]);

function build() {
  const server = new McpServer({ name: 'billing-v2', version: '0.1.0' });
  heal(server);
  server.registerTool(
    'billing.get_invoice',
    { description: 'Get one invoice by its ID', inputSchema: { id: z.string().regex(/^inv_[0-9]{3}$/) } },
    async ({ id }) => {
      const invoice = invoices.get(id);
      if (!invoice) {
        throw toolError('NOT_FOUND', { message: 'No invoice with that ID', availableActions: ['billing.list_invoices'], details: { requestedId: id } });
      }
      return { content: [{ type: 'text', text: JSON.stringify(invoice) }] };
    },
  );
  server.registerTool('billing.export_invoices', { description: 'Export every invoice' }, async () => {
    throw new Error('exporter backend unavailable');
  });
  return server;
}

serveStdio(build, { transport: new StdioServerTransport(gatedStdin()) });
`;
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const serverCode = SERVER.replace("'TOOLERR'", JSON.stringify(new URL('../src/index.js', import.meta.url).href));

for (const [mode, version] of [[{ pin: '2026-07-28' }, '2026-07-28'], ['legacy', '2025-11-25']]) {
  test(`a healed v2 McpServer answers the v2 client in ${version}`, async (t) => {
    const client = await connect(t, mode);
    assert.equal(client.getNegotiatedProtocolVersion(), version);

    const args = { id: 'INV-1' };
    const issues = z.object({ id: z.string().regex(/^inv_[0-9]{3}$/) }).safeParse(args).error.issues;
    const invalid = await client.callTool({ name: 'billing.get_invoice', arguments: args });
    assert.deepEqual(invalid, { ...invalid, isError: true });
    assert.equal(text(invalid), text(await formatValidation('billing.get_invoice', JSON.parse(JSON.stringify(issues)), args)));

    let deep = 1;
    for (let i = 0; i < 80; i++) deep = [deep];
    const tooDeep = await client.callTool({ name: 'billing.get_invoice', arguments: { id: deep } });
    assert.match(text(tooDeep), /^<validation_error action="billing.get_invoice">\n<field name="\(root\)">The arguments are nested too deeply/);

    const missing = await client.callTool({ name: 'billing.get_invoice', arguments: { id: 'inv_404' } });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /^<tool_error code="NOT_FOUND" severity="error">\n<message>No invoice with that ID<\/message>/);

    const crashed = await client.callTool({ name: 'billing.export_invoices', arguments: {} });
    assert.match(text(crashed), /^<tool_error code="INTERNAL_ERROR" severity="error">\n<message>\[billing.export_invoices\] exporter backend unavailable<\/message>/);

    const unknown = await client.callTool({ name: 'billing.refund_invoice', arguments: {} });
    assert.equal(text(unknown), text(await unknownTool('billing.refund_invoice', ['billing.get_invoice', 'billing.export_invoices'])));

    const found = await client.callTool({ name: 'billing.get_invoice', arguments: { id: 'inv_001' } });
    assert.equal(found.isError ?? false, false);
    assert.deepEqual(JSON.parse(text(found)), { id: 'inv_001', status: 'open', amount: 120.5, currency: 'EUR' });
  });
}
