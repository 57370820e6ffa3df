/** The CLI's core SearchParameters: read on the first SearchParameter lookup only, answering as an eager layer. */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LazyCoreSearchParameters, coreSearchParametersFile, readSearchParameters } from '#validation/cli/core-search-parameters.js';
import type { CanonicalResource, ConformanceResourceSource } from '#validation/domain/ports/conformance-resources.js';
import { LayeredConformanceSource } from '#validation/domain/engine/layered-source.js';

const sd = { resourceType: 'StructureDefinition', url: 'http://example.org/sd', snapshot: { element: [{ id: 'Patient', path: 'Patient' }] } } as CanonicalResource;
const questionnaire = { resourceType: 'Questionnaire', url: 'http://example.org/q' } as CanonicalResource;
const base: ConformanceResourceSource & { resolve(type: string, url: string): CanonicalResource | undefined } = {
  structureDefinition: (url) => (url === sd.url ? sd : undefined),
  valueSet: () => undefined,
  codeSystem: () => undefined,
  all: (type) => (type === 'StructureDefinition' ? [sd] : []),
  resolve: (type, url) => (type === 'Questionnaire' && url === questionnaire.url ? questionnaire : undefined),
};

describe('CLI: core SearchParameters, read when first needed', () => {
  let dir: string;
  before(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'core-sp-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the file on the first SearchParameter lookup only, and answers as the eager layer does', () => {
    const params = [
      { resourceType: 'SearchParameter', url: 'http://hl7.org/fhir/SearchParameter/Patient-name', code: 'name' },
      { resourceType: 'SearchParameter', url: 'http://hl7.org/fhir/SearchParameter/Patient-gender', code: 'gender' },
    ];
    const file = path.join(dir, 'search-parameters.json');
    writeFileSync(file, JSON.stringify({ resourceType: 'Bundle', entry: params.map((resource) => ({ resource })) }));
    const lazy = new LazyCoreSearchParameters(file, base);
    const eager = new LayeredConformanceSource(readSearchParameters(file), base);

    expect(lazy.structureDefinition(sd.url!)).to.deep.equal(eager.structureDefinition(sd.url!));
    expect([...lazy.all('StructureDefinition')]).to.deep.equal([...eager.all('StructureDefinition')]);
    expect(lazy.resolve('Questionnaire', questionnaire.url!)).to.equal(eager.resolve('Questionnaire', questionnaire.url!));
    expect(lazy.loaded, 'nothing asked for a SearchParameter yet').to.equal(false);

    for (const url of [params[0]!.url, `${params[1]!.url}|4.0.1`, 'http://example.org/none']) {
      expect(lazy.resolve('SearchParameter', url), url).to.deep.equal(eager.resolve('SearchParameter', url));
    }
    expect(lazy.loaded).to.equal(true);
    expect(lazy.resolve('SearchParameter', params[0]!.url)).to.include({ code: 'name' });
  });

  it('a missing or unreadable file: no SearchParameters, no failure', async () => {
    expect(readSearchParameters(path.join(dir, 'missing.json'))).to.deep.equal([]);
    expect(readSearchParameters(undefined)).to.deep.equal([]);
    expect(new LazyCoreSearchParameters(undefined, base).resolve('SearchParameter', 'http://x')).to.equal(undefined);
    expect(readSearchParameters(await coreSearchParametersFile()).length, 'the R4 core file').to.be.greaterThan(1000);
  });
});
