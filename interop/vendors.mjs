// Measures what two agent vendors' client libraries keep of every tool the
// five example servers list, with the libraries themselves rather than
// remembered rules:
//   - OpenAI: @openai/agents-core's mcpToFunctionTool with strict schemas on,
//     the conversion the Agents SDK applies to MCP tools (a tool it cannot
//     convert falls back to non-strict: counted as lost);
//   - Gemini: @google/genai's mcpToTool, which builds the function
//     declarations the Gemini API receives (a declaration whose
//     parametersJsonSchema differs from the MCP inputSchema has lost
//     something: reported with what).
//
//   node vendors.mjs <dir holding {archimate,crm,neotoma,purchasing,tasks}-server>
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mcpToFunctionTool } from '@openai/agents-core';
import { mcpToTool } from '@google/genai';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Checks, eq } from './lib/harness.mjs';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node vendors.mjs <directory of example server binaries>');
  process.exit(2);
}
const version = (pkg) => JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url))).version;
const SERVERS = {
  archimate: [], crm: [], neotoma: [], purchasing: [],
  tasks: ['-root', path.join(tmpdir(), 'mcpwrite-interop-tasks')],
};

const checks = new Checks('vendors');
let total = 0;
let openaiStrict = 0;
let geminiKept = 0;
const fakeServer = { name: 'mcpwrite', cacheToolsList: false, callTool: async () => ({ content: [] }) };
// The Agents SDK warns on stderr for each tool it cannot convert; the
// counts below are the measurement.
for (const [name, args] of Object.entries(SERVERS)) {
  const client = new Client({ name: 'mcpwrite-vendors', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: path.join(dir, `${name}-server`), args, stderr: 'pipe' }));
  try {
    const { tools } = await client.listTools();
    total += tools.length;
    await checks.run(`${name}: OpenAI Agents SDK keeps every tool strict`, async () => {
      const fallbacks = [];
      for (const t of tools) {
        const ft = await mcpToFunctionTool(t, fakeServer, true);
        if (ft.strict) openaiStrict++; else fallbacks.push(t.name);
      }
      eq(fallbacks, [], 'tools converted to non-strict');
    });
    await checks.run(`${name}: Gemini function declarations keep every input schema`, async () => {
      const decl = (await mcpToTool(client).tool()).functionDeclarations;
      eq(decl.map((d) => d.name), tools.map((t) => t.name), 'declared functions');
      const changed = [];
      for (const [i, t] of tools.entries()) {
        if (isDeepStrictEqual(decl[i].parametersJsonSchema, t.inputSchema)) geminiKept++; else changed.push(t.name);
      }
      eq(changed, [], 'tools whose declared parameters differ from the MCP input schema');
    });
  } finally {
    await client.close();
  }
}
console.log(`  OpenAI strict: ${openaiStrict}/${total} tools; Gemini declarations unchanged: ${geminiKept}/${total}`);
process.exit(checks.summary(`@openai/agents-core ${version('@openai/agents-core')} strict ${openaiStrict}/${total}, @google/genai ${version('@google/genai')} kept ${geminiKept}/${total}`));
