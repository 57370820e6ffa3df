import { expect } from 'chai';
import type { CanonicalResource } from '#validation/domain/ports/conformance-resources.js';
import { compareVersions, DefinitionIndex } from '#validation/domain/engine/definitions/definition-index.js';
import type { FhirPackage } from '#validation/domain/engine/definitions/fhir-package.js';
import { readFhirPackage } from '#validation/domain/engine/definitions/fhir-package.js';
import { packageEntries, tgz } from './support/tar-writer.js';
import { sharedDefinitions } from './support/shared-definitions.js';

const PROFILE_URL = 'http://example.org/StructureDefinition/facility-patient';

function profile(version: string, extra: Record<string, unknown> = {}): CanonicalResource {
  return {
    resourceType: 'StructureDefinition',
    id: 'facility-patient',
    url: PROFILE_URL,
    version,
    kind: 'resource',
    type: 'Patient',
    derivation: 'constraint',
    baseDefinition: 'http://hl7.org/fhir/StructureDefinition/Patient',
    ...extra,
  };
}

function pkg(name: string, version: string, resources: CanonicalResource[], dependencies: Record<string, string> = {}, fhirVersion = '4.0.1'): FhirPackage {
  return {
    name,
    version,
    fhirVersion,
    manifest: { name, version, fhirVersions: [fhirVersion], dependencies },
    resources,
    resourceCounts: {},
    warnings: [],
  };
}

const fakeCore = pkg('hl7.fhir.r4.core', '4.0.1', [
  { resourceType: 'StructureDefinition', id: 'Patient', url: 'http://hl7.org/fhir/StructureDefinition/Patient', version: '4.0.1', kind: 'resource', type: 'Patient', derivation: 'specialization' },
  { resourceType: 'StructureDefinition', id: 'vitalsigns', url: 'http://hl7.org/fhir/StructureDefinition/vitalsigns', version: '4.0.1', kind: 'resource', type: 'Observation', derivation: 'constraint' },
  { resourceType: 'ValueSet', id: 'administrative-gender', url: 'http://hl7.org/fhir/ValueSet/administrative-gender', version: '4.0.1' },
  { resourceType: 'CodeSystem', id: 'administrative-gender', url: 'http://hl7.org/fhir/administrative-gender', version: '4.0.1' },
]);

describe('definition index', () => {
  describe('lookups', () => {
    const index = DefinitionIndex.build({ packages: [fakeCore, pkg('example.ig', '1.0.0', [profile('1.0.0')])] });

    it('finds resources by canonical URL and by url|version', () => {
      expect(index.structureDefinition(PROFILE_URL)?.version).to.equal('1.0.0');
      expect(index.structureDefinition(`${PROFILE_URL}|1.0.0`)?.version).to.equal('1.0.0');
      expect(index.structureDefinition(`${PROFILE_URL}|9.9.9`)).to.equal(undefined);
      expect(index.valueSet('http://hl7.org/fhir/ValueSet/administrative-gender')?.id).to.equal('administrative-gender');
      expect(index.codeSystem('http://hl7.org/fhir/administrative-gender|4.0.1')?.id).to.equal('administrative-gender');
      expect(index.valueSet('http://hl7.org/fhir/administrative-gender')).to.equal(undefined);
    });

    it('matches a partial version (major.minor) to the highest patch', () => {
      const two = DefinitionIndex.build({ packages: [pkg('a', '1.0.0', [profile('3.1.0')]), pkg('b', '1.0.0', [profile('3.1.1')]), pkg('c', '1.0.0', [profile('3.2.0')])] });
      expect(two.structureDefinition(`${PROFILE_URL}|3.1`)?.version).to.equal('3.1.1');
    });

    it('finds core StructureDefinitions by type name, not profiles on the type', () => {
      expect(index.structureDefinitionForType('Patient')?.url).to.equal('http://hl7.org/fhir/StructureDefinition/Patient');
      expect(index.structureDefinitionForType('Observation')).to.equal(undefined);
    });

    it('lists all resources of a type, each URL once', () => {
      expect([...index.all('StructureDefinition')].map((r) => r.url).sort()).to.deep.equal([
        'http://example.org/StructureDefinition/facility-patient',
        'http://hl7.org/fhir/StructureDefinition/Patient',
        'http://hl7.org/fhir/StructureDefinition/vitalsigns',
      ]);
    });

    it('tells which package a resource came from', () => {
      const sd = index.structureDefinition(PROFILE_URL)!;
      expect(index.originOf(sd)).to.deep.equal({ package: { name: 'example.ig', version: '1.0.0' }, fhirVersion: '4.0.1' });
    });
  });

  describe('versions side by side', () => {
    const v1 = pkg('example.ig', '1.0.0', [profile('1.0.0', { title: 'v1' })]);
    const v2 = pkg('example.ig', '2.0.0', [profile('2.0.0', { title: 'v2' })]);
    const index = DefinitionIndex.build({ packages: [fakeCore, v2, v1] });

    it('returns the highest version without a version, and either one with a version', () => {
      expect(index.structureDefinition(PROFILE_URL)?.title).to.equal('v2');
      expect(index.structureDefinition(`${PROFILE_URL}|1.0.0`)?.title).to.equal('v1');
      expect(index.versionsOf('StructureDefinition', PROFILE_URL).map((r) => r.version)).to.deep.equal(['2.0.0', '1.0.0']);
    });

    it('a scope pinned to a package version sees only that version, without touching the index', () => {
      const facilityA = index.scoped([{ name: 'example.ig', version: '1.0.0' }]);
      const facilityB = index.scoped([{ name: 'example.ig', version: '2.0.0' }]);
      expect(facilityA.structureDefinition(PROFILE_URL)?.title).to.equal('v1');
      expect(facilityA.structureDefinition(`${PROFILE_URL}|2.0.0`)).to.equal(undefined);
      expect(facilityB.structureDefinition(PROFILE_URL)?.title).to.equal('v2');
      expect(index.structureDefinition(PROFILE_URL)?.title).to.equal('v2');
      expect(facilityA.packages().map((p) => `${p.name}#${p.version}`)).to.deep.equal(['hl7.fhir.r4.core#4.0.1', 'example.ig#1.0.0']);
      // Core stays visible in every scope.
      expect(facilityA.structureDefinitionForType('Patient')).to.not.equal(undefined);
    });

    it('breaks a tie between equal resource versions deterministically (higher package version first)', () => {
      const same1 = pkg('example.ig', '1.0.0', [profile('5.0.0', { title: 'from 1.0.0' })]);
      const same2 = pkg('example.ig', '1.1.0', [profile('5.0.0', { title: 'from 1.1.0' })]);
      expect(DefinitionIndex.build({ packages: [same1, same2] }).structureDefinition(PROFILE_URL)?.title).to.equal('from 1.1.0');
      expect(DefinitionIndex.build({ packages: [same2, same1] }).structureDefinition(PROFILE_URL)?.title).to.equal('from 1.1.0');
    });

    it('an exclusive scope hides every package that is neither pinned nor core', () => {
      const other = pkg('other.ig', '1.0.0', [{ resourceType: 'ValueSet', url: 'http://example.org/ValueSet/other', version: '1' }]);
      const all = DefinitionIndex.build({ packages: [fakeCore, v1, other] });
      expect(all.valueSet('http://example.org/ValueSet/other')).to.not.equal(undefined);
      const exclusive = all.scoped([{ name: 'example.ig', version: '1.0.0' }], [], { exclusive: true });
      expect(exclusive.valueSet('http://example.org/ValueSet/other')).to.equal(undefined);
      expect(exclusive.structureDefinition(PROFILE_URL)?.title).to.equal('v1');
      expect(exclusive.valueSet('http://hl7.org/fhir/ValueSet/administrative-gender')).to.not.equal(undefined);
    });

    it('a scope warns about a pinned package that is not loaded', () => {
      const scoped = index.scoped([{ name: 'example.ig', version: '3.0.0' }]);
      expect(scoped.warnings.some((w) => w.code === 'scope-package-not-loaded' && w.package === 'example.ig#3.0.0')).to.equal(true);
    });

    it("a scope's own resources win over packaged ones", () => {
      const local = profile('0.0.1', { title: 'facility copy' });
      const scoped = index.scoped([], [local]);
      expect(scoped.structureDefinition(PROFILE_URL)?.title).to.equal('facility copy');
      expect(scoped.structureDefinition(`${PROFILE_URL}|2.0.0`)?.title).to.equal('v2');
    });

    it('works with packages read from hand-built archives', async () => {
      const a = await readFhirPackage(tgz(packageEntries({ name: 'example.ig', version: '1.0.0', fhirVersions: ['4.0.1'] }, [profile('1.0.0', { title: 'tgz v1' })])));
      const b = await readFhirPackage(tgz(packageEntries({ name: 'example.ig', version: '1.1.0', fhirVersions: ['4.0.1'] }, [profile('1.1.0', { title: 'tgz v1.1' })])));
      const built = DefinitionIndex.build({ packages: [a, b] });
      expect(built.structureDefinition(PROFILE_URL)?.title).to.equal('tgz v1.1');
      expect(built.scoped([{ name: 'example.ig', version: '1.0.0' }]).structureDefinition(PROFILE_URL)?.title).to.equal('tgz v1');
    });
  });

  describe('preference between packages of different FHIR versions', () => {
    it('prefers the R4 copy of a canonical over the R5 package copy with a higher version', () => {
      const ext = (version: string, title: string): CanonicalResource => ({ resourceType: 'StructureDefinition', url: 'http://hl7.org/fhir/StructureDefinition/patient-birthPlace', version, title });
      const index = DefinitionIndex.build({ packages: [pkg('hl7.fhir.r4.core', '4.0.1', [ext('4.0.1', 'r4')]), pkg('hl7.fhir.uv.extensions', '1.0.0', [ext('5.1.0', 'r5')], {}, '5.0.0')] });
      expect(index.structureDefinition('http://hl7.org/fhir/StructureDefinition/patient-birthPlace')?.title).to.equal('r4');
      expect(index.structureDefinition('http://hl7.org/fhir/StructureDefinition/patient-birthPlace|5.1.0')?.title).to.equal('r5');
    });
  });

  describe('dependencies', () => {
    it('lists present and missing dependencies and warns about the missing ones', () => {
      const index = DefinitionIndex.build({
        packages: [fakeCore, pkg('hl7.terminology', '5.3.0', []), pkg('example.ig', '1.0.0', [profile('1.0.0')], { 'hl7.fhir.r4.core': '4.0.1', 'hl7.terminology.r4': '5.0.0', 'us.nlm.vsac': '0.4.0' })],
      });
      const details = index.packageDetails('example.ig')!;
      expect(details.dependencies).to.deep.equal([
        { name: 'hl7.fhir.r4.core', version: '4.0.1', present: true, loadedVersion: '4.0.1', exactVersion: true },
        { name: 'hl7.terminology.r4', version: '5.0.0', present: true, loadedVersion: '5.3.0', exactVersion: false },
        { name: 'us.nlm.vsac', version: '0.4.0', present: false, loadedVersion: undefined, exactVersion: false },
      ]);
      const missing = index.warnings.filter((w) => w.code === 'missing-dependency');
      expect(missing).to.have.length(1);
      expect(missing[0]?.message).to.contain('us.nlm.vsac#0.4.0');
      // Loading went on: the package's content is there.
      expect(index.structureDefinition(PROFILE_URL)).to.not.equal(undefined);
    });

    it('ignores a package given twice, with a warning', () => {
      const index = DefinitionIndex.build({ packages: [pkg('a', '1.0.0', [profile('1.0.0')]), pkg('a', '1.0.0', [profile('1.0.0')])] });
      expect(index.packages()).to.have.length(1);
      expect(index.warnings.map((w) => w.code)).to.include('duplicate-package');
    });
  });

  describe('state round trip', () => {
    it('rebuilds identical lookups from its plain state', () => {
      const index = DefinitionIndex.build({ packages: [fakeCore, pkg('example.ig', '1.0.0', [profile('1.0.0')]), pkg('example.ig', '2.0.0', [profile('2.0.0')])] });
      const copy = DefinitionIndex.fromState(structuredClone(index.toState()));
      expect(copy.structureDefinition(PROFILE_URL)?.version).to.equal('2.0.0');
      expect(copy.scoped([{ name: 'example.ig', version: '1.0.0' }]).structureDefinition(PROFILE_URL)?.version).to.equal('1.0.0');
      expect(copy.structureDefinition(PROFILE_URL)).to.deep.equal(index.structureDefinition(PROFILE_URL));
      expect(copy.packageDetails('example.ig', '1.0.0')).to.deep.equal(index.packageDetails('example.ig', '1.0.0'));
    });

    it('parses a resource once, on first use, and returns the same object afterwards', () => {
      const index = DefinitionIndex.fromState(DefinitionIndex.build({ packages: [fakeCore] }).toState());
      const first = index.structureDefinitionForType('Patient');
      expect(first).to.include({ id: 'Patient' });
      expect(index.structureDefinitionForType('Patient')).to.equal(first);
      expect(index.structureDefinition('http://hl7.org/fhir/StructureDefinition/Patient')).to.equal(first);
    });

    it('shares its JSON through a SharedArrayBuffer for worker threads', () => {
      const state = DefinitionIndex.shareState(DefinitionIndex.build({ packages: [fakeCore, pkg('example.ig', '1.0.0', [profile('1.0.0')])] }).toState());
      expect(state.blob.buffer).to.be.instanceOf(SharedArrayBuffer);
      const inWorker = DefinitionIndex.fromState(structuredClone(state));
      expect(inWorker.structureDefinition(PROFILE_URL)?.version).to.equal('1.0.0');
      expect(inWorker.valueSet('http://hl7.org/fhir/ValueSet/administrative-gender')?.id).to.equal('administrative-gender');
    });

    it('rejects an inconsistent state', () => {
      const state = DefinitionIndex.build({ packages: [fakeCore] }).toState();
      expect(() => DefinitionIndex.fromState({ ...state, offsets: state.offsets.subarray(1) })).to.throw(/inconsistent/);
    });
  });

  describe('compareVersions', () => {
    it('orders numerically, pre-releases below releases, missing lowest', () => {
      const sorted = ['1.10.0', '1.2.0', '1.2.0-ballot', '1.2', '2.0.0-cibuild', '1.2.0'].sort(compareVersions);
      expect(sorted).to.deep.equal(['1.2', '1.2.0-ballot', '1.2.0', '1.2.0', '1.10.0', '2.0.0-cibuild']);
      expect(compareVersions(undefined, '0.0.1')).to.be.lessThan(0);
      expect(compareVersions('0.0.1', undefined)).to.be.greaterThan(0);
    });
  });

  describe('with R4 core and the nine shared packages', function () {
    this.timeout(60_000);

    it('package details of US Core 3.1.1', async () => {
      const { index } = await sharedDefinitions();
      const details = index.packageDetails('hl7.fhir.us.core')!;
      expect(details.version).to.equal('3.1.1');
      expect(details.fhirVersion).to.equal('4.0.1');
      expect(details.dependencies).to.deep.equal([{ name: 'hl7.fhir.r4.core', version: '4.0.1', present: true, loadedVersion: '4.0.1', exactVersion: true }]);
      expect(details.profiles).to.include('http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient');
      expect(details.profiles).to.not.include('http://hl7.org/fhir/us/core/StructureDefinition/us-core-race');
      expect(details.extensions).to.include('http://hl7.org/fhir/us/core/StructureDefinition/us-core-race');
      expect(details.profiles.length).to.equal(26);
      expect(details.valueSets).to.include('http://hl7.org/fhir/us/core/ValueSet/omb-race-category');
      expect(details.codeSystems.length).to.be.greaterThan(0);
    });

    it('warns only about the dependency that is really missing (us.nlm.vsac)', async () => {
      const { index } = await sharedDefinitions();
      const missing = index.warnings.filter((w) => w.code === 'missing-dependency').map((w) => w.package);
      expect(missing).to.deep.equal(['hl7.fhir.us.qicore#4.1.1']);
    });

    it('resolves NHSN, QI-Core and core definitions by URL and type', async () => {
      const { index } = await sharedDefinitions();
      expect(index.structureDefinition('http://www.cdc.gov/nhsn/fhirportal/dqm/ig/StructureDefinition/ach-encounter')?.resourceType).to.equal('StructureDefinition');
      expect(index.structureDefinition('http://hl7.org/fhir/us/qicore/StructureDefinition/qicore-patient|4.1.1')).to.not.equal(undefined);
      expect(index.structureDefinitionForType('Encounter')?.url).to.equal('http://hl7.org/fhir/StructureDefinition/Encounter');
      expect(index.structureDefinition('https://www.cdc.gov/nhsn/nhsn-measures/StructureDefinition/nhsn-measurereport-bundle')).to.equal(undefined);
      expect(index.resolve('Measure', 'http://www.cdc.gov/nhsn/fhirportal/dqm/ig/Measure/NHSNdQMAcuteCareHospitalInitialPopulation')?.resourceType).to.equal('Measure');
      expect(index.resolveAnyType('http://hl7.org/fhir/us/core/ValueSet/omb-race-category')?.resourceType).to.equal('ValueSet');
      // The R4 definition of a core extension wins over the R5 uv.extensions copy.
      const birthPlace = index.structureDefinition('http://hl7.org/fhir/StructureDefinition/patient-birthPlace')!;
      expect(index.originOf(birthPlace)?.package?.name).to.equal('hl7.fhir.r4.core');
    });
  });
});
