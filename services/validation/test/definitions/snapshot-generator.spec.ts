import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { sharedDir } from '#test-support/shared-dir.js';
import type { CanonicalResource } from '#validation/domain/ports/conformance-resources.js';
import type { DefinitionIndex } from '#validation/domain/engine/definitions/definition-index.js';
import { SnapshotGenerator, withGeneratedSnapshots, type ElementDefinition, type SnapshotGeneratorOptions, type SnapshotResult } from '#validation/domain/engine/definitions/snapshot-generator.js';
import { sharedDefinitions } from './support/shared-definitions.js';

type Summary = string;

/** What the comparison is about: id, cardinality and types (with profiles) of each element, in order. */
function summary(elements: ElementDefinition[]): Summary[] {
  return elements.map((e) => {
    const types = ((e.type ?? []) as { code: string; profile?: string[]; targetProfile?: string[] }[]).map((t) => `${t.code}${t.profile ? `<${t.profile.join(',')}>` : ''}${t.targetProfile ? `(${t.targetProfile.join(',')})` : ''}`);
    return `${e.id} ${e.min}..${e.max} ${types.join('|')}`;
  });
}

function withoutSnapshot(sd: CanonicalResource): CanonicalResource {
  const { snapshot: _snapshot, ...rest } = sd;
  return rest as CanonicalResource;
}

function regenerate(index: DefinitionIndex, url: string, options?: SnapshotGeneratorOptions): { shipped: Summary[]; generated: SnapshotResult } {
  const sd = index.structureDefinition(url);
  expect(sd, url).to.not.equal(undefined);
  const shipped = summary((sd!.snapshot as { element: ElementDefinition[] }).element);
  return { shipped, generated: new SnapshotGenerator(index).generate(withoutSnapshot(sd!), options) };
}

function elementsOf(result: SnapshotResult): Map<string, ElementDefinition> {
  return new Map(result.elements.map((e) => [e.id as string, e]));
}

const suiteFile = (name: string): CanonicalResource => JSON.parse(readFileSync(sharedDir('conformance', 'fhir-test-cases', 'validator', name), 'utf8'));

describe('snapshot generator', function () {
  this.timeout(60_000);
  let index: DefinitionIndex;
  before(async () => {
    index = (await sharedDefinitions()).index;
  });

  describe('IG profiles regenerated from their differential match the shipped snapshot', () => {
    for (const url of [
      'http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient',
      'http://hl7.org/fhir/us/core/StructureDefinition/us-core-practitioner',
      'http://hl7.org/fhir/us/core/StructureDefinition/us-core-provenance',
      'http://www.cdc.gov/nhsn/fhirportal/dqm/ig/StructureDefinition/ach-encounter',
      'http://www.cdc.gov/nhsn/fhirportal/dqm/ig/StructureDefinition/cross-measure-patient',
      'http://hl7.org/fhir/us/qicore/StructureDefinition/qicore-patient',
      'http://hl7.org/fhir/us/qicore/StructureDefinition/qicore-condition',
    ]) {
      it(url.split('/').pop()!, () => {
        // US Core 3.1.1's generator gave a new backbone slice the base's children (sliceChildren: base)
        const { shipped, generated } = regenerate(index, url, url.endsWith('/us-core-provenance') ? { sliceChildren: 'base' } : undefined);
        expect(generated.messages).to.deep.equal([]);
        expect(summary(generated.elements)).to.deep.equal(shipped);
      });
    }

    it('renamed choices: the shape US Core 3.1.1 shipped (choiceRenames: slice) and the current one (constrain)', () => {
      const url = 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-smokingstatus';
      const legacy = regenerate(index, url, { choiceRenames: 'slice' });
      expect(summary(legacy.generated.elements)).to.deep.equal(legacy.shipped);
      const current = elementsOf(regenerate(index, url).generated);
      expect(current.get('Observation.value[x]')).to.include({ min: 1, max: '1' });
      expect(current.get('Observation.value[x]')!.type).to.deep.equal([{ code: 'CodeableConcept' }]);
      expect(current.has('Observation.value[x]:valueCodeableConcept')).to.equal(false);
    });

    it('backbone slices: the sliced element\'s children as constrained so far (current HL7), or the base\'s (US Core 3.1.1)', () => {
      const url = 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-provenance';
      const legacy = regenerate(index, url, { sliceChildren: 'base' });
      expect(summary(legacy.generated.elements)).to.deep.equal(legacy.shipped);
      const current = elementsOf(regenerate(index, url).generated);
      const targets = (id: string) => (current.get(id)!.type as { targetProfile?: string[] }[])[0]!.targetProfile;
      // Provenance.agent.who is narrowed to US Core targets before the agent slices: the slices keep that
      expect(targets('Provenance.agent:ProvenanceAuthor.who')).to.deep.equal(targets('Provenance.agent.who'));
      expect(targets('Provenance.agent:ProvenanceAuthor.who')!.every((t) => t.startsWith('http://hl7.org/fhir/us/core/'))).to.equal(true);
    });

    it('pulse oximetry: backbone slices carry the base children; choices inside them are constrained, not sliced', () => {
      const { shipped, generated } = regenerate(index, 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-pulse-oximetry', { choiceRenames: 'slice' });
      expect(summary(generated.elements)).to.deep.equal(shipped);
    });

    it('at least 95% of the 372 R4 profiles and extensions of the shared packages regenerate exactly', () => {
      let total = 0;
      let exact = 0;
      for (const pkg of index.packages()) {
        if (pkg.name === 'hl7.fhir.r4.core' || pkg.name === 'hl7.fhir.uv.extensions') continue;
        const details = index.packageDetails(pkg.name, pkg.version)!;
        for (const url of [...details.profiles, ...details.extensions]) {
          const { shipped, generated } = regenerate(index, url, { choiceRenames: 'slice' });
          total++;
          if (JSON.stringify(summary(generated.elements)) === JSON.stringify(shipped)) exact++;
        }
      }
      expect(total).to.equal(372);
      expect(exact / total).to.be.greaterThan(0.95);
    });
  });

  describe('HL7 test-suite profiles (differential only)', () => {
    it('type slicing on Bundle.entry: slices after the children, resource types restricted', () => {
      const sd = suiteFile('type-slicing-multiple-profile.json');
      const result = new SnapshotGenerator(index.scoped([], [sd])).generate(sd);
      expect(result.messages).to.deep.equal([]);
      const ids = result.elements.map((e) => e.id);
      expect(ids.indexOf('Bundle.entry:myslicename1')).to.be.greaterThan(ids.indexOf('Bundle.entry.response.outcome'));
      expect(ids.indexOf('Bundle.entry:myslicename2')).to.be.greaterThan(ids.indexOf('Bundle.entry:myslicename1.response.outcome'));
      const els = elementsOf(result);
      expect(els.get('Bundle.entry')!.slicing).to.deep.equal({ discriminator: [{ type: 'type', path: 'resource' }], rules: 'open' });
      expect(els.get('Bundle.entry:myslicename1')).to.include({ sliceName: 'myslicename1', min: 1, max: '1', path: 'Bundle.entry' });
      expect(els.get('Bundle.entry:myslicename1.resource')!.type).to.deep.equal([{ code: 'Patient' }]);
      expect(els.get('Bundle.entry:myslicename2.resource')!.type?.map((t) => t.code)).to.deep.equal(['Practitioner', 'PractitionerRole']);
      expect(els.get('Bundle.entry:myslicename2.fullUrl')).to.include({ path: 'Bundle.entry.fullUrl', min: 0 });
      expect(els.get('Bundle.entry')!.min).to.equal(0);
    });

    it('pattern slices on Patient.address with children unfolded from Address', () => {
      const sd = suiteFile('linePatternProfile.json');
      const result = new SnapshotGenerator(index.scoped([], [sd])).generate(sd);
      expect(result.messages).to.deep.equal([]);
      const els = elementsOf(result);
      expect(els.get('Patient.address:Postfach.line')).to.include({ min: 1, max: '*', path: 'Patient.address.line' });
      expect((els.get('Patient.address:Postfach.city')!.base as { path?: string } | undefined)?.path).to.equal('Address.city');
      expect(els.has('Patient.address.line')).to.equal(false);
    });

    it('every differential-only profile of the conformance cases gets a snapshot without errors', () => {
      const cases = JSON.parse(readFileSync(sharedDir('conformance', 'cases.json'), 'utf8')).cases as { supporting: string[] }[];
      const sds = [...new Set(cases.flatMap((c) => c.supporting))]
        .map((f) => {
          try {
            return suiteFile(f);
          } catch {
            return undefined;
          }
        })
        .filter((r): r is CanonicalResource => r?.resourceType === 'StructureDefinition' && !r.snapshot);
      expect(sds.length).to.be.greaterThan(20);
      const generator = new SnapshotGenerator(index.scoped([], sds));
      for (const sd of sds) {
        const result = generator.generate(sd);
        expect(result.messages.filter((m) => m.severity === 'error'), String(sd.url)).to.deep.equal([]);
        expect(result.elements.length, String(sd.url)).to.be.greaterThan(4);
        expect(result.elements.every((e) => typeof e.id === 'string' && e.id.split('.')[0] === result.elements[0]?.path)).to.equal(true);
      }
    });
  });

  describe('algorithm details (hand-written profiles)', () => {
    const base = (url: string, type: string, baseDefinition: string, elements: ElementDefinition[]): CanonicalResource => ({
      resourceType: 'StructureDefinition',
      url,
      name: url.split('/').pop(),
      status: 'draft',
      kind: 'resource',
      abstract: false,
      type,
      baseDefinition,
      derivation: 'constraint',
      differential: { element: elements },
    });
    const generate = (sd: CanonicalResource, ...more: CanonicalResource[]) => new SnapshotGenerator(index.scoped([], [sd, ...more])).generate(sd);

    it('unfolds a datatype below a constrained element and merges cardinality, texts and constraints', () => {
      const result = generate(base('http://example.org/sd/p1', 'Patient', 'http://hl7.org/fhir/StructureDefinition/Patient', [
        { id: 'Patient.identifier', path: 'Patient.identifier', min: 1, short: 'Our identifiers', constraint: [{ key: 'p1-1', severity: 'error', human: 'needs value', expression: 'value.exists()' }] },
        { id: 'Patient.identifier.system', path: 'Patient.identifier.system', min: 1, fixedUri: 'urn:oid:1.2.3' },
        { id: 'Patient.identifier.assigner.display', path: 'Patient.identifier.assigner.display', mustSupport: true },
      ]));
      expect(result.messages).to.deep.equal([]);
      const els = elementsOf(result);
      const identifier = els.get('Patient.identifier')!;
      expect(identifier).to.include({ min: 1, max: '*', short: 'Our identifiers' });
      expect(identifier.constraint?.map((c) => c.key)).to.deep.equal(['ele-1', 'p1-1']);
      expect(identifier.constraint?.[1]?.source).to.equal('http://example.org/sd/p1');
      expect(els.get('Patient.identifier.system')).to.include({ min: 1, fixedUri: 'urn:oid:1.2.3', path: 'Patient.identifier.system' });
      expect((els.get('Patient.identifier.system')!.base as { path?: string } | undefined)?.path).to.equal('Identifier.system');
      expect(els.get('Patient.identifier.assigner.display')).to.include({ mustSupport: true, path: 'Patient.identifier.assigner.display' });
      const ids = result.elements.map((e) => e.id);
      expect(ids.indexOf('Patient.identifier.assigner.display')).to.be.lessThan(ids.indexOf('Patient.active'));
    });

    it('collects an unknown element path as an error message and carries on', () => {
      const result = generate(base('http://example.org/sd/p2', 'Patient', 'http://hl7.org/fhir/StructureDefinition/Patient', [
        { id: 'Patient.nickname', path: 'Patient.nickname', min: 1 },
        { id: 'Patient.gender', path: 'Patient.gender', min: 1 },
      ]));
      expect(result.messages).to.have.length(1);
      expect(result.messages[0]).to.include({ severity: 'error', element: 'Patient.nickname' });
      expect(result.messages[0]?.message).to.contain('no child nickname');
      expect(elementsOf(result).get('Patient.gender')!.min).to.equal(1);
    });

    it('reports a base definition that cannot be found', () => {
      const result = generate(base('http://example.org/sd/p3', 'Patient', 'http://example.org/sd/missing', [{ id: 'Patient', path: 'Patient' }]));
      expect(result.elements).to.deep.equal([]);
      expect(result.messages[0]?.message).to.contain('http://example.org/sd/missing');
    });

    it('generates a differential-only base first (profile on a profile)', () => {
      const parent = base('http://example.org/sd/parent', 'Patient', 'http://hl7.org/fhir/StructureDefinition/Patient', [{ id: 'Patient.birthDate', path: 'Patient.birthDate', min: 1 }]);
      const child = base('http://example.org/sd/child', 'Patient', 'http://example.org/sd/parent', [{ id: 'Patient.gender', path: 'Patient.gender', min: 1 }]);
      const result = new SnapshotGenerator(index.scoped([], [parent, child])).generate(child);
      const els = elementsOf(result);
      expect(els.get('Patient.birthDate')!.min).to.equal(1);
      expect(els.get('Patient.gender')!.min).to.equal(1);
    });

    it('extension slices take their texts from the extension definition; re-slices go after their parent slice', () => {
      const result = generate(base('http://example.org/sd/p4', 'Patient', 'http://hl7.org/fhir/StructureDefinition/Patient', [
        { id: 'Patient.extension:birthPlace', path: 'Patient.extension', sliceName: 'birthPlace', max: '1', type: [{ code: 'Extension', profile: ['http://hl7.org/fhir/StructureDefinition/patient-birthPlace'] }] },
        { id: 'Patient.identifier', path: 'Patient.identifier', slicing: { discriminator: [{ type: 'value', path: 'system' }], rules: 'open' } },
        { id: 'Patient.identifier:mrn', path: 'Patient.identifier', sliceName: 'mrn', min: 1, max: '2' },
        { id: 'Patient.identifier:mrn.system', path: 'Patient.identifier.system', fixedUri: 'http://example.org/mrn' },
        { id: 'Patient.identifier:other', path: 'Patient.identifier', sliceName: 'other' },
        { id: 'Patient.identifier:mrn/old', path: 'Patient.identifier', sliceName: 'mrn/old', max: '1' },
      ]));
      expect(result.messages).to.deep.equal([]);
      const els = elementsOf(result);
      const birthPlace = els.get('Patient.extension:birthPlace')!;
      expect(birthPlace).to.include({ sliceName: 'birthPlace', min: 0, max: '1', path: 'Patient.extension' });
      expect(birthPlace.short).to.match(/birth/i);
      expect(els.get('Patient.extension')!.slicing?.discriminator).to.deep.equal([{ type: 'value', path: 'url' }]);
      const ids = result.elements.map((e) => e.id as string).filter((id) => id.startsWith('Patient.identifier'));
      expect(ids.filter((id) => !id.slice('Patient.identifier'.length).includes('.'))).to.deep.equal([
        'Patient.identifier',
        'Patient.identifier:mrn',
        'Patient.identifier:mrn/old',
        'Patient.identifier:other',
      ]);
      expect(ids.indexOf('Patient.identifier:mrn.system')).to.be.lessThan(ids.indexOf('Patient.identifier:mrn/old'));
      expect(els.get('Patient.identifier:mrn/old')).to.include({ sliceName: 'mrn/old', max: '1', min: 1 });
      expect(els.get('Patient.identifier:mrn/old.system')?.fixedUri).to.equal('http://example.org/mrn');
    });

    it('unfolds below a contentReference (Questionnaire.item.item)', () => {
      const result = generate({
        ...base('http://example.org/sd/q1', 'Questionnaire', 'http://hl7.org/fhir/StructureDefinition/Questionnaire', [{ id: 'Questionnaire.item.item.linkId', path: 'Questionnaire.item.item.linkId', maxLength: 10 }]),
      });
      expect(result.messages).to.deep.equal([]);
      const els = elementsOf(result);
      expect(els.get('Questionnaire.item.item.linkId')).to.include({ maxLength: 10, min: 1, path: 'Questionnaire.item.item.linkId' });
      expect(els.get('Questionnaire.item.item.type')!.path).to.equal('Questionnaire.item.item.type');
    });

    it('a renamed choice narrows value[x]; its children are unfolded from the chosen type', () => {
      const result = generate(base('http://example.org/sd/o1', 'Observation', 'http://hl7.org/fhir/StructureDefinition/Observation', [
        { id: 'Observation.valueQuantity', path: 'Observation.valueQuantity', min: 1 },
        { id: 'Observation.valueQuantity.system', path: 'Observation.valueQuantity.system', fixedUri: 'http://unitsofmeasure.org' },
      ]));
      expect(result.messages).to.deep.equal([]);
      const els = elementsOf(result);
      expect(els.get('Observation.value[x]')).to.include({ min: 1 });
      expect(els.get('Observation.value[x]')!.type).to.deep.equal([{ code: 'Quantity' }]);
      expect(els.get('Observation.value[x].system')).to.include({ fixedUri: 'http://unitsofmeasure.org', path: 'Observation.value[x].system' });
    });

    it('follows slice context for an old-style differential without ids', () => {
      const result = generate(base('http://example.org/sd/p5', 'Patient', 'http://hl7.org/fhir/StructureDefinition/Patient', [
        { path: 'Patient.telecom', slicing: { discriminator: [{ type: 'value', path: 'system' }], rules: 'open' } },
        { path: 'Patient.telecom', sliceName: 'phone', min: 1 },
        { path: 'Patient.telecom.system', fixedCode: 'phone' },
        { path: 'Patient.telecom', sliceName: 'email' },
        { path: 'Patient.telecom.system', fixedCode: 'email' },
      ]));
      expect(result.messages).to.deep.equal([]);
      const els = elementsOf(result);
      expect(els.get('Patient.telecom:phone.system')!.fixedCode).to.equal('phone');
      expect(els.get('Patient.telecom:email.system')!.fixedCode).to.equal('email');
      expect(els.has('Patient.telecom.system')).to.equal(false);
    });

    it('withGeneratedSnapshots fills in loose differential-only profiles, bases among them first', () => {
      const parent = base('http://example.org/sd/parent2', 'Patient', 'http://hl7.org/fhir/StructureDefinition/Patient', [{ id: 'Patient.birthDate', path: 'Patient.birthDate', min: 1 }]);
      const child = base('http://example.org/sd/child2', 'Patient', 'http://example.org/sd/parent2', [{ id: 'Patient.gender', path: 'Patient.gender', min: 1 }]);
      const broken = base('http://example.org/sd/broken', 'Patient', 'http://example.org/sd/nowhere', [{ id: 'Patient', path: 'Patient' }]);
      const valueSet = { resourceType: 'ValueSet', url: 'http://example.org/vs' };
      const loose = [child, parent, broken, valueSet];
      const { resources, messages } = withGeneratedSnapshots(index.scoped([], loose), loose);
      const snapshotOf = (r: CanonicalResource | undefined) => (r?.snapshot as { element: ElementDefinition[] } | undefined)?.element;
      expect(snapshotOf(resources[0])!.find((e) => e.id === 'Patient.birthDate')!.min).to.equal(1);
      expect(snapshotOf(resources[0])!.find((e) => e.id === 'Patient.gender')!.min).to.equal(1);
      expect(snapshotOf(resources[1])).to.not.equal(undefined);
      expect(resources[2]).to.equal(broken);
      expect(resources[3]).to.equal(valueSet);
      expect(messages.map((m) => m.message).join('\n')).to.contain('http://example.org/sd/broken: cannot find the base definition http://example.org/sd/nowhere');
    });

    it('keeps isModifier from the base, and drops a binding when the types are narrowed to unbindable ones', () => {
      const report = generate(base('http://example.org/sd/dr', 'DiagnosticReport', 'http://hl7.org/fhir/StructureDefinition/DiagnosticReport', [
        { id: 'DiagnosticReport.status', path: 'DiagnosticReport.status', isModifier: false, mustSupport: true },
      ]));
      expect(elementsOf(report).get('DiagnosticReport.status')).to.include({ isModifier: true, mustSupport: true });
      const goal = generate(base('http://example.org/sd/goal', 'Goal', 'http://hl7.org/fhir/StructureDefinition/Goal', [
        { id: 'Goal.start[x]', path: 'Goal.start[x]', type: [{ code: 'date' }] },
      ]));
      const start = elementsOf(goal).get('Goal.start[x]')!;
      expect(start.type).to.deep.equal([{ code: 'date' }]);
      expect(start).to.not.have.property('binding');
    });

    it('never modifies its input or the base definitions', () => {
      const sd = base('http://example.org/sd/p6', 'Patient', 'http://hl7.org/fhir/StructureDefinition/Patient', [{ id: 'Patient.name.family', path: 'Patient.name.family', min: 1 }]);
      const before = JSON.stringify(sd);
      const patientBefore = JSON.stringify(index.structureDefinitionForType('Patient'));
      generate(sd);
      expect(JSON.stringify(sd)).to.equal(before);
      expect(JSON.stringify(index.structureDefinitionForType('Patient'))).to.equal(patientBefore);
    });
  });
});
