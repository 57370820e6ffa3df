import { readFileSync } from 'node:fs';
import { loadDefinitions } from '#validation/adapters/fhir-definitions/definition-cache.js';
import { PlanRegistry } from '#validation/domain/engine/plan/plan-registry.js';
import { parseLocatedXml } from '#validation/domain/engine/xml/located-xml.js';
const loaded = await loadDefinitions({ packages: [] });
const plans = new PlanRegistry(loaded.index);
const r = parseLocatedXml(readFileSync(process.argv[2], 'utf8'), plans);
console.log(JSON.stringify(r.value, null, 1));
for (const i of r.issues) console.log(JSON.stringify(i));
