// heal(server): the error contract inside the TypeScript MCP SDK's own
// McpServer, so that a server written the way the SDK teaches
// (registerTool with a zod inputSchema) answers its failures with envelopes
// rendered by toolerr.wasm instead of the SDK's plain text.
//
// The SDK offers no hook for this, so heal() overrides methods on the
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
// - setToolRequestHandlers(): the SDK installs its tools/call handler there
//   (when the first tool is registered); heal() puts a guard in front of it
//   (at once, when it is installed already): a call naming a tool that
//   tools/list does not show (never registered, removed or disabled) gets
//   the module's UNKNOWN_ACTION (unknown_tool) with the tools it does show,
//   unless the server was healed with {unknownTool: 'sdk'}. Every other call
//   goes to the SDK's handler untouched.
//
// heal() also asks for the module as soon as it is installed, in the
// background, and makes one call of each kind a failure needs, so that the
// server's first failing call does not wait for the module to load and
// compile its code. A module that cannot be loaded is reported by the first
// call that needs it (a ToolerrError, TRAP); heal() then answers as the SDK
// does and emits that error once as a process warning.

/**
 * SUPPORTED_SDK is the @modelcontextprotocol/sdk range whose McpServer has
 * both methods with these signatures (1.24.0 introduced them); the
 * package's peerDependencies carry the same range.
 */
export const SUPPORTED_SDK = '>=1.24.0 <2';
/**
 * SUPPORTED_SERVER is the range of @modelcontextprotocol/server, the SDK's
 * v2 packages, whose McpServer has the same members (2.x keeps them); the
 * package's peerDependencies carry it too.
 */
export const SUPPORTED_SERVER = '>=2.0.0 <3';

// The McpServer members heal() relies on, with the arity each must have.
const REQUIRED_METHODS = [
  ['registerTool', 3],
  ['validateToolInput', 3],
  ['executeToolHandler', 3],
  ['setToolRequestHandlers', 0],
];
// The JSON-RPC method whose handler the unknown-tool guard stands in front of.
const TOOLS_CALL = 'tools/call';
/**
 * UNKNOWN_TOOL_ANSWERS are the values of heal()'s unknownTool option, the
 * default first: 'envelope' answers a call to a tool the server does not
 * have with UNKNOWN_ACTION listing its tools, 'sdk' with the SDK's own
 * answer (SDK 1.32: `MCP error -32602: Tool NAME not found`).
 */
export const UNKNOWN_TOOL_ANSWERS = Object.freeze(['envelope', 'sdk']);
// An McpError the SDK re-throws as a JSON-RPC error instead of a tool
// result (ErrorCode.UrlElicitationRequired): it must pass through untouched.
const URL_ELICITATION_REQUIRED = -32042;
// A healed instance keeps its settings here, so that a second heal() only changes them.
const HEALED = Symbol.for('toolerr.healed');
// Marks the SDK's tools/call handler once heal() stands in front of it.
const GUARDED = Symbol('toolerr.guarded');

/**
 * healServer makes server (an McpServer) answer invalid arguments, failing
 * handlers and unknown tools with toolerr's envelopes, rendered by the
 * Toolerr that toolerrOf() resolves to. toolerrOf() is asked at once, in
 * the background, so that the module is ready before the first failure.
 * It returns server. It throws, changing nothing, when server is not an
 * McpServer of SUPPORTED_SDK or options are not heal()'s. A second heal of
 * the same server changes only its settings: the module and options of the
 * last one apply.
 *
 * @param {object} server an McpServer
 * @param {() => Promise<import('./toolerr.js').Toolerr> | import('./toolerr.js').Toolerr} toolerrOf
 * @param {{unknownTool?: 'envelope' | 'sdk'}} [options]
 */
export function healServer(server, toolerrOf, options = {}) {
  const settings = healSettings(toolerrOf, options);
  assertHealable(server);
  prepare(toolerrOf);
  const healed = server[HEALED];
  if (healed !== undefined) {
    Object.assign(healed, settings);
    return server;
  }
  const state = settings;
  const sdkValidate = server.validateToolInput;
  const sdkExecute = server.executeToolHandler;
  const sdkSetToolRequestHandlers = server.setToolRequestHandlers;
  override(server, 'validateToolInput', async function validateToolInput(tool, args, toolName) {
    try {
      return await sdkValidate.call(this, tool, args, toolName);
    } catch (sdkRefusal) {
      throw await validationFailure(state, tool, args, toolName, sdkRefusal);
    }
  });
  override(server, 'executeToolHandler', async function executeToolHandler(tool, args, extra) {
    try {
      return await sdkExecute.call(this, tool, args, extra);
    } catch (failure) {
      if (isProtocolError(failure)) throw failure;
      const toolerr = await moduleOf(state);
      if (toolerr === null) throw failure; // no module: the SDK answers as without heal()
      // wrap() decides: a tool error passes intact, anything else is INTERNAL_ERROR.
      return toolerr.wrap(registeredName(this, tool), rethrow)(failure);
    }
  });
  override(server, 'setToolRequestHandlers', function setToolRequestHandlers(...args) {
    const done = sdkSetToolRequestHandlers.apply(this, args);
    guardToolCalls(this, state);
    return done;
  });
  if (server._toolHandlersInitialized === true) guardToolCalls(server, state);
  Object.defineProperty(server, HEALED, { value: state });
  return server;
}

/** healSettings checks heal()'s options: a TypeError names what is wrong. */
function healSettings(toolerrOf, options) {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`toolerr: heal() options must be an object, got ${Array.isArray(options) ? 'an array' : typeof options}`);
  }
  for (const name of Object.keys(options)) {
    if (name !== 'unknownTool') throw new TypeError(`toolerr: heal() has no option ${JSON.stringify(name)} (it has unknownTool)`);
  }
  const unknownTool = options.unknownTool ?? UNKNOWN_TOOL_ANSWERS[0];
  if (!UNKNOWN_TOOL_ANSWERS.includes(unknownTool)) {
    const got = typeof unknownTool === 'string' ? JSON.stringify(unknownTool) : typeof unknownTool;
    throw new TypeError(`toolerr: heal() option unknownTool must be ${UNKNOWN_TOOL_ANSWERS.map((v) => `'${v}'`).join(' or ')}, got ${got}`);
  }
  return { toolerrOf, unknownTool };
}

/**
 * guardToolCalls stands in front of the SDK's tools/call handler (once): a
 * call naming a tool the server does not show gets UNKNOWN_ACTION, when the
 * settings ask for it and the module renders it; any other call, and that
 * one otherwise, goes to the SDK's handler as it came.
 */
function guardToolCalls(server, state) {
  const handlers = server.server?._requestHandlers;
  const sdkCall = handlers?.get(TOOLS_CALL);
  if (typeof sdkCall !== 'function' || sdkCall[GUARDED] === true) return;
  const guarded = async (request, extra) => {
    const name = request?.params?.name;
    if (state.unknownTool === 'envelope' && typeof name === 'string' && !listedTool(server, name)) {
      const result = await unknownToolResult(state, name, listedTools(server));
      if (result !== null) return result;
    }
    return sdkCall(request, extra);
  };
  Object.defineProperty(guarded, GUARDED, { value: true });
  handlers.set(TOOLS_CALL, guarded);
}

/** listedTool tells whether tools/list shows a tool named name: registered (an own entry) and enabled. */
function listedTool(server, name) {
  const tools = server._registeredTools;
  return Object.prototype.hasOwnProperty.call(tools, name) && Boolean(tools[name]?.enabled);
}

/** listedTools is the names tools/list shows now, in its order (the SDK lists _registeredTools' enabled entries). */
function listedTools(server) {
  return Object.entries(server._registeredTools).filter(([, tool]) => Boolean(tool?.enabled)).map(([name]) => name);
}

/** unknownToolResult is the module's UNKNOWN_ACTION for name, or null when it cannot be rendered (the SDK answers then). */
async function unknownToolResult(state, name, tools) {
  const toolerr = await moduleOf(state);
  if (toolerr === null) return null;
  try {
    return await toolerr.unknownTool(name, tools);
  } catch {
    return null; // a name too large for a request, say: the SDK's own answer still says it is unknown
  }
}

/**
 * moduleOf is the settings' Toolerr, or null when it cannot be had (the
 * module could not be loaded): that ToolerrError is emitted once, as a
 * process warning, and heal() answers as the SDK does.
 */
async function moduleOf(state) {
  try {
    return await state.toolerrOf();
  } catch (err) {
    warnOnce(err);
    return null;
  }
}

let warned = false;

function warnOnce(err) {
  if (warned) return;
  warned = true;
  process.emitWarning(err instanceof Error ? err : new Error(`toolerr: the module could not be loaded: ${err}`));
}

// What prepare() sends once per Toolerr: one call of each kind a healed failure makes, so that the
// module's code for them is compiled (V8 compiles a wasm function on its first call) before the
// first failure, not during it. Their answers are dropped.
const WARM_UP = 'toolerr.warm_up';
const warmed = new WeakSet();

/**
 * prepare asks for the module now, in the background, and warms it; a
 * failure is dropped here (no unhandled rejection, nothing on stderr): the
 * first call that needs the module asks again and gets it.
 */
function prepare(toolerrOf) {
  let pending;
  try {
    pending = Promise.resolve(toolerrOf());
  } catch {
    return;
  }
  pending.then(warmUp).catch(() => {});
}

async function warmUp(toolerr) {
  if (toolerr === null || typeof toolerr !== 'object' || warmed.has(toolerr)) return;
  warmed.add(toolerr);
  const issues = [
    { code: 'invalid_type', expected: 'string', received: 'number', path: ['id'], message: 'Expected string, received number' },
    { code: 'invalid_format', format: 'regex', pattern: '^x$', origin: 'string', path: ['ref'], message: 'Invalid string: must match pattern /^x$/' },
  ];
  await toolerr.formatValidation(WARM_UP, issues, { id: 1, ref: 'y' }, { dialect: 'zod' });
  await toolerr.internalError('warm-up', { tool: WARM_UP });
  await toolerr.unknownTool(WARM_UP, [WARM_UP]);
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
async function validationFailure(state, tool, args, toolName, sdkRefusal) {
  const sent = args ?? {}; // what SDK 1.32 parses for absent arguments
  const issues = await zodIssues(tool?.inputSchema, sent);
  if (issues === null) return sdkRefusal;
  const toolerr = await moduleOf(state);
  if (toolerr === null) return sdkRefusal;
  try {
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
  const expected = `an McpServer of @modelcontextprotocol/sdk ${SUPPORTED_SDK} (from '@modelcontextprotocol/sdk/server/mcp.js') `
    + `or of @modelcontextprotocol/server ${SUPPORTED_SERVER}`;
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
  if (!(server.server?._requestHandlers instanceof Map)) missing.push('server._requestHandlers');
  if (missing.length > 0) {
    const what = server.constructor?.name ? `an instance of ${server.constructor.name}` : 'an object';
    throw new TypeError(`toolerr: heal() takes ${expected}, got ${what} without ${missing.join(', ')}`);
  }
}
