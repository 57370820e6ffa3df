/**
 * What the engine relies on from the terminology port, checked against every implementation: the
 * local terminology (held CodeSystems and ValueSets), the remote one with nothing held locally, so
 * every answer comes from the server — $validate-code over HTTP to a small real FHIR terminology
 * server started here, and the terminology commands over NATS to a stand-in responder
 * (terminology.contract.int.spec.ts) —
 * and the table-backed fake of the unit tests. The same questions get the
 * same verdicts: a code in the value set, one not in it (worded as the binding's failure when a
 * strength is given, left to the caller without one), a CodeableConcept with one coding in the set,
 * a value set or code system nobody holds ("cannot check", never "invalid"), a code unknown to its
 * system, and a wrong display (valid, with a warning giving the right one).
 * The suite: support/terminology-contract.ts. Implementation-specific behaviour (what is asked remotely, caching, outages) stays in each one's spec.
 */
import { silentLogger } from '#adapters/observability/logger.js';
import { createTerminology } from '#validation/adapters/terminology/index.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import { FakeTerminology } from './support/fake-terminology.js';
import { BP_VALUE_SET, LOINC, loincStandIn, serverResources } from './support/remote-fixtures.js';
import { terminologyContract } from './support/terminology-contract.js';
import { TestTerminologyServer } from './support/test-terminology-server.js';
import { InMemoryConformanceSource } from './support/terminology-sources.js';

terminologyContract('local (held CodeSystems and ValueSets)', () => ({
  open: async () => new LocalTerminology(new InMemoryConformanceSource(serverResources)),
  close: async () => undefined,
  source: 'local',
}));

terminologyContract('remote ($validate-code over HTTP, nothing held locally)', () => {
  const server = new TestTerminologyServer(serverResources, '/fhir');
  return {
    async open() {
      const origin = await server.start();
      return createTerminology({
        source: new InMemoryConformanceSource([]), settings: { fhirTerminologyServiceUrl: `${origin}/fhir`, retries: 0 }, logger: silentLogger(), nearCache: false,
      }).terminology;
    },
    close: () => server.close(),
    source: 'remote',
  };
});

terminologyContract('fake of the unit tests', () => ({
  open: async () => new FakeTerminology({
    valueSets: { [BP_VALUE_SET]: [{ system: LOINC, code: '8480-6', display: 'Systolic blood pressure' }, { system: LOINC, code: '8462-4', display: 'Diastolic blood pressure' }] },
    codeSystems: { [LOINC]: flatConcepts(loincStandIn.concept as Concept[]) },
  }),
  close: async () => undefined,
  source: 'local',
}));

type Concept = { code: string; display?: string; concept?: Concept[] };
function flatConcepts(concepts: Concept[]): Array<{ code: string; display?: string }> {
  return concepts.flatMap((c) => [{ code: c.code, ...(c.display ? { display: c.display } : {}) }, ...flatConcepts(c.concept ?? [])]);
}
