// Compiles every tool schema of a list under Ajv's JSON Schema 2020-12
// validator in strict mode (strict: true: strictRequired, strictTypes,
// strictTuples, unknown keywords and formats refused), with the formats of
// ajv-formats, as hosts that compile tool schemas strictly do. The list is a
// JSON file of [{"name", "kind", "schema"}]; the script prints one line per
// schema refused and exits 1 when any was.
//
//   node lib/ajv_strict.mjs tools.json
import fs from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const list = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
let refused = 0;
for (const { name, kind, schema } of list) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  try {
    ajv.compile(schema);
  } catch (e) {
    refused++;
    console.log(`${name} ${kind}: ${e.message}`);
  }
}
console.log(`${list.length} schemas compiled, ${refused} refused`);
process.exit(refused > 0 ? 1 : 0);
