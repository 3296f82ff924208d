// Toolerr: one loaded toolerr.wasm behind a raw call(export, request) and
// the idiomatic API. Every envelope, message and number comes from the
// module; this file only builds requests and wraps responses.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import { ToolErrorBuilder } from './builder.js';
import { encodeRequest } from './encode.js';
import { ClientError, ToolerrError } from './errors.js';
import { healServer } from './heal.js';
import { SerialQueue } from './queue.js';

/** ABI_MAJOR is the ABI major version this binding speaks. */
export const ABI_MAJOR = 1;

const BUNDLED_WASM = new URL('../wasm/toolerr.wasm', import.meta.url);
const BUNDLED_SHA256 = new URL('../wasm/toolerr.wasm.sha256', import.meta.url);
// How @extism/extism reports an error the plugin set (our ABI error object).
const PLUGIN_ERROR = 'Plugin-originated error: ';
// Promises of rendered results: a handler may throw one and wrap() delivers it.
const RENDERED = Symbol('toolerr.rendered');

/**
 * load reads the module (by default the copy shipped in this package),
 * refuses it unless its sha256 is the expected digest, starts it, and
 * refuses a module whose ABI major is not ABI_MAJOR.
 *
 * @param {{wasm?: Uint8Array, sha256?: string}} [options] another module and its digest
 */
export async function load(options = {}) {
  let wasm = options.wasm;
  let expected = options.sha256;
  if (wasm === undefined) {
    wasm = await readFile(BUNDLED_WASM);
    expected ??= (await readFile(BUNDLED_SHA256, 'utf8')).trim().split(/\s+/)[0];
  } else if (expected === undefined) {
    throw new Error('toolerr: options.sha256 is required with options.wasm');
  }
  const actual = createHash('sha256').update(wasm).digest('hex');
  if (actual !== String(expected).toLowerCase()) {
    throw new Error(`toolerr: module sha256 is ${actual}, want ${expected}`);
  }
  const toolerr = new Toolerr(Uint8Array.from(wasm));
  let info;
  try {
    info = JSON.parse(await toolerr.call('describe', '{}'));
  } catch (err) {
    await toolerr.close();
    throw new Error(`toolerr: describe: ${err.message}`);
  }
  const major = Number(String(info.abiVersion).split('.')[0]);
  if (major !== ABI_MAJOR) {
    await toolerr.close();
    throw new Error(`toolerr: module ABI ${JSON.stringify(info.abiVersion)} is not supported by this binding (ABI major ${ABI_MAJOR})`);
  }
  toolerr._setExports(info.exports);
  return toolerr;
}

/**
 * Toolerr is a loaded toolerr.wasm. Create one with load() and share it.
 *
 * Notes:
 * - Calls are serialized: one plugin instance runs one call at a time, in
 *   order; concurrent callers simply wait.
 * - A call that fails inside the module's runtime (a trap) throws a TRAP
 *   ToolerrError and the plugin is replaced by a fresh one.
 * - The plugin's WASI stdout and stderr go to /dev/null and its log lines to
 *   process.stderr, whatever EXTISM_ENABLE_WASI_OUTPUT says: nothing the
 *   module does can write into a stdio MCP stream.
 */
export class Toolerr {
  #wasm;
  #plugin = null; // a Promise of the live plugin
  #queue = new SerialQueue();
  #exports = null; // the module's export names, from describe
  #present = new Set(); // export names the live plugin was seen to have
  #closed = false;

  /** @internal use load() */
  constructor(wasm) {
    this.#wasm = wasm;
  }

  /** @internal */
  _setExports(names) {
    this.#exports = new Set(names);
  }

  /**
   * call runs an export on a request and returns the response JSON text
   * exactly as the module wrote it. A string or Uint8Array request is sent
   * as is (raw); anything else is encoded as JSON first.
   * Throws ToolerrError on a failed call.
   */
  async call(exportName, request = {}) {
    if (this.#exports !== null && !this.#exports.has(exportName)) {
      throw new ToolerrError('INVALID_REQUEST', `unknown export ${JSON.stringify(String(exportName))}`);
    }
    const input = typeof request === 'string' || request instanceof Uint8Array ? request : encodeRequest(exportName, request);
    return this.#queue.run(() => this.#callNow(exportName, input));
  }

  async #callNow(exportName, input) {
    if (this.#closed) throw new Error('toolerr: closed');
    this.#plugin ??= startPlugin(this.#wasm);
    const plugin = await this.#plugin;
    if (!this.#present.has(exportName)) {
      if (!(await plugin.functionExists(exportName))) {
        throw new ToolerrError('INVALID_REQUEST', `unknown export ${JSON.stringify(String(exportName))}`);
      }
      this.#present.add(exportName);
    }
    let output;
    try {
      output = await plugin.call(exportName, input);
    } catch (err) {
      const message = String(err?.message ?? err);
      if (message.startsWith(PLUGIN_ERROR)) {
        let abiError;
        try {
          abiError = JSON.parse(message.slice(PLUGIN_ERROR.length));
        } catch {
          abiError = null;
        }
        if (typeof abiError?.code === 'string' && typeof abiError?.message === 'string') {
          await plugin.reset();
          throw new ToolerrError(abiError.code, abiError.message);
        }
      }
      // The module failed in a way it does not report: its state is
      // undefined, so the next call gets a fresh plugin.
      this.#plugin = null;
      plugin.close().catch(() => {});
      throw new ToolerrError('TRAP', `${exportName}: the module trapped: ${message}`);
    }
    try {
      if (output === null) {
        throw new ToolerrError('INTERNAL', `${exportName}: the module returned no output`);
      }
      return output.text();
    } finally {
      // Extism keeps every call's input and output blocks until reset; left
      // alone they pile up and, after 2^15 blocks, the next call traps.
      await plugin.reset();
    }
  }

  /** callJSON is call with the response parsed. */
  async callJSON(exportName, request) {
    return JSON.parse(await this.call(exportName, request));
  }

  /** describe returns what the module says of itself: abiVersion, version, exports, codes, severities, limits. */
  describe() {
    return this.callJSON('describe', {});
  }

  /** close releases the plugin; later calls fail. */
  async close() {
    this.#closed = true;
    const plugin = this.#plugin;
    this.#plugin = null;
    if (plugin) await (await plugin).close();
  }

  // ---- rendering -----------------------------------------------------

  /**
   * toolError starts a <tool_error> with its code and options; await it (or
   * return it from a handler) for the CallToolResult, or throw it inside a
   * wrap()ped handler.
   */
  toolError(code, options = {}) {
    if (typeof options === 'string') options = { message: options };
    return new ToolErrorBuilder(code, undefined, this)._assign(options);
  }

  /** error starts the fluent builder: error(code, message).suggest(...).actions(...). */
  error(code, message) {
    return new ToolErrorBuilder(code, message, this);
  }

  /** simpleError renders the reference's error(): a message and an optional code attribute. */
  simpleError(message, code) {
    return this.#rendered('simple_error', defined({ message, code }));
  }

  /** required renders the MISSING_REQUIRED_FIELD envelope for field. */
  required(field) {
    return this.#rendered('required_field', { field });
  }

  /** internalError renders INTERNAL_ERROR for an unmarked failure, prefixed [tool/action]. */
  internalError(message, { tool, action } = {}) {
    return this.#rendered('internal_error', defined({ message, tool, action }));
  }

  /** rateLimited renders RATE_LIMITED: {max, windowSeconds, retryAfter, key?}. */
  rateLimited({ max, windowSeconds, retryAfter, key } = {}) {
    return this.#rendered('rate_limited', defined({ max, windowSeconds, retryAfter, key }));
  }

  /** serverBusy renders SERVER_BUSY: {tool, active, queued}. */
  serverBusy({ tool, active, queued } = {}) {
    return this.#rendered('server_busy', defined({ tool, active, queued }));
  }

  /** formatValidation renders a <validation_error> from validator issues (Zod v3 by default). */
  formatValidation(action, issues, args, { contract, dialect } = {}) {
    return this.#rendered('format_validation', defined({ action, issues, args, dialect, contract }));
  }

  /**
   * validate checks args against a JSON Schema: {valid: true}, or
   * {valid: false, result} where result is the <validation_error> CallToolResult.
   */
  validate(action, schema, args, { contract } = {}) {
    return this.callJSON('validate', defined({ action, schema, args, contract }));
  }

  // ---- contracts ------------------------------------------------------

  /**
   * contractLock writes the lockfile of a set of MCP tools:
   * {lockfileVersion, digest, tools: [{name, digest, contract}]}. tools is an
   * array of Tool objects, a tools/list result ({tools: [...]}) or a
   * lockfile; the module canonicalizes and hashes them.
   */
  contractLock(tools) {
    return this.callJSON('contract_lock', { tools });
  }

  /**
   * contractDiff compares two sets of tools (each a Tool array, a tools/list
   * result or a lockfile): {deltas, maxSeverity, backwardsCompatible}. Pass
   * the deltas as contract: {tool, deltas} to validate or formatValidation.
   */
  contractDiff(before, after) {
    return this.callJSON('contract_diff', { before, after });
  }

  /** escape escapes text for an element body ('content') or an attribute ('attribute'). */
  async escape(text, context = 'content') {
    return (await this.callJSON('escape', { text, context })).text;
  }

  /** parse reads the first envelope of a text or of a CallToolResult's text blocks; null when none. */
  async parse(textOrResult) {
    const request = typeof textOrResult === 'string' ? { text: textOrResult } : { result: textBlocks(textOrResult) };
    return (await this.callJSON('parse', request)).envelope;
  }

  #rendered(exportName, request) {
    return markRendered(this.callJSON(exportName, request));
  }

  // ---- handlers and clients -------------------------------------------

  /**
   * wrap guards a tool handler. What it returns is passed through (a
   * returned builder is rendered); a thrown toolError()/error() builder, or
   * a thrown rendered result such as required('id'), reaches the client
   * intact; any other thrown value becomes INTERNAL_ERROR naming the tool,
   * with the error's message and no stack trace.
   */
  wrap(tool, handler) {
    return async (...args) => {
      try {
        return await handler(...args);
      } catch (failure) {
        return this.#failureResult(tool, failure);
      }
    };
  }

  /**
   * heal makes an McpServer of @modelcontextprotocol/sdk (>=1.24.0 <2)
   * answer through this module: arguments its zod schema refuses become a
   * <validation_error>, and every tool handler, registered before or after,
   * runs as if wrap()ped. It returns server, and throws, changing nothing,
   * when server is not such an McpServer.
   */
  heal(server) {
    return healServer(server, () => this);
  }

  async #failureResult(tool, failure) {
    if (failure instanceof ToolErrorBuilder || failure?.[RENDERED] === true) {
      try {
        return failure instanceof ToolErrorBuilder ? await failure.render(this) : await failure;
      } catch (err) {
        const what = failure instanceof ToolErrorBuilder ? `tool error ${failure.code}` : 'a tool error';
        failure = new Error(`${what} could not be rendered: ${err?.message ?? err}`);
      }
    }
    const message = failure instanceof Error ? failure.message : String(failure);
    return this.internalError(message, { tool });
  }

  /**
   * throwOnError returns result when it is not an error (warnings included)
   * and throws its envelope as a ClientError when result.isError is true.
   */
  async throwOnError(result) {
    if (!result?.isError) return result;
    const envelope = await this.parse(result);
    if (envelope === null) {
      const text = (result.content ?? []).find((c) => c?.type === 'text')?.text ?? '';
      throw new ClientError({ code: 'UNKNOWN', message: text, raw: result });
    }
    if (envelope.kind === 'tool_error') {
      throw new ClientError({ ...envelope, raw: result });
    }
    const names = envelope.fields.map((f) => f.name).join(', ');
    throw new ClientError({
      kind: envelope.kind,
      code: 'VALIDATION_ERROR',
      message: `invalid arguments for ${envelope.action}: ${names}`,
      recovery: envelope.recovery,
      action: envelope.action,
      fields: envelope.fields,
      contract: envelope.contract,
      raw: result,
    });
  }
}

/** markRendered marks a promise of a rendered result, so that wrap() delivers it when thrown. */
export function markRendered(promise) {
  promise[RENDERED] = true;
  return promise;
}

async function startPlugin(wasm) {
  const createPlugin = await loadExtism();
  return createPlugin(
    { wasm: [{ data: wasm }] },
    { useWasi: true, enableWasiOutput: false, logger: stderrLogger, runInWorker: false },
  );
}

// @extism/extism imports node:wasi, and the first load of node:wasi makes Node
// print "ExperimentalWarning: WASI is an experimental feature and might change
// at any time" on stderr: in every process that uses toolerr, every MCP server
// start included. So Extism is loaded on first use, and while it loads (only
// then) exactly that warning is dropped; every other warning passes as usual.
let extism = null;

function loadExtism() {
  extism ??= withoutWasiWarning(() => import('@extism/extism')).then(
    (module) => module.default,
    (err) => {
      extism = null; // let a later call try again
      throw err;
    },
  );
  return extism;
}

async function withoutWasiWarning(load) {
  const emitWarning = process.emitWarning;
  let active = true;
  const filtered = function emitWarningButWasi(warning, ...rest) {
    if (active && isWasiWarning(warning, rest[0])) return undefined;
    return emitWarning.call(this, warning, ...rest);
  };
  process.emitWarning = filtered;
  try {
    return await load();
  } finally {
    active = false; // if someone replaced process.emitWarning meanwhile, the filter stays in their chain, inert
    if (process.emitWarning === filtered) process.emitWarning = emitWarning;
  }
}

// isWasiWarning: process.emitWarning(warning, type | {type}) of Node's WASI notice.
function isWasiWarning(warning, typeOrOptions) {
  const message = typeof warning === 'string' ? warning : warning?.message;
  const type = typeof typeOrOptions === 'string' ? typeOrOptions : (typeOrOptions?.type ?? warning?.name);
  return type === 'ExperimentalWarning' && typeof message === 'string' && message.startsWith('WASI is an experimental feature');
}

// The module never logs; if it ever did, the lines must not reach stdout,
// where @extism/extism's default logger (console) would put some of them.
const stderrLogger = Object.fromEntries(
  ['trace', 'debug', 'info', 'warn', 'error', 'log'].map((level) => [
    level,
    (...parts) => process.stderr.write(`toolerr (${level}): ${parts.join(' ')}\n`),
  ]),
);

// defined drops the options left undefined: absent, as the ABI reads null.
function defined(request) {
  return Object.fromEntries(Object.entries(request).filter(([, v]) => v !== undefined));
}

// textBlocks keeps what parse reads of an MCP result: its text blocks and isError.
function textBlocks(result) {
  if (result === null || typeof result !== 'object' || !Array.isArray(result.content)) {
    return result;
  }
  return {
    content: result.content.filter((c) => c?.type === 'text').map((c) => ({ type: 'text', text: c.text })),
    isError: result.isError === true,
  };
}
