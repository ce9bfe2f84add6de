// UNSUPPORTED are the keywords strict mode does not support
// (internal/gen.strictUnsupported).
const UNSUPPORTED = [
  '$anchor', '$dynamicAnchor', '$dynamicRef', '$recursiveAnchor', '$recursiveRef',
  'allOf', 'contains', 'contentEncoding', 'contentMediaType', 'contentSchema',
  'dependentRequired', 'dependentSchemas', 'dependencies', 'else', 'if', 'maxContains',
  'maxProperties', 'minContains', 'minProperties', 'not', 'oneOf', 'patternProperties',
  'prefixItems', 'propertyNames', 'then', 'unevaluatedItems', 'unevaluatedProperties', 'uniqueItems',
];

// toStrict converts a tool input schema to OpenAI strict mode the way agent
// SDKs do before sending tools to the model, and throws where they give up
// and fall back to a non-strict tool: a boolean or typeless schema, an open
// object, a map (additionalProperties with a schema), a keyword strict mode
// does not support. It mirrors internal/gen.ToOpenAIStrict, so the Go tests
// and this driver agree.
export function toStrict(schema, at = 'the input', nullable = false) {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new Error(`${at}: cannot convert a boolean schema to strict mode`);
  }
  for (const k of UNSUPPORTED) {
    if (k in schema) throw new Error(`${at}: keyword ${k} is not supported in strict mode`);
  }
  const c = { ...schema };
  if (Array.isArray(schema.anyOf)) {
    c.anyOf = schema.anyOf.map((b, i) => toStrict(b, `${at}|${i}`));
    if (nullable) c.anyOf.push({ type: 'null' });
    return c;
  }
  if (typeof schema.type !== 'string') {
    throw new Error(`${at}: cannot convert an open JSON schema (no single type) to strict mode`);
  }
  if (schema.type === 'object') {
    const ap = schema.additionalProperties;
    if (ap === undefined || ap === true) throw new Error(`${at}: cannot convert an open JSON schema object to strict mode`);
    if (ap !== false) throw new Error(`${at}: cannot convert a map (additionalProperties with a schema) to strict mode`);
    const req = new Set(schema.required || []);
    const props = schema.properties || {};
    c.properties = {};
    for (const k of Object.keys(props).sort()) c.properties[k] = toStrict(props[k], k, !req.has(k));
    c.required = Object.keys(props).sort();
  } else if (schema.type === 'array' && schema.items !== undefined) {
    c.items = toStrict(schema.items, `${at}[]`);
  }
  if (nullable) {
    c.type = [schema.type, 'null'];
    if (Array.isArray(c.enum)) c.enum = [...c.enum, null];
  }
  return c;
}
