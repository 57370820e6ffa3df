import { expect } from 'chai';
import type { CanonicalResource } from '#validation/domain/ports/conformance-resources.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import type { ValidateCodeRequest, ValidateCodeResult } from '#validation/domain/ports/terminology.js';
import { InMemoryConformanceSource, packageTerminologyResources, r4CoreSource, r4TerminologyResources } from './support/terminology-sources.js';

const GENDER_VS = 'http://hl7.org/fhir/ValueSet/administrative-gender';
const GENDER_CS = 'http://hl7.org/fhir/administrative-gender';
const GENDER_LABEL = "'AdministrativeGender' (http://hl7.org/fhir/ValueSet/administrative-gender|4.0.1)";
const OBS_STATUS_VS = 'http://hl7.org/fhir/ValueSet/observation-status';
const ENCOUNTER_VS = 'http://terminology.hl7.org/ValueSet/v3-ActEncounterCode';
const ACT_CODE = 'http://terminology.hl7.org/CodeSystem/v3-ActCode';

function validate(terminology: LocalTerminology, request: ValidateCodeRequest): ValidateCodeResult {
  const result = terminology.validateCode(request);
  expect(result).not.to.be.instanceOf(Promise);
  return result;
}

const texts = (result: ValidateCodeResult) => result.issues.map((issue) => issue.text);

describe('LocalTerminology: R4 core value sets', () => {
  const terminology = new LocalTerminology(r4CoreSource());

  it('accepts administrative-gender codes and rejects others with the HL7 wording for a required plain code', () => {
    expect(validate(terminology, { valueSet: GENDER_VS, coding: { code: 'male' }, strength: 'required' })).to.include({ valid: true, source: 'local' });
    const wrong = validate(terminology, { valueSet: GENDER_VS, coding: { code: 'man' }, strength: 'required' });
    expect(wrong.valid).to.equal(false);
    // as HL7 gives it: the binding issue, with why there is no match (the system cannot be determined) ...
    expect(wrong.issues).to.have.length(2);
    expect(wrong.issues[0]).to.deep.include({ severity: 'error', code: 'code-invalid', messageId: 'Terminology_TX_NoValid_16' });
    expect(wrong.issues[0]!.text).to.equal(`The value provided ('man') is not in the value set ${GENDER_LABEL}, and a code is required from this value set`
      + ` (error message = The System URI could not be determined for the code 'man' in the ValueSet '${GENDER_VS}|4.0.1'; `
      + `The provided code '#man' was not found in the value set '${GENDER_VS}|4.0.1')`);
    // ... and that reason as an issue of its own
    expect(wrong.issues[1]).to.deep.include({
      severity: 'error', messageId: 'Unable_to_resolve_system__value_set_has_no_matches',
      text: `The System URI could not be determined for the code 'man' in the ValueSet '${GENDER_VS}|4.0.1'`,
    });
  });

  it('is case sensitive when the code system says so (administrative-gender)', () => {
    const result = validate(terminology, { valueSet: GENDER_VS, coding: { code: 'MALE' } });
    expect(result.valid).to.equal(false);
    expect(terminology.isMemberOf({ system: GENDER_CS, code: 'Male' }, GENDER_VS)).to.equal(false);
    expect(terminology.isMemberOf({ system: GENDER_CS, code: 'male' }, GENDER_VS)).to.equal(true);
  });

  it('matches case-insensitively when the code system does not declare caseSensitive (v2 tables)', () => {
    const result = validate(terminology, { coding: { system: 'http://terminology.hl7.org/CodeSystem/v2-0131', code: 'c' } });
    expect(result.valid).to.equal(true);
    expect(result.display).to.equal('Emergency Contact');
    // ... with HL7's hint that the case differs.
    expect(result.issues.map((i) => [i.severity, i.text])).to.deep.equal([['information',
      "The code 'c' differs from the correct code 'C' by case. Although the code system 'http://terminology.hl7.org/CodeSystem/v2-0131' is case insensitive, implementers are strongly encouraged to use the correct case anyway"]]);
  });

  it('checks observation-status for a plain code', () => {
    expect(validate(terminology, { valueSet: OBS_STATUS_VS, coding: { code: 'final' } }).valid).to.equal(true);
    expect(validate(terminology, { valueSet: OBS_STATUS_VS, coding: { code: 'done' } }).valid).to.equal(false);
    const resolved = terminology.resolveValueSet(OBS_STATUS_VS)!;
    expect(resolved.codes.complete).to.equal(true);
    expect([...resolved.codes.entries()].map((e) => e.code)).to.have.members([
      'registered', 'preliminary', 'final', 'amended', 'corrected', 'cancelled', 'entered-in-error', 'unknown',
    ]);
  });

  it('expands an is-a filter over nested concepts, with its exclude (v3-ActEncounterCode)', () => {
    const codes = terminology.resolveValueSet(ENCOUNTER_VS)!.codes;
    expect(codes.complete).to.equal(true);
    expect(codes.membership(ACT_CODE, 'AMB').status).to.equal('member');
    expect(codes.membership(ACT_CODE, 'ACUTE').status).to.equal('member'); // grandchild, via IMP
    expect(codes.membership(ACT_CODE, '_ActEncounterCode').status).to.equal('not-member'); // excluded
    expect(codes.membership(ACT_CODE, '_ActCareProvisionCode').status).to.equal('not-member'); // above the filter
  });

  it('expands is-not-a (patient-contactrelationship), descendent-of (inactive) and regex (iso3166-1-3)', () => {
    const contact = terminology.resolveValueSet('http://hl7.org/fhir/ValueSet/patient-contactrelationship')!.codes;
    expect(contact.membership('http://terminology.hl7.org/CodeSystem/v2-0131', 'C').status).to.equal('member');
    expect(contact.membership('http://terminology.hl7.org/CodeSystem/v2-0131', 'O').status).to.equal('not-member');
    const inactive = terminology.resolveValueSet('http://hl7.org/fhir/ValueSet/inactive')!.codes;
    expect(inactive.membership('http://terminology.hl7.org/CodeSystem/v3-ActMood', '_ActMoodPredicate').status).to.equal('not-member');
    expect(inactive.size).to.be.greaterThan(0);
    const alpha3 = terminology.resolveValueSet('http://hl7.org/fhir/ValueSet/iso3166-1-3')!.codes;
    expect(alpha3.membership('urn:iso:std:iso:3166', 'USA').status).to.equal('member');
    expect(alpha3.membership('urn:iso:std:iso:3166', 'US').status).to.equal('not-member');
    expect(alpha3.size).to.equal(249);
  });

  it('caches the expansion per value set (url|version)', () => {
    const first = terminology.resolveValueSet(GENDER_VS);
    expect(terminology.resolveValueSet(GENDER_VS)).to.equal(first);
    expect(terminology.resolveValueSet(`${GENDER_VS}|4.0.1`)).to.equal(first);
  });
});

describe('LocalTerminology: binding strengths and element kinds', () => {
  const terminology = new LocalTerminology(r4CoreSource());
  const codeableConcept = (...codes: string[]) => codes.map((code) => ({ system: ACT_CODE, code }));

  it('labels value sets as the HL7 validator does', () => {
    expect(terminology.resolveValueSet(ENCOUNTER_VS)!.label).to.match(/^'.+' \(http:\/\/terminology\.hl7\.org\/ValueSet\/v3-ActEncounterCode\|.+\)$/);
  });

  it('accepts a CodeableConcept when one of its codings is in the set', () => {
    const result = validate(terminology, { valueSet: ENCOUNTER_VS, codings: [{ system: 'http://example.org/local', code: 'x' }, ...codeableConcept('IMP')], strength: 'required' });
    expect(result.valid).to.equal(true);
  });

  it('extensible: warning "None of the codings provided ..." with the codes', () => {
    const vsLabel = terminology.resolveValueSet(ENCOUNTER_VS)!.label;
    const result = validate(terminology, { valueSet: ENCOUNTER_VS, codings: codeableConcept('PHARMACY'), strength: 'extensible' });
    expect(result.valid).to.equal(false);
    const binding = result.issues.find((issue) => issue.messageId === 'Terminology_TX_NoValid_2_CC')!;
    expect(binding.severity).to.equal('warning');
    expect(binding.text).to.equal(
      `None of the codings provided are in the value set ${vsLabel}, and a coding should come from this value set unless it has no suitable code (note that the validator cannot judge what is suitable) (codes = ${ACT_CODE}#PHARMACY)`,
    );
    // PHARMACY is not an ActCode at all: the code system check says so too.
    expect(result.issues.map((i) => i.messageId)).to.include('Unknown_Code_in_Version');
  });

  it('required: error "None of the codings provided ... is required"; preferred: information; example: nothing', () => {
    const vsLabel = terminology.resolveValueSet(ENCOUNTER_VS)!.label;
    const required = validate(terminology, { valueSet: ENCOUNTER_VS, codings: codeableConcept('_ActCareProvisionCode'), strength: 'required' });
    expect(required.issues[0]).to.deep.include({ severity: 'error', messageId: 'Terminology_TX_NoValid_1_CC' });
    expect(required.issues[0]!.text).to.equal(`None of the codings provided are in the value set ${vsLabel}, and a coding from this value set is required (codes = ${ACT_CODE}#_ActCareProvisionCode)`);
    const preferred = validate(terminology, { valueSet: ENCOUNTER_VS, codings: codeableConcept('_ActCareProvisionCode'), strength: 'preferred' });
    expect(preferred.issues.map((i) => i.severity)).to.deep.equal(['information']);
    const example = validate(terminology, { valueSet: ENCOUNTER_VS, codings: codeableConcept('_ActCareProvisionCode'), strength: 'example' });
    expect(example.issues).to.deep.equal([]);
  });

  it('without a strength, reports only issues about the codings and leaves the binding message to the caller', () => {
    const result = validate(terminology, { valueSet: ENCOUNTER_VS, codings: codeableConcept('PHARMACY') });
    expect(result.valid).to.equal(false);
    expect(result.issues.map((i) => i.messageId)).to.deep.equal(['Unknown_Code_in_Version']);
    expect(validate(terminology, { valueSet: ENCOUNTER_VS, codings: codeableConcept('_ActCareProvisionCode') }).issues).to.deep.equal([]);
  });

  it('words a Coding that is not in the set with the Coding message', () => {
    const result = validate(terminology, { valueSet: GENDER_VS, coding: { system: GENDER_CS, code: 'none' }, elementKind: 'Coding', strength: 'required' });
    expect(result.issues[0]!.text).to.equal(`The Coding provided (${GENDER_CS}#none) is not in the value set ${GENDER_LABEL}, and a code is required from this value set`);
  });

  it('reports a missing code: required → error, extensible → warning with the HL7 text', () => {
    const required = validate(terminology, { valueSet: GENDER_VS, codings: [], strength: 'required' });
    expect(required.issues[0]).to.deep.include({ severity: 'error', messageId: 'Terminology_TX_Code_ValueSet' });
    const extensible = validate(terminology, { valueSet: GENDER_VS, codings: [{ display: 'only text' }], strength: 'extensible' });
    expect(extensible.issues[0]!.severity).to.equal('warning');
    expect(extensible.issues[0]!.text).to.equal(`No code provided, and a code should be provided from the value set ${GENDER_LABEL}`);
  });

  it('warns on a wrong display and accepts the right one whatever its case', () => {
    expect(validate(terminology, { valueSet: GENDER_VS, coding: { system: GENDER_CS, code: 'male', display: 'MALE' } }).issues).to.deep.equal([]);
    const wrong = validate(terminology, { valueSet: GENDER_VS, coding: { system: GENDER_CS, code: 'male', display: 'Man' } });
    expect(wrong.valid).to.equal(true);
    expect(wrong.issues).to.have.length(1);
    expect(wrong.issues[0]).to.deep.include({ severity: 'warning', messageId: 'Display_Name_for__should_be_one_of__instead_of' });
    expect(wrong.issues[0]!.text).to.equal(`Wrong Display Name 'Man' for ${GENDER_CS}#male. Valid display is 'Male' (for the language(s) '--')`);
  });

  it('checks maxValueSet when the code is not in the (preferred) value set', () => {
    const request = { valueSet: 'http://hl7.org/fhir/ValueSet/languages', maxValueSet: 'http://hl7.org/fhir/ValueSet/all-languages', strength: 'preferred' as const, elementKind: 'code' as const };
    const inMax = validate(terminology, { ...request, coding: { code: 'en-GB' } });
    expect(inMax.issues.filter((i) => i.severity === 'error')).to.deep.equal([]);
    const outsideMax = validate(terminology, { ...request, coding: { code: 'qq-XX' } });
    expect(outsideMax.valid).to.equal(false);
    expect(outsideMax.issues.map((i) => i.messageId)).to.include('Terminology_TX_NoValid_10');
  });
});

describe('LocalTerminology: code systems', () => {
  const terminology = new LocalTerminology(r4CoreSource());

  it('rejects an unknown code in a complete code system with the HL7 message', () => {
    const result = validate(terminology, { coding: { system: GENDER_CS, code: 'mal' } });
    expect(result.valid).to.equal(false);
    expect(texts(result)).to.deep.equal([`Unknown code 'mal' in the CodeSystem '${GENDER_CS}' version '4.0.1'`]);
  });

  it('answers "cannot check" with a warning for an unknown code system', () => {
    const result = validate(terminology, { coding: { system: 'http://example.org/unknown-system', code: 'x' } });
    expect(result.valid).to.equal(undefined);
    expect(result.issues[0]).to.deep.include({ severity: 'warning', messageId: 'Terminology_TX_System_Unknown', text: "Unknown Code System 'http://example.org/unknown-system'" });
    const inBinding = validate(terminology, { valueSet: ENCOUNTER_VS, codings: [{ system: 'http://example.org/unknown-system', code: 'x' }], strength: 'extensible' });
    expect(inBinding.valid).to.equal(false);
    expect(texts(inBinding)).to.include("Code System URI 'http://example.org/unknown-system' is unknown so the code cannot be validated");
  });

  it('treats a fragment code system as incomplete: unknown code → warning, not error', () => {
    const system = 'http://terminology.hl7.org/CodeSystem/insurance-plan-type';
    expect(validate(terminology, { coding: { system, code: 'medical' } }).valid).to.equal(true);
    const unknown = validate(terminology, { coding: { system, code: 'veterinary' } });
    expect(unknown.valid).to.equal(undefined);
    expect(unknown.issues.map((i) => [i.severity, i.messageId])).to.deep.equal([['warning', 'UNKNOWN_CODE_IN_FRAGMENT']]);
    // ... and a value set over the fragment cannot say "not a member" either.
    const inSet = validate(terminology, { valueSet: 'http://hl7.org/fhir/ValueSet/insuranceplan-type', codings: [{ system, code: 'veterinary' }], strength: 'required' });
    expect(inSet.valid).to.equal(undefined);
    expect(inSet.issues.some((i) => i.severity === 'error')).to.equal(false);
  });

  it('cannot check a code system with content not-present (SNOMED CT in R4 core)', () => {
    const result = validate(terminology, { coding: { system: 'http://snomed.info/sct', code: '22298006' } });
    expect(result.valid).to.equal(undefined);
    expect(result.issues.map((i) => i.severity)).to.deep.equal(['information']);
  });

  it('answers "cannot check" for LOINC but rejects a LOINC code with a wrong check digit', () => {
    const terminologyWithoutSnomed = new LocalTerminology(new InMemoryConformanceSource());
    const loinc = validate(terminologyWithoutSnomed, { coding: { system: 'http://loinc.org', code: '8480-6' } });
    expect(loinc.valid).to.equal(undefined);
    expect(loinc.issues[0]).to.deep.include({ severity: 'information', messageId: 'Error_validating_code_running_without_terminology_services' });
    expect(validate(terminologyWithoutSnomed, { coding: { system: 'http://loinc.org', code: '8480-7' } }).valid).to.equal(false);
    const rxnorm = validate(terminologyWithoutSnomed, { coding: { system: 'http://www.nlm.nih.gov/research/umls/rxnorm', code: '1049502' } });
    expect(rxnorm.valid).to.equal(undefined);
  });

  it('warns about a coding without a system', () => {
    const result = validate(terminology, { valueSet: ENCOUNTER_VS, codings: [{ code: 'AMB' }], strength: 'required' });
    expect(result.valid).to.equal(undefined);
    expect(result.issues.map((i) => i.messageId)).to.deep.equal(['Coding_has_no_system__cannot_validate']);
  });

  it('knows the built-in systems: BCP-47, BCP-13, UCUM, ISO 3166', () => {
    const check = (system: string, code: string) => validate(terminology, { coding: { system, code } }).valid;
    expect(check('urn:ietf:bcp:47', 'en-US')).to.equal(true);
    expect(check('urn:ietf:bcp:47', 'zh-Hant-TW')).to.equal(true);
    expect(check('urn:ietf:bcp:47', 'qq')).to.equal(false);
    expect(check('urn:ietf:bcp:47', 'en_US')).to.equal(false);
    expect(check('urn:ietf:bcp:13', 'application/fhir+json')).to.equal(true);
    expect(check('urn:ietf:bcp:13', 'text/plain; charset=utf-8')).to.equal(true);
    expect(check('urn:ietf:bcp:13', 'fhir+json')).to.equal(false);
    expect(check('urn:ietf:bcp:13', 'json')).to.equal(true); // FHIR's format shorthand (CapabilityStatement.format)
    expect(check('http://unitsofmeasure.org', 'mg/dL')).to.equal(true);
    expect(check('http://unitsofmeasure.org', 'kg/m2')).to.equal(true);
    expect(check('http://unitsofmeasure.org', 'milligrams')).to.equal(false);
    expect(check('urn:iso:std:iso:3166', 'US')).to.equal(true);
    expect(check('urn:iso:std:iso:3166', 'DEU')).to.equal(true);
    expect(check('urn:iso:std:iso:3166', 'XK')).to.equal(false);
    expect(check('urn:iso:std:iso:3166', '840')).to.equal(undefined); // numeric codes are not in the built-in list
    expect(terminology.isMemberOf({ system: 'urn:iso:std:iso:3166', code: '840' }, 'http://hl7.org/fhir/ValueSet/iso3166-1-N')).to.equal(undefined);
    expect(validate(terminology, { coding: { system: 'urn:ietf:bcp:47', code: 'en-US' } }).display).to.equal('English (United States)');
  });

  it('evaluates the UCUM canonical filter (all-time-units, all-distance-units)', () => {
    const time = 'http://hl7.org/fhir/ValueSet/all-time-units';
    expect(terminology.resolveValueSet(time)!.codes.complete).to.equal(true);
    expect(terminology.isMemberOf({ system: 'http://unitsofmeasure.org', code: 'mo' }, time)).to.equal(true);
    expect(terminology.isMemberOf({ system: 'http://unitsofmeasure.org', code: 'kg' }, time)).to.equal(false);
    expect(terminology.isMemberOf({ system: 'http://unitsofmeasure.org', code: '[in_i]' }, 'http://hl7.org/fhir/ValueSet/all-distance-units')).to.equal(true);
  });

  it('checks mime types through the mimetypes value set, for a plain code', () => {
    expect(validate(terminology, { valueSet: 'http://hl7.org/fhir/ValueSet/mimetypes', coding: { code: 'application/pdf' } }).valid).to.equal(true);
    expect(validate(terminology, { valueSet: 'http://hl7.org/fhir/ValueSet/mimetypes', coding: { code: 'pdf' } }).valid).to.equal(false);
  });

  it('never crashes on malformed input (numbers, nulls, missing parts)', () => {
    const malformed = [
      { valueSet: GENDER_VS, coding: { code: 42 } },
      { valueSet: GENDER_VS, codings: [null, { system: 7, code: 'male' }, 'x'], strength: 'required' },
      { valueSet: GENDER_VS, codings: 'male' },
      { coding: { system: GENDER_CS, code: 'male', display: { text: 'Male' } } },
      { valueSet: 42, coding: { code: 'male' } },
    ] as unknown as ValidateCodeRequest[];
    for (const request of malformed) expect(() => terminology.validateCode(request)).not.to.throw();
    expect(validate(terminology, malformed[3]!).valid).to.equal(true);
  });

  it('keeps a bounded memory of unknown code systems and value sets (they come from the input)', () => {
    const fresh = new LocalTerminology(r4CoreSource());
    for (let i = 0; i < 25_000; i++) fresh.validateCode({ valueSet: `http://example.org/vs/${i}`, coding: { system: `http://example.org/cs/${i}`, code: 'x' } });
    const sizes = fresh as unknown as { valueSets: Map<string, unknown>; codeSystems: Map<string, unknown> };
    expect(sizes.valueSets.size).to.be.at.most(20_000);
    expect(validate(fresh, { valueSet: GENDER_VS, coding: { code: 'male' } }).valid).to.equal(true);
  });

  it("warns with exactly \"Can't find value set <url>\" for a value set it does not hold", () => {
    const result = validate(terminology, { valueSet: 'http://example.org/ValueSet/missing', coding: { code: 'x' } });
    expect(result.valid).to.equal(undefined);
    expect(result.issues).to.deep.equal([{ severity: 'warning', code: 'not-found', messageId: 'Terminology_TX_ValueSet_NotFound', text: "Can't find value set http://example.org/ValueSet/missing" }]);
    expect(terminology.isMemberOf({ code: 'x' }, 'http://example.org/ValueSet/missing')).to.equal(undefined);
  });
});

describe('LocalTerminology: IG value sets (../shared/fhir-packages)', () => {
  const source = new InMemoryConformanceSource(r4TerminologyResources())
    .addAll(packageTerminologyResources('hl7.fhir.us.core.tgz'))
    .addAll(packageTerminologyResources('hl7.fhir.us.qicore.tgz'))
    .addAll(packageTerminologyResources('gov.cdc.nhsn.measures.tgz'));
  const terminology = new LocalTerminology(source);
  const RACE = 'urn:oid:2.16.840.1.113883.6.238';

  it('US Core detailed-race: is-a over the CDC race code system held by US Core, minus its exclude', () => {
    const vs = 'http://hl7.org/fhir/us/core/ValueSet/detailed-race';
    const codes = terminology.resolveValueSet(vs)!.codes;
    expect(codes.complete).to.equal(true);
    expect(codes.size).to.be.greaterThan(800);
    expect(terminology.isMemberOf({ system: RACE, code: '1004-1' }, vs)).to.equal(true); // American Indian, below 1000-9
    expect(terminology.isMemberOf({ system: RACE, code: '2106-3' }, vs)).to.equal(false); // White: an OMB category, excluded
  });

  it('US Core birthsex and the NHSN encounter class value set (explicit concepts)', () => {
    const birthsex = validate(terminology, { valueSet: 'http://hl7.org/fhir/us/core/ValueSet/birthsex', coding: { code: 'F' }, strength: 'required' });
    expect(birthsex.valid).to.equal(true);
    const vs = 'http://www.cdc.gov/nhsn/fhirportal/dqm/ig/ValueSet/ach-encounter-class';
    expect(validate(terminology, { valueSet: vs, coding: { system: ACT_CODE, code: 'EMER' }, elementKind: 'Coding' }).valid).to.equal(true);
    const wrong = validate(terminology, { valueSet: vs, coding: { system: ACT_CODE, code: 'HH' }, elementKind: 'Coding', strength: 'required' });
    expect(wrong.valid).to.equal(false);
    expect(wrong.issues[0]!.text).to.match(/^The Coding provided \(http:\/\/terminology\.hl7\.org\/CodeSystem\/v3-ActCode#HH\) is not in the value set '.+' \(http:\/\/www\.cdc\.gov\/nhsn\/fhirportal\/dqm\/ig\/ValueSet\/ach-encounter-class\|1\.0\.0-cibuild\)/);
  });

  it('US Core condition-category: two whole code systems, one from R4 core and one from US Core', () => {
    const vs = 'http://hl7.org/fhir/us/core/ValueSet/us-core-condition-category';
    expect(terminology.isMemberOf({ system: 'http://terminology.hl7.org/CodeSystem/condition-category', code: 'problem-list-item' }, vs)).to.equal(true);
    expect(terminology.isMemberOf({ system: 'http://hl7.org/fhir/us/core/CodeSystem/condition-category', code: 'health-concern' }, vs)).to.equal(true);
    expect(terminology.isMemberOf({ system: 'http://hl7.org/fhir/us/core/CodeSystem/condition-category', code: 'nope' }, vs)).to.equal(false);
  });

  it('cannot check a QI-Core value set importing VSAC value sets that are not here (no error)', () => {
    const result = validate(terminology, {
      valueSet: 'http://hl7.org/fhir/us/qicore/ValueSet/qicore-negation-reason',
      codings: [{ system: 'http://snomed.info/sct', code: '183932001' }], strength: 'extensible',
    });
    expect(result.valid).to.equal(undefined);
    expect(result.issues.every((i) => i.severity !== 'error')).to.equal(true);
    // The missing imported value set is named with the specification's warning.
    expect(result.issues.map((i) => [i.severity, i.text])).to.deep.include(['warning', "Can't find value set http://cts.nlm.nih.gov/fhir/ValueSet/2.16.840.1.113762.1.4.1021.56"]);
    expect(terminology.answersCompletely({ valueSet: 'http://hl7.org/fhir/us/qicore/ValueSet/qicore-negation-reason' })).to.equal(false);
  });

  it('prefers a loaded code system with content over a not-present one (hl7.terminology), and built-ins over both', () => {
    // hl7.terminology loaded last: its content-less CDC race and ISO 3166 code systems win the plain lookup.
    const withTerminologyPackage = new LocalTerminology(new InMemoryConformanceSource([...source.all('CodeSystem'), ...source.all('ValueSet')])
      .addAll(packageTerminologyResources('hl7.terminology.r4.tgz')));
    expect(source.codeSystem(RACE)?.content).to.equal('complete');
    expect(withTerminologyPackage.codeSystem(RACE)!.content).to.equal('complete');
    expect(withTerminologyPackage.isMemberOf({ system: RACE, code: '1004-1' }, 'http://hl7.org/fhir/us/core/ValueSet/detailed-race')).to.equal(true);
    expect(validate(withTerminologyPackage, { coding: { system: 'urn:iso:std:iso:3166', code: 'FR' } }).valid).to.equal(true);
    expect(validate(withTerminologyPackage, { coding: { system: 'urn:ietf:bcp:47', code: 'en-GB' } }).valid).to.equal(true);
    expect(validate(withTerminologyPackage, { coding: { system: 'http://loinc.org', code: '8480-7' } }).valid).to.equal(false);
  });

  it('US Core simple-language: filters on the parts of BCP-47 tags (no script, variant, extension, private use)', () => {
    const vs = 'http://hl7.org/fhir/us/core/ValueSet/simple-language';
    expect(terminology.resolveValueSet(vs)!.codes.complete).to.equal(true);
    const check = (code: string) => validate(terminology, { valueSet: vs, coding: { code }, elementKind: 'code', strength: 'extensible' }).valid;
    expect(check('en')).to.equal(true);
    expect(check('en-US')).to.equal(true);
    expect(check('zh-Hant')).to.equal(false); // a script
    expect(check('de-CH-1996')).to.equal(false); // a variant
    expect(check('en-US-x-twain')).to.equal(false); // private use
    expect(check('qq')).to.equal(false); // not a language
  });

  it('US Core smoking status codes: explicit LOINC concept is a member although LOINC is not held', () => {
    const vs = 'http://hl7.org/fhir/us/core/ValueSet/us-core-smoking-status-observation-codes';
    expect(validate(terminology, { valueSet: vs, codings: [{ system: 'http://loinc.org', code: '72166-2' }] }).valid).to.equal(true);
    expect(validate(terminology, { valueSet: vs, codings: [{ system: 'http://loinc.org', code: '8480-6' }] }).valid).to.equal(false);
    expect(terminology.answersCompletely({ valueSet: vs })).to.equal(true);
  });
});

describe('LocalTerminology: compose features on made-up resources', () => {
  const system = 'http://example.org/CodeSystem/colours';
  const codeSystem: CanonicalResource = {
    resourceType: 'CodeSystem', url: system, version: '2', caseSensitive: true, content: 'complete',
    property: [{ code: 'warm', type: 'boolean' }, { code: 'parent', type: 'code' }],
    concept: [
      { code: 'colour', display: 'Colour' },
      { code: 'red', display: 'Red', designation: [{ language: 'de', value: 'Rot' }], property: [{ code: 'warm', valueBoolean: true }, { code: 'parent', valueCode: 'colour' }] },
      { code: 'crimson', display: 'Crimson', property: [{ code: 'warm', valueBoolean: true }, { code: 'parent', valueCode: 'red' }] },
      { code: 'blue', display: 'Blue', property: [{ code: 'warm', valueBoolean: false }, { code: 'parent', valueCode: 'colour' }] },
    ],
  };
  const valueSet = (id: string, body: Record<string, unknown>): CanonicalResource => ({ resourceType: 'ValueSet', url: `http://example.org/ValueSet/${id}`, version: '1', title: id, ...body });
  const source = new InMemoryConformanceSource([
    { resourceType: 'CodeSystem', url: system, version: '1', caseSensitive: true, content: 'complete', concept: [{ code: 'red', display: 'Red' }, { code: 'ochre', display: 'Ochre' }] },
    codeSystem,
    valueSet('version-1', { compose: { include: [{ system, version: '1' }] } }),
    valueSet('warm', { compose: { include: [{ system, filter: [{ property: 'warm', op: '=', value: 'true' }] }] } }),
    valueSet('below-red', { compose: { include: [{ system, filter: [{ property: 'concept', op: 'is-a', value: 'red' }] }] } }),
    valueSet('above-crimson', { compose: { include: [{ system, filter: [{ property: 'concept', op: 'generalizes', value: 'crimson' }] }] } }),
    valueSet('regex', { compose: { include: [{ system, filter: [{ property: 'concept', op: 'regex', value: '(a+)+b|bl.*' }] }] } }),
    valueSet('in', { compose: { include: [{ system, filter: [{ property: 'concept', op: 'in', value: 'red,blue' }] }] } }),
    valueSet('has-parent', { compose: { include: [{ system, filter: [{ property: 'parent', op: 'exists', value: 'true' }] }] } }),
    valueSet('imports', { compose: { include: [{ valueSet: ['http://example.org/ValueSet/warm', 'http://example.org/ValueSet/in'] }] } }),
    valueSet('expanded', { expansion: { contains: [{ system: 'http://loinc.org', code: '8480-6', display: 'Systolic blood pressure' }, { system, code: 'blue' }] } }),
    valueSet('cycle', { compose: { include: [{ valueSet: ['http://example.org/ValueSet/cycle'] }] } }),
    valueSet('bad-regex', { compose: { include: [{ system, filter: [{ property: 'concept', op: 'regex', value: '([a-z' }] }] } }),
    valueSet('no-blue', { compose: { include: [{ system }], exclude: [{ system, concept: [{ code: 'blue' }] }] } }),
    valueSet('listed', { compose: { include: [{ system, concept: [{ code: 'red' }] }] } }),
  ]);
  const terminology = new LocalTerminology(source);
  const members = (id: string) => [...terminology.resolveValueSet(`http://example.org/ValueSet/${id}`)!.codes.entries()].map((e) => e.code).sort();

  it('filters on properties, hierarchy (parent property), regex (RE2), in and exists', () => {
    expect(members('warm')).to.deep.equal(['crimson', 'red']);
    expect(members('below-red')).to.deep.equal(['crimson', 'red']);
    expect(members('above-crimson')).to.deep.equal(['colour', 'crimson', 'red']);
    expect(members('regex')).to.deep.equal(['blue']);
    expect(members('in')).to.deep.equal(['blue', 'red']);
    expect(members('has-parent')).to.deep.equal(['blue', 'crimson', 'red']);
  });

  it('expands an include against the code system version it names, and checks a coding against its version', () => {
    expect(members('version-1')).to.deep.equal(['ochre', 'red']);
    expect(validate(terminology, { coding: { system, version: '1', code: 'ochre' } }).valid).to.equal(true);
    expect(validate(terminology, { coding: { system, code: 'ochre' } }).valid).to.equal(false); // the newest (2) has no ochre
    expect(validate(terminology, { coding: { system, version: '2', code: 'ochre' } }).issues[0]!.text).to.equal(`Unknown code 'ochre' in the CodeSystem '${system}' version '2'`);
  });

  it('a plain code outside a required value set: one issue when the value set implies its system (HL7 infers it), two when it cannot', () => {
    const url = (id: string) => `http://example.org/ValueSet/${id}`;
    // 'blue' is in the one code system the value set includes (and excluded again): HL7 infers the
    // system, judges the code there, and reports only the binding issue
    const excluded = validate(terminology, { valueSet: url('no-blue'), coding: { code: 'blue' }, strength: 'required' });
    expect(excluded.valid).to.equal(false);
    expect(excluded.issues.map((i) => i.messageId)).to.deep.equal(['Terminology_TX_NoValid_16']);
    expect(excluded.issues[0]!.text).to.match(new RegExp(`\\(error message = The provided code '${system}#blue' was not found in the value set '${url('no-blue')}\\|1'\\)$`));
    // no include has 'crimson' (the list names only red) or 'purple': the system cannot be determined, an issue of its own
    for (const code of ['crimson', 'purple']) {
      const unknown = validate(terminology, { valueSet: url('listed'), coding: { code }, strength: 'required' });
      expect(unknown.issues.map((i) => i.messageId), code).to.deep.equal(['Terminology_TX_NoValid_16', 'Unable_to_resolve_system__value_set_has_no_matches']);
    }
    const purple = validate(terminology, { valueSet: url('no-blue'), coding: { code: 'purple' }, strength: 'required' });
    expect(purple.issues.map((i) => i.messageId)).to.deep.equal(['Terminology_TX_NoValid_16', 'Unable_to_resolve_system__value_set_has_no_matches']);
  });

  it('intersects imported value sets', () => {
    expect(members('imports')).to.deep.equal(['red']);
  });

  it('honours a stored expansion', () => {
    expect(terminology.isMemberOf({ system: 'http://loinc.org', code: '8480-6' }, 'http://example.org/ValueSet/expanded')).to.equal(true);
    expect(terminology.isMemberOf({ system: 'http://loinc.org', code: '8462-4' }, 'http://example.org/ValueSet/expanded')).to.equal(false);
  });

  it('cannot check (rather than crash on) a filter whose regex does not compile', () => {
    const codes = terminology.resolveValueSet('http://example.org/ValueSet/bad-regex')!.codes;
    expect(codes.complete).to.equal(false);
    expect(codes.membership(system, 'red')).to.deep.include({ status: 'unknown' });
  });

  it('survives a value set that imports itself', () => {
    expect(terminology.isMemberOf({ system, code: 'red' }, 'http://example.org/ValueSet/cycle')).to.equal(undefined);
  });

  it('accepts any designation as display, and a versioned canonical', () => {
    const result = validate(terminology, { valueSet: 'http://example.org/ValueSet/warm|1', coding: { system, code: 'red', display: 'Rot' } });
    expect(result).to.deep.include({ valid: true, display: 'Red' });
    expect(result.issues).to.deep.equal([]);
    const wrong = validate(terminology, { coding: { system, code: 'red', display: 'Rouge' } });
    expect(wrong.issues[0]!.text).to.equal(`Wrong Display Name 'Rouge' for ${system}#red. Valid display is one of 2 choices: 'Red' or 'Rot' (de) (for the language(s) '--')`);
  });
});
