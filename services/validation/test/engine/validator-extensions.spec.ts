/**
 * Extensions as the HL7 validator checks them: simple against complex definitions, versioned
 * and cross-version urls, sub-extensions, and the context rules (element, extension and
 * fhirpath contexts, context invariants, FHIR version ranges). The definitions are hand-written
 * differentials; their snapshots are generated on first use.
 */
import { expect } from 'chai';
import { type Issue, type ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_, errorsOf, profile, engineKeyOf } from './support/helpers.js';

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };
const EXT = 'http://example.org/ext/';

/** A simple extension of one value type with the given contexts (and extra StructureDefinition fields). */
function simpleExtension(name: string, type: string, context: Record<string, unknown>[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return profile(EXT + name, 'Extension', [
    { id: 'Extension.extension', path: 'Extension.extension', max: '0' },
    { id: 'Extension.url', path: 'Extension.url', fixedUri: EXT + name },
    { id: 'Extension.value[x]', path: 'Extension.value[x]', min: 1, type: [{ code: type }] },
  ], { context, ...extra });
}

const complexExtension = profile(EXT + 'complex', 'Extension', [
  { id: 'Extension.extension', path: 'Extension.extension', slicing: { discriminator: [{ type: 'value', path: 'url' }], rules: 'open' } },
  { id: 'Extension.extension:part', path: 'Extension.extension', sliceName: 'part', min: 0, max: '1' },
  { id: 'Extension.extension:part.url', path: 'Extension.extension.url', fixedUri: 'part' },
  { id: 'Extension.extension:part.value[x]', path: 'Extension.extension.value[x]', type: [{ code: 'string' }] },
  { id: 'Extension.url', path: 'Extension.url', fixedUri: EXT + 'complex' },
  { id: 'Extension.value[x]', path: 'Extension.value[x]', max: '0' },
], { context: [{ type: 'element', expression: 'Element' }] });

const versionRange = (start?: string, end?: string) => ({
  url: 'http://hl7.org/fhir/StructureDefinition/version-specific-use',
  extension: [...(start ? [{ url: 'startFhirVersion', valueCode: start }] : []), ...(end ? [{ url: 'endFhirVersion', valueCode: end }] : [])],
});

const definitions = [
  simpleExtension('on-patient', 'string', [{ type: 'element', expression: 'Patient' }]),
  simpleExtension('on-humanname', 'string', [{ type: 'element', expression: 'HumanName' }]),
  simpleExtension('on-patient-given', 'string', [{ type: 'element', expression: 'Patient.name.given' }]),
  simpleExtension('on-backbone', 'string', [{ type: 'element', expression: 'BackboneElement' }]),
  simpleExtension('on-canonical', 'string', [{ type: 'element', expression: 'CanonicalResource' }]),
  simpleExtension('in-complex', 'string', [{ type: 'extension', expression: EXT + 'complex' }]),
  simpleExtension('fhirpath-given', 'string', [{ type: 'fhirpath', expression: 'Patient.name.given' }]),
  simpleExtension('active-only', 'string', [{ type: 'element', expression: 'Patient' }], { contextInvariant: ['active = true'] }),
  simpleExtension('short-or-male', 'string', [{ type: 'element', expression: 'Patient' }], { contextInvariant: ["gender = 'male' or %extension.valueString.length() < 3"] }),
  simpleExtension('r4-context', 'string', [
    { type: 'element', expression: 'Patient', extension: [versionRange('4.0', '4.0')] },
    { type: 'element', expression: 'Observation', extension: [versionRange('5.0')] },
  ]),
  simpleExtension('r5-only', 'string', [{ type: 'element', expression: 'Patient' }], { extension: [versionRange('5.0')] }),
  simpleExtension('up-to-r3', 'string', [{ type: 'element', expression: 'Patient' }], { extension: [versionRange(undefined, '3.0')] }),
  complexExtension,
];

const idsOf = (o: ValidationOutcome, severity = 'error'): string[] => o.issue
  .filter((i) => i.severity === severity)
  .map((i) => String(engineKeyOf(i)));

const issue = (o: ValidationOutcome, id: string): Issue | undefined => o.issue.find((i) => engineKeyOf(i) === id);

describe('engine: extensions', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith(definitions));
  });

  const patient = (more: Record<string, unknown>) => v.validate({ resourceType: 'Patient', id: 'p', text: narrative, ...more });

  describe('value or sub-extensions', () => {
    it('a simple extension carries a value, not sub-extensions', () => {
      const ok = patient({ extension: [{ url: EXT + 'on-patient', valueString: 'x' }] });
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const nested = patient({ extension: [{ url: EXT + 'on-patient', extension: [{ url: 'a', valueString: 'x' }] }] });
      expect(idsOf(nested), describe_(nested)).to.include('EXTENSION_EXT_SIMPLE_WRONG');
      expect(issue(nested, 'EXTENSION_EXT_SIMPLE_WRONG')?.expression).to.deep.equal(['Patient.extension[0]']);
      const empty = patient({ extension: [{ url: EXT + 'on-patient' }] });
      expect(idsOf(empty), describe_(empty)).to.include('EXTENSION_EXT_SIMPLE_ABSENT');
      expect(issue(empty, 'EXTENSION_EXT_SIMPLE_ABSENT')?.details.text).to.equal(`The Extension '${EXT}on-patient' definition is for a simple extension, so it must contain a value`);
    });

    it('a complex extension carries no value, and only the sub-extensions it defines', () => {
      const ok = patient({ extension: [{ url: EXT + 'complex', extension: [{ url: 'part', valueString: 'x' }] }] });
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const withValue = patient({ extension: [{ url: EXT + 'complex', valueString: 'x' }] });
      expect(idsOf(withValue), describe_(withValue)).to.include('EXTENSION_EXT_COMPLEX_VALUE');
      expect(issue(withValue, 'EXTENSION_EXT_COMPLEX_VALUE')?.details.text).to.equal(`The Extension '${EXT}complex' definition allows for the types [] but found type string (the definition is a complex extension: it takes sub-extensions, not a value)`);
      const unknownPart = patient({ extension: [{ url: EXT + 'complex', extension: [{ url: 'nope', valueString: 'x' }] }] });
      const sub = issue(unknownPart, 'EXTENSION_EXT_SUBEXTENSION_INVALID');
      expect(sub?.severity, describe_(unknownPart)).to.equal('error');
      expect(sub?.expression).to.deep.equal(["Patient.extension[0].extension[0][url='nope']"]);
      expect(sub?.details.text).to.equal(`Sub-extension url 'nope' is not defined by the Extension ${EXT}complex|1.0.0`);
    });
  });

  describe('urls', () => {
    it('an extension url carries no version', () => {
      const exact = patient({ extension: [{ url: EXT + 'on-patient|1.0.0', valueString: 'x' }] });
      expect(idsOf(exact), describe_(exact)).to.include('EXT_VER_URL_NOT_ALLOWED');
      expect(issue(exact, 'EXT_VER_URL_NOT_ALLOWED')?.expression).to.deep.equal([`Patient.extension[0][url='${EXT}on-patient|1.0.0']`]);
      const other = patient({ extension: [{ url: EXT + 'on-patient|0.9', valueString: 'x' }] });
      expect(idsOf(other), describe_(other)).to.include('EXT_VER_URL_REVERSION');
      const unknown = patient({ extension: [{ url: 'http://vendor.test/ext/nothing|1.0', valueString: 'x' }] });
      expect(idsOf(unknown, 'warning'), describe_(unknown)).to.include('EXT_VER_URL_NO_MATCH');
      expect(idsOf(unknown)).to.include('EXTENSION_UNKNOWN');
    });

    it('unknown extensions of DICOM and of the FHIR tooling are let through, as by the HL7 validator', () => {
      const o = patient({ extension: [
        { url: 'http://dicom.nema.org/resources/ontology/DCM/ext', valueString: 'x' },
        { url: 'http://hl7.org/fhir/tools/StructureDefinition/some-tool-extension', valueString: 'x' },
        { url: 'http://example.net/unknown', valueString: 'x' },
      ] });
      expect(errorsOf(o).map((i) => i.expression?.[0]), describe_(o)).to.deep.equal(['Patient.extension[2]']);
    });

    it('unknown extensions with example urls are let through while example urls are allowed, modifier or not', async () => {
      const ext = { extension: [{ url: 'http://example.org/fhir/StructureDefinition/unknown', valueString: 'x' }], modifierExtension: [{ url: 'http://acme.com/ext/unknown-mod', valueString: 'x' }] };
      const allowed = patient(ext);
      expect(errorsOf(allowed), describe_(allowed)).to.deep.equal([]);
      const strict = new Validator(await sourceWith(definitions), undefined, { allowExampleUrls: false }).validate({ resourceType: 'Patient', id: 'p', text: narrative, ...ext });
      expect(errorsOf(strict).map((i) => [i.expression?.[0], engineKeyOf(i)]).filter(([, id]) => id !== 'EXAMPLE_URL'), describe_(strict)).to.deep.equal([
        ['Patient.extension[0]', 'EXTENSION_UNKNOWN'],
        // HL7 words an unknown modifier extension as any unknown extension (same id and text); the path tells them apart
        ['Patient.modifierExtension[0]', 'EXTENSION_UNKNOWN'],
      ]);
      expect(issue(strict, 'EXTENSION_UNKNOWN')?.details.text).to.equal('The extension http://example.org/fhir/StructureDefinition/unknown is unknown, and not allowed here');
    });

    it('an extension without url, with an empty url, or with a relative url outside a complex extension', () => {
      const o = patient({ extension: [{ valueString: 'x' }, { url: '', valueString: 'x' }, { url: 'relative', valueString: 'x' }] });
      expect(errorsOf(o).map((i) => [i.expression?.[0], engineKeyOf(i)]).filter(([, id]) => String(id).startsWith('EXTENSION_')), describe_(o)).to.deep.equal([
        ['Patient.extension[0]', 'EXTENSION_NO_URL'],
        ['Patient.extension[1]', 'EXTENSION_NO_URL'],
        ['Patient.extension[2]', 'EXTENSION_URL_NOT_ABSOLUTE'],
      ]);
    });

    it('cross-version urls: R4 elements get a definition built from R4, other releases are accepted, unknown releases and elements are errors', () => {
      const r4 = (url: string, value: Record<string, unknown>) => patient({ extension: [{ url, ...value }] });
      const good = r4('http://hl7.org/fhir/4.0/StructureDefinition/extension-Patient.gender', { valueCode: 'male' });
      expect(errorsOf(good), describe_(good)).to.deep.equal([]);
      const wrongType = r4('http://hl7.org/fhir/4.0/StructureDefinition/extension-Patient.gender', { valueString: 'male' });
      expect(errorsOf(wrongType).map((i) => i.expression?.[0]), describe_(wrongType)).to.deep.equal(['Patient.extension[0]']);
      const wrongPlace = v.validate({ resourceType: 'Observation', text: narrative, status: 'final', code: { text: 'x' }, extension: [{ url: 'http://hl7.org/fhir/4.0/StructureDefinition/extension-Patient.gender', valueCode: 'male' }] });
      expect(idsOf(wrongPlace), describe_(wrongPlace)).to.deep.equal(['EXTENSION_CONTEXT']);
      const noElement = r4('http://hl7.org/fhir/4.0/StructureDefinition/extension-Patient.nothing', { valueCode: 'x' });
      expect(idsOf(noElement), describe_(noElement)).to.deep.equal(['EXTENSION_EXT_VERSION_INVALIDID']);
      const r5 = r4('http://hl7.org/fhir/5.0/StructureDefinition/extension-Patient.anything', { valueString: 'x' });
      expect(errorsOf(r5), describe_(r5)).to.deep.equal([]);
      const badRelease = r4('http://hl7.org/fhir/7.7/StructureDefinition/extension-Patient.gender', { valueCode: 'x' });
      expect(idsOf(badRelease), describe_(badRelease)).to.deep.equal(['EXTENSION_EXT_VERSION_INVALID']);
      expect(issue(badRelease, 'EXTENSION_EXT_VERSION_INVALID')?.expression).to.deep.equal(['Patient.extension[0]']);
    });
  });

  describe('contexts', () => {
    it('element contexts: a path, a type and the types it specialises', () => {
      const onName = patient({ name: [{ family: 'x', extension: [{ url: EXT + 'on-humanname', valueString: 'x' }] }] });
      expect(errorsOf(onName), describe_(onName)).to.deep.equal([]);
      // a path through a datatype, to a primitive
      const onGiven = patient({ name: [{ given: ['a', 'b'], _given: [null, { extension: [{ url: EXT + 'on-patient-given', valueString: 'x' }] }] }] });
      expect(errorsOf(onGiven), describe_(onGiven)).to.deep.equal([]);
      const onFamily = patient({ name: [{ family: 'f', _family: { extension: [{ url: EXT + 'on-patient-given', valueString: 'x' }] } }] });
      expect(idsOf(onFamily), describe_(onFamily)).to.deep.equal(['EXTENSION_CONTEXT']);
      const onBackbone = patient({ contact: [{ name: { family: 'x' }, extension: [{ url: EXT + 'on-backbone', valueString: 'x' }] }] });
      expect(errorsOf(onBackbone), describe_(onBackbone)).to.deep.equal([]);
      const backboneOnRoot = patient({ extension: [{ url: EXT + 'on-backbone', valueString: 'x' }] });
      expect(idsOf(backboneOnRoot), describe_(backboneOnRoot)).to.deep.equal(['EXTENSION_CONTEXT']);
      const onRoot = patient({ extension: [{ url: EXT + 'on-humanname', valueString: 'x' }] });
      const wrong = issue(onRoot, 'EXTENSION_CONTEXT');
      expect(wrong?.expression, describe_(onRoot)).to.deep.equal(['Patient']);
      expect(wrong?.details.text).to.equal(`The extension ${EXT}on-humanname is not allowed to be used at this point (allowed = e:HumanName; this element is [Patient])`);
      const canonical = v.validate({ resourceType: 'ValueSet', text: narrative, status: 'draft', extension: [{ url: EXT + 'on-canonical', valueString: 'x' }] });
      expect(errorsOf(canonical), describe_(canonical)).to.deep.equal([]);
      expect(idsOf(patient({ extension: [{ url: EXT + 'on-canonical', valueString: 'x' }] }))).to.deep.equal(['EXTENSION_CONTEXT']);
    });

    it('a modifier extension in the wrong place is reported as one', () => {
      const o = patient({ modifierExtension: [{ url: 'http://hl7.org/fhir/StructureDefinition/request-doNotPerform', valueBoolean: true }] });
      expect(idsOf(o), describe_(o)).to.include('EXTENSION_EXTM_CONTEXT_WRONG');
    });

    it('extension contexts: only inside the extension with that url', () => {
      const ok = patient({ extension: [{ url: EXT + 'complex', extension: [{ url: 'part', valueString: 'x' }, { url: EXT + 'in-complex', valueString: 'y' }] }] });
      expect(idsOf(ok), describe_(ok)).not.to.include('EXTENSION_CONTEXT');
      const bad = patient({ extension: [{ url: EXT + 'in-complex', valueString: 'y' }] });
      expect(issue(bad, 'EXTENSION_CONTEXT')?.details.text, describe_(bad)).to.include(`allowed = x:${EXT}complex`);
    });

    it('fhirpath contexts: the element must be among what the expression selects (primitives too)', () => {
      const ok = patient({ name: [{ given: ['a'], _given: [{ extension: [{ url: EXT + 'fhirpath-given', valueString: 'x' }] }] }] });
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const bad = patient({ name: [{ family: 'f', _family: { extension: [{ url: EXT + 'fhirpath-given', valueString: 'x' }] } }] });
      // as HL7's checkExtensionContext: reported on the element the extension sits on
      expect(issue(bad, 'EXTENSION_CONTEXT')?.expression, describe_(bad)).to.deep.equal(['Patient.name[0].family']);
    });

    it('context invariants must hold on the element the extension sits on', () => {
      const ok = patient({ active: true, extension: [{ url: EXT + 'active-only', valueString: 'x' }] });
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const bad = patient({ active: false, extension: [{ url: EXT + 'active-only', valueString: 'x' }] });
      const i = issue(bad, 'PROFILE_EXT_NOT_HERE');
      expect(i?.severity, describe_(bad)).to.equal('error');
      expect(i?.details.text).to.equal(`The extension ${EXT}active-only is not allowed to be used at this point (based on context invariant 'active = true')`);
      // %extension is the extension itself
      expect(errorsOf(patient({ gender: 'female', extension: [{ url: EXT + 'short-or-male', valueString: 'ab' }] }))).to.deep.equal([]);
      expect(idsOf(patient({ gender: 'female', extension: [{ url: EXT + 'short-or-male', valueString: 'abcd' }] }))).to.deep.equal(['PROFILE_EXT_NOT_HERE']);
    });

    it('FHIR version ranges: a context for other versions does not count, an extension for other versions is refused', () => {
      const ok = patient({ extension: [{ url: EXT + 'r4-context', valueString: 'x' }] });
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const r5Context = v.validate({ resourceType: 'Observation', text: narrative, status: 'final', code: { text: 'x' }, extension: [{ url: EXT + 'r4-context', valueString: 'x' }] });
      expect(idsOf(r5Context), describe_(r5Context)).to.deep.equal(['EXTENSION_EXTP_CONTEXT_WRONG_VER']);
      const r5Only = patient({ extension: [{ url: EXT + 'r5-only', valueString: 'x' }] });
      expect(idsOf(r5Only), describe_(r5Only)).to.deep.equal(['EXTENSION_FHIR_VERSION_EARLIEST']);
      const upToR3 = patient({ extension: [{ url: EXT + 'up-to-r3', valueString: 'x' }] });
      expect(idsOf(upToR3), describe_(upToR3)).to.deep.equal(['EXTENSION_FHIR_VERSION_LATEST']);
    });
  });
});
