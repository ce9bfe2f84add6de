// Shared helpers for the interop drivers: starting the reference server over
// streamable HTTP on a free loopback port (and always stopping it), and a
// small check recorder that keeps going after a failure so one run reports
// every problem.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { isDeepStrictEqual, inspect } from 'node:util';

const children = new Set();

function killAll() {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  }
  children.clear();
}

// A server must never outlive the driver, whatever way the driver ends.
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    killAll();
    process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 })[sig]);
  });
}

/** Returns a loopback TCP port that was free a moment ago. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port) {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    sock.once('connect', () => { sock.destroy(); resolve(true); });
    sock.once('error', () => { sock.destroy(); resolve(false); });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts `bin -http 127.0.0.1:<free port>` and resolves once it accepts TCP
 * connections. Retries on a fresh port when the chosen one was taken in the
 * meantime. The returned stop() is idempotent.
 */
export async function startHttpServer(bin, extraArgs = []) {
  let lastErr = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const child = spawn(bin, ['-http', `127.0.0.1:${port}`, ...extraArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
    children.add(child);
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const deadline = Date.now() + 15000;
    let ready = false;
    while (Date.now() < deadline && child.exitCode === null) {
      if (await canConnect(port)) { ready = true; break; }
      await sleep(50);
    }
    if (ready && child.exitCode === null) {
      const stop = async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          await Promise.race([exited, sleep(5000)]);
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        }
        children.delete(child);
      };
      return { port, url: `http://127.0.0.1:${port}/mcp`, stop, stderr: () => stderr };
    }
    child.kill('SIGKILL');
    children.delete(child);
    lastErr = stderr.trim() || `not listening on 127.0.0.1:${port} within 15s`;
  }
  throw new Error(`could not start ${bin} over HTTP: ${lastErr}`);
}

/** Compact, single-line rendering of a value for failure messages. */
export function show(v) {
  return inspect(v, { depth: 8, breakLength: Infinity, maxStringLength: 300 });
}

/** Records named checks; failures are collected, never thrown past the recorder. */
export class Checks {
  constructor(prefix) {
    this.prefix = prefix;
    this.passed = 0;
    this.failures = [];
  }

  /** Runs fn; any exception (assertion or protocol error) fails this check only. */
  async run(name, fn) {
    try {
      await fn();
      this.passed++;
      if (process.env.INTEROP_VERBOSE) console.log(`  ok   ${name}`);
    } catch (err) {
      const msg = err && err.message ? err.message : String(err);
      this.failures.push(`${name}: ${msg}`);
      console.log(`  FAIL ${name}: ${msg}`);
    }
  }

  get total() { return this.passed + this.failures.length; }

  /** Prints the one summary line for this client and returns the exit code. */
  summary(extra = '') {
    const ok = this.failures.length === 0;
    const tail = extra ? `; ${extra}` : '';
    console.log(`${this.prefix}: ${ok ? 'PASS' : 'FAIL'} ${this.passed}/${this.total} checks${tail}`);
    return ok ? 0 : 1;
  }
}

/** Throws when actual is not deeply equal to expected. */
export function eq(actual, expected, what) {
  if (!isDeepStrictEqual(actual, expected)) {
    throw new Error(`${what}: got ${show(actual)}, want ${show(expected)}`);
  }
}

/** Throws with message when cond is falsy. */
export function ok(cond, message) {
  if (!cond) throw new Error(message);
}

/** The tools of the reference server, sorted. */
export const EXPECTED_TOOLS = [
  'addComponentToCapability', 'applyProposal', 'createCapability', 'createCapabilityStructure',
  'createElement', 'createElements', 'createRelationship', 'deleteElement',
  'discardProposal', 'getElementTypes', 'getRelationshipTypes', 'getWriteSchema', 'updateElement',
  'validateWrite',
];

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const RFC3339_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Asserts the shape every tool result shares: content[0] is text holding the
 * same JSON as structuredContent.
 */
export function assertTextMirrorsStructured(result, what) {
  ok(result && typeof result === 'object', `${what}: no result`);
  ok(result.structuredContent && typeof result.structuredContent === 'object', `${what}: no structuredContent in ${show(result)}`);
  ok(Array.isArray(result.content) && result.content.length >= 1 && result.content[0].type === 'text',
    `${what}: content[0] is not text: ${show(result.content)}`);
  let parsed;
  try { parsed = JSON.parse(result.content[0].text); } catch (e) { throw new Error(`${what}: content[0].text is not JSON: ${e.message}`); }
  eq(parsed, result.structuredContent, `${what}: content[0].text vs structuredContent`);
}

/** Asserts an isError result carrying the error envelope with this code (and field, when given). */
export function assertErrorEnvelope(result, code, field, what) {
  eq(result.isError, true, `${what}: isError`);
  assertTextMirrorsStructured(result, what);
  const sc = result.structuredContent;
  eq(sc.success, false, `${what}: success`);
  ok(sc.error && typeof sc.error === 'object', `${what}: no error object in ${show(sc)}`);
  eq(sc.error.code, code, `${what}: error.code`);
  if (field !== undefined) eq(sc.error.field, field, `${what}: error.field`);
  ok(typeof sc.error.message === 'string' && sc.error.message.length > 0, `${what}: empty error.message`);
  ok(Array.isArray(sc.errors) && sc.errors.length >= 1, `${what}: errors[] missing`);
  eq(sc.errors[0].code, code, `${what}: errors[0].code`);
}
