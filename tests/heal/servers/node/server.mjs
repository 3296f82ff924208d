#!/usr/bin/env node
// heal-node: every tool of tests/heal/corpus.json on the TypeScript SDK's
// McpServer (registerTool with a zod inputSchema, stdio), each tool's JSON
// Schema converted to zod here, each handler answering "ok" to arguments that
// reach it. The heal bench (go run ./tests/heal) drives it.
//
//   node tests/heal/servers/node/server.mjs --zod 3|4 [--plain] [--corpus FILE]
//
// --zod picks the zod API the schemas are built with (zod/v3 or zod/v4 of
// the one zod package); --plain serves without toolerr (the SDK's own texts);
// healed, the server also reads its stdin through toolerr's stdio gate.
// The packages are examples/node's, as `bash examples/node/prepare.sh`
// installs them.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const require = createRequire(resolve(repo, 'examples/node/package.json'));
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const zodVersion = option('--zod', '4');
if (zodVersion !== '3' && zodVersion !== '4') throw new Error(`--zod takes 3 or 4, got ${zodVersion}`);
const { z } = require(zodVersion === '3' ? 'zod/v3' : 'zod/v4');
const corpus = JSON.parse(readFileSync(option('--corpus', resolve(repo, 'tests/heal/corpus.json')), 'utf8'));

/**
 * toZod converts one JSON Schema (the keywords the corpus uses) to zod, the
 * way a developer would write it by hand. A keyword it does not know throws,
 * so that no schema is served looser than published without saying so.
 */
function toZod(schema) {
  if (schema === true || schema === undefined || Object.keys(schema).length === 0) return z.any();
  const known = new Set(['type', 'description', 'title', 'default', '$schema', '$defs', 'properties', 'required',
    'additionalProperties', 'items', 'enum', 'const', 'anyOf', 'oneOf', 'pattern', 'format', 'minLength', 'maxLength',
    'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems', 'examples']);
  for (const key of Object.keys(schema)) {
    if (!known.has(key)) throw new Error(`toZod: keyword ${key} is not converted`);
  }
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return anyOf(union.map(toZod));
  if (schema.const !== undefined) return z.literal(schema.const);
  if (schema.enum) {
    if (schema.enum.every((v) => typeof v === 'string')) return z.enum(schema.enum);
    return anyOf(schema.enum.map((v) => z.literal(v)));
  }
  if (Array.isArray(schema.type)) return anyOf(schema.type.map((type) => toZod({ ...schema, type })));
  switch (schema.type) {
    case 'null':
      return z.null();
    case 'boolean':
      return z.boolean();
    case 'string': {
      let s = z.string();
      if (schema.format === 'uri') s = s.url();
      else if (schema.format === 'uuid') s = s.uuid();
      else if (schema.format === 'email') s = s.email();
      else if (schema.format === 'date-time') s = s.datetime();
      if (schema.minLength !== undefined) s = s.min(schema.minLength);
      if (schema.maxLength !== undefined) s = s.max(schema.maxLength);
      if (schema.pattern !== undefined) s = s.regex(new RegExp(schema.pattern));
      return s;
    }
    case 'number':
    case 'integer': {
      let n = z.number();
      if (schema.type === 'integer') n = n.int();
      if (schema.minimum !== undefined) n = n.gte(schema.minimum);
      if (schema.maximum !== undefined) n = n.lte(schema.maximum);
      if (schema.exclusiveMinimum !== undefined) n = n.gt(schema.exclusiveMinimum);
      if (schema.exclusiveMaximum !== undefined) n = n.lt(schema.exclusiveMaximum);
      return n;
    }
    case 'array': {
      let a = z.array(toZod(schema.items));
      if (schema.minItems !== undefined) a = a.min(schema.minItems);
      if (schema.maxItems !== undefined) a = a.max(schema.maxItems);
      return a;
    }
    case 'object':
    case undefined: {
      const required = new Set(schema.required ?? []);
      const shape = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        shape[name] = required.has(name) ? toZod(property) : toZod(property).optional();
      }
      // A required property the schema does not describe still has to be there.
      for (const name of required) if (!(name in shape)) shape[name] = z.any().refine((v) => v !== undefined, 'Required');
      const o = z.object(shape);
      return schema.additionalProperties === false ? o.strict() : o;
    }
    default:
      throw new Error(`toZod: type ${schema.type} is not converted`);
  }
}

function anyOf(members) {
  const nonNull = members.filter((m) => !isZodNull(m));
  let result = nonNull.length === 1 ? nonNull[0] : z.union(nonNull);
  if (nonNull.length < members.length) result = result.nullable();
  return result;
}

function isZodNull(schema) {
  return schema instanceof z.ZodNull;
}

const server = new McpServer({ name: `heal-node-zod${zodVersion}`, version: '1.0.0' });
const plain = args.includes('--plain');
const toolerr = plain ? null : require('toolerr');
if (toolerr) {
  toolerr.heal(server);
}
for (const tool of corpus.tools) {
  server.registerTool(tool.tool, { description: tool.tool, inputSchema: toZod(tool.inputSchema) }, async () => ({
    content: [{ type: 'text', text: 'ok' }],
  }));
}
// Healed as the binding's README teaches: heal(server), and the SDK's stdio
// transport reading through the stdio gate.
await server.connect(toolerr ? new StdioServerTransport(toolerr.gatedStdin()) : new StdioServerTransport());
