#!/usr/bin/env node
// batch: the batch protocol (docs/CONTRACT.md, "Batch protocol") on the Node binding.
//
// Reads JSON lines {"op": EXPORT, "input": REQUEST} on stdin and writes, for
// each, exactly one line on stdout: the response JSON text as the module
// wrote it, or {"error":{"code":...,"message":...}}. A string input is the
// raw request text; an absent input is {}. A bad line gets an error line
// and the batch goes on. Nothing else is ever written to stdout.
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { load, ToolerrError } from '../src/index.js';

const toolerr = await load();

async function answer(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (err) {
    throw new ToolerrError('INVALID_REQUEST', `batch: line is not {"op","input"}: ${err.message}`);
  }
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    throw new ToolerrError('INVALID_REQUEST', 'batch: line is not {"op","input"}: not a JSON object');
  }
  if (typeof request.op !== 'string' || request.op === '') {
    throw new ToolerrError('INVALID_REQUEST', 'batch: "op" is required');
  }
  return toolerr.call(request.op, request.input === undefined ? '{}' : request.input);
}

async function write(text) {
  if (!process.stdout.write(text + '\n')) await once(process.stdout, 'drain');
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const raw of lines) {
  const line = raw.trim();
  if (line === '') continue;
  try {
    await write(await answer(line));
  } catch (err) {
    const code = err instanceof ToolerrError ? err.code : 'INTERNAL';
    await write(JSON.stringify({ error: { code, message: String(err?.message ?? err) } }));
  }
}
await toolerr.close();
