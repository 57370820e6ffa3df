import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { sharedDir } from '#test-support/shared-dir.js';
import { FhirPackageError, readFhirPackage } from '#validation/domain/engine/definitions/fhir-package.js';
import { packageEntries, tgz } from './support/tar-writer.js';

const manifest = { name: 'example.fhir.test', version: '1.2.3', fhirVersions: ['4.0.1'], dependencies: { 'hl7.fhir.r4.core': '4.0.1', 'example.missing': '0.1.0' } };
const sd = { resourceType: 'StructureDefinition', id: 'my-patient', url: 'http://example.org/StructureDefinition/my-patient', version: '1.2.3', text: { status: 'generated', div: '<div>big</div>' } };
const vs = { resourceType: 'ValueSet', id: 'my-vs', url: 'http://example.org/ValueSet/my-vs', version: '1.2.3' };
const searchParam = { resourceType: 'SearchParameter', id: 'sp', url: 'http://example.org/SearchParameter/sp' };
const capability = { resourceType: 'CapabilityStatement', id: 'cs' };

describe('FHIR package model', () => {
  it('reads the manifest, keeps canonical resources and counts every resource type', async () => {
    const pkg = await readFhirPackage(tgz(packageEntries(manifest, [sd, vs, searchParam, capability])));
    expect(pkg.name).to.equal('example.fhir.test');
    expect(pkg.version).to.equal('1.2.3');
    expect(pkg.fhirVersion).to.equal('4.0.1');
    expect(pkg.manifest.dependencies).to.deep.equal(manifest.dependencies);
    expect(pkg.resources.map((r) => r.resourceType).sort()).to.deep.equal(['SearchParameter', 'StructureDefinition', 'ValueSet']);
    expect(pkg.resourceCounts).to.deep.equal({ StructureDefinition: 1, ValueSet: 1, SearchParameter: 1, CapabilityStatement: 1 });
    expect(pkg.warnings).to.deep.equal([]);
  });

  it('drops SearchParameter/Measure/Library when asked (still counting them)', async () => {
    const pkg = await readFhirPackage(tgz(packageEntries(manifest, [sd, searchParam])), { includeOptionalTypes: false });
    expect(pkg.resources.map((r) => r.resourceType)).to.deep.equal(['StructureDefinition']);
    expect(pkg.resourceCounts.SearchParameter).to.equal(1);
  });

  it('drops narrative by default and keeps it on request', async () => {
    const stripped = await readFhirPackage(tgz(packageEntries(manifest, [sd])));
    expect(stripped.resources[0]).to.not.have.property('text');
    const kept = await readFhirPackage(tgz(packageEntries(manifest, [sd])), { stripNarrative: false });
    expect(kept.resources[0]).to.have.property('text');
  });

  it('skips example folders by default, non-JSON files, and JSON that is not a resource', async () => {
    const extra = [
      { name: 'package/example/StructureDefinition-ex.json', data: JSON.stringify({ ...sd, id: 'ex', url: 'http://example.org/ex' }) },
      { name: 'package/other/notes.txt', data: 'hello' },
      { name: 'package/openapi/api.json', data: '{"openapi":"3.0.0"}' },
    ];
    const pkg = await readFhirPackage(tgz(packageEntries(manifest, [sd], extra)));
    expect(pkg.resources.map((r) => r.url)).to.deep.equal([sd.url]);
    const withExamples = await readFhirPackage(tgz(packageEntries(manifest, [sd], extra)), { includeExamples: true });
    expect(withExamples.resources.map((r) => r.url).sort()).to.deep.equal(['http://example.org/StructureDefinition/my-patient', 'http://example.org/ex']);
  });

  it('collects a warning for a file that does not parse and keeps loading', async () => {
    const pkg = await readFhirPackage(tgz(packageEntries(manifest, [vs], [{ name: 'package/StructureDefinition-broken.json', data: '{"resourceType": "StructureDefinition", ' }])));
    expect(pkg.resources).to.have.length(1);
    expect(pkg.warnings).to.have.length(1);
    expect(pkg.warnings[0]).to.contain('package/StructureDefinition-broken.json').and.contain('not valid JSON');
  });

  it('reads .index.json when present', async () => {
    const index = { 'index-version': 1, files: [{ filename: 'ValueSet-my-vs.json', resourceType: 'ValueSet', id: 'my-vs', url: vs.url }] };
    const pkg = await readFhirPackage(tgz(packageEntries(manifest, [vs], [{ name: 'package/.index.json', data: JSON.stringify(index) }])));
    expect(pkg.indexFile).to.deep.equal(index.files);
  });

  it('counts files whose .index.json type is not kept without parsing them', async () => {
    const index = { 'index-version': 1, files: [{ filename: 'StructureMap-big.json', resourceType: 'StructureMap', id: 'big' }, { filename: 'ValueSet-my-vs.json', resourceType: 'ValueSet', id: 'my-vs', url: vs.url }] };
    const pkg = await readFhirPackage(tgz(packageEntries(manifest, [vs], [
      { name: 'package/.index.json', data: JSON.stringify(index) },
      // Not even valid JSON: it must not be parsed (no warning) yet be counted.
      { name: 'package/StructureMap-big.json', data: '{"resourceType": "StructureMap", ...' },
    ])));
    expect(pkg.resourceCounts).to.deep.equal({ ValueSet: 1, StructureMap: 1 });
    expect(pkg.warnings).to.deep.equal([]);
    expect(pkg.resources.map((r) => r.resourceType)).to.deep.equal(['ValueSet']);
  });

  it('rejects an archive without package/package.json, or with an unusable one', async () => {
    for (const archive of [tgz([{ name: 'package/ValueSet-x.json', data: JSON.stringify(vs) }]), tgz([{ name: 'package/package.json', data: '{"name": 1}' }]), tgz([{ name: 'package/package.json', data: 'nope' }])]) {
      try {
        await readFhirPackage(archive);
        expect.fail('should have been rejected');
      } catch (err) {
        expect(err).to.be.instanceOf(FhirPackageError);
      }
    }
  });

  it('reads hl7.terminology.r4.tgz under its real name hl7.terminology @slow', async () => {
    const pkg = await readFhirPackage(readFileSync(sharedDir('fhir-packages', 'hl7.terminology.r4.tgz')));
    expect(pkg.name).to.equal('hl7.terminology');
    expect(pkg.version).to.equal('5.3.0');
    expect(pkg.resourceCounts.CodeSystem).to.be.greaterThan(1000);
  });

  it('loads the uv.extensions package although it is R5, and marks it so', async () => {
    const pkg = await readFhirPackage(readFileSync(sharedDir('fhir-packages', 'hl7.fhir.uv.extensions.r4.tgz')));
    expect(pkg.name).to.equal('hl7.fhir.uv.extensions');
    expect(pkg.fhirVersion).to.equal('5.0.0');
    expect(pkg.resources.some((r) => r.url === 'http://hl7.org/fhir/StructureDefinition/patient-birthPlace')).to.equal(true);
  });
});

describe('FHIR package model: members in FHIR XML', () => {
  const xmlMember = { name: 'package/ValueSet-xml-vs.xml', data: '<ValueSet xmlns="http://hl7.org/fhir"><id value="xml-vs"/><url value="http://example.org/ValueSet/xml-vs"/></ValueSet>' };

  it('reads them with the reader it is given, as JSON members are read', async () => {
    const seen: string[] = [];
    const readXml = (text: string) => {
      seen.push(text);
      return { resourceType: 'ValueSet', id: 'xml-vs', url: 'http://example.org/ValueSet/xml-vs' };
    };
    const pkg = await readFhirPackage(tgz(packageEntries(manifest, [sd], [xmlMember])), { readXml });
    expect(seen).to.deep.equal([xmlMember.data]);
    expect(pkg.resources.map((r) => r.url)).to.deep.equal([sd.url, 'http://example.org/ValueSet/xml-vs']);
    expect(pkg.resourceCounts).to.deep.equal({ StructureDefinition: 1, ValueSet: 1 });
    expect(pkg.warnings).to.deep.equal([]);
  });

  it('leaves them out with one warning when no reader is given', async () => {
    const pkg = await readFhirPackage(tgz(packageEntries(manifest, [sd], [xmlMember, { ...xmlMember, name: 'package/other.xml' }])));
    expect(pkg.resources.map((r) => r.url)).to.deep.equal([sd.url]);
    expect(pkg.warnings).to.deep.equal(['2 FHIR XML file(s) not read: no XML reader was given to the package loader']);
  });

  it('names an unreadable XML member in a warning and keeps loading', async () => {
    const readXml = () => {
      throw new Error('not well-formed (line 1, column 3)');
    };
    const pkg = await readFhirPackage(tgz(packageEntries(manifest, [sd], [xmlMember])), { readXml });
    expect(pkg.resources.map((r) => r.url)).to.deep.equal([sd.url]);
    expect(pkg.warnings).to.deep.equal(['package/ValueSet-xml-vs.xml: not readable FHIR XML, skipped (not well-formed (line 1, column 3))']);
  });
});
