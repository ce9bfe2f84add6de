// Counts the tokens of the tools/list results bench/compact_test.go wrote
// (MCPWRITE_TOOLSLIST_DIR) with OpenAI's o200k_base and cl100k_base
// tokenizers (gpt-tokenizer, pinned in package.json), and prints the table
// docs/compact.md holds.
//
//   MCPWRITE_TOOLSLIST_DIR=/tmp/tl go test ./bench/ -run TestCompactToolsListSize
//   (cd bench/tokens && npm ci && node count.mjs /tmp/tl)
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { encode as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node count.mjs <directory of tools/list results>');
  process.exit(2);
}
const rows = [];
for (const f of readdirSync(dir)) {
  const m = f.match(/^(full|compact)-(\d+)-fields-(\d+)\.json$/);
  if (!m) continue;
  const text = readFileSync(path.join(dir, f), 'utf8');
  rows.push({ mode: m[1], fields: +m[2], writes: +m[3], bytes: Buffer.byteLength(text), o200k: o200k(text).length, cl100k: cl100k(text).length });
}
if (rows.length !== 12) {
  console.error(`want 12 results (2 modes x 2 request sizes x 3 service sizes), found ${rows.length} in ${dir}`);
  process.exit(1);
}
rows.sort((a, b) => (a.mode === b.mode ? a.fields - b.fields || a.writes - b.writes : a.mode === 'full' ? -1 : 1));
const fmt = (n) => n.toLocaleString('en-US');
console.log('| mode | request fields | write methods | tools/list bytes | bytes per write | o200k tokens | tokens per write | cl100k tokens |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.mode} | ${r.fields} | ${r.writes} | ${fmt(r.bytes)} | ${fmt(Math.round(r.bytes / r.writes))} | ${fmt(r.o200k)} | ${fmt(Math.round(r.o200k / r.writes))} | ${fmt(r.cl100k)} |`);
}
// The cost of one more write tool (10 -> 300), without the service tools.
console.log();
for (const mode of ['full', 'compact']) {
  for (const fields of [8, 40]) {
    const a = rows.find((r) => r.mode === mode && r.fields === fields && r.writes === 10);
    const b = rows.find((r) => r.mode === mode && r.fields === fields && r.writes === 300);
    console.log(`${mode}, ${fields} request fields: ${((b.bytes - a.bytes) / 290).toFixed(1)} B and ${((b.o200k - a.o200k) / 290).toFixed(1)} o200k tokens per additional write tool`);
  }
}

// What each member of a compact tool costs: the compact lists (8 request
// fields) rewritten, each compact tool (an open-object input schema) at a
// time, as the alternatives docs/compact.md weighs, and the cost of one more
// write tool measured again.
const variants = {
  'as listed': (t) => t,
  'with the per-tool schema hash in _meta': (t) => ({ _meta: { 'mcpwrite/schema_hash': 'sha256:' + hex16(t.name) }, ...t }),
  'with every hint spelled out (go-sdk ToolAnnotations)': (t) => ({ ...t, annotations: { destructiveHint: t.annotations?.destructiveHint ?? true, idempotentHint: t.annotations?.idempotentHint ?? false, openWorldHint: t.annotations?.openWorldHint ?? true, readOnlyHint: t.annotations?.readOnlyHint ?? false } }),
  'input schema {"type":"object"}': (t) => ({ ...t, inputSchema: { type: 'object' } }),
  'description cut at 40 bytes': (t) => ({ ...t, description: cut(t.description, 40) }),
  'without annotations': (t) => { const { annotations, ...rest } = t; return rest; },
  // The least a tool can be listed with: its name, its one-line description
  // and the shortest input schema, then with a single hint back.
  'floor: {"type":"object"}, no annotations': (t) => { const { annotations, ...rest } = t; return { ...rest, inputSchema: { type: 'object' } }; },
  'floor with its first non-default hint only': (t) => { const { annotations, ...rest } = t; const first = Object.entries(annotations ?? {})[0]; return { ...rest, inputSchema: { type: 'object' }, ...(first ? { annotations: Object.fromEntries([first]) } : {}) }; },
};
// hex16 is a stand-in hash of the same length and spread as a real one.
function hex16(s) {
  let h = 2166136261n;
  for (const c of s) h = ((h ^ BigInt(c.codePointAt(0))) * 16777619n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}
function cut(s, max) {
  if (Buffer.byteLength(s) <= max) return s;
  const words = s.slice(0, max - 1).split(' ');
  words.pop();
  return words.join(' ') + '…';
}
console.log();
console.log('| compact write tool | bytes per additional write tool | o200k tokens per additional write tool |');
console.log('|---|---|---|');
const open = JSON.stringify({ type: 'object', additionalProperties: true });
for (const [name, f] of Object.entries(variants)) {
  const cost = (writes) => {
    const res = JSON.parse(readFileSync(path.join(dir, `compact-8-fields-${writes}.json`), 'utf8'));
    res.tools = res.tools.map((t) => (JSON.stringify(t.inputSchema) === open ? f(t) : t));
    const text = JSON.stringify(res);
    return { bytes: Buffer.byteLength(text), tokens: o200k(text).length };
  };
  const a = cost(10), b = cost(300);
  console.log(`| ${name} | ${((b.bytes - a.bytes) / 290).toFixed(1)} | ${((b.tokens - a.tokens) / 290).toFixed(1)} |`);
}
