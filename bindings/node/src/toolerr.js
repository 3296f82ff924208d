// Toolerr: one loaded toolerr.wasm behind a raw call(export, request) and
// the idiomatic API. Every envelope, message and number comes from the
// module; this file only builds requests and wraps responses.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import {
  ABI_MAJOR,
  EXPORT,
  GATE_HEAD_BYTES,
  MEMORY_CHECK_BYTES,
  MEMORY_CHECK_MS,
  POLICY_CALL_TIMEOUT_MS,
  POLICY_MEMORY_MAX_PAGES,
  POLICY_RETIRE_MEMORY_PAGES,
} from './abi.js';
import { ToolErrorBuilder } from './builder.js';
import { encodeRequest } from './encode.js';
import { ClientError, ToolerrError } from './errors.js';
import { healServer } from './heal.js';
import { SerialQueue } from './queue.js';
import { startRaw } from './raw.js';
import { gatedStdin } from './stdio.js';

// The defaults of the host policy of abi/ABI.md ("Host policy"), which every toolerr host (Go,
// Node, Python, Rust) applies, are abi.js's POLICY_ constants, generated from abi/abi.json. A
// plugin whose linear memory grew past POLICY_RETIRE_MEMORY_PAGES is replaced after its call
// (linear memory never shrinks); the raw path reads it after every call, and an Extism plugin is
// asked after every call whose request or response is over MEMORY_CHECK_BYTES or that ran
// MEMORY_CHECK_MS or longer.

/**
 * INLINE_REQUEST_BYTES: a request up to this size (16 KiB, as in the Go host) runs on the calling
 * thread, and an overrun of its deadline is reported when it returns; a larger one runs in a
 * worker thread that is stopped at the deadline.
 */
export const INLINE_REQUEST_BYTES = 16 << 10;

const BUNDLED_WASM = new URL('../wasm/toolerr.wasm', import.meta.url);
const BUNDLED_SHA256 = new URL('../wasm/toolerr.wasm.sha256', import.meta.url);
// How @extism/extism reports an error the plugin set (our ABI error object).
const PLUGIN_ERROR = 'Plugin-originated error: ';
// Promises of rendered results: a handler may throw one and wrap() delivers it.
const RENDERED = Symbol('toolerr.rendered');

/**
 * load reads the module (by default the copy shipped in this package),
 * refuses it unless its sha256 is the expected digest (a ToolerrError, code
 * TRAP), starts it, and refuses a module whose ABI major is not ABI_MAJOR.
 *
 * memoryMaxPages (default 8192, 512 MiB) caps the module's linear memory: a call that needs more
 * fails with TRAP. callTimeoutMs (default 10000) bounds a call: TIMEOUT at the deadline for a
 * request over INLINE_REQUEST_BYTES, which runs in a worker thread stopped then; when it returns
 * for a smaller one, which runs on the calling thread. 0 runs every call on the calling thread,
 * without a bound.
 *
 * engine is what runs the calls on the calling thread: 'raw' (the default), Node's own WebAssembly
 * through the module's raw path (abi/ABI.md, "Raw path"), or 'extism', an @extism/extism plugin.
 * The worker thread of a large request is always an @extism/extism plugin. Both give the same
 * bytes (every conformance vector runs on each).
 *
 * @param {{wasm?: Uint8Array, sha256?: string, memoryMaxPages?: number, callTimeoutMs?: number, engine?: 'raw' | 'extism'}} [options]
 *   another module and its digest, the host policy's limits, and the engine
 */
export async function load(options = {}) {
  const memoryMaxPages = options.memoryMaxPages ?? POLICY_MEMORY_MAX_PAGES;
  const callTimeoutMs = options.callTimeoutMs ?? POLICY_CALL_TIMEOUT_MS;
  const engine = options.engine ?? 'raw';
  if (!ENGINES.includes(engine)) {
    throw new Error(`toolerr: options.engine must be one of ${ENGINES.join(', ')}, got ${JSON.stringify(engine)}`);
  }
  if (!Number.isInteger(memoryMaxPages) || memoryMaxPages < 1 || memoryMaxPages > 65536) {
    throw new Error(`toolerr: options.memoryMaxPages must be an integer from 1 to 65536, got ${memoryMaxPages}`);
  }
  if (typeof callTimeoutMs !== 'number' || !(callTimeoutMs >= 0) || callTimeoutMs > 2 ** 31 - 1) {
    throw new Error(`toolerr: options.callTimeoutMs must be a number of milliseconds from 0 to 2147483647, got ${callTimeoutMs}`);
  }
  // With the extism engine, Extism (and node:wasi) load while the module is read and compiled; a
  // failure here is the first plugin's to report. The raw engine loads it only for a worker.
  if (engine === 'extism') loadExtism().catch(() => {});
  let wasm = options.wasm;
  let expected = options.sha256;
  if (wasm === undefined) {
    try {
      wasm = await readFile(BUNDLED_WASM);
      expected ??= (await readFile(BUNDLED_SHA256, 'utf8')).trim().split(/\s+/)[0];
    } catch (err) {
      // wasm/ is written by the package's prepare script (scripts/copy-wasm.mjs), which npm runs
      // when it packs or installs the package from the repository.
      throw new ToolerrError('TRAP', `toolerr: the packaged module could not be read: ${err.message}`, { cause: err });
    }
  } else if (expected === undefined) {
    throw new Error('toolerr: options.sha256 is required with options.wasm');
  }
  const actual = createHash('sha256').update(wasm).digest('hex');
  if (actual !== String(expected).toLowerCase()) {
    throw new ToolerrError('TRAP', `toolerr: module sha256 is ${actual}, want ${expected}`);
  }
  let module;
  try {
    module = await WebAssembly.compile(withMemoryMax(Uint8Array.from(wasm), memoryMaxPages));
  } catch (err) {
    throw new Error(`toolerr: the module could not be compiled with a memory cap of ${memoryMaxPages} pages: ${err.message}`);
  }
  // The checks below start the first plugin: they are part of load, not calls to bound.
  const toolerr = new Toolerr(module, { callTimeoutMs: 0, engine });
  let info;
  try {
    info = JSON.parse(await toolerr.call(EXPORT.describe, '{}'));
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
  toolerr._setMaxRequestBytes(info.limits?.maxRequestBytes);
  toolerr._setCallTimeout(callTimeoutMs);
  return toolerr;
}

/**
 * Toolerr is a loaded toolerr.wasm. Create one with load() and share it.
 *
 * Notes:
 * - Calls are serialized: one plugin instance runs one call at a time, in
 *   order; concurrent callers simply wait.
 * - A call that fails inside the module's runtime (a trap, running out of
 *   the memory cap included) throws a TRAP ToolerrError and the plugin is
 *   replaced by a fresh one; so is the plugin of a call that ran out of time
 *   (TIMEOUT), or whose memory grew past POLICY_RETIRE_MEMORY_PAGES.
 * - A request over the module's maxRequestBytes is refused (REQUEST_TOO_LARGE)
 *   before it is copied into the plugin.
 * - The plugin's WASI stdout and stderr go to /dev/null and its log lines to
 *   process.stderr, whatever EXTISM_ENABLE_WASI_OUTPUT says: nothing the
 *   module does can write into a stdio MCP stream.
 */
export class Toolerr {
  #module; // the compiled module, its memory capped
  #engine; // what runs calls on the calling thread: 'raw' or 'extism'
  #timeoutMs;
  #maxRequestBytes = Infinity; // until describe answers
  // A Promise of the live plugin of each kind: one on this thread, for requests up to
  // INLINE_REQUEST_BYTES (or all, without a timeout), and one in a worker thread for larger ones.
  #inline = { plugin: null, worker: false };
  #watched = { plugin: null, worker: true };
  #queue = new SerialQueue();
  #exports = null; // the module's export names, from describe
  #present = new Set(); // export names the live plugin was seen to have
  #closed = false;

  /** @internal use load() */
  constructor(module, { callTimeoutMs = POLICY_CALL_TIMEOUT_MS, engine = 'raw' } = {}) {
    this.#module = module;
    this.#engine = engine;
    this.#timeoutMs = callTimeoutMs;
  }

  /** @internal */
  _setCallTimeout(ms) {
    this.#timeoutMs = ms;
  }

  /** @internal the plugins alive now (the tests watch retirement through it) */
  _livePlugins() {
    return [this.#inline, this.#watched].filter((slot) => slot.plugin !== null).length;
  }

  /** @internal */
  _setMaxRequestBytes(limit) {
    if (Number.isSafeInteger(limit) && limit > 0) this.#maxRequestBytes = limit;
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
    const input = typeof request === 'string' || request instanceof Uint8Array ? ownBytes(request) : encodeRequest(exportName, request);
    return this.#queue.run(() => this.#callNow(exportName, input));
  }

  async #callNow(exportName, input) {
    if (this.#closed) throw new Error('toolerr: closed');
    const size = typeof input === 'string' ? Buffer.byteLength(input) : input.byteLength;
    if (size > this.#maxRequestBytes) {
      throw new ToolerrError('REQUEST_TOO_LARGE', `${exportName}: request is ${size} bytes, over the limit of ${this.#maxRequestBytes}`);
    }
    const slot = this.#timeoutMs > 0 && size > INLINE_REQUEST_BYTES ? this.#watched : this.#inline;
    slot.plugin ??= startPlugin(this.#module, slot.worker, this.#engine);
    let plugin;
    try {
      plugin = await slot.plugin;
    } catch (err) {
      slot.plugin = null; // the next call tries again
      throw new ToolerrError('TRAP', `${exportName}: the module could not start: ${err?.message ?? err}`);
    }
    // An idle worker is unreferenced so that it never keeps the process alive; while a call waits
    // on it, it is referenced.
    const worker = plugin.worker;
    worker?.ref?.();
    try {
      return await this.#callOn(slot, plugin, size, exportName, input);
    } finally {
      worker?.unref?.();
    }
  }

  async #callOn(slot, plugin, size, exportName, input) {
    if (!this.#present.has(exportName)) {
      if (!(await plugin.functionExists(exportName))) {
        throw new ToolerrError('INVALID_REQUEST', `unknown export ${JSON.stringify(String(exportName))}`);
      }
      this.#present.add(exportName);
    }
    let output;
    const started = performance.now();
    try {
      output = slot.worker ? await this.#callWatched(plugin, exportName, input) : await plugin.call(exportName, input);
    } catch (err) {
      if (err === DEADLINE) {
        // Stopped at its deadline: the worker is terminated, the next call gets a fresh one.
        this.#retire(slot, plugin);
        throw new ToolerrError('TIMEOUT', `${exportName}: the call ran out of time`);
      }
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
          await this.#settle(slot, plugin, size, performance.now() - started);
          throw new ToolerrError(abiError.code, abiError.message);
        }
      }
      // The module failed in a way it does not report: its state is
      // undefined, so the next call gets a fresh plugin.
      this.#retire(slot, plugin);
      throw new ToolerrError('TRAP', `${exportName}: the module trapped: ${message}`);
    }
    const took = performance.now() - started;
    if (!slot.worker && this.#timeoutMs > 0 && took > this.#timeoutMs) {
      // As the Go host does for a small request: the answer comes too late to give, and the
      // plugin goes like one stopped at its deadline.
      this.#retire(slot, plugin);
      throw new ToolerrError('TIMEOUT', `${exportName}: the call ran out of time`);
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
      await this.#settle(slot, plugin, Math.max(size, output?.byteLength ?? 0), took);
    }
  }

  // #settle retires the slot's plugin when a call whose larger of request and response was size
  // bytes, and which took ms milliseconds, grew its linear memory past POLICY_RETIRE_MEMORY_PAGES.
  // The raw path reads its memory after every call (a small request can grow it too). Otherwise
  // only the module can tell how far, with one more call, asked after a call over
  // MEMORY_CHECK_BYTES or of MEMORY_CHECK_MS or longer (growing the memory takes allocating, and
  // allocating megabytes takes milliseconds): @extism/extism exposes its kernel's memory, and the
  // plugin may live in a worker thread.
  async #settle(slot, plugin, size, ms) {
    if (typeof plugin.memoryPages === 'function') {
      if (!(plugin.memoryPages() <= POLICY_RETIRE_MEMORY_PAGES)) this.#retire(slot, plugin);
      return;
    }
    if (size <= MEMORY_CHECK_BYTES && ms < MEMORY_CHECK_MS) return;
    let pages = NaN;
    try {
      const out = await plugin.call(EXPORT.describe, '{"memory":true}');
      pages = JSON.parse(out.text()).memoryPages;
      await plugin.reset();
    } catch {
      // An instance that cannot tell is not kept either.
    }
    if (!(Number.isInteger(pages) && pages <= POLICY_RETIRE_MEMORY_PAGES)) this.#retire(slot, plugin);
  }

  // #callWatched runs a call in the worker plugin and rejects with DEADLINE when the call is still
  // running after callTimeoutMs (the caller then terminates the worker).
  async #callWatched(plugin, exportName, input) {
    let timer;
    const deadline = new Promise((_, reject) => {
      timer = setTimeout(() => reject(DEADLINE), this.#timeoutMs);
    });
    const call = plugin.call(exportName, input);
    call.catch(() => {}); // abandoned at the deadline: nobody awaits it any more
    try {
      return await Promise.race([call, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  // #retire drops the slot's plugin (a worker plugin's thread is terminated); the next call on
  // that slot starts a fresh one.
  #retire(slot, plugin) {
    slot.plugin = null; // calls are serialized: the slot holds this plugin
    plugin.close().catch(() => {});
  }

  /** callJSON is call with the response parsed. */
  async callJSON(exportName, request) {
    return JSON.parse(await this.call(exportName, request));
  }

  /** describe returns what the module says of itself: abiVersion, version, exports, codes, severities, limits. */
  describe() {
    return this.callJSON(EXPORT.describe, {});
  }

  /** close releases the plugin; later calls fail. */
  async close() {
    this.#closed = true;
    for (const slot of [this.#inline, this.#watched]) {
      const plugin = slot.plugin;
      slot.plugin = null;
      if (plugin) await (await plugin.catch(() => null))?.close();
    }
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
    return this.#rendered(EXPORT.simpleError, defined({ message, code }));
  }

  /** required renders the MISSING_REQUIRED_FIELD envelope for field. */
  required(field) {
    return this.#rendered(EXPORT.requiredField, { field });
  }

  /** internalError renders INTERNAL_ERROR for an unmarked failure, prefixed [tool/action]. */
  internalError(message, { tool, action } = {}) {
    return this.#rendered(EXPORT.internalError, defined({ message, tool, action }));
  }

  /**
   * unknownTool renders UNKNOWN_ACTION for a call to a tool that does not
   * exist: tool is the name called, tools the server's tools in its order.
   * The module lists them closest to tool first, at most 20.
   */
  unknownTool(tool, tools) {
    return this.#rendered(EXPORT.unknownTool, { tool, tools });
  }

  /** rateLimited renders RATE_LIMITED: {max, windowSeconds, retryAfter, key?}. */
  rateLimited({ max, windowSeconds, retryAfter, key } = {}) {
    return this.#rendered(EXPORT.rateLimited, defined({ max, windowSeconds, retryAfter, key }));
  }

  /** serverBusy renders SERVER_BUSY: {tool, active, queued}. */
  serverBusy({ tool, active, queued } = {}) {
    return this.#rendered(EXPORT.serverBusy, defined({ tool, active, queued }));
  }

  /** formatValidation renders a <validation_error> from validator issues (Zod v3 by default). */
  formatValidation(action, issues, args, { contract, dialect } = {}) {
    return this.#rendered(EXPORT.formatValidation, defined({ action, issues, args, dialect, contract }));
  }

  /**
   * validate checks args against a JSON Schema: {valid: true}, or
   * {valid: false, result} where result is the <validation_error> CallToolResult.
   */
  validate(action, schema, args, { contract } = {}) {
    return this.callJSON(EXPORT.validate, defined({ action, schema, args, contract }));
  }

  // ---- contracts ------------------------------------------------------

  /**
   * contractLock writes the lockfile of a set of MCP tools:
   * {lockfileVersion, digest, tools: [{name, digest, contract}]}. tools is an
   * array of Tool objects, a tools/list result ({tools: [...]}) or a
   * lockfile; the module canonicalizes and hashes them.
   */
  contractLock(tools) {
    return this.callJSON(EXPORT.contractLock, { tools });
  }

  /**
   * contractDiff compares two sets of tools (each a Tool array, a tools/list
   * result or a lockfile): {deltas, maxSeverity, backwardsCompatible}. Pass
   * the deltas as contract: {tool, deltas} to validate or formatValidation.
   */
  contractDiff(before, after) {
    return this.callJSON(EXPORT.contractDiff, { before, after });
  }

  // ---- the stdio gate -------------------------------------------------

  /**
   * gate applies the stdio gate (abi/ABI.md, "The stdio gate") to one line a
   * client sent, without its line feed: a Uint8Array of its bytes as read
   * (a string is sent as UTF-8, which cannot hold the bytes that are not).
   * It returns the verdict: {verdict: 'pass'}, {verdict: 'rewrite', line}
   * (hand on line instead), {verdict: 'answer', response} (write response
   * and a line feed back to the client instead) or {verdict: 'ignore',
   * reason}. A line over the request limit is sent as its length and its
   * first GATE_HEAD_BYTES bytes, as the ABI asks.
   */
  async gate(line) {
    const bytes = typeof line === 'string' ? Buffer.from(line, 'utf8') : line;
    return this._gateHead(bytes.byteLength, bytes);
  }

  /** @internal gate on a line of total bytes, of which head holds the first (all of them, or at least GATE_HEAD_BYTES) */
  async _gateHead(total, head) {
    let request = head;
    if (total > this.#maxRequestBytes) {
      request = Buffer.concat([Buffer.from(`${total}\n`), head.subarray(0, GATE_HEAD_BYTES)]);
    }
    return JSON.parse(await this.call(EXPORT.gate, request));
  }

  /**
   * argumentsTooLarge renders the stdio gate's <validation_error> for a
   * tool's arguments too large to check beside their schema (what heal
   * answers when the module refuses the check with REQUEST_TOO_LARGE); size
   * is their JSON text in bytes. The error measures the tools/call message
   * that carries them.
   */
  async argumentsTooLarge(tool, size) {
    const head = Buffer.from(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":`);
    const verdict = JSON.parse(await this.call(EXPORT.gate, Buffer.concat([Buffer.from(`${head.byteLength + size + 2}\n`), head])));
    const result = verdict.verdict === 'answer' ? JSON.parse(verdict.response).result : undefined;
    if (result === undefined) throw new ToolerrError('INTERNAL', `arguments too large: the gate gave ${JSON.stringify(verdict)}`);
    return result;
  }

  /**
   * gatedStdin returns the client's stdin behind the stdio gate, for the
   * SDK's StdioServerTransport: `new StdioServerTransport(toolerr.gatedStdin())`.
   * See gatedStdin in index.js.
   */
  gatedStdin(options = {}) {
    return gatedStdin(() => this, options);
  }

  /** escape escapes text for an element body ('content') or an attribute ('attribute'). */
  async escape(text, context = 'content') {
    return (await this.callJSON(EXPORT.escape, { text, context })).text;
  }

  /** parse reads the first envelope of a text or of a CallToolResult's text blocks; null when none. */
  async parse(textOrResult) {
    const request = typeof textOrResult === 'string' ? { text: textOrResult } : { result: textBlocks(textOrResult) };
    return (await this.callJSON(EXPORT.parse, request)).envelope;
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
   * <validation_error>, every tool handler, registered before or after,
   * runs as if wrap()ped, and a call to a tool the server does not have
   * gets UNKNOWN_ACTION (options.unknownTool: 'sdk' keeps the SDK's answer).
   * This module is warmed in the background (one call of each kind a
   * failure makes, once). It returns server, and throws, changing nothing,
   * when server is not such an McpServer or an option is not one heal()
   * knows.
   */
  heal(server, options = {}) {
    return healServer(server, () => this, options);
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
   * and throws a ClientError when result.isError is true, as the module's
   * check_result projects it: a tool error's own code and message,
   * VALIDATION_ERROR for a validation error, UNKNOWN and the first text
   * block when there is no envelope.
   */
  async throwOnError(result) {
    if (!result?.isError) return result;
    const { clientError } = await this.callJSON(EXPORT.checkResult, { result: textBlocks(result) });
    if (clientError === null) return result;
    throw new ClientError({ ...clientError, raw: result });
  }
}

/**
 * ownBytes returns a Uint8Array request as a copy when it is a view of part
 * of a larger buffer (a Buffer from Node's pool, a subarray): @extism/extism
 * hands the plugin the whole underlying buffer of a Uint8Array, not the
 * bytes the view shows. A string, or an array that is its whole buffer,
 * goes as it is.
 */
function ownBytes(request) {
  if (typeof request === 'string' || (request.byteOffset === 0 && request.byteLength === request.buffer.byteLength)) return request;
  return new Uint8Array(request);
}

/** markRendered marks a promise of a rendered result, so that wrap() delivers it when thrown. */
export function markRendered(promise) {
  promise[RENDERED] = true;
  return promise;
}

// DEADLINE is what a watched call rejects with when its time is up.
const DEADLINE = Symbol('toolerr.deadline');

// ENGINES are what load() takes as options.engine.
const ENGINES = ['raw', 'extism'];

// startPlugin starts a plugin of the compiled module: on this thread, on the raw path or as an
// @extism/extism plugin, or as an @extism/extism plugin in a worker thread.
async function startPlugin(module, inWorker, engine) {
  if (!inWorker && engine === 'raw') return startRaw(module, PLUGIN_ERROR);
  const createPlugin = await loadExtism();
  const start = () => createPlugin(
    { wasm: [{ module }] },
    { useWasi: true, enableWasiOutput: false, logger: stderrLogger, runInWorker: inWorker },
  );
  if (!inWorker) return start();
  const plugin = await withoutWorkerWarnings(start);
  plugin.worker?.unref?.(); // referenced only while a call waits on it
  return plugin;
}

// withoutWorkerWarnings keeps the worker thread @extism/extism starts from printing Node's WASI
// ExperimentalWarning on stderr again (the thread loads node:wasi anew). A worker copies the
// environment, NODE_NO_WARNINGS included, when it is constructed, and that happens within the
// microtasks after createPlugin is called (the module is compiled already, nothing waits on I/O),
// so the variable is set only until the next macrotask: no timer, I/O callback, child process or
// other worker of the program sees it. Warnings of the program's own thread are not affected.
async function withoutWorkerWarnings(start) {
  const had = Object.prototype.hasOwnProperty.call(process.env, 'NODE_NO_WARNINGS');
  const previous = process.env.NODE_NO_WARNINGS;
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    if (had) process.env.NODE_NO_WARNINGS = previous;
    else delete process.env.NODE_NO_WARNINGS;
  };
  process.env.NODE_NO_WARNINGS = '1';
  let started;
  try {
    started = start();
  } catch (err) {
    restore();
    throw err;
  }
  setImmediate(restore);
  try {
    return await started;
  } finally {
    restore();
  }
}

// withMemoryMax returns the module with its memory's maximum set to maxPages (or kept, when the
// module declares a lower one). @extism/extism 1.0.3 reads no memory limit from the manifest
// (nor a timeout), so the cap is written into the module itself, after its digest was checked:
// growing past it fails inside the module, which then traps, as on every other host.
function withMemoryMax(bytes, maxPages) {
  const leb = (at) => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error('truncated module');
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (byte < 0x80) return [value, at];
    }
  };
  const encode = (n) => {
    const out = [];
    do {
      let byte = n % 128;
      n = Math.floor(n / 128);
      if (n > 0) byte |= 0x80;
      out.push(byte);
    } while (n > 0);
    return out;
  };
  for (let at = 8; at < bytes.length;) {
    const id = bytes[at];
    const [size, body] = leb(at + 1);
    const end = body + size;
    if (id === 5) {
      const [count, flagsAt] = leb(body);
      const flags = bytes[flagsAt];
      if (count !== 1 || (flags !== 0 && flags !== 1)) throw new Error('the module\'s memory is not one unshared 32-bit memory');
      const [min, afterMin] = leb(flagsAt + 1);
      const max = flags === 1 ? Math.min(leb(afterMin)[0], maxPages) : maxPages;
      if (min > max) throw new Error(`the module starts with ${min} pages of memory`);
      const section = [1, 1, ...encode(min), ...encode(max)];
      const out = new Uint8Array(at + 1 + encode(section.length).length + section.length + (bytes.length - end));
      out.set(bytes.subarray(0, at));
      out.set([5, ...encode(section.length), ...section], at);
      out.set(bytes.subarray(end), at + 1 + encode(section.length).length + section.length);
      return out;
    }
    at = end;
  }
  throw new Error('the module defines no memory of its own');
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

// textBlocks keeps what parse and check_result read of an MCP result: its text blocks and isError.
function textBlocks(result) {
  if (result === null || typeof result !== 'object' || !Array.isArray(result.content)) {
    return result;
  }
  return {
    content: result.content.filter((c) => c?.type === 'text').map((c) => ({ type: 'text', text: c.text })),
    isError: result.isError === true,
  };
}
