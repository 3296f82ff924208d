// Compiled by test/require.test.mjs with tsc --noEmit: a CommonJS TypeScript
// module (.cts) gets the "require" condition's types, src/index.d.ts.
import { required, resultText, throwOnError, ClientError, parse, type CallToolResult } from 'toolerr';
import toolerr = require('toolerr');

export async function usage(): Promise<string> {
  const result: CallToolResult = await required('id');
  const envelope = await parse(result);
  if (envelope?.kind === 'tool_error') envelope.code.toLowerCase();
  try {
    await throwOnError(result);
  } catch (err) {
    if (err instanceof ClientError) err.code.toLowerCase();
  }
  const same: CallToolResult = await toolerr.required('id');
  return resultText(result) + resultText(same);
}
