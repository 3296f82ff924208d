// gatedStdin: a stdio MCP server's stdin behind the module's stdio gate
// (abi/ABI.md, "The stdio gate"), for the SDK's StdioServerTransport. Every
// line the client sends goes to the gate first: a line it passes or
// rewrites reaches the SDK; a line it answers gets the gate's JSON-RPC
// response on stdout and never reaches the SDK; a line it ignores is noted
// on stderr. So no line ends or silences the session, and arguments too
// large, too deep, out of range, not valid Unicode or not an object reach
// the model as the <validation_error> every toolerr host writes.
import process from 'node:process';
import { PassThrough } from 'node:stream';

import { GATE_HEAD_BYTES, MAX_REQUEST_BYTES } from './abi.js';

/**
 * gatedStdin reads input (default process.stdin) line by line, with bounded
 * memory, and returns the stream of the lines the gate hands on, each with
 * its line feed: what StdioServerTransport takes as its stdin. The gate's
 * answers are written to output (default process.stdout, where the SDK
 * writes too: each message is one write, so lines never interleave);
 * ignored lines are noted through log (default: a line on stderr).
 *
 * @param {() => Promise<import('./toolerr.js').Toolerr> | import('./toolerr.js').Toolerr} toolerrOf
 * @param {{input?: NodeJS.ReadableStream, output?: NodeJS.WritableStream, log?: (note: string) => void}} [options]
 */
export function gatedStdin(toolerrOf, { input = process.stdin, output = process.stdout, log = note } = {}) {
  const gated = new PassThrough();
  const hand = async (bytes) => {
    if (!gated.write(bytes)) await new Promise((resolve) => gated.once('drain', resolve));
  };
  const judge = async ({ head, total }) => {
    let verdict;
    try {
      verdict = await (await toolerrOf())._gateHead(total, head);
    } catch (err) {
      log(`toolerr: ignored a line of ${total} bytes from the client: the gate failed: ${err?.message ?? err}`);
      return;
    }
    switch (verdict.verdict) {
      case 'pass':
        return hand(Buffer.concat([head, NEWLINE]));
      case 'rewrite':
        return hand(Buffer.from(`${verdict.line}\n`));
      case 'answer':
        output.write(`${verdict.response}\n`);
        return;
      default:
        log(`toolerr: ignored a line of ${total} bytes from the client: ${verdict.reason}`);
    }
  };
  // Lines are judged one at a time, in order, each as its 'data' event
  // brings it (an async iterator over input cost a round trip some ten
  // microseconds more per line). Reading pauses while the lines waiting
  // for the gate (or for the SDK to take what it passed) hold more than
  // the request limit, so memory stays bounded as it was line by line.
  const lines = new LineReader();
  let pending = Promise.resolve();
  let queuedBytes = 0;
  let paused = false;
  const enqueue = (line) => {
    const size = line.head.byteLength;
    queuedBytes += size;
    pending = pending
      .then(() => judge(line))
      .catch((err) => log(`toolerr: a line of ${line.total} bytes from the client was lost: ${err?.message ?? err}`))
      .then(() => {
        queuedBytes -= size;
        if (paused && queuedBytes <= MAX_REQUEST_BYTES) {
          paused = false;
          input.resume();
        }
      });
    if (!paused && queuedBytes > MAX_REQUEST_BYTES) {
      paused = true;
      input.pause();
    }
  };
  let ended = false;
  const finish = (err) => {
    if (ended) return;
    ended = true;
    if (err) log(`toolerr: reading the client's lines failed: ${err?.message ?? err}`);
    else for (const line of lines.end()) enqueue(line);
    pending.then(() => gated.end());
  };
  input.on('data', (chunk) => {
    for (const line of lines.push(chunk)) enqueue(line);
  });
  input.on('end', () => finish());
  input.on('error', (err) => finish(err));
  return gated;
}

const NEWLINE = Buffer.from('\n');

function note(text) {
  process.stderr.write(`${text}\n`);
}

/**
 * LineReader splits chunks into lines without their line feed, keeping at
 * most the request limit of a line (of a longer one, its first
 * GATE_HEAD_BYTES bytes) and counting its length to its end.
 */
class LineReader {
  #parts = [];
  #kept = 0;
  #total = 0;

  /** push takes a chunk and returns the lines it ends: [{head, total}]. */
  push(chunk) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const done = [];
    let at = 0;
    for (let nl = bytes.indexOf(10, at); nl >= 0; nl = bytes.indexOf(10, at)) {
      this.#take(bytes.subarray(at, nl));
      done.push(this.#line());
      at = nl + 1;
    }
    this.#take(bytes.subarray(at));
    return done;
  }

  /** end returns the last line, when the input ended without a line feed. */
  end() {
    return this.#total > 0 ? [this.#line()] : [];
  }

  #take(part) {
    this.#total += part.byteLength;
    const room = MAX_REQUEST_BYTES + 1 - this.#kept;
    if (room > 0 && part.byteLength > 0) {
      const kept = part.byteLength > room ? part.subarray(0, room) : part;
      this.#parts.push(Buffer.from(kept)); // a copy: the chunk's buffer may be reused
      this.#kept += kept.byteLength;
    }
  }

  #line() {
    let head = Buffer.concat(this.#parts, this.#kept);
    const total = this.#total;
    if (total > MAX_REQUEST_BYTES) head = head.subarray(0, GATE_HEAD_BYTES);
    this.#parts = [];
    this.#kept = 0;
    this.#total = 0;
    return { head, total };
  }
}
