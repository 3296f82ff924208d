// Compiled by test/types.test.mjs with tsc --noEmit: the shipped types
// describe the API as the README uses it.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import {
  load, toolError, error, wrap, parse, throwOnError, ClientError, ToolerrError, contractLock, contractDiff, validate, heal, resultText,
  gate, gatedStdin, argumentsTooLarge, type GateVerdict, unknownTool, UNKNOWN_TOOL_ANSWERS, type HealOptions, type UnknownToolAnswer,
  type CallToolResult, type Envelope, type ValidateResult, type Lockfile, type ContractDiff, type Contract,
} from 'toolerr';

export async function usage(): Promise<void> {
  const t = await load();
  const a: CallToolResult = await toolError('NOT_FOUND', { message: 'm', details: { id: 'x', n: 1 } });
  const b: CallToolResult = await error('X', 'm').suggest('s').actions('a', 'b').severity('warning').details('k', true).retryAfter(5);
  const handler = wrap('tool', async (id: string) => {
    if (id === '') throw error('X', 'm');
    return { content: [{ type: 'text' as const, text: id }] };
  });
  await handler('x');
  const text: string = resultText(a);
  resultText(await handler('y'));
  resultText(null);
  // @ts-expect-error resultText reads a result object
  resultText(text);
  const env: Envelope | null = await parse(a);
  if (env?.kind === 'tool_error') env.details['k']?.toUpperCase();
  const v: ValidateResult = await t.validate('tool', { type: 'object' }, {});
  if (!v.valid) v.result.content[0].text.length;
  try {
    await throwOnError(b);
  } catch (e) {
    if (e instanceof ClientError) e.code.toLowerCase();
    if (e instanceof ToolerrError) e.code.toLowerCase();
  }
  const tools = [{ name: 'tool', description: 'd', inputSchema: { type: 'object' } }];
  const lock: Lockfile = await contractLock(tools);
  const diff: ContractDiff = await contractDiff(lock, { tools });
  if (diff.maxSeverity === 'BREAKING' && !diff.backwardsCompatible) diff.deltas[0]?.field.toUpperCase();
  const byDeltas: Contract = { tool: 'tool', deltas: diff.deltas };
  const byLockfile: Contract = { tool: 'tool', lockfile: lock, tools };
  await validate('tool', { type: 'object' }, {}, { contract: byDeltas });
  await t.formatValidation('tool', [], {}, { contract: byLockfile });
  // @ts-expect-error a contract needs deltas, or a lockfile and tools
  const incomplete: Contract = { tool: 'tool', lockfile: lock };
  void incomplete;
  // @ts-expect-error severity is one of three
  error('X', 'm').severity('fatal');
  // heal keeps the McpServer's own type: registerTool infers the handler's arguments.
  const server: McpServer = heal(new McpServer({ name: 'billing', version: '1.0.0' }));
  server.registerTool('get', { inputSchema: { id: z.string() } }, async ({ id }) => ({ content: [{ type: 'text', text: id.toUpperCase() }] }));
  const same: McpServer = t.heal(server);
  void same;
  // and the v2 packages' McpServer, with its own registerTool.
  const v2: McpServerV2 = heal(new McpServerV2({ name: 'billing', version: '1.0.0' }));
  v2.registerTool('get', { inputSchema: z.object({ id: z.string() }) }, async ({ id }) => ({ content: [{ type: 'text', text: id.toUpperCase() }] }));
  // @ts-expect-error heal takes an McpServer
  heal({ name: 'not a server' });
  // Unknown tools: UNKNOWN_ACTION by default, or the SDK's own answer.
  const keepSdk: HealOptions = { unknownTool: 'sdk' };
  const sdkServer: McpServer = heal(new McpServer({ name: 'b', version: '1' }), keepSdk);
  t.heal(sdkServer, { unknownTool: 'envelope' });
  const answers: readonly UnknownToolAnswer[] = UNKNOWN_TOOL_ANSWERS;
  void answers;
  // @ts-expect-error unknownTool is 'envelope' or 'sdk'
  heal(server, { unknownTool: 'protocol-error' });
  // @ts-expect-error heal has no such option
  heal(server, { unknownTools: 'sdk' });
  const unknown: CallToolResult = await unknownTool('billing.get_invoices', ['billing.get_invoice']);
  const ownUnknown: CallToolResult = await t.unknownTool('x', Object.freeze(['a', 'b']));
  void unknown;
  void ownUnknown;
  // @ts-expect-error tools are the server's tool names
  await unknownTool('x', 'a,b');
  // The load options of the host policy; a ToolerrError may have a cause.
  await (await load({ memoryMaxPages: 4096, callTimeoutMs: 5000 })).close();
  const trap = new ToolerrError('TRAP', 'toolerr: the module could not be loaded: x', { cause: new Error('x') });
  void trap.cause;
  // The stdio gate: a verdict per line, and the stdin the SDK's transport takes.
  const verdict: GateVerdict = await gate(new Uint8Array([123, 125]));
  if (verdict.verdict === 'answer') verdict.response.length;
  if (verdict.verdict === 'rewrite') verdict.line.length;
  await server.connect(new StdioServerTransport(gatedStdin()));
  new StdioServerTransport(t.gatedStdin({ log: (note: string) => void note }));
  const tooLarge: CallToolResult = await argumentsTooLarge('tool', 5_000_000);
  void tooLarge;
  await t.close();
}
