// Measures what each agent vendor's own client library does with the tools of
// the five example servers (and the tasks server on mcp-go and listed
// compactly), instead of what the vendor notes remember:
//   - OpenAI Agents SDK (@openai/agents-core): mcpToFunctionTool with
//     convertSchemasToStrict, the conversion agent hosts run on MCP tools; a
//     tool it cannot convert falls back to strict: false.
//   - OpenAI SDK (openai): toStrictJsonSchema from openai/lib/transform, the
//     strict Structured Outputs normalisation. It refuses an optional
//     property that is not nullable, so it is measured twice: on the schema
//     as listed, and after lib/strict.mjs (optional properties made required
//     and nullable, the documented strict rule), which it must then accept
//     without changing anything.
//   - Anthropic SDK (@anthropic-ai/sdk): transformJSONSchema from
//     lib/transform-json-schema, the strict tool-use conversion; the keywords
//     it moves from the schema into the description (no longer enforced
//     while sampling; the server still checks them).
//   - Google Gen AI SDK (@google/genai): mcpToTool, which turns MCP tools
//     into function declarations; whether the input and output schemas
//     reach the declaration unchanged.
// Amazon Nova has no npm client that converts schemas; its note stays a
// documented limit.
//
// It prints one table and compares it with the measured table in
// docs/vendors.md (between the vendors:measured markers); a difference fails
// the run, so the notes change when a pinned client changes what it keeps.
// Any tool that loses strict mode in the OpenAI clients fails the run too.
//
//   node vendors.mjs <dir holding {archimate,crm,neotoma,purchasing,tasks}-server> [-write]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { mcpToFunctionTool } from '@openai/agents-core';
import { toStrictJsonSchema } from 'openai/lib/transform';
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import { mcpToTool } from '@google/genai';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { Checks, eq } from './lib/harness.mjs';
import { toStrict } from './lib/strict.mjs';

const dir = process.argv[2];
const write = process.argv.includes('-write');
if (!dir) {
  console.error('usage: node vendors.mjs <directory of example server binaries> [-write]');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const DOC = path.join(here, '..', 'docs', 'vendors.md');
const BEGIN = '<!-- vendors:measured:begin -->';
const END = '<!-- vendors:measured:end -->';
const SERVERS = {
  archimate: [],
  crm: [],
  neotoma: [],
  purchasing: [],
  tasks: ['-root', path.join(tmpdir(), 'mcpwrite-interop-vendors-tasks')],
  // The same service on a mark3labs/mcp-go server, and listed compactly
  // (runtime.WithCompactList): its write tools take an open object, so they
  // are expected to leave strict mode, and only they.
  'tasks-mcpgo': { bin: 'tasks', args: ['-mcp-go', '-root', path.join(tmpdir(), 'mcpwrite-interop-vendors-tasks-mcpgo')] },
  'tasks-compact': { bin: 'tasks', args: ['-compact', '-root', path.join(tmpdir(), 'mcpwrite-interop-vendors-tasks-compact')], compact: true },
  'tasks-mcpgo-compact': { bin: 'tasks', args: ['-mcp-go', '-compact', '-root', path.join(tmpdir(), 'mcpwrite-interop-vendors-tasks-mcpgo-compact')], compact: true },
};

function version(pkg) {
  return JSON.parse(readFileSync(path.join(here, 'node_modules', pkg, 'package.json'), 'utf8')).version;
}

// keywords returns the sorted set of schema keywords used anywhere in s.
function keywords(s, out = new Set()) {
  if (Array.isArray(s)) {
    for (const x of s) keywords(x, out);
  } else if (s && typeof s === 'object') {
    for (const [k, v] of Object.entries(s)) {
      out.add(k);
      if (k === 'properties') {
        for (const p of Object.values(v)) keywords(p, out);
      } else if (k === 'items' || k === 'anyOf' || k === 'additionalProperties') {
        keywords(v, out);
      }
    }
  }
  return out;
}

// movedToDescription lists the keywords Anthropic's conversion takes out of
// the schema (it appends them to the description as "{key: value}").
function movedToDescription(before, after) {
  const kept = keywords(after);
  return [...keywords(before)].filter((k) => !kept.has(k)).sort();
}

const list = (xs) => (xs.length ? xs.map((x) => `\`${x}\``).join(', ') : 'nothing');

// compactInput is the input schema of a compactly listed tool.
const compactInput = { type: 'object', additionalProperties: true };

async function measure(name, spec, checks) {
  const { bin = name, args = spec, compact = false } = Array.isArray(spec) ? {} : spec;
  const transport = new StdioClientTransport({ command: path.join(dir, `${bin}-server`), args, stderr: 'pipe' });
  const client = new Client({ name: 'mcpwrite-vendors', version: '1.0.0' });
  const row = { name };
  try {
    await client.connect(transport);
    const listed = await client.listTools();
    const { tools } = listed;
    row.tools = tools.length;

    const fallbacks = [];
    for (const t of tools) {
      const ft = mcpToFunctionTool(t, { name, cacheToolsList: false }, true);
      if (ft.strict !== true) fallbacks.push(t.name);
    }
    row.agents = tools.length - fallbacks.length;
    // Compactly listed tools (open input) leave strict mode by design.
    const open = compact ? tools.filter((t) => isDeepStrictEqual(t.inputSchema, compactInput)).map((t) => t.name) : [];
    if (compact) {
      await checks.run(`${name}: the write tools are listed compactly`, async () => eq(open.length > 0 && open.length < tools.length, true, `compact tools ${open.length} of ${tools.length}`));
      // One schema hash for the list, in its _meta; none per compact tool.
      await checks.run(`${name}: the list's _meta carries its schema hash, no compact tool a _meta`, async () => {
        eq(/^sha256:[0-9a-f]{16}$/.test(listed._meta?.['mcpwrite/schema_hash'] ?? ''), true, `list _meta ${JSON.stringify(listed._meta)}`);
        eq(tools.filter((t) => open.includes(t.name) && t._meta !== undefined).map((t) => t.name), [], 'compact tools with _meta');
      });
    }
    await checks.run(`${name}: OpenAI Agents SDK keeps every tool strict${compact ? ' but the compact ones' : ''}`, async () => eq(fallbacks, open, 'tools downgraded to strict: false'));

    let asListed = 0;
    const refused = [];
    const changed = [];
    for (const t of tools) {
      try {
        toStrictJsonSchema(t.inputSchema);
        asListed++;
      } catch {
        // an optional property that is not nullable; measured below
      }
      try {
        const nullable = toStrict(t.inputSchema);
        if (!isDeepStrictEqual(toStrictJsonSchema(nullable), nullable)) changed.push(t.name);
      } catch (err) {
        refused.push(`${t.name}: ${err.message}`);
      }
    }
    row.openaiListed = asListed;
    row.openai = tools.length - refused.length;
    await checks.run(`${name}: openai toStrictJsonSchema accepts every tool${compact ? ' but the compact ones' : ''} once optional properties are nullable`, async () => {
      if (compact) eq(refused.map((r) => r.slice(0, r.indexOf(':'))), open, 'tools refused');
      else eq(refused, [], 'tools refused');
      eq(changed, [], 'tools whose strict schema toStrictJsonSchema still changes');
    });

    const moved = new Set();
    let anthropicRefused = 0;
    for (const t of tools) {
      try {
        for (const k of movedToDescription(t.inputSchema, transformJSONSchema(t.inputSchema))) moved.add(k);
      } catch {
        anthropicRefused++;
      }
    }
    row.anthropic = tools.length - anthropicRefused;
    row.anthropicMoved = [...moved].sort();
    await checks.run(`${name}: Anthropic transformJSONSchema converts every tool`, async () => eq(anthropicRefused, 0, 'tools refused'));

    const decl = (await mcpToTool(client).tool()).functionDeclarations;
    const byName = new Map(decl.map((d) => [d.name, d]));
    let inKept = 0;
    let outKept = 0;
    for (const t of tools) {
      const d = byName.get(t.name);
      if (d && isDeepStrictEqual(d.parametersJsonSchema, t.inputSchema)) inKept++;
      if (d && isDeepStrictEqual(d.responseJsonSchema, t.outputSchema)) outKept++;
    }
    row.gemini = [inKept, outKept];
  } finally {
    await client.close().catch(() => {});
  }
  return row;
}

const checks = new Checks('vendors');
// Controls: the checks above must be able to fail. A boolean property schema
// is refused by the TypeScript SDK's tools/list validation (the whole list
// is lost), and an open object is downgraded by the Agents SDK and refused by
// lib/strict.mjs.
await checks.run('control: the refused shapes are refused', async () => {
  const open = { name: 'open', inputSchema: { type: 'object', additionalProperties: false, required: ['payload'], properties: { payload: { type: 'object' } } } };
  eq(mcpToFunctionTool(open, { name: 'control', cacheToolsList: false }, true).strict, false, 'Agents SDK strict for an open object');
  let msg = '';
  try { toStrict(open.inputSchema); } catch (err) { msg = err.message; }
  eq(msg, 'payload: cannot convert an open JSON schema object to strict mode', 'lib/strict.mjs on an open object');
  const bool = { name: 'bool', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { value: true } } };
  eq(ListToolsResultSchema.safeParse({ tools: [bool] }).success, false, 'SDK tools/list validation of a boolean output property');
});
const rows = [];
for (const [name, spec] of Object.entries(SERVERS)) {
  await checks.run(`${name}: tools/list and every conversion`, async () => rows.push(await measure(name, spec, checks)));
}

const table = [
  `Measured by \`interop/vendors.mjs\` (\`make interop\`) with @openai/agents-core ${version('@openai/agents-core')}, ` +
    `openai ${version('openai')}, @anthropic-ai/sdk ${version('@anthropic-ai/sdk')} and @google/genai ${version('@google/genai')}.`,
  '',
  '| server | tools | OpenAI Agents SDK: strict | openai `toStrictJsonSchema`: as listed / optional made nullable | Anthropic `transformJSONSchema`: converted | Anthropic: keywords moved into the description | Gemini `mcpToTool`: input / output schema unchanged |',
  '|---|---|---|---|---|---|---|',
  ...rows.map((r) =>
    `| ${r.name} | ${r.tools} | ${r.agents}/${r.tools} | ${r.openaiListed}/${r.tools} / ${r.openai}/${r.tools} | ${r.anthropic}/${r.tools} | ${list(r.anthropicMoved)} | ${r.gemini[0]}/${r.tools} / ${r.gemini[1]}/${r.tools} |`),
].join('\n');
console.log(table);

const doc = readFileSync(DOC, 'utf8');
const start = doc.indexOf(BEGIN);
const end = doc.indexOf(END);
if (start < 0 || end < start) {
  console.log(`vendors: FAIL ${DOC} has no ${BEGIN} ... ${END} section`);
  process.exit(1);
}
const updated = `${doc.slice(0, start + BEGIN.length)}\n${table}\n${doc.slice(end)}`;
if (write) {
  writeFileSync(DOC, updated);
} else {
  await checks.run('docs/vendors.md holds the measured table (node interop/vendors.mjs <dir> -write updates it)', async () => {
    if (updated !== doc) throw new Error('the measured table differs from docs/vendors.md');
  });
}
const total = rows.reduce((n, r) => n + r.tools, 0);
const strict = rows.reduce((n, r) => n + r.agents, 0);
process.exit(checks.summary(`${strict}/${total} tools strict in the OpenAI Agents SDK`));
