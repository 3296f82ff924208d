// The module on Node's own WebAssembly, driven through its raw path (abi/ABI.md, "Raw path"):
// toolerr_buffer gives the address of a buffer inside the module, the export's name and the
// request are written there, toolerr_call runs the export and answers where the response lies in
// linear memory. One copy each way and no Extism kernel, as in the Go host's wazero engine and the
// Rust and Java bindings.
//
// A RawPlugin answers the few methods of an @extism/extism plugin that Toolerr uses (call,
// functionExists, reset, close), so one Toolerr drives either. Its imports: the WASI functions
// TinyGo's runtime links, given the little they need (no arguments, no files, real clocks, random
// bytes, output discarded: a stdio server's stdout is its protocol), and extism:host/env, which
// the raw path never calls, as functions that throw.
import { randomFillSync } from 'node:crypto';

const WASI = 'wasi_snapshot_preview1';
const EBADF = 8; // the WASI errno for "bad file descriptor": there are no files
const RAW_ERROR_FLAG = 0x8000_0000n;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const started = process.hrtime.bigint();

// startRaw instantiates module (compiled with its memory capped) and runs its _initialize. errorPrefix
// starts the message of an error the module reports (its ABI error object follows), as
// @extism/extism starts it.
export async function startRaw(module, errorPrefix) {
  let memory = null;
  const view = () => new DataView(memory.buffer);
  const wasi = {
    fd_write(_fd, iovs, count, written) {
      const v = view();
      let total = 0;
      for (let i = 0; i < count; i++) total = (total + v.getUint32(iovs + 8 * i + 4, true)) >>> 0;
      v.setUint32(written, total, true);
      return 0;
    },
    clock_time_get(id, _precision, out) {
      const nanos = id === 0 ? BigInt(Date.now()) * 1_000_000n : process.hrtime.bigint() - started;
      view().setBigUint64(out, nanos, true);
      return 0;
    },
    random_get(buf, len) {
      randomFillSync(new Uint8Array(memory.buffer, buf, len));
      return 0;
    },
    args_sizes_get(count, size) {
      const v = view();
      v.setUint32(count, 0, true);
      v.setUint32(size, 0, true);
      return 0;
    },
    args_get: () => 0,
    proc_exit(code) {
      throw new WebAssembly.RuntimeError(`the module exited (${code})`);
    },
  };
  const imports = { [WASI]: {}, 'extism:host/env': {} };
  for (const { module: from, name, kind } of WebAssembly.Module.imports(module)) {
    if (kind !== 'function') continue;
    if (from === WASI) {
      // Every other WASI function is about files, and there are none.
      imports[WASI][name] = wasi[name] ?? (() => EBADF);
    } else {
      imports[from] ??= {};
      imports[from][name] = () => {
        throw new WebAssembly.RuntimeError(`${from} ${name} called on the raw path`);
      };
    }
  }
  const instance = await WebAssembly.instantiate(module, imports);
  memory = instance.exports.memory;
  instance.exports._initialize?.();
  return new RawPlugin(instance, errorPrefix);
}

class RawPlugin {
  #exports;
  #prefix;
  // The request buffer toolerr_buffer gave (0: none yet) and the size it was asked for: it stays
  // the buffer until a larger one is asked for (abi/ABI.md, "Raw path").
  #bufAt = 0;
  #bufSize = 0;

  constructor(instance, errorPrefix) {
    this.#exports = instance.exports;
    this.#prefix = errorPrefix;
  }

  /** Whether the module exports name (an export of the ABI is one of its wasm exports). */
  async functionExists(name) {
    return typeof this.#exports[name] === 'function';
  }

  /**
   * call runs an export on input (a string or Uint8Array) and returns its response as
   * {byteLength, text()}; it throws an Error whose message is errorPrefix and the module's error
   * object when the module refuses the request, and a WebAssembly.RuntimeError when it traps.
   */
  async call(name, input) {
    const { toolerr_buffer: buffer, toolerr_call: call, memory } = this.#exports;
    const nameBytes = encoder.encode(name);
    const bytes = typeof input === 'string' ? encoder.encode(input) : input;
    const size = nameBytes.byteLength + bytes.byteLength;
    if (this.#bufAt === 0 || size > this.#bufSize) {
      const at = buffer(size);
      if (at === 0) {
        throw new Error(this.#prefix + JSON.stringify({ code: 'REQUEST_TOO_LARGE', message: `${name}: request is ${bytes.byteLength} bytes, over the module's buffer` }));
      }
      this.#bufAt = at >>> 0;
      this.#bufSize = size;
    }
    let mem = new Uint8Array(memory.buffer);
    mem.set(nameBytes, this.#bufAt);
    mem.set(bytes, this.#bufAt + nameBytes.byteLength);
    const packed = BigInt.asUintN(64, call(nameBytes.byteLength, bytes.byteLength));
    const start = Number(packed >> 32n);
    const length = Number(packed & 0x7fff_ffffn);
    mem = new Uint8Array(memory.buffer); // the call may have grown (and so replaced) the buffer
    if (start + length > mem.byteLength) throw new WebAssembly.RuntimeError('the response lies outside the module\'s memory');
    const text = decoder.decode(mem.subarray(start, start + length));
    if (packed & RAW_ERROR_FLAG) throw new Error(this.#prefix + text);
    return { byteLength: length, text: () => text };
  }

  /** The module's linear memory now, in 64 KiB pages, read directly (no call). */
  memoryPages() {
    return this.#exports.memory.buffer.byteLength / 65536;
  }

  /** Extism frees a call's blocks on reset; the raw path keeps none. */
  async reset() {}

  async close() {
    this.#exports = null;
  }
}
