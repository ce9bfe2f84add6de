// Drives the reference server with the official TypeScript SDK client over
// stdio and over streamable HTTP. Every write tool and service tool is called
// with valid arguments, then with invalid ones.
//
//   node sdk.mjs <archimate-server binary>
//
// Client.callTool validates structuredContent against the tool's outputSchema
// (cached by listTools) with the SDK's own JSON Schema validator and throws on
// a mismatch; such a throw fails the check it happens in. Invalid arguments
// must come back as isError results carrying the error envelope, never as a
// protocol error.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import {
  Checks, EXPECTED_TOOLS, RFC3339_RE, UUID_RE, assertErrorEnvelope, assertTextMirrorsStructured,
  eq, ok, show, startHttpServer,
} from './lib/harness.mjs';

const server = process.argv[2];
if (!server) {
  console.error('usage: node sdk.mjs <archimate-server binary>');
  process.exit(2);
}
const sdkVersion = JSON.parse(readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url))).version;

/** Connects a client; elicit (optional) answers elicitation requests. */
async function connect(transportKind, url, elicit) {
  const client = new Client({ name: 'mcpwrite-interop', version: '1.0.0' },
    elicit ? { capabilities: { elicitation: {} } } : {});
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  const transport = transportKind === 'stdio'
    ? new StdioClientTransport({ command: server, stderr: 'pipe' })
    : new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  // listTools caches each tool's outputSchema validator used by callTool.
  const { tools } = await client.listTools();
  return { client, tools };
}

/** Calls a tool, labelling a thrown error (protocol error or SDK output-schema rejection). */
async function callTool(client, name, args) {
  try {
    return await client.callTool({ name, arguments: args });
  } catch (err) {
    throw new Error(`${name} ${JSON.stringify(args)} threw instead of returning a result: ${err.message}`);
  }
}

/** A valid call: not isError, text mirrors structuredContent; returns structuredContent. */
async function good(client, name, args) {
  const r = await callTool(client, name, args);
  ok(!r.isError, `${name}: unexpected isError result: ${show(r.structuredContent ?? r.content)}`);
  assertTextMirrorsStructured(r, name);
  return r.structuredContent;
}

/** An invalid call: an isError result with the envelope and this code and field. */
async function bad(client, name, args, code, field) {
  const r = await callTool(client, name, args);
  assertErrorEnvelope(r, code, field, `${name} ${JSON.stringify(args)}`);
  return r.structuredContent;
}

async function scenario(kind, url, checks) {
  const tag = (s) => `${kind} ${s}`;
  const { client, tools } = await connect(kind, url);
  const ids = {};
  try {
    await checks.run(tag('tools/list'), async () => {
      eq(tools.map((t) => t.name).sort(), EXPECTED_TOOLS, 'tool names');
      for (const t of tools) {
        ok(t.outputSchema && t.outputSchema.type === 'object', `${t.name}: no object outputSchema`);
        for (const h of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
          eq(typeof (t.annotations || {})[h], 'boolean', `${t.name} annotations.${h}`);
        }
      }
    });

    // Service tools, valid arguments.
    await checks.run(tag('getElementTypes {}'), async () => {
      const sc = await good(client, 'getElementTypes', {});
      eq(sc.values.length, 14, 'number of element types');
      eq(Object.keys(sc.groups).sort(), ['Application', 'Business', 'Strategy', 'Technology'], 'groups');
      eq(sc.groups.Application, ['ApplicationComponent', 'ApplicationService', 'ApplicationInterface', 'DataObject'], 'groups.Application');
    });
    await checks.run(tag('getElementTypes {group: Technology}'), async () => {
      const sc = await good(client, 'getElementTypes', { group: 'Technology' });
      eq(sc.values.map((v) => v.value), ['Node', 'Device', 'SystemSoftware'], 'values');
      eq(Object.keys(sc.groups), ['Technology'], 'groups');
    });
    await checks.run(tag('getRelationshipTypes {}'), async () => {
      const sc = await good(client, 'getRelationshipTypes', {});
      eq(sc.values.map((v) => v.value), ['Realization', 'Serving', 'Composition', 'Aggregation', 'Assignment', 'Flow', 'Triggering'], 'values');
    });
    for (const op of ['createElement', 'createRelationship', 'updateElement', 'deleteElement', 'createCapability', 'createCapabilityStructure', 'addComponentToCapability', 'createElements']) {
      await checks.run(tag(`getWriteSchema {operation: ${op}}`), async () => {
        const sc = await good(client, 'getWriteSchema', { operation: op });
        eq(sc.operation, op, 'operation');
        const tool = tools.find((t) => t.name === op);
        eq(sc.input_schema, tool.inputSchema, 'input_schema vs tools/list inputSchema');
        const missing = tool.inputSchema.required.filter((f) => !sc.required_fields.includes(f));
        eq(missing, [], 'inputSchema.required entries absent from required_fields');
      });
    }
    await checks.run(tag('validateWrite (valid payload)'), async () => {
      const sc = await good(client, 'validateWrite', { operation: 'createElement', payload: { type: 'DataObject', name: 'Order' } });
      eq(sc.valid, true, 'valid');
      eq(sc.errors, [], 'errors');
      eq([sc.preview.request.type, sc.preview.request.name], ['DataObject', 'Order'], 'preview.request type and name');
      eq(sc.preview.request.layer, 'Application', 'preview.request.layer (derived)');
      eq(sc.preview.request.model_id, 'model-tenant-dev-main', 'preview.request.model_id (resolved)');
      ok(sc.preview.server_filled.includes('layer') && sc.preview.server_filled.includes('id'), `server_filled: ${show(sc.preview.server_filled)}`);
      // The tenant and principal are filled but never shown to the agent.
      eq(sc.preview.request.meta?.tenant_id, undefined, 'preview.request.meta.tenant_id (filled, not shown)');
      ok(sc.preview.server_filled.includes('meta.tenant_id'), `server_filled lists meta.tenant_id: ${show(sc.preview.server_filled)}`);
    });
    await checks.run(tag('validateWrite (invalid payload -> valid:false, not isError)'), async () => {
      const sc = await good(client, 'validateWrite', { operation: 'createElement', payload: { type: 'AppComponent' } });
      eq(sc.valid, false, 'valid');
      eq(sc.errors.map((e) => [e.code, e.field]), [['INVALID_ELEMENT_TYPE', 'type'], ['MISSING_REQUIRED_FIELD', 'name']], 'errors');
      eq(sc.errors[0].suggestions.did_you_mean[0], 'ApplicationComponent', 'did_you_mean[0]');
    });

    // Write tools, valid arguments.
    const key = `sdk-${kind}-${process.pid}-${Date.now()}`;
    const argsA = { type: 'ApplicationComponent', name: 'OrderService', description: 'Handles orders', client_request_id: key };
    let first;
    await checks.run(tag('createElement'), async () => {
      first = await good(client, 'createElement', argsA);
      ids.a = first.element?.id;
      eq(first.success, true, 'success');
      ok(UUID_RE.test(first.element.id), `element.id: ${show(first.element.id)}`);
      eq(first.element, {
        id: ids.a, model_id: 'model-tenant-dev-main', type: 'ApplicationComponent', layer: 'Application',
        name: 'OrderService', description: 'Handles orders', version: 1,
      }, 'element');
      eq(first.warnings, [], 'warnings');
    });
    await checks.run(tag('createElement replay (same client_request_id)'), async () => {
      ok(first, 'first call failed');
      const sc = await good(client, 'createElement', argsA);
      eq(sc.idempotent_replay, true, 'idempotent_replay');
      ok(RFC3339_RE.test(sc.original_request_time || ''), `original_request_time: ${show(sc.original_request_time)}`);
      eq(sc.element, first.element, 'replayed element');
    });
    await checks.run(tag('createElement dry_run'), async () => {
      const sc = await good(client, 'createElement', { type: 'Node', name: 'DryRun', dry_run: true });
      ok(sc.success === true || sc.valid === true, `neither success nor valid: ${show(sc)}`);
    });
    await checks.run(tag('createElement (second element)'), async () => {
      const sc = await good(client, 'createElement', { type: 'ApplicationService', name: 'OrderAPI', description: 'Order API' });
      ids.b = sc.element?.id;
      eq([sc.element.type, sc.element.layer], ['ApplicationService', 'Application'], 'element type and layer');
    });
    await checks.run(tag('createRelationship'), async () => {
      const sc = await good(client, 'createRelationship', { type: 'Serving', source_id: ids.b, target_id: ids.a, description: 'API serves component' });
      ids.rel = sc.relationship?.id;
      eq(sc.success, true, 'success');
      eq([sc.relationship.type, sc.relationship.source_id, sc.relationship.target_id], ['Serving', ids.b, ids.a], 'relationship');
    });
    await checks.run(tag('updateElement'), async () => {
      const sc = await good(client, 'updateElement', { id: ids.a, name: 'OrderManager', properties: { team: 'orders' } });
      eq([sc.previous_version, sc.new_version, sc.element.version], [1, 2, 2], 'versions');
      eq(sc.element.name, 'OrderManager', 'element.name');
      eq(sc.element.properties, { team: 'orders' }, 'element.properties');
    });
    await checks.run(tag('createCapability'), async () => {
      const sc = await good(client, 'createCapability', { name: 'Fulfillment', description: 'Ship orders', profile: { owner: 'Supply Chain', criticality: 'High', lifecycle: 'Active' } });
      eq(sc.success, true, 'success');
      eq(sc.capability.name, 'Fulfillment', 'capability.name');
      eq(sc.capability.profile, { owner: 'Supply Chain', criticality: 'High', lifecycle: 'Active' }, 'capability.profile');
    });
    await checks.run(tag('createCapabilityStructure'), async () => {
      const sc = await good(client, 'createCapabilityStructure', { name: 'Logistics', value_streams: ['Order to Cash'], sub_capabilities: ['Picking'] });
      eq(sc.capability.name, 'Logistics', 'capability.name');
      eq(sc.created_elements.map((e) => e.type), ['ValueStream', 'Capability'], 'created element types');
      eq(sc.created_relationships.map((r) => r.type), ['Realization', 'Composition'], 'created relationship types');
      ids.cap = sc.capability.id;
    });
    await checks.run(tag('addComponentToCapability'), async () => {
      const sc = await good(client, 'addComponentToCapability', { capability_id: ids.cap, component_name: 'WarehouseService', services: ['Stock API'] });
      eq([sc.component.type, sc.component.layer], ['ApplicationComponent', 'Application'], 'component');
      eq(sc.created_relationships.length, 2, 'relationships');
    });

    // A destructive write from a client without elicitation becomes a proposal.
    let prop;
    await checks.run(tag('deleteElement -> proposal'), async () => {
      const sc = await good(client, 'deleteElement', { id: ids.b });
      prop = sc.proposal?.proposal_id;
      eq(sc.success, true, 'success');
      ok(sc.proposal && /^prop_/.test(sc.proposal.proposal_id), `proposal: ${show(sc.proposal)}`);
      eq([sc.proposal.tool, sc.proposal.classification, sc.proposal.apply_with], ['deleteElement', 'DESTRUCTIVE_DELETE', 'applyProposal'], 'proposal');
      ok(RFC3339_RE.test(sc.proposal.expires_at), `expires_at: ${show(sc.proposal.expires_at)}`);
    });
    await checks.run(tag('applyProposal'), async () => {
      const sc = await good(client, 'applyProposal', { proposal_id: prop });
      eq(sc.success, true, 'success');
      eq(sc.id, ids.b, 'deleted id');
      eq(sc.deleted_relationships, [ids.rel], 'deleted_relationships (cascade)');
    });
    await checks.run(tag('applyProposal twice -> replay, applied once'), async () => {
      const sc = await good(client, 'applyProposal', { proposal_id: prop });
      eq([sc.success, sc.id, sc.idempotent_replay], [true, ids.b, true], 'success, id, idempotent_replay');
      eq(sc.deleted_relationships, [ids.rel], 'deleted_relationships (the original result)');
    });
    let prop2;
    await checks.run(tag('deleteElement -> proposal (to discard)'), async () => {
      const sc = await good(client, 'deleteElement', { id: ids.a });
      prop2 = sc.proposal?.proposal_id;
      ok(/^prop_/.test(prop2), `proposal: ${show(sc.proposal)}`);
    });
    await checks.run(tag('discardProposal'), async () => {
      const sc = await good(client, 'discardProposal', { proposal_id: prop2 });
      eq(sc, { success: true, proposal_id: prop2, discarded: true }, 'result');
    });
    await checks.run(tag('applyProposal after discard -> PROPOSAL_NOT_FOUND'), async () => {
      await bad(client, 'applyProposal', { proposal_id: prop2 }, 'PROPOSAL_NOT_FOUND', 'proposal_id');
    });
    await checks.run(tag('updateElement after discard (element still there)'), async () => {
      const sc = await good(client, 'updateElement', { id: ids.a, description: 'Still here' });
      eq(sc.new_version, 3, 'new_version');
    });

    // Invalid arguments: every one an isError result, never a protocol error.
    const invalid = [
      ['createElement', { type: 'AppComponent', name: 'X' }, 'INVALID_ELEMENT_TYPE', 'type', 'ApplicationComponent'],
      ['createElement', { type: 'ApplicationComponent' }, 'MISSING_REQUIRED_FIELD', 'name'],
      ['createElement', { type: 'ApplicationComponent', name: 'X', parentId: 'p' }, 'UNKNOWN_FIELD', 'parentId', 'parent_id'],
      ['createElement', { type: 'ApplicationComponent', name: 42 }, 'INVALID_TYPE', 'name'],
      ['createElement', { type: 'ApplicationComponent', name: '' }, 'CONSTRAINT_VIOLATION', 'name'],
      ['createElement', { ...argsA, name: 'Different' }, 'IDEMPOTENCY_KEY_REUSED', 'client_request_id'],
      ['createRelationship', { type: 'Serves', source_id: ids.b, target_id: ids.a }, 'INVALID_RELATIONSHIP_TYPE', 'type'],
      ['updateElement', { name: 'NoId' }, 'MISSING_REQUIRED_FIELD', 'id'],
      ['deleteElement', {}, 'MISSING_REQUIRED_FIELD', 'id'],
      ['createCapability', { name: 'C', profile: { owner: 'o', criticality: 'Severe', lifecycle: 'Active' } }, 'INVALID_ENUM_VALUE', 'profile.criticality'],
      ['createCapability', { name: 'C' }, 'MISSING_REQUIRED_FIELD', 'profile'],
      ['applyProposal', { proposal_id: 'prop_DOESNOTEXIST' }, 'PROPOSAL_NOT_FOUND', 'proposal_id'],
      ['discardProposal', { proposal_id: 'prop_DOESNOTEXIST' }, 'PROPOSAL_NOT_FOUND', 'proposal_id'],
      ['validateWrite', {}, 'MISSING_REQUIRED_FIELD', 'operation'],
      ['getWriteSchema', { operation: 'createElemnt' }, undefined, 'operation', 'createElement'],
      ['getElementTypes', { group: 'Applications' }, 'INVALID_ENUM_VALUE', 'group', 'Application'],
      ['getRelationshipTypes', { layer: 'x' }, 'UNKNOWN_FIELD', 'layer'],
    ];
    for (const [name, args, code, field, didYouMean] of invalid) {
      await checks.run(tag(`${name} ${JSON.stringify(args)} -> isError ${code ?? ''}`.trimEnd()), async () => {
        const r = await callTool(client, name, args);
        if (code === undefined) {
          // The code is the server's to choose; the envelope and the field are not.
          eq(r.isError, true, 'isError');
          assertTextMirrorsStructured(r, name);
          eq([r.structuredContent.success, r.structuredContent.error?.field], [false, field], 'success, error.field');
        } else {
          assertErrorEnvelope(r, code, field, name);
        }
        if (didYouMean !== undefined) {
          eq(r.structuredContent.error.suggestions?.did_you_mean?.[0], didYouMean, 'error.suggestions.did_you_mean[0]');
        }
      });
    }
  } finally {
    await client.close();
  }

  // A client with elicitation gets asked instead of receiving a proposal.
  for (const action of ['accept', 'decline']) {
    await checks.run(tag(`deleteElement with elicitation (${action})`), async () => {
      const asked = [];
      const { client: c } = await connect(kind, url, async (req) => {
        asked.push(req.params);
        return action === 'accept' ? { action, content: { confirm: true } } : { action };
      });
      try {
        const created = await good(c, 'createElement', { type: 'Device', name: `Box-${action}`, description: 'x' });
        const id = created.element.id;
        const r = await callTool(c, 'deleteElement', { id });
        eq(asked.length, 1, 'elicitation requests');
        ok(asked[0].message.includes(id), `elicitation message does not name the element: ${show(asked[0].message)}`);
        eq(asked[0].requestedSchema.required, ['confirm'], 'requestedSchema.required');
        if (action === 'accept') {
          ok(!r.isError, `isError: ${show(r.structuredContent)}`);
          assertTextMirrorsStructured(r, 'deleteElement');
          eq([r.structuredContent.success, r.structuredContent.id, r.structuredContent.proposal], [true, id, undefined], 'success, id, proposal');
          await bad(c, 'updateElement', { id, name: 'Gone' }, 'ELEMENT_NOT_FOUND', 'id');
        } else {
          assertErrorEnvelope(r, 'CONFIRMATION_DECLINED', undefined, 'deleteElement declined');
          const sc = await good(c, 'updateElement', { id, name: 'Kept' });
          eq(sc.new_version, 2, 'element kept after decline');
        }
      } finally {
        await c.close();
      }
    });
  }
}

let code = 0;
for (const kind of ['stdio', 'http']) {
  const checks = new Checks(`sdk ${kind}`);
  let http;
  try {
    if (kind === 'http') http = await startHttpServer(server);
    await scenario(kind, http?.url, checks);
  } catch (err) {
    checks.failures.push(`session: ${err.message}`);
    console.log(`  FAIL ${kind} session: ${err.message}`);
  } finally {
    if (http) await http.stop();
  }
  code |= checks.summary(`@modelcontextprotocol/sdk ${sdkVersion}, output schemas validated by the SDK`);
}
process.exit(code);
