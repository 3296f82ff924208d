#!/usr/bin/env node
// copy-wasm writes the module this package ships, wasm/toolerr.wasm, and its
// sha256 record, wasm/toolerr.wasm.sha256 (the one load() checks): copies of
// the repository's plugin/toolerr.wasm and plugin/toolerr.wasm.sha256, the one
// module git holds (wasm/ is git-ignored). It is the package's `prepare`
// script, which npm runs on `npm ci` and `npm install` in this folder, before
// `npm pack` and `npm publish` pack it, and when a project installs the folder
// (with install-links). It refuses a module whose sha256 is not the recorded one.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const plugin = new URL('../../../plugin/', import.meta.url);
const target = new URL('../wasm/', import.meta.url);

function fail(message) {
  console.error(`copy-wasm: ${message}`);
  process.exit(1);
}

function read(name) {
  const file = new URL(name, plugin);
  try {
    return readFileSync(file);
  } catch (err) {
    return fail(`cannot read ${fileURLToPath(file)} (${err.code}): this package takes its module from the toolerr repository's plugin/, so it is packed or installed from a checkout`);
  }
}

// write replaces a file in one step: a process loading the package meanwhile reads the old or the new one.
function write(name, bytes) {
  const file = new URL(name, target);
  const temporary = new URL(`.${name}.${process.pid}`, target);
  writeFileSync(temporary, bytes);
  renameSync(temporary, file);
}

const wasm = read('toolerr.wasm');
const record = read('toolerr.wasm.sha256');
const digest = createHash('sha256').update(wasm).digest('hex');
const recorded = record.toString('utf8').trim().split(/\s+/)[0];
if (digest !== recorded) {
  fail(`${fileURLToPath(new URL('toolerr.wasm', plugin))} has sha256 ${digest}, but toolerr.wasm.sha256 beside it records ${recorded}`);
}
mkdirSync(target, { recursive: true });
write('toolerr.wasm', wasm);
write('toolerr.wasm.sha256', record);
console.error(`copy-wasm: wasm/toolerr.wasm is plugin/toolerr.wasm (sha256 ${digest})`);
