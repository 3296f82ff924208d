#!/usr/bin/env node
// sync-wasm copies the committed plugin/toolerr.wasm into this package
// (wasm/toolerr.wasm) and records its digest (wasm/toolerr.wasm.sha256), the
// one the binding checks at load. The copy is never edited by hand: run
//
//   node bindings/node/scripts/sync-wasm.mjs           copy and record
//   node bindings/node/scripts/sync-wasm.mjs --check   exit 1 if the copy is stale
//
// It refuses a source whose digest differs from plugin/toolerr.wasm.sha256.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../../../', import.meta.url);
const source = new URL('plugin/toolerr.wasm', root);
const sourceDigestFile = new URL('plugin/toolerr.wasm.sha256', root);
const target = new URL('../wasm/toolerr.wasm', import.meta.url);
const targetDigestFile = new URL('../wasm/toolerr.wasm.sha256', import.meta.url);

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const firstToken = (text) => text.trim().split(/\s+/)[0];

const bytes = readFileSync(source);
const digest = sha256(bytes);
const committed = firstToken(readFileSync(sourceDigestFile, 'utf8'));
if (digest !== committed) {
  console.error(`sync-wasm: ${fileURLToPath(source)} has sha256 ${digest}, but plugin/toolerr.wasm.sha256 says ${committed}`);
  process.exit(1);
}
const record = `${digest}  toolerr.wasm\n`;

if (process.argv.includes('--check')) {
  let stale = false;
  try {
    stale = sha256(readFileSync(target)) !== digest || readFileSync(targetDigestFile, 'utf8') !== record;
  } catch {
    stale = true;
  }
  if (stale) {
    console.error('sync-wasm: bindings/node/wasm is stale; run node bindings/node/scripts/sync-wasm.mjs');
    process.exit(1);
  }
  process.exit(0);
}

mkdirSync(new URL('.', target), { recursive: true });
writeFileSync(target, bytes);
writeFileSync(targetDigestFile, record);
console.error(`sync-wasm: copied toolerr.wasm (sha256 ${digest})`);
