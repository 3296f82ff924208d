// heal() loads the shared module in the background as soon as it is
// installed, so that a server's first failing call does not wait for the
// module to load; a load that fails says nothing then (no unhandled
// rejection, nothing on stderr) and is a ToolerrError (TRAP) where the
// module is needed. Each case runs in a fresh process, whose shared module
// is not loaded yet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const run = (code, cwd = packageDir) => spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd, encoding: 'utf8', timeout: 120000 });

// Counts the toolerr modules compiled (the only ones over 200 kB: Node compiles
// its own small llhttp module when @extism/extism loads undici), from before
// toolerr is imported.
const COUNT_COMPILES = `
const compiled = [];
const compile = WebAssembly.compile;
WebAssembly.compile = (...args) => {
  if (args[0].byteLength > 200000) compiled.push(args[0].byteLength);
  return compile(...args);
};
const until = async (done, ms = 60000) => {
  for (const started = Date.now(); !done(); await new Promise((resolve) => setTimeout(resolve, 2))) {
    if (Date.now() - started > ms) throw new Error('timed out');
  }
};
`;

const SERVER = `
const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
const { z } = await import('zod');
const newServer = () => {
  const server = new McpServer({ name: 'billing', version: '1.0.0' });
  return server;
};
const tools = (server) => {
  server.registerTool('billing.get_invoice', { inputSchema: { id: z.string() } }, async ({ id }) => ({ content: [{ type: 'text', text: id }] }));
  server.registerTool('billing.export_invoices', {}, async () => { throw new Error('exporter backend unavailable'); });
};
const connect = async (server) => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'load-test', version: '0.0.0' });
  await client.connect(clientSide);
  return client;
};
const text = async (client, name, args) => {
  const result = await client.callTool({ name, arguments: args });
  return [result.isError ?? false, result.content[0].text.split('\\n')[0]].join(' ');
};
`;

test('heal() starts loading the shared module at once, in the background; nothing loads before it', () => {
  const out = run(`${COUNT_COMPILES}
    const toolerr = await import('toolerr');
    ${SERVER}
    await new Promise((resolve) => setTimeout(resolve, 100));
    console.log('before heal', compiled.length);
    const server = newServer();
    const healed = toolerr.heal(server);
    console.log('heal returned', healed === server, compiled.length);
    await until(() => compiled.length > 0);
    tools(server);
    const client = await connect(server);
    console.log(await text(client, 'billing.get_invoice', { id: 5 }));
    console.log(await text(client, 'billing.get_invoice', { id: 'inv_001' }));
    console.log('compiled once', compiled.length === 1);
    await client.close();`);
  assert.equal(out.status, 0, out.stderr);
  assert.equal(out.stderr, '');
  assert.equal(out.stdout, `before heal 0
heal returned true 0
true <validation_error action="billing.get_invoice">
false inv_001
compiled once true
`);
});

/** packageCopy is a copy of this package's code whose wasm/ holds wasm with its digest, or nothing. */
function packageCopy(t, wasm) {
  const dir = mkdtempSync(join(tmpdir(), 'toolerr-broken-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of ['package.json', 'src']) cpSync(join(packageDir, name), join(dir, name), { recursive: true });
  symlinkSync(join(packageDir, 'node_modules'), join(dir, 'node_modules'), 'dir');
  if (wasm !== undefined) {
    mkdirSync(join(dir, 'wasm'));
    writeFileSync(join(dir, 'wasm', 'toolerr.wasm'), wasm);
    writeFileSync(join(dir, 'wasm', 'toolerr.wasm.sha256'), `${createHash('sha256').update(wasm).digest('hex')}  toolerr.wasm\n`);
  }
  return dir;
}

/** brokenPackage is a copy of this package whose module is cut short (its digest matching): it cannot compile. */
function brokenPackage(t) {
  const wasm = readFileSync(join(packageDir, 'wasm', 'toolerr.wasm'));
  return packageCopy(t, wasm.subarray(0, wasm.byteLength >> 1));
}

test('a package without its module (its prepare script never ran) fails to load with a ToolerrError (TRAP) saying so', (t) => {
  const out = run(`
    const toolerr = await import('toolerr');
    for (const attempt of [() => toolerr.load(), () => toolerr.describe()]) {
      const err = await attempt().then(() => null, (e) => e);
      console.log(err instanceof toolerr.ToolerrError, err.code, err.message.replaceAll(process.cwd(), 'DIR'), err.cause?.code);
    }`, packageCopy(t));
  assert.equal(out.status, 0, out.stderr);
  assert.equal(out.stdout, `true TRAP toolerr: the packaged module could not be read: ENOENT: no such file or directory, open 'DIR/wasm/toolerr.wasm' ENOENT
true TRAP toolerr: the packaged module could not be read: ENOENT: no such file or directory, open 'DIR/wasm/toolerr.wasm' ENOENT
`);
});

test('a background load that fails is silent; the first call that needs the module gets a ToolerrError (TRAP)', (t) => {
  const dir = brokenPackage(t);
  const out = run(`${COUNT_COMPILES}
    process.on('warning', (warning) => console.log('warning:', warning.name, warning.code, warning.message.split(': ').slice(0, 3).join(': ')));
    const toolerr = await import('toolerr');
    ${SERVER}
    const server = toolerr.heal(newServer());
    tools(server);
    await until(() => compiled.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the compile fails meanwhile, in the background
    console.log('background load failed quietly');
    for (let i = 0; i < 2; i++) {
      const err = await toolerr.toolError('X', 'm').then(() => null, (e) => e);
      console.log(err instanceof toolerr.ToolerrError, err.code, err.message.split(': ').slice(0, 3).join(': '), err.cause instanceof Error);
    }
    // The healed server answers as the SDK does, and says why once, as a process warning.
    const client = await connect(server);
    console.log(await text(client, 'billing.export_invoices', {}));
    console.log(await text(client, 'billing.get_invoice', { id: 5 }));
    console.log(await text(client, 'billing.void_invoice', {}));
    console.log(await text(client, 'billing.get_invoice', { id: 'inv_001' }));
    await client.close();`, dir);
  assert.equal(out.status, 0, out.stderr); // an unhandled rejection would end the process with 1
  assert.equal(out.stdout, `background load failed quietly
true TRAP toolerr: the module could not be loaded: the module could not be compiled with a memory cap of 8192 pages true
true TRAP toolerr: the module could not be loaded: the module could not be compiled with a memory cap of 8192 pages true
true exporter backend unavailable
warning: ToolerrError TRAP toolerr: the module could not be loaded: the module could not be compiled with a memory cap of 8192 pages
true MCP error -32602: Input validation error: Invalid arguments for tool billing.get_invoice: Invalid input: expected string, received number at id
true MCP error -32602: Tool billing.void_invoice not found
false inv_001
`);
  // Node prints the one warning; nothing else reaches stderr.
  const lines = out.stderr.split('\n').filter((line) => line !== '');
  assert.equal(lines.length, 2, out.stderr);
  assert.match(lines[0], /^\(node:\d+\) \[TRAP\] ToolerrError: toolerr: the module could not be loaded: the module could not be compiled with a memory cap of 8192 pages: /);
  assert.match(lines[1], /^\(Use `node --trace-warnings \.\.\.` to show where the warning was created\)$/);
});

test('heal() with a module of its own loads nothing more', () => {
  const out = run(`${COUNT_COMPILES}
    const toolerr = await import('toolerr');
    ${SERVER}
    const own = await toolerr.load();
    const loaded = compiled.length;
    own.heal(newServer());
    own.heal(newServer(), { unknownTool: 'sdk' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    console.log(loaded, compiled.length);
    await own.close();`);
  assert.equal(out.status, 0, out.stderr);
  assert.equal(out.stderr, '');
  assert.equal(out.stdout, '1 1\n');
});
