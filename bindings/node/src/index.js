// toolerr: MCP Fusion's error contract for Node, from the one toolerr.wasm.
//
// The functions exported here run on a shared Toolerr that loads the
// bundled module on first use; load() gives a Toolerr of your own.
import { ToolErrorBuilder } from './builder.js';
import { defaultToolerr } from './default.js';
import { healServer } from './heal.js';
import { gatedStdin as gatedStdinOf } from './stdio.js';
import { markRendered } from './toolerr.js';

export { ABI_MAJOR, GATE_HEAD_BYTES } from './abi.js';
export { Toolerr, load } from './toolerr.js';
export { ClientError, ToolerrError } from './errors.js';
export { ToolErrorBuilder } from './builder.js';
export { defaultToolerr } from './default.js';
export { SUPPORTED_SDK, SUPPORTED_SERVER, UNKNOWN_TOOL_ANSWERS } from './heal.js';
export { resultText } from './result.js';

const shared = (method) => async (...args) => (await defaultToolerr())[method](...args);
const sharedRendered = (method) => (...args) => markRendered(shared(method)(...args));

/** call runs an export on a raw (string) or JSON request; the response JSON text. */
export const call = shared('call');
/** describe returns what the module says of itself. */
export const describe = shared('describe');
/** simpleError renders the reference's error(): message and optional code. */
export const simpleError = sharedRendered('simpleError');
/** required renders MISSING_REQUIRED_FIELD for a field. */
export const required = sharedRendered('required');
/** internalError renders INTERNAL_ERROR, prefixed [tool/action]. */
export const internalError = sharedRendered('internalError');
/** unknownTool renders UNKNOWN_ACTION for a call to a tool that does not exist, listing the server's tools closest first. */
export const unknownTool = sharedRendered('unknownTool');
/** rateLimited renders RATE_LIMITED. */
export const rateLimited = sharedRendered('rateLimited');
/** serverBusy renders SERVER_BUSY. */
export const serverBusy = sharedRendered('serverBusy');
/** formatValidation renders a <validation_error> from validator issues. */
export const formatValidation = sharedRendered('formatValidation');
/** validate checks args against a JSON Schema: {valid: true} or {valid: false, result}. */
export const validate = shared('validate');
/** contractLock writes the lockfile of a set of MCP tools (an array, a tools/list result or a lockfile). */
export const contractLock = shared('contractLock');
/** contractDiff compares two sets of tools: {deltas, maxSeverity, backwardsCompatible}. */
export const contractDiff = shared('contractDiff');
/** escape escapes text for XML content or an attribute. */
export const escape = shared('escape');
/** parse reads the first envelope of a text or a CallToolResult; null when none. */
export const parse = shared('parse');
/** throwOnError returns a successful result and throws a failed one as a ClientError. */
export const throwOnError = shared('throwOnError');
/** gate applies the stdio gate to one line a client sent (its bytes, without the line feed): the verdict. */
export const gate = shared('gate');
/** argumentsTooLarge renders the stdio gate's <validation_error> for arguments of size bytes too large to check. */
export const argumentsTooLarge = sharedRendered('argumentsTooLarge');

/**
 * gatedStdin returns process.stdin behind the module's stdio gate, for the
 * SDK's StdioServerTransport, in one line:
 * `await server.connect(new StdioServerTransport(gatedStdin()))`. Lines the
 * gate answers get their answer on process.stdout, lines it ignores a note
 * on stderr; the others reach the SDK. Options: {input, output, log}.
 */
export function gatedStdin(options = {}) {
  return gatedStdinOf(defaultToolerr, options);
}

/** toolError starts a <tool_error>: await it for the CallToolResult, or throw it in a wrapped handler. */
export function toolError(code, options = {}) {
  if (typeof options === 'string') options = { message: options };
  return new ToolErrorBuilder(code, undefined, undefined)._assign(options);
}

/** error starts the fluent builder: error(code, message).suggest().actions().severity().details().retryAfter(). */
export function error(code, message) {
  return new ToolErrorBuilder(code, message, undefined);
}

/** wrap guards a tool handler: thrown tool errors pass intact, anything else becomes INTERNAL_ERROR. */
export function wrap(tool, handler) {
  let wrapped = null;
  return async (...args) => {
    wrapped ??= (await defaultToolerr()).wrap(tool, handler);
    return wrapped(...args);
  };
}

/**
 * heal makes an McpServer of @modelcontextprotocol/sdk (>=1.24.0 <2) answer
 * with toolerr's envelopes, in one line: `heal(new McpServer(info))`.
 * Arguments a tool's zod schema refuses become a <validation_error>; a
 * thrown tool error reaches the client intact and any other throw becomes
 * INTERNAL_ERROR, for tools registered before or after; a call to a tool the
 * server does not have (or has disabled) becomes UNKNOWN_ACTION listing its
 * tools, unless options.unknownTool is 'sdk' (the SDK's own answer). The
 * shared module starts loading here, in the background: heal() returns at
 * once. Returns server; throws, changing nothing, when server is not such an
 * McpServer or an option is not one heal() knows.
 */
export function heal(server, options = {}) {
  return healServer(server, defaultToolerr, options);
}
