import { expect } from 'chai';
import type { EngineHost } from '#validation/adapters/engine/engine-host.js';
import { engineTerminologyKnowledge } from '#validation/adapters/engine/terminology-knowledge.js';

describe('validation: terminology knowledge for dependency reports', () => {
  const core = { url: 'http://hl7.org/fhir/ValueSet/administrative-gender' };
  const fromIg = { url: 'http://hl7.org/fhir/us/core/ValueSet/simple-language' };
  const index = {
    valueSet: (url: string) => [core, fromIg].find((r) => r.url === url),
    codeSystem: () => undefined,
    originOf: (r: unknown) => ({ package: { name: r === core ? 'hl7.fhir.r4.core' : 'hl7.fhir.us.core', version: 'x' } }),
  };
  const engine = { generation: { index } } as unknown as EngineHost;

  it('counts R4 core value sets and built-in code systems as available without artifacts, IG content not', () => {
    const knowledge = engineTerminologyKnowledge(engine, false);
    expect(knowledge.isBuiltIn('ValueSet', core.url)).to.equal(true);
    expect(knowledge.isBuiltIn('ValueSet', fromIg.url)).to.equal(false);
    expect(knowledge.isBuiltIn('CodeSystem', 'urn:ietf:bcp:47')).to.equal(true);
    expect(knowledge.isBuiltIn('CodeSystem', 'http://loinc.org')).to.equal(false);
    expect(knowledge.isAvailableRemotely).to.equal(undefined);
  });

  it('says remote availability only when a terminology server is configured', () => {
    expect(engineTerminologyKnowledge(engine, true).isAvailableRemotely?.('CodeSystem', 'http://loinc.org')).to.equal(true);
  });

  it('knows nothing from definitions before the engine has started', () => {
    const knowledge = engineTerminologyKnowledge({ generation: undefined } as unknown as EngineHost, false);
    expect(knowledge.isBuiltIn('ValueSet', core.url)).to.equal(false);
  });
});
