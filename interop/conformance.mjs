// Runs the MCP conformance suite's server scenarios (all of them, pending
// included) against the reference server over streamable HTTP, with the
// committed baseline of expected failures.
//
//   node conformance.mjs <server binary> [server arguments]     (Node >= 22)
//
// The suite itself enforces the baseline: it exits 1 on any failure (or
// warning) of a scenario not in conformance-baseline.yml and on a baseline
// entry that now passes. The full log and per-scenario checks.json are kept
// in a temporary directory whose path is printed on failure.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHttpServer } from './lib/harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
// CONFORMANCE_BASELINE names another baseline file in interop/ (the mcp-go server's).
const BASELINE = path.join(here, process.env.CONFORMANCE_BASELINE || 'conformance-baseline.yml');
const version = JSON.parse(readFileSync(path.join(here, 'node_modules/@modelcontextprotocol/conformance/package.json'))).version;
const server = process.argv[2];
if (!server) {
  console.error('usage: node conformance.mjs <archimate-server binary>');
  process.exit(2);
}

const outDir = mkdtempSync(path.join(tmpdir(), 'mcpwrite-conformance-'));
let keepOutDir = false;
process.on('exit', () => { if (!keepOutDir) rmSync(outDir, { recursive: true, force: true }); });
// Arguments after the binary are the server's own (tasks-server -mcp-go).
const http = await startHttpServer(server, process.argv.slice(3));
let code;
let log = '';
try {
  code = await new Promise((resolve) => {
    const child = spawn(process.execPath,
      [CLI, 'server', '--url', http.url, '--suite', 'all', '--expected-failures', BASELINE, '-o', outDir],
      { env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => { log += d; });
    child.stderr.on('data', (d) => { log += d; });
    const timer = setTimeout(() => { log += '\n(timed out after 180s)\n'; child.kill('SIGKILL'); }, 180000);
    child.on('exit', (c, sig) => { clearTimeout(timer); resolve(c ?? `signal ${sig}`); });
  });
} finally {
  await http.stop();
}
writeFileSync(path.join(outDir, 'conformance.log'), log);

// eslint-disable-next-line no-control-regex
const plain = log.replace(/\x1b\[[0-9;]*m/g, '');
const section = (title) => {
  const m = plain.match(new RegExp(`${title}[^\\n]*:\\n((?:  [~✓✗] .*\\n?)*)`));
  return m ? m[1].trim().split('\n').map((l) => l.replace(/^\s*[~✓✗]\s*/, '')).filter(Boolean) : [];
};
const expected = section('Expected failures \\(in baseline\\)');
const unexpected = section('Unexpected failures \\(not in baseline\\)');
const stale = section('Stale baseline entries');

// Exact counts from the per-scenario checks.json files the suite wrote.
const status = { SUCCESS: 0, FAILURE: 0, WARNING: 0 };
let scenarios = 0;
for (const dir of readdirSync(outDir, { withFileTypes: true })) {
  if (!dir.isDirectory()) continue;
  scenarios++;
  for (const c of JSON.parse(readFileSync(path.join(outDir, dir.name, 'checks.json')))) {
    if (c.status in status) status[c.status]++;
  }
}

for (const s of unexpected) console.log(`  FAIL unexpected failure: ${s}`);
for (const s of stale) console.log(`  FAIL stale baseline entry (now passes; remove it): ${s}`);
const ok = code === 0 && scenarios > 0;
if (!ok) {
  console.log(plain.split('\n').filter((l) => /^[✓✗] |^Total:/.test(l)).map((l) => `  ${l}`).join('\n'));
  console.log(`  exit code ${code}; full log: ${path.join(outDir, 'conformance.log')}`);
  keepOutDir = true;
}
console.log(`conformance: ${ok ? 'PASS' : 'FAIL'} ${scenarios} scenarios (@modelcontextprotocol/conformance ${version}); ` +
  `checks ${status.SUCCESS} passed, ${status.FAILURE} failed, ${status.WARNING} warnings; ` +
  `${expected.length} scenarios failing as baselined, ${unexpected.length} unexpected, ${stale.length} stale`);
process.exit(ok ? 0 : 1);
