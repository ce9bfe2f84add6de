// Drives the reference server with the MCP Inspector CLI (--cli) and asserts
// the relevant fields of every output exactly.
//
//   node inspector.mjs <archimate-server binary>
//
// Each CLI invocation is one MCP session. Over stdio that means a fresh
// server process per call, so the idempotent replay (which needs the second
// call to reach the same server) runs over streamable HTTP against one server.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Checks, EXPECTED_TOOLS, RFC3339_RE, UUID_RE, assertErrorEnvelope, assertTextMirrorsStructured,
  eq, ok, show, startHttpServer,
} from './lib/harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(here, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
const server = process.argv[2];
if (!server) {
  console.error('usage: node inspector.mjs <archimate-server binary>');
  process.exit(2);
}

// Keep the Inspector's catalog and client config out of the user's home.
const state = mkdtempSync(path.join(tmpdir(), 'mcpwrite-inspector-'));
process.on('exit', () => rmSync(state, { recursive: true, force: true }));
const env = {
  ...process.env,
  MCP_CATALOG_PATH: path.join(state, 'mcp.json'),
  MCP_CLIENT_CONFIG_PATH: path.join(state, 'client.json'),
  NO_COLOR: '1',
};

/** Runs the Inspector CLI; resolves with exit code, parsed stdout JSON and stderr. */
function inspector(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, '--cli', ...args, '--format', 'json'],
      { env, timeout: 60000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : `${err.code || ''}${err.signal || ''}`) : 0;
        let out;
        try { out = JSON.parse(stdout); } catch { out = undefined; }
        resolve({ code, out, stdout, stderr });
      });
  });
}

function resultOf(r, what) {
  ok(r.out && r.out.result, `${what}: no JSON result on stdout (exit ${r.code}); stdout=${show(r.stdout)} stderr=${show(r.stderr)}`);
  return r.out.result;
}

const stdio = (method, extra = []) => inspector(['--method', method, ...extra, server]);
const call = (tool, args) => ['--tool-name', tool, '--tool-args-json', JSON.stringify(args)];

const checks = new Checks('inspector');
const ELEMENT = { type: 'ApplicationComponent', name: 'OrderService' };

await checks.run('stdio tools/list --strict', async () => {
  const r = await stdio('tools/list', ['--strict']);
  eq(r.code, 0, `exit code (stderr: ${r.stderr.trim()})`);
  const res = resultOf(r, 'tools/list');
  eq(r.out.schemaFindings, undefined, 'schema portability findings');
  eq(res.tools.map((t) => t.name).sort(), EXPECTED_TOOLS, 'tool names');
  for (const t of res.tools) {
    const a = t.annotations || {};
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
      eq(typeof a[hint], 'boolean', `${t.name} annotations.${hint}`);
    }
    eq(t.inputSchema.type, 'object', `${t.name} inputSchema.type`);
    eq(t.outputSchema && t.outputSchema.type, 'object', `${t.name} outputSchema.type`);
  }
});

await checks.run('stdio tools/call createElement (valid)', async () => {
  const r = await stdio('tools/call', call('createElement', ELEMENT));
  eq(r.code, 0, `exit code (stderr: ${r.stderr.trim()})`);
  const res = resultOf(r, 'createElement');
  eq(res.isError, undefined, 'isError');
  assertTextMirrorsStructured(res, 'createElement');
  const sc = res.structuredContent;
  eq(sc.success, true, 'success');
  const { id, ...rest } = sc.element;
  ok(UUID_RE.test(id), `element.id is not a UUID: ${show(id)}`);
  eq(rest, {
    model_id: 'model-tenant-dev-main', type: 'ApplicationComponent',
    layer: 'Application', name: 'OrderService', version: 1,
  }, 'element');
  eq(sc.idempotent_replay, undefined, 'idempotent_replay');
  eq(sc.warnings.map((w) => w.code), ['MISSING_DESCRIPTION'], 'warning codes');
});

await checks.run('stdio tools/call createElement (typo AppComponent)', async () => {
  const r = await stdio('tools/call', call('createElement', { type: 'AppComponent', name: 'X' }));
  eq(r.code, 5, 'exit code (5 = tool returned isError)');
  const res = resultOf(r, 'createElement typo');
  assertErrorEnvelope(res, 'INVALID_ELEMENT_TYPE', 'type', 'createElement typo');
  const sugg = res.structuredContent.error.suggestions || {};
  eq(sugg.did_you_mean && sugg.did_you_mean[0], 'ApplicationComponent', 'error.suggestions.did_you_mean[0]');
  ok(Array.isArray(sugg.valid_values) && sugg.valid_values.includes('ApplicationComponent'),
    `valid_values lacks ApplicationComponent: ${show(sugg.valid_values)}`);
  eq(res.structuredContent.errors.length, 1, 'number of errors');
});

const http = await startHttpServer(server);
try {
  const viaHttp = (args) => inspector(['--method', 'tools/call', '--transport', 'http', '--server-url', http.url, ...args]);
  const key = `inspector-replay-${process.pid}-${Date.now()}`;
  const args = { ...ELEMENT, description: 'Handles orders', client_request_id: key };
  let first;
  await checks.run('http tools/call createElement with client_request_id (first)', async () => {
    const r = await viaHttp(call('createElement', args));
    eq(r.code, 0, `exit code (stderr: ${r.stderr.trim()})`);
    const res = resultOf(r, 'first');
    assertTextMirrorsStructured(res, 'first');
    eq(res.structuredContent.success, true, 'success');
    eq(res.structuredContent.idempotent_replay, undefined, 'idempotent_replay on the first call');
    first = res.structuredContent;
  });
  await checks.run('http tools/call createElement, same client_request_id (replay)', async () => {
    ok(first, 'first call failed');
    const r = await viaHttp(call('createElement', args));
    eq(r.code, 0, `exit code (stderr: ${r.stderr.trim()})`);
    const res = resultOf(r, 'replay');
    assertTextMirrorsStructured(res, 'replay');
    const sc = res.structuredContent;
    eq(sc.idempotent_replay, true, 'idempotent_replay');
    ok(RFC3339_RE.test(sc.original_request_time || ''), `original_request_time: ${show(sc.original_request_time)}`);
    eq(sc.element, first.element, 'replayed element (same id, nothing written twice)');
    eq(sc.success, true, 'success');
  });
  await checks.run('http tools/call createElement, same key with other arguments', async () => {
    const r = await viaHttp(call('createElement', { ...args, name: 'OtherService' }));
    eq(r.code, 5, 'exit code (5 = tool returned isError)');
    assertErrorEnvelope(resultOf(r, 'reuse'), 'IDEMPOTENCY_KEY_REUSED', 'client_request_id', 'reuse');
  });
} finally {
  await http.stop();
}

process.exit(checks.summary('stdio: tools/list --strict, valid write, typo; http: replay, key reuse'));
