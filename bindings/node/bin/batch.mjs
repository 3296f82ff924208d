#!/usr/bin/env node
// batch: the batch protocol (docs/CONTRACT.md, "Batch protocol") on the Node binding.
//
// Reads JSON lines {"op": EXPORT, "input": REQUEST} on stdin and writes, for
// each, exactly one line on stdout: the response JSON text as the module
// wrote it, or {"error":{"code":...,"message":...}}. The framing is the one
// every batch command applies: a line ends at LF only; JSON whitespace
// (space, tab, CR) around it is dropped and nothing else is whitespace; a
// line left empty gets no answer; any other line must be one JSON object,
// whose last "op" and last "input" count. A string input is the raw request
// text; any other input is sent as the very bytes the line holds; an absent
// one is {}. Nothing else is ever written to stdout. --engine extism runs
// the calls on @extism/extism instead of Node's WebAssembly (the raw path).
import { once } from 'node:events';
import { load, ToolerrError } from '../src/index.js';

// MAX_LINE is the longest line read whole: a request at the module's limit written as a JSON
// string (each byte escaped at worst doubles), plus room for the op.
const MAX_LINE = 2 * 4194304 + (1 << 20);
const NOT_OBJECT = 'is not a JSON object {"op","input"}';

const isSpace = (c) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;

// trim drops the JSON whitespace around a line.
function trim(b) {
  let start = 0;
  let end = b.length;
  while (start < end && isSpace(b[start])) start++;
  while (end > start && isSpace(b[end - 1])) end--;
  return b.subarray(start, end);
}

const hexValue = (c) => {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
};

// Scanner reads one line as a JSON object, of any depth, without reading its strings as text:
// they may hold any bytes but control characters, and any \u escape.
class Scanner {
  constructor(b) {
    this.b = b;
    this.pos = 0;
  }

  peek() {
    return this.pos < this.b.length ? this.b[this.pos] : -1;
  }

  space() {
    while (this.pos < this.b.length && isSpace(this.b[this.pos])) this.pos++;
  }

  str() {
    const b = this.b;
    if (this.peek() !== 0x22) return false;
    this.pos++;
    while (this.pos < b.length) {
      const c = b[this.pos];
      if (c === 0x22) {
        this.pos++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = b[this.pos + 1];
        if ([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74].includes(e)) {
          this.pos += 2;
        } else if (e === 0x75) {
          if (this.pos + 6 > b.length) return false;
          for (let i = this.pos + 2; i < this.pos + 6; i++) if (hexValue(b[i]) < 0) return false;
          this.pos += 6;
        } else {
          return false;
        }
      } else {
        this.pos++;
      }
    }
    return false;
  }

  digits() {
    let n = 0;
    while (this.peek() >= 0x30 && this.peek() <= 0x39) {
      this.pos++;
      n++;
    }
    return n;
  }

  number() {
    if (this.peek() === 0x2d) this.pos++;
    const c = this.peek();
    if (c === 0x30) this.pos++;
    else if (c >= 0x31 && c <= 0x39) this.digits();
    else return false;
    if (this.peek() === 0x2e) {
      this.pos++;
      if (this.digits() === 0) return false;
    }
    if (this.peek() === 0x65 || this.peek() === 0x45) {
      this.pos++;
      if (this.peek() === 0x2b || this.peek() === 0x2d) this.pos++;
      if (this.digits() === 0) return false;
    }
    return true;
  }

  literal(word) {
    for (let i = 0; i < word.length; i++) {
      if (this.b[this.pos + i] !== word.charCodeAt(i)) return false;
    }
    this.pos += word.length;
    return true;
  }

  key() {
    this.space();
    if (!this.str()) return false;
    this.space();
    if (this.peek() !== 0x3a) return false;
    this.pos++;
    return true;
  }

  // value reads one JSON value, iteratively.
  value() {
    const open = [];
    for (;;) {
      this.space();
      const c = this.peek();
      let ended = true;
      if (c === 0x7b || c === 0x5b) {
        this.pos++;
        this.space();
        if (this.peek() === (c === 0x7b ? 0x7d : 0x5d)) {
          this.pos++;
        } else {
          open.push(c);
          if (c === 0x7b && !this.key()) return false;
          ended = false;
        }
      } else if (c === 0x22) {
        if (!this.str()) return false;
      } else if (c === 0x74) {
        if (!this.literal('true')) return false;
      } else if (c === 0x66) {
        if (!this.literal('false')) return false;
      } else if (c === 0x6e) {
        if (!this.literal('null')) return false;
      } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        if (!this.number()) return false;
      } else {
        return false;
      }
      if (!ended) continue;
      for (;;) {
        if (open.length === 0) return true;
        this.space();
        const top = open[open.length - 1];
        const d = this.peek();
        if (d === 0x2c) {
          this.pos++;
          if (top === 0x7b && !this.key()) return false;
          break;
        }
        if ((top === 0x7b && d === 0x7d) || (top === 0x5b && d === 0x5d)) {
          this.pos++;
          open.pop();
          continue;
        }
        return false;
      }
    }
  }
}

// decodeString decodes a JSON string literal (quotes included) the scanner accepted: escapes
// decoded, a \u escape of a lone surrogate as U+FFFD (as the module reads one), every other byte
// as it is.
function decodeString(lit) {
  const out = [];
  const push = (cp) => {
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  };
  const hex4 = (at) => (hexValue(lit[at]) << 12) | (hexValue(lit[at + 1]) << 8) | (hexValue(lit[at + 2]) << 4) | hexValue(lit[at + 3]);
  const end = lit.length - 1;
  for (let i = 1; i < end; i++) {
    const c = lit[i];
    if (c !== 0x5c) {
      out.push(c);
      continue;
    }
    const e = lit[++i];
    const simple = { 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09 }[e];
    if (simple !== undefined) {
      out.push(simple);
    } else if (e === 0x75) {
      let cp = hex4(i + 1);
      i += 4;
      if (cp >= 0xd800 && cp < 0xdc00 && i + 6 < end + 1 && lit[i + 1] === 0x5c && lit[i + 2] === 0x75) {
        const lo = hex4(i + 3);
        if (lo >= 0xdc00 && lo < 0xe000) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          i += 6;
        }
      }
      push(cp >= 0xd800 && cp < 0xe000 ? 0xfffd : cp);
    } else {
      out.push(e); // " \ /
    }
  }
  return Uint8Array.from(out);
}

// readLine reads a trimmed, non-empty line: the op and input as written (null when absent).
function readLine(line) {
  const s = new Scanner(line);
  let op = null;
  let input = null;
  if (s.peek() !== 0x7b) return null;
  s.pos++;
  s.space();
  if (s.peek() === 0x7d) {
    s.pos++;
  } else {
    for (;;) {
      s.space();
      const start = s.pos;
      if (!s.str()) return null;
      const key = Buffer.from(decodeString(line.subarray(start, s.pos))).toString('latin1');
      s.space();
      if (s.peek() !== 0x3a) return null;
      s.pos++;
      s.space();
      const at = s.pos;
      if (!s.value()) return null;
      if (key === 'op') op = line.subarray(at, s.pos);
      else if (key === 'input') input = line.subarray(at, s.pos);
      s.space();
      if (s.peek() === 0x2c) {
        s.pos++;
        continue;
      }
      if (s.peek() === 0x7d) {
        s.pos++;
        break;
      }
      return null;
    }
  }
  s.space();
  return s.pos === line.length ? { op, input } : null;
}

async function answer(toolerr, line, n) {
  const req = readLine(line);
  if (req === null) throw new ToolerrError('INVALID_REQUEST', `batch: line ${n} ${NOT_OBJECT}`);
  const op = req.op !== null && req.op[0] === 0x22 ? Buffer.from(decodeString(req.op)).toString('utf8') : '';
  if (op === '') throw new ToolerrError('INVALID_REQUEST', `batch: line ${n}: "op" must be a non-empty string`);
  let request = '{}';
  if (req.input !== null) request = req.input[0] === 0x22 ? decodeString(req.input) : Uint8Array.from(req.input);
  return toolerr.call(op, request);
}

async function write(text) {
  if (!process.stdout.write(text + '\n')) await once(process.stdout, 'drain');
}

// lines yields each line of stream without its LF (null for one over MAX_LINE, which is read to
// its end and dropped).
async function* lines(stream) {
  let parts = [];
  let length = 0;
  let tooLong = false;
  for await (const chunk of stream) {
    let from = 0;
    for (;;) {
      const lf = chunk.indexOf(0x0a, from);
      const piece = chunk.subarray(from, lf === -1 ? chunk.length : lf);
      if (!tooLong) {
        length += piece.length;
        if (length > MAX_LINE) {
          tooLong = true;
          parts = [];
        } else {
          parts.push(piece);
        }
      }
      if (lf === -1) break;
      yield tooLong ? null : Buffer.concat(parts);
      parts = [];
      length = 0;
      tooLong = false;
      from = lf + 1;
    }
  }
  if (tooLong || length > 0) yield tooLong ? null : Buffer.concat(parts);
}

// --engine raw|extism: what runs the calls (load()'s options.engine; raw by default).
const engineFlag = process.argv.indexOf('--engine');
const toolerr = await load(engineFlag === -1 ? {} : { engine: process.argv[engineFlag + 1] });
let n = 0;
for await (const raw of lines(process.stdin)) {
  n++;
  try {
    if (raw === null) throw new ToolerrError('REQUEST_TOO_LARGE', `batch: line ${n} is longer than ${MAX_LINE} bytes`);
    const line = trim(raw);
    if (line.length === 0) continue;
    await write(await answer(toolerr, line, n));
  } catch (err) {
    const code = err instanceof ToolerrError ? err.code : 'INTERNAL';
    await write(JSON.stringify({ error: { code, message: String(err?.message ?? err) } }));
  }
}
await toolerr.close();
