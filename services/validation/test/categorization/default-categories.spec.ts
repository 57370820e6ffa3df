import { expect } from 'chai';
import { defaultCategories } from '#validation/application/default-categories.js';
import { Categorizer } from '#validation/domain/categorization/categorizer.js';
import { parseMatcher } from '#validation/domain/categorization/matcher.js';
import { MESSAGES, type MessageId } from '#validation/domain/engine/messages.js';
import { messageIdOf } from '#validation/domain/engine/message-ids.js';
import { fillTemplate, wordedTemplate } from '#validation/domain/engine/wording.js';

/** Messages worded as the HL7 validator (and our engine) word them, with the category each should land in. */
const EXAMPLES: [severity: string, code: string, message: string, expression: string, expected: string[]][] = [
  ['warning', 'code-invalid', "Wrong Display Name 'Inpatient' for http://terminology.hl7.org/CodeSystem/v3-ActCode#IMP. Valid display is 'inpatient encounter' (for the language(s) 'en')", 'Encounter.class', ['display_text_mismatch']],
  ['information', 'code-invalid', "Code System URI 'urn:oid:1.2.840.114350.1.13.1.1.7.10.698084.30' is unknown so the code cannot be validated", 'Encounter.type[0].coding[1]', ['ehr_local_code_system']],
  ['error', 'code-invalid', "Unknown Code System 'http://example.org/local'", 'Condition.code.coding[0].system', ['ehr_local_code_system']],
  ['error', 'code-invalid', "Unknown code '12345-X' in the CodeSystem 'http://loinc.org'", 'Observation.code.coding[0]', ['unknown_code_in_code_system']],
  ['warning', 'code-invalid', "Unknown Code 'x' in the system 'http://s' version '1' - note that the code system is labeled as a fragment, so the code may be valid in some other fragment", 'Observation.code', ['code_system_without_content']],
  ['information', 'not-supported', "Unable to validate code '2160-0' in system 'http://loinc.org' because the validator is running without terminology services", 'Observation.code.coding[0]', ['code_not_checked_without_terminology_server']],
  ['error', 'code-invalid', "None of the codings provided are in the value set 'Encounter Status' (http://hl7.org/fhir/ValueSet/encounter-status|4.0.1), and a coding from this value set is required) (codes = x#y)", 'Encounter.status', ['code_not_in_required_value_set']],
  ['error', 'code-invalid', "The value provided ('arrived2') was not found in the value set 'EncounterStatus' (http://hl7.org/fhir/ValueSet/encounter-status|4.0.1), and a code is required from this value set", 'Encounter.status', ['code_not_in_required_value_set']],
  ['warning', 'code-invalid', "None of the codings provided are in the value set 'US Core Condition Codes' (http://hl7.org/fhir/us/core/ValueSet/us-core-condition-code|3.1.1), and a coding should come from this value set unless it has no suitable code (note that the validator cannot judge what is suitable) (codes = urn:oid:1.2.3#99)", 'Condition.code', ['code_not_in_extensible_value_set']],
  ['information', 'code-invalid', "None of the codings provided are in the value set 'Marital Status' (http://hl7.org/fhir/ValueSet/marital-status|4.0.1), and a coding is recommended to come from this value set (codes = x#y)", 'Patient.maritalStatus', ['code_not_in_preferred_value_set']],
  ['error', 'code-invalid', "No code provided, and a code is required from the value set 'X' (http://x|1)", 'Encounter.class', ['missing_required_code']],
  ['warning', 'code-invalid', "No code provided, and a code should be provided from the value set 'Identifier Type Codes' (http://hl7.org/fhir/ValueSet/identifier-type|4.0.1)", 'Patient.identifier[0].type', ['missing_recommended_code']],
  ['warning', 'not-found', "Can't find value set http://cts.nlm.nih.gov/fhir/ValueSet/2.16.840.1.113762.1.4.1", 'Condition.code', ['value_set_not_available']],
  ['warning', 'code-invalid', 'Coding has no system. A code with no system has no defined meaning, and it cannot be validated. A system should be provided', 'Observation.code.coding[0]', ['coding_without_system']],
  ['warning', 'not-found', "Can't find profile https://www.cdc.gov/nhsn/nhsn-measures/StructureDefinition/nhsn-measurereport-bundle", 'Bundle.meta.profile[0]', ['nhsn_bundle_profile_unpublished_url']],
  ['warning', 'not-found', "Can't find profile https://www.cdc.gov/nhsn/nhsn-measures/StructureDefinition/nhsn-measurereport-bundle|1.0.0", 'Bundle.meta.profile[0]', ['nhsn_bundle_profile_unpublished_url']],
  ['warning', 'not-found', "Can't find profile http://vendor.example/StructureDefinition/x", 'Patient.meta.profile[0]', ['profile_not_available']],
  // Only the Bundle profile is legitimately missing: other NHSN profiles under the old URL, or a URL one character off, are not.
  ['warning', 'not-found', "Can't find profile https://www.cdc.gov/nhsn/nhsn-measures/StructureDefinition/nhsn-submitting-organization", 'Organization.meta.profile[0]', ['profile_not_available']],
  ['warning', 'not-found', "Can't find profile https://www.cdc.gov/nhsn/nhsn-measures/StructureDefinition/nhsn-measurereport-bundle-v2", 'Bundle.meta.profile[0]', ['profile_not_available']],
  ['warning', 'not-found', "Can't find profile http://www.cdc.gov/nhsn/fhirportal/dqm/ig/StructureDefinition/ach-patient-does-not-exist", 'Patient.meta.profile[0]', ['profile_not_available']],
  ['warning', 'not-found', "Profile reference 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient|9.9.9' has not been checked because it is unknown", 'Bundle.entry[0].resource', ['profile_not_available']],
  ['error', 'structure', 'Encounter.class: minimum required = 1, but only found 0 (from http://www.cdc.gov/nhsn/fhirportal/dqm/ig/StructureDefinition/ach-encounter|1.0.0)', 'Encounter', ['missing_required_element']],
  ['error', 'structure', 'Bundle.entry:patient: minimum required = 1, but only found 0 (from http://www.cdc.gov/nhsn/fhirportal/dqm/ig/StructureDefinition/nhsn-measurereport-bundle|1.0.0)', 'Bundle', ['bundle_entry_minimum_not_met']],
  ['error', 'structure', 'Patient.gender: max allowed = 1, but found 2 (from http://x)', 'Patient', ['too_many_repetitions']],
  ['error', 'structure', "Unrecognized property 'foo'", 'Patient.foo', ['unexpected_or_mistyped_element']],
  ['error', 'invariant', "Rule per-1: 'If present, start SHALL have a lower value than end' Failed", 'Encounter.period', ['profile_constraint_failed']],
  ['warning', 'invariant', "Rule dom-6: 'A resource should have narrative for robust management' Failed (Best Practice Recommendation)", 'Patient', ['best_practice_not_followed']],
  ['information', 'informational', 'Unknown extension http://open.epic.com/FHIR/StructureDefinition/extension/x', 'Patient.extension[0]', ['unknown_extension']],
  ['error', 'structure', 'The extension http://x could not be found so is not allowed here', 'Patient.extension[0]', ['unknown_extension']],
  ['error', 'structure', 'The modifier extension http://x is unknown, and not allowed here', 'Patient.modifierExtension[0]', ['unknown_modifier_extension']],
  ['information', 'informational', 'This element does not match any known slice defined in the profile http://x|1', 'Patient.identifier[1]', ['additional_data_beyond_profile']],
  ['error', 'structure', 'This element does not match any known slice defined in the profile http://x|1 and slicing is CLOSED: y', 'Patient.identifier[1]', ['slicing_rule_violated']],
  ['warning', 'structure', 'A Reference without an actual reference or identifier should have a display', 'MedicationRequest.requester', ['reference_without_display']],
  ['warning', 'structure', "Unable to resolve resource with reference 'Practitioner/123'", 'Encounter.participant[0].individual', ['reference_target_not_in_submission']],
  ['error', 'structure', "Unable to resolve resource with reference '#med1'", 'MedicationRequest.medicationReference', ['contained_resource_problem']],
  ['error', 'invalid', "Duplicate id value 'abc'", 'Bundle.entry[4].resource', ['duplicate_resource']],
  ['warning', 'value', "value should not start or finish with whitespace 'Smith '", "Bundle.entry[2].resource.ofType(Patient).where(id = 'p1').name[0].family", ['patient_whitespace']],
  ['warning', 'value', "value should not start or finish with whitespace 'Smith '", 'Patient.name[0].family', ['patient_whitespace']],
  ['warning', 'value', "value should not start or finish with whitespace 'ICU '", 'Location.name', ['whitespace_in_value']],
  ['error', 'invalid', 'If a date has a time, it must have a timezone', 'Encounter.period.start', ['time_without_time_zone']],
  ['error', 'invalid', "Not a valid date format: '2024-13-01'", 'Patient.birthDate', ['invalid_value_format']],
  ['warning', 'value', "The value '1789-01-01' is outside the range of reasonable years - check for data entry error", 'Patient.birthDate', ['implausible_value']],
  ['warning', 'security', 'The string value contains text that looks like embedded HTML tags, which are not allowed for security reasons in this context', 'Observation.note[0].text', ['markup_in_text']],
  ['warning', 'not-found', "Canonical URL 'http://www.cdc.gov/nhsn/fhirportal/dqm/ig/Measure/NHSNdQMAcuteCareHospitalInitialPopulation|0.0.014' does not resolve", 'MeasureReport.measure', ['unresolved_canonical_url']],
  ['warning', 'invalid', 'This content includes the character [1] (hex value). This character is illegal in the XML version of FHIR, and there is generally no valid use for such characters', 'Coverage.beneficiary.display', ['control_characters_in_text']],
  ['error', 'value', "Value is 'x' but must be 'y'", 'Encounter.status', ['fixed_or_pattern_value_mismatch']],
  ['error', 'value', 'The value in the instance (5) is less than the specified minimum value (10)', 'Observation.valueInteger', ['value_outside_profile_limits']],
  ['error', 'value', 'integer value is greater than permitted maximum value of 5', 'Patient.multipleBirthInteger', ['value_outside_profile_limits']],
  ['error', 'value', 'The value in the instance (5 g) is less than the specified minValue (10 kg) after UCUM conversion', 'Observation.valueQuantity', ['value_outside_profile_limits']],
  ['error', 'invalid', "Invalid element name in the XHTML ('script')", 'Patient.text.div', ['invalid_narrative_xhtml']],
  ['error', 'value', 'The value 5 is less than the allowed minimum of 10', 'QuestionnaireResponse.item[0].answer[0]', ['questionnaire_response_problem']],
  ['error', 'business-rule', "No measureScore when the scoring of the message is 'cohort'", 'MeasureReport.group[0]', ['measure_score_with_cohort']],
  ['error', 'code-invalid', "The code 'X' is not valid in the value set (for 'http://loinc.org#1234-5')", 'Observation.code', ['terminology_server_finding']],
  ['error', 'structure', "Canonical URL 'http://x' refers to a resource that has the wrong type. Found ValueSet expecting one of [Questionnaire]", 'QuestionnaireResponse.questionnaire', ['invalid_reference']],
  ['error', 'structure', "Reference is internal which isn't supported by the specified aggregation mode(s) for the reference (contained)", 'Encounter.subject', ['invalid_reference']],
  ['error', 'required', 'Bundled or contained reference not found within the bundle/resource Patient/absent', 'Encounter.subject', ['invalid_reference']],
];

describe('validation: bundled default categories', () => {
  it('load through the import parser with unique ids and guidance within limits', () => {
    const categories = defaultCategories();
    expect(categories.length).to.be.greaterThan(30);
    expect(new Set(categories.map((c) => c.id)).size).to.equal(categories.length);
    for (const category of categories) {
      expect(category.guidance.length, category.id).to.be.within(40, 1000);
      expect(category.id).to.match(/^[a-z0-9_]+$/);
    }
    expect(categories.some((c) => c.acceptable) && categories.some((c) => !c.acceptable)).to.equal(true);
  });

  const categorizer = new Categorizer(defaultCategories().map((snapshot) => ({ category: snapshot, matcher: parseMatcher(snapshot.matcher) })));
  for (const [severity, code, message, expression, expected] of EXAMPLES) {
    it(`categorizes "${message.slice(0, 70)}" as ${expected.join(', ')}`, () => {
      expect(categorizer.categoriesOf({ severity, code, message, expression }).map((c) => c.id)).to.deep.equal(expected);
    });
  }

  it('tells a `#id` URL that names nothing inside the resource (a data error, when HL7 makes it an error) from a definition the platform lacks, in either wording', () => {
    const of = (message: string, messageId: string, severity = 'error') => categorizer.categoriesOf({ severity, code: 'invalid', message, expression: 'Patient.implicitRules', messageId }).map((c) => c.id);
    expect(of("URL value '#nowhere' does not resolve", 'Type_Specific_Checks_DT_URL_Resolve')).to.deep.equal(['unresolved_internal_url']);
    expect(of("No definition could be found for URL value '#nowhere'", 'Type_Specific_Checks_DT_URL_Resolve')).to.deep.equal(['unresolved_internal_url']);
    // a canonical #id HL7 reports as a warning only: not blocking
    expect(of("Canonical URL '#plan' does not resolve", 'TYPE_SPECIFIC_CHECKS_DT_CANONICAL_RESOLVE', 'warning')).to.deep.equal(['unresolved_canonical_url']);
    expect(of("Canonical URL '#plan' does not resolve", 'TYPE_SPECIFIC_CHECKS_DT_CANONICAL_RESOLVE', 'error')).to.deep.equal(['unresolved_internal_url']);
    expect(of("A definition could not be found for Canonical URL 'http://example.org/PlanDefinition/p'", 'TYPE_SPECIFIC_CHECKS_DT_CANONICAL_RESOLVE', 'warning')).to.deep.equal(['unresolved_canonical_url']);
    expect(of("URL value 'http://other.org/x' does not resolve", 'Type_Specific_Checks_DT_URL_Resolve', 'warning')).to.deep.equal(['unresolved_canonical_url']);
    // HL7 only warns about a #id in meta.source (a server's request id): acceptable, not a data error
    expect(of("URL value '#8VT59CPwUir1ahuR' does not resolve", 'Type_Specific_Checks_DT_URL_Resolve', 'warning')).to.deep.equal(['unresolved_canonical_url']);
  });

  it('puts malformed code system URLs, identifier systems, repeated security labels and narrative links that go nowhere in categories that block', () => {
    const of = (message: string, messageId: string, severity = 'error') => categorizer.categoriesOf({ severity, code: 'code-invalid', message, expression: 'Patient.meta.tag[0]', messageId }).map((c) => [c.id, c.acceptable]);
    expect(of("The system URL 'https://loinc.org' wrongly starts with https: not http:", 'TERMINOLOGY_TX_SYSTEM_HTTPS')).to.deep.equal([['invalid_code_system_url', false]]);
    expect(of('Coding.system must be an absolute reference, not a local reference', 'Terminology_TX_System_Relative')).to.deep.equal([['invalid_code_system_url', false]]);
    expect(of("Unknown Code System 'http://hl7.org/fhir/no-such-system'", 'Terminology_TX_System_Unknown')).to.deep.equal([['invalid_code_system_url', false]]);
    // an EHR's own system stays an acceptable finding
    expect(of("Unknown Code System 'urn:oid:1.2.840.114350.1'", 'Terminology_TX_System_Unknown', 'warning')).to.deep.equal([['ehr_local_code_system', true]]);
    expect(of('Identifier.system must be an absolute reference, not a local reference', 'Type_Specific_Checks_DT_Identifier_System')).to.deep.equal([['invalid_identifier_system', false]]);
    expect(of('Duplicate Security Label http://s#R', 'Meta_RES_Security_Duplicate')).to.deep.equal([['duplicate_security_label', false]]);
    expect(of("Hyperlink '#x' at 'div/a' for 'y' does not resolve", 'Type_Specific_Checks_DT_XHTML_Resolve')).to.deep.equal([['invalid_narrative_xhtml', false]]);
    expect(of("Image source '#x' at 'Patient.text.div/img' does not resolve", 'Type_Specific_Checks_DT_XHTML_Resolve_Img')).to.deep.equal([['invalid_narrative_xhtml', false]]);
    expect(of("Invalid element name inside a paragraph in the XHTML ('ul')", 'XHTML_XHTML_ELEMENT_ILLEGAL_IN_PARA')).to.deep.equal([['invalid_narrative_xhtml', false]]);
  });

  it('lets a code without a system inside an extension pass, and blocks one elsewhere', () => {
    const text = 'A code with no system has no defined meaning, and it cannot be validated. A system should be provided';
    const of = (expression: string) => categorizer.categoriesOf({ severity: 'warning', code: 'code-invalid', message: text, expression, messageId: 'TERMINOLOGY_TX_SYSTEM_NO_CODE' }).map((c) => [c.id, c.acceptable]);
    expect(of("Bundle.entry[3].resource.ofType(Encounter).where(id = 'e1').extension[0].value.ofType(Coding)")).to.deep.equal([['code_without_system_in_extension', true]]);
    expect(of('Patient.meta.tag[0]')).to.deep.equal([['coding_without_system', false]]);
  });

  it('leaves an unknown kind of message uncategorized', () => {
    expect(categorizer.categoriesOf({ severity: 'error', code: 'processing', message: 'Something nobody has seen before' }).map((c) => c.id))
      .to.deep.equal(['uncategorized']);
  });
});

describe('validation: default categories under either wording', () => {
  const categorizer = new Categorizer(defaultCategories().map((snapshot) => ({ category: snapshot, matcher: parseMatcher(snapshot.matcher) })));
  // Neutral arguments: the same in both wordings, so only the template differs.
  const ARGS = ['http://example.org/fhir/x', 'Patient.name', '2', '1', 'http://example.org/fhir/y', 'z', 'w', 'v'];

  it('put every message the engine emits into the same categories in the HAPI wording and in the HL7 wording', () => {
    const differing: string[] = [];
    let compared = 0;
    for (const key of Object.keys(MESSAGES) as MessageId[]) {
      const hapiTemplate = wordedTemplate(key, 'hapi');
      const hl7Template = wordedTemplate(key, 'hl7');
      if (hapiTemplate === undefined || hl7Template === undefined || hapiTemplate === hl7Template) continue;
      compared += 1;
      for (const severity of ['error', 'warning', 'information']) {
        const issue = (template: string) => ({ severity, code: MESSAGES[key].code, message: fillTemplate(template, ARGS), expression: 'Patient.extension[0]', messageId: messageIdOf(key, ARGS) });
        const hapi = categorizer.categoriesOf(issue(hapiTemplate)).map((c) => c.id);
        const hl7 = categorizer.categoriesOf(issue(hl7Template)).map((c) => c.id);
        if (JSON.stringify(hapi) !== JSON.stringify(hl7)) differing.push(`${key} (${severity}): hapi ${hapi.join(',')} / hl7 ${hl7.join(',')}`);
      }
    }
    expect(compared, 'templates that differ between the wordings').to.be.greaterThan(10);
    expect(differing).to.deep.equal([]);
  });
});
