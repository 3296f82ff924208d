// heal(server): the error contract inside the TypeScript MCP SDK's own
// McpServer, so that a server written the way the SDK teaches
// (registerTool with a zod inputSchema) answers its failures with envelopes
// rendered by toolerr.wasm instead of the SDK's plain text.
//
// The SDK offers no hook for this, so heal() overrides two methods on the
// instance (never on the prototype, never importing the SDK: the caller's
// copy is the one that runs):
// - validateToolInput(tool, args, toolName): the SDK's own check runs first
//   and, when it accepts, nothing changes. When it refuses, the tool's zod
//   schema is parsed again for its issues, which go as they are (v3 or v4)
//   to the module's format_validation; the <validation_error> it renders is
//   thrown as an Error whose message is its text, and the SDK's own catch
//   turns that message into {content: [{type: 'text', text}], isError: true}.
// - executeToolHandler(tool, args, extra): every tool's handler runs inside
//   wrap(), however and whenever the tool was registered.
// Unknown and disabled tools never reach either method: the SDK answers them
// as it does without heal().

/**
 * SUPPORTED_SDK is the @modelcontextprotocol/sdk range whose McpServer has
 * both methods with these signatures (1.24.0 introduced them); the
 * package's peerDependencies carry the same range.
 */
export const SUPPORTED_SDK = '>=1.24.0 <2';

// The McpServer members heal() relies on, with the arity each must have.
const REQUIRED_METHODS = [
  ['registerTool', 3],
  ['validateToolInput', 3],
  ['executeToolHandler', 3],
];
// An McpError the SDK re-throws as a JSON-RPC error instead of a tool
// result (ErrorCode.UrlElicitationRequired): it must pass through untouched.
const URL_ELICITATION_REQUIRED = -32042;
// Marks a healed instance, so that a second heal() changes nothing.
const HEALED = Symbol.for('toolerr.healed');

/**
 * healServer makes server (an McpServer) answer invalid arguments and
 * failing handlers with toolerr's envelopes, rendered by the Toolerr that
 * toolerrOf() resolves to (called only when something must be rendered, so
 * heal() needs no loaded module). It returns server. It throws, changing
 * nothing, when server is not an McpServer of SUPPORTED_SDK.
 *
 * @param {object} server an McpServer
 * @param {() => Promise<import('./toolerr.js').Toolerr> | import('./toolerr.js').Toolerr} toolerrOf
 */
export function healServer(server, toolerrOf) {
  assertHealable(server);
  if (server[HEALED] === true) return server;
  const sdkValidate = server.validateToolInput;
  const sdkExecute = server.executeToolHandler;
  override(server, 'validateToolInput', async function validateToolInput(tool, args, toolName) {
    try {
      return await sdkValidate.call(this, tool, args, toolName);
    } catch (sdkRefusal) {
      throw await validationFailure(toolerrOf, tool, args, toolName, sdkRefusal);
    }
  });
  override(server, 'executeToolHandler', async function executeToolHandler(tool, args, extra) {
    try {
      return await sdkExecute.call(this, tool, args, extra);
    } catch (failure) {
      if (isProtocolError(failure)) throw failure;
      const toolerr = await toolerrOf();
      // wrap() decides: a tool error passes intact, anything else is INTERNAL_ERROR.
      return toolerr.wrap(registeredName(this, tool), rethrow)(failure);
    }
  });
  Object.defineProperty(server, HEALED, { value: true });
  return server;
}

/**
 * A <validation_error> on its way through the SDK's catch, which keeps only
 * an error's message: the message is the envelope's text, result the whole
 * CallToolResult as the module rendered it.
 */
class ValidationFailure extends Error {
  constructor(result) {
    super(result.content[0].text);
    this.name = 'ValidationFailure';
    this.result = result;
  }
}

/**
 * validationFailure is what validateToolInput throws once the SDK refused
 * args: the rendered <validation_error> when the tool's schema reports
 * issues, else the SDK's own error. That covers a refusal the schema does
 * not share (the SDK's maxToolInputElements ceiling on arguments the schema
 * accepts) and issues the module could not render: the SDK's text still
 * tells the model what was wrong. Matching the SDK's wording instead would
 * fail silently the day it changes. Arguments too large for the module to
 * render beside their issues get the stdio gate's too-large
 * <validation_error> (argumentsTooLarge).
 */
async function validationFailure(toolerrOf, tool, args, toolName, sdkRefusal) {
  const sent = args ?? {}; // what SDK 1.32 parses for absent arguments
  const issues = await zodIssues(tool?.inputSchema, sent);
  if (issues === null) return sdkRefusal;
  try {
    const toolerr = await toolerrOf();
    try {
      return new ValidationFailure(await toolerr.formatValidation(toolName, jsonIssues(issues), sent, { dialect: 'zod' }));
    } catch (refusal) {
      if (refusal?.code !== 'REQUEST_TOO_LARGE') throw refusal;
      // Arguments that fit a message but not the module's request beside
      // their issues: too large, not a failure of the server.
      return new ValidationFailure(await toolerr.argumentsTooLarge(toolName, Buffer.byteLength(JSON.stringify(sent))));
    }
  } catch {
    return sdkRefusal;
  }
}

/**
 * zodIssues parses value with a zod schema (v3 or v4, classic or mini: all
 * have safeParseAsync) and returns its issues, or null when the schema
 * accepts value, is not a zod schema, or throws.
 */
async function zodIssues(schema, value) {
  if (typeof schema?.safeParseAsync !== 'function') return null;
  try {
    const parsed = await schema.safeParseAsync(value);
    const issues = parsed?.success === false ? parsed.error?.issues : null;
    return Array.isArray(issues) && issues.length > 0 ? issues : null;
  } catch {
    return null;
  }
}

/**
 * jsonIssues is the issues as JSON carries them, the way the ABI reads zod
 * issues: a BigInt bound becomes its string of digits, and what JSON has no
 * form for (the functions a zod v3 ZodError keeps in a union's unionErrors)
 * is left out, as JSON.stringify leaves it out.
 */
function jsonIssues(issues) {
  return JSON.parse(JSON.stringify(issues, (_key, value) => (typeof value === 'bigint' ? value.toString() : value)));
}

/** registeredName is the name tool is registered under in server (looked up, as a rename moves it). */
function registeredName(server, tool) {
  for (const [name, registered] of Object.entries(server._registeredTools ?? {})) {
    if (registered === tool) return name;
  }
  return undefined;
}

/** isProtocolError tells the errors the SDK answers as JSON-RPC errors, which stay out of tool results. */
function isProtocolError(failure) {
  return failure instanceof Error && failure.code === URL_ELICITATION_REQUIRED;
}

function rethrow(failure) {
  throw failure;
}

/** override sets an own, non-enumerable method, shadowing the prototype's. */
function override(server, name, method) {
  Object.defineProperty(server, name, { value: method, writable: true, configurable: true, enumerable: false });
}

/**
 * assertHealable throws a clear Error unless server has every member heal()
 * relies on: never a half-healed server, never a silently wrong answer.
 */
function assertHealable(server) {
  const expected = `an McpServer of @modelcontextprotocol/sdk ${SUPPORTED_SDK} (from '@modelcontextprotocol/sdk/server/mcp.js')`;
  if (server === null || typeof server !== 'object') {
    throw new TypeError(`toolerr: heal() takes ${expected}, got ${server === null ? 'null' : typeof server}`);
  }
  if (typeof server.registerTool !== 'function' && typeof server.setRequestHandler === 'function') {
    throw new TypeError(`toolerr: heal() takes ${expected}, got a low-level Server: heal the McpServer, or render errors yourself with wrap() and validate()`);
  }
  const missing = REQUIRED_METHODS
    .filter(([name, arity]) => typeof server[name] !== 'function' || server[name].length !== arity)
    .map(([name, arity]) => `${name}(${arity} arguments)`);
  if (server._registeredTools === null || typeof server._registeredTools !== 'object') missing.push('_registeredTools');
  if (missing.length > 0) {
    const what = server.constructor?.name ? `an instance of ${server.constructor.name}` : 'an object';
    throw new TypeError(`toolerr: heal() takes ${expected}, got ${what} without ${missing.join(', ')}`);
  }
}
