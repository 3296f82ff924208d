// A client no one here wrote: the official TypeScript SDK's Client over its
// StreamableHTTPClientTransport (@modelcontextprotocol/sdk, pinned by
// package-lock.json), which host/cmd/toolerr's tests run against
// `toolerr proxy --listen` in front of server-everything.
//
//   node streamable-client.mjs URL
//
// It declares sampling (and answers sampling/createMessage itself), lists
// the tools, calls echo validly and invalidly, runs a long operation with a
// progress token, triggers a sampling request, ends the session (DELETE)
// and prints what it saw as one JSON object on stdout.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const url = new URL(process.argv[2]);
const out = { errors: [] };
const client = new Client({ name: 'toolerr-http-test', version: '1.0.0' }, { capabilities: { sampling: {} } });
out.samplingRequests = [];
client.setRequestHandler(CreateMessageRequestSchema, async request => {
  out.samplingRequests.push(request.params.messages[0]?.content?.text ?? '');
  return { role: 'assistant', content: { type: 'text', text: 'Hi from the TypeScript client' }, model: 'test-model', stopReason: 'endTurn' };
});
const transport = new StreamableHTTPClientTransport(url);
transport.onerror = error => out.errors.push(String(error));
await client.connect(transport);
out.sessionId = transport.sessionId;
out.protocolVersion = transport.protocolVersion;
out.serverName = client.getServerVersion()?.name;

// server-everything registers its sampling tool once it has read the
// client's capabilities, after initialized.
for (let i = 0; i < 50; i++) {
  out.tools = (await client.listTools()).tools.map(t => t.name);
  if (out.tools.includes('trigger-sampling-request')) break;
  await new Promise(resolve => setTimeout(resolve, 100));
}
out.echo = await client.callTool({ name: 'echo', arguments: { message: 'hello over Streamable HTTP' } });
out.invalid = await client.callTool({ name: 'echo', arguments: { message: 5 } });
out.progress = [];
out.longRunning = await client.callTool(
  { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
  undefined,
  { onprogress: progress => out.progress.push(progress) },
);
out.sampling = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Say hi', maxTokens: 16 } });
await transport.terminateSession();
await client.close();
process.stdout.write(JSON.stringify(out) + '\n');
