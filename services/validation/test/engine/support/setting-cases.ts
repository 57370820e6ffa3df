/**
 * One case per HL7 validator setting (ValidationSettings): a resource (and the supporting resources
 * it needs), the setting as each entrance takes it (a configuration's / $validate's name and value,
 * the CLI's flags, the HL7 test manifest's key for `--options`), and the issue the setting makes
 * appear or disappear, as the HL7 validator's setting does. The CLI spec and the $validate spec run
 * every case through their entrance, with and without the setting. Texts are matched in both
 * wordings (docs/message-wording.md), as the active one depends on the process.
 */
import type { ValidationSettings } from '#validation/domain/engine/validator-options.js';
import type { ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import { profile } from './helpers.js';

type Obj = Record<string, unknown>;

export interface SettingCase {
  readonly setting: keyof ValidationSettings;
  /** What the HL7 validator does with the setting, which the case shows. */
  readonly behaviour: string;
  /** The resource, or JSON text (for what only text can carry: comments). */
  readonly resource: Obj | string;
  readonly supporting?: readonly Obj[];
  /** The setting in our name and JSON value (configuration `settings`, $validate Parameters body). */
  readonly value: unknown;
  /** The setting as $validate query parameters. */
  readonly query: Readonly<Record<string, string | readonly string[]>>;
  /** The setting as the CLI's flags (named after the HL7 CLI's). */
  readonly flags: readonly string[];
  /** The setting as the HL7 test manifest writes it (the harness's `--options`), when it has a key. */
  readonly manifest?: Readonly<Obj>;
  /** The issue the setting changes (`*`: at any severity): it is found with the setting (`appears: 'with'`) or without it. */
  readonly issue: { readonly severity: string; readonly text: RegExp };
  readonly appears: 'with' | 'without';
  /** What the run "without" the setting gives instead through $validate, when the service's default is not the HL7 CLI's. */
  readonly baseline?: { readonly value: unknown; readonly query: Readonly<Record<string, string>> };
  /** Why a $validate test cannot show it (the case is then run through the CLI only). */
  readonly notThroughHttp?: string;
}

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };

const EXAMPLE_CS = 'http://fruit.test/CodeSystem/fruit';
const EXAMPLE_VS = 'http://fruit.test/ValueSet/fruit';
const fruitCodeSystem = {
  resourceType: 'CodeSystem', id: 'fruit', url: EXAMPLE_CS, name: 'Fruit', status: 'active', content: 'complete', caseSensitive: true,
  concept: [{ code: 'apple', display: 'Apple', designation: [{ language: 'de', value: 'Apfel' }] }],
};
const fruitValueSet = { resourceType: 'ValueSet', id: 'fruit', url: EXAMPLE_VS, name: 'Fruit', status: 'active', compose: { include: [{ system: EXAMPLE_CS }] } };
const FRUIT_BASIC = 'http://fruit.test/StructureDefinition/fruit-basic';
const fruitBasic = profile(FRUIT_BASIC, 'Basic', [{ id: 'Basic.code', path: 'Basic.code', binding: { strength: 'required', valueSet: EXAMPLE_VS } }]);
const GENDERED = 'http://settings.test/StructureDefinition/gendered-patient';
const genderedPatient = profile(GENDERED, 'Patient', [{ id: 'Patient.gender', path: 'Patient.gender', min: 1 }]);

const SUBJECT_GENDERED = 'http://settings.test/StructureDefinition/observation-of-gendered';
const subjectGendered = profile(SUBJECT_GENDERED, 'Observation', [
  { id: 'Observation.subject', path: 'Observation.subject', type: [{ code: 'Reference', targetProfile: [GENDERED] }] },
]);

const questionnaire = {
  resourceType: 'Questionnaire', id: 'q', url: 'http://forms.test/Questionnaire/who', status: 'active',
  item: [{
    linkId: 'who', type: 'reference', text: 'Who?',
    extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/questionnaire-referenceResource', valueCode: 'Patient' }],
  }],
};

const BUNDLED_SUBJECT = 'http://settings.test/StructureDefinition/encounter-bundled-subject';
const bundledSubject = profile(BUNDLED_SUBJECT, 'Encounter', [
  { id: 'Encounter.subject', path: 'Encounter.subject', type: [{ code: 'Reference', targetProfile: ['http://hl7.org/fhir/StructureDefinition/Patient'], aggregation: ['bundled'] }] },
]);

export const SETTING_CASES: readonly SettingCase[] = [
  {
    setting: 'bestPractice', behaviour: 'best-practice invariants (dom-6: a narrative) are reported at the level given: error makes them errors',
    resource: { resourceType: 'Patient', id: 'p' }, value: 'error', query: { bestPractice: 'error' }, flags: ['-best-practice', 'error'],
    manifest: { 'best-practice': 'Error' }, issue: { severity: 'error', text: /dom-6/ }, appears: 'with',
  },
  {
    setting: 'extensionDomains', behaviour: 'an unknown extension from an allowed domain is accepted (otherwise an error)',
    resource: { resourceType: 'Patient', id: 'p', text: narrative, extension: [{ url: 'http://ext.settings.test/fhir/StructureDefinition/x', valueString: 'a' }] },
    value: ['http://ext.settings.test/fhir/'], query: { extensionDomains: 'http://ext.settings.test/fhir/' }, flags: ['-extension', 'http://ext.settings.test/fhir/'],
    manifest: { 'allowed-extension-domain': 'http://ext.settings.test/fhir/' }, issue: { severity: 'error', text: /(could not be found so is not allowed here|is unknown, and not allowed here)/ }, appears: 'without',
  },
  {
    setting: 'allowExampleUrls', behaviour: 'a URL on an example host is refused when example URLs are not allowed',
    resource: { resourceType: 'DocumentReference', id: 'd', text: narrative, status: 'current', content: [{ attachment: { contentType: 'application/pdf', url: 'http://repository.example.org/fhir/Binary/1' } }] },
    value: false, query: { allowExampleUrls: 'false' }, flags: ['-allow-example-urls', 'false'], manifest: { examples: false },
    issue: { severity: 'error', text: /Example URLs are not allowed/ }, appears: 'with',
  },
  {
    setting: 'assumeValidRestReferences', behaviour: 'a `Type/id` reference is taken to be of that type, so a Questionnaire\'s allowed reference types are checked',
    resource: { resourceType: 'QuestionnaireResponse', id: 'qr', text: narrative, status: 'completed', questionnaire: questionnaire.url, item: [{ linkId: 'who', answer: [{ valueReference: { reference: 'Practitioner/1' } }] }] },
    supporting: [questionnaire], value: true, query: { assumeValidRestReferences: 'true' }, flags: ['-assumeValidRestReferences'], manifest: { assumeValidRestReferences: true },
    issue: { severity: 'error', text: /Practitioner.*(not one of the allowed resource types|is not allowed \(allowed = Patient\))/ }, appears: 'with',
  },
  {
    setting: 'referencePolicy', behaviour: 'a reference outside the resource must resolve (through the fetcher) when the policy checks existence',
    resource: { resourceType: 'Observation', id: 'o', text: narrative, status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/absent' }, performer: [{ reference: 'Patient/known' }] },
    supporting: [{ resourceType: 'Patient', id: 'known' }], value: 'CHECK_EXISTS', query: { referencePolicy: 'CHECK_EXISTS' }, flags: ['-reference-policy', 'CHECK_EXISTS'],
    manifest: { validateReference: 'CHECK_EXISTS' }, issue: { severity: 'error', text: /^Unable to resolve resource with reference 'Patient\/absent'$/ }, appears: 'with',
  },
  {
    setting: 'containedPolicy', behaviour: 'IGNORE leaves contained resources unvalidated (their own errors and dom-3 included)',
    resource: { resourceType: 'Condition', id: 'c', text: narrative, subject: { reference: 'Patient/1' }, contained: [{ resourceType: 'Practitioner', id: 'x'.repeat(65) }] },
    value: 'IGNORE', query: { containedPolicy: 'IGNORE' }, flags: ['-contained-policy', 'IGNORE'], manifest: { validateContains: 'IGNORE' },
    issue: { severity: 'error', text: /Invalid Resource id: Too long/ }, appears: 'without',
  },
  {
    setting: 'htmlInMarkdown', behaviour: 'an HTML tag in markdown is an error when told so (a warning by default)',
    resource: { resourceType: 'Communication', id: 'c', text: narrative, status: 'completed', note: [{ text: 'see <script>x</script>' }] },
    value: 'error', query: { htmlInMarkdown: 'error' }, flags: ['-html-in-markdown', 'error'], manifest: { noHtmlInMarkdown: true },
    issue: { severity: 'error', text: /appears to be an embedded HTML tag/ }, appears: 'with',
  },
  {
    setting: 'securityChecks', behaviour: 'text that looks like HTML in a string is an error with the security checks',
    resource: { resourceType: 'Patient', id: 'p', text: narrative, name: [{ text: 'Jane <b>Doe</b>' }] },
    value: true, query: { securityChecks: 'true' }, flags: ['-security-checks'], manifest: { 'security-checks': true },
    issue: { severity: 'error', text: /looks like embedded HTML tags/ }, appears: 'with',
  },
  {
    setting: 'allowComments', behaviour: 'JSON comments are read without an error when allowed',
    resource: '{"resourceType": "Patient", // a comment\n "id": "p", "text": {"status": "generated", "div": "<div xmlns=\\"http://www.w3.org/1999/xhtml\\">x</div>"}}',
    value: true, query: { allowComments: 'true' }, flags: ['-allow-comments'], manifest: { 'allow-comments': true },
    issue: { severity: 'error', text: /Comments are not allowed in JSON/ }, appears: 'without',
  },
  {
    setting: 'language', behaviour: 'displays are checked in the language given: a designation in another language is then a wrong display',
    resource: { resourceType: 'Basic', id: 'b', text: narrative, meta: { profile: [FRUIT_BASIC] }, code: { coding: [{ system: EXAMPLE_CS, code: 'apple', display: 'Apfel' }] } },
    supporting: [fruitCodeSystem, fruitValueSet, fruitBasic], value: 'en', query: { language: 'en' }, flags: ['-language', 'en'], manifest: { language: 'en' },
    // an error in the CLI (HL7's default), a warning from the service's terminology: either way it appears
    issue: { severity: '*', text: /Wrong Display Name 'Apfel'/ }, appears: 'with',
  },
  {
    setting: 'forPublication', behaviour: 'a resource HL7 publishes must name its work group',
    resource: { resourceType: 'CodeSystem', id: 'cs', text: narrative, url: 'http://hl7.org/fhir/settings-test-cs', name: 'SettingsTest', status: 'draft', content: 'complete', concept: [{ code: 'a' }] },
    value: true, query: { forPublication: 'true' }, flags: ['-forPublication'], manifest: { 'for-publication': 'true' },
    issue: { severity: 'error', text: /the owning committee must be stated/ }, appears: 'with',
  },
  {
    setting: 'noExperimentalContent', behaviour: 'a canonical resource marked experimental is an error when experimental content is not allowed',
    resource: { resourceType: 'ValueSet', id: 'vs', text: narrative, url: 'http://settings.test/ValueSet/x', name: 'X', status: 'draft', experimental: true },
    value: true, query: { noExperimentalContent: 'true' }, flags: ['-no-experimental-content'], manifest: { 'no-experimental-content': true },
    issue: { severity: 'error', text: /Experimental content is not allowed/ }, appears: 'with',
  },
  {
    setting: 'unknownCodeSystemsCauseErrors', behaviour: 'a code from a code system nobody knows is an error, not a warning',
    resource: { resourceType: 'Observation', id: 'o', text: narrative, status: 'final', code: { text: 'x' }, category: [{ coding: [{ system: 'http://unknown.settings.test/cs', code: 'x' }] }] },
    value: true, query: { unknownCodeSystemsCauseErrors: 'true' }, flags: ['-unknown-codesystems-cause-errors'],
    issue: { severity: 'error', text: /unknown.settings.test\/cs' is unknown/ }, appears: 'with',
  },
  {
    setting: 'displayIssuesAreWarnings', behaviour: 'a wrong display is an error (the HL7 CLI\'s default) unless display issues are warnings (the manifest\'s wrong-displays)',
    resource: { resourceType: 'Basic', id: 'b', text: narrative, meta: { profile: [FRUIT_BASIC] }, code: { coding: [{ system: EXAMPLE_CS, code: 'apple', display: 'Pear' }] } },
    supporting: [fruitCodeSystem, fruitValueSet, fruitBasic], value: true, query: { displayIssuesAreWarnings: 'true' }, flags: ['-display-issues-are-warnings'],
    manifest: { 'wrong-displays': 'warning' }, issue: { severity: 'error', text: /Wrong Display Name 'Pear'/ }, appears: 'without',
    // the service's own default is its terminology's answer (a warning, as Link Cloud's): the run without the setting says false
    baseline: { value: false, query: { displayIssuesAreWarnings: 'false' } },
  },
  {
    setting: 'maxValidationMessages', behaviour: 'at most this many issues, then one saying how many were dropped',
    resource: { resourceType: 'Patient', id: 'p', text: narrative, birthDate: 'x', gender: 'y', active: 'z' },
    value: 1, query: { maxValidationMessages: '1' }, flags: ['-max-validation-messages', '1'],
    issue: { severity: 'information', text: /^Only the first 1 issues are reported/ }, appears: 'with',
  },
  {
    setting: 'bundleRules', behaviour: 'Bundle entries matching a rule must follow its profile',
    resource: { resourceType: 'Bundle', id: 'b', type: 'collection', entry: [{ fullUrl: 'http://s.test/Patient/p', resource: { resourceType: 'Patient', id: 'p', text: narrative } }] },
    supporting: [genderedPatient], value: [{ rule: 'Patient:0', profile: GENDERED }], query: { bundleRules: `Patient:0=${GENDERED}` }, flags: ['-bundle', 'Patient:0', GENDERED],
    manifest: { 'bundle-param': { rule: 'Patient:0', profile: GENDERED } }, issue: { severity: 'error', text: /Patient.gender: minimum required = 1/ }, appears: 'with',
  },
  // the other values of the settings that have several: each changes the outcome as HL7's does
  {
    setting: 'bestPractice', behaviour: 'ignore: best-practice invariants (dom-6) are not reported at all (a warning by default)',
    resource: { resourceType: 'Patient', id: 'p' }, value: 'ignore', query: { bestPractice: 'ignore' }, flags: ['-best-practice', 'ignore'],
    manifest: { 'best-practice': 'Ignore' }, issue: { severity: 'warning', text: /dom-6/ }, appears: 'without',
  },
  {
    setting: 'bestPractice', behaviour: 'hint: best-practice invariants (dom-6) are information, not warnings',
    resource: { resourceType: 'Patient', id: 'p' }, value: 'hint', query: { bestPractice: 'hint' }, flags: ['-best-practice', 'hint'],
    manifest: { 'best-practice': 'Hint' }, issue: { severity: 'information', text: /dom-6/ }, appears: 'with',
  },
  {
    setting: 'extensionDomains', behaviour: 'any: every unknown (non-modifier) extension passes',
    resource: { resourceType: 'Patient', id: 'p', text: narrative, extension: [{ url: 'http://anywhere.settings.test/fhir/ext', valueString: 'x' }] },
    value: 'any', query: { extensionDomains: 'any' }, flags: ['-extension', 'any'],
    manifest: { 'allowed-extension-domain': 'any' }, issue: { severity: 'error', text: /(could not be found so is not allowed here|is unknown, and not allowed here)/ }, appears: 'without',
  },
  {
    setting: 'referencePolicy', behaviour: 'CHECK_TYPE_IF_EXISTS: a reference that resolves (through the fetcher) must point to a type the element allows',
    resource: { resourceType: 'Observation', id: 'o', text: narrative, status: 'final', code: { text: 'x' }, subject: { reference: 'http://forms.settings.test/who-form' } },
    supporting: [{ resourceType: 'Questionnaire', id: 'who-form', url: 'http://forms.settings.test/who-form', status: 'active' }],
    value: 'CHECK_TYPE_IF_EXISTS', query: { referencePolicy: 'CHECK_TYPE_IF_EXISTS' }, flags: ['-reference-policy', 'CHECK_TYPE_IF_EXISTS'],
    manifest: { validateReference: 'CHECK_TYPE_IF_EXISTS' }, issue: { severity: 'error', text: /^Invalid Resource target type. Found Questionnaire, but expected one of \(/ }, appears: 'with',
  },
  {
    setting: 'referencePolicy', behaviour: 'CHECK_EXISTS_AND_TYPE: a reference outside the resource must resolve (and then be of an allowed type)',
    resource: { resourceType: 'Observation', id: 'o', text: narrative, status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/nowhere' } },
    value: 'CHECK_EXISTS_AND_TYPE', query: { referencePolicy: 'CHECK_EXISTS_AND_TYPE' }, flags: ['-reference-policy', 'CHECK_EXISTS_AND_TYPE'],
    manifest: { validateReference: 'CHECK_EXISTS_AND_TYPE' }, issue: { severity: 'error', text: /^Unable to resolve resource with reference 'Patient\/nowhere'$/ }, appears: 'with',
  },
  {
    setting: 'referencePolicy', behaviour: 'CHECK_VALID: a resolved target must follow the element\'s (non-core) target profile',
    resource: {
      resourceType: 'Observation', id: 'o', text: narrative, meta: { profile: [SUBJECT_GENDERED] }, status: 'final', code: { text: 'x' },
      subject: { reference: 'Patient/genderless' },
    },
    supporting: [genderedPatient, subjectGendered, { resourceType: 'Patient', id: 'genderless', text: narrative }],
    value: 'CHECK_VALID', query: { referencePolicy: 'CHECK_VALID' }, flags: ['-reference-policy', 'CHECK_VALID'],
    manifest: { validateReference: 'CHECK_VALID' }, issue: { severity: 'error', text: /^Unable to find a (match for profile|profile match for) Patient\/genderless among choices: / }, appears: 'with',
  },
  {
    setting: 'containedPolicy', behaviour: 'CHECK_TYPE: a contained resource is checked only for its type, not validated',
    resource: { resourceType: 'Condition', id: 'c', text: narrative, subject: { reference: 'Patient/1' }, contained: [{ resourceType: 'Practitioner', id: 'x'.repeat(65) }] },
    value: 'CHECK_TYPE', query: { containedPolicy: 'CHECK_TYPE' }, flags: ['-contained-policy', 'CHECK_TYPE'], manifest: { validateContains: 'CHECK_TYPE' },
    issue: { severity: 'error', text: /Invalid Resource id: Too long/ }, appears: 'without',
  },
  {
    setting: 'htmlInMarkdown', behaviour: 'none: an HTML tag in markdown is not reported (a warning by default)',
    resource: { resourceType: 'Communication', id: 'c', text: narrative, status: 'completed', note: [{ text: 'see <b>x</b>' }] },
    value: 'none', query: { htmlInMarkdown: 'none' }, flags: ['-html-in-markdown', 'ignore'],
    issue: { severity: 'warning', text: /appears to be an embedded HTML tag/ }, appears: 'without',
  },
  {
    setting: 'enforceAggregationOutsideBundles', behaviour: 'a profile\'s aggregation modes hold for a resource validated on its own too: a subject that must be bundled is not found',
    resource: { resourceType: 'Encounter', id: 'e', text: narrative, meta: { profile: [BUNDLED_SUBJECT] }, status: 'planned', class: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB' }, subject: { reference: 'Patient/elsewhere' } },
    supporting: [bundledSubject], value: true, query: { enforceAggregationOutsideBundles: 'true' }, flags: ['-enforce-aggregation-outside-bundles'],
    manifest: { enforceAggregationOutsideBundles: true }, issue: { severity: 'error', text: /^Bundled or contained reference not found within the bundle\/resource Patient\/elsewhere$/ }, appears: 'with',
  },
];

/** Settings that change nothing on R4 content (HL7's neither): accepted everywhere, shown to change nothing. */
export const SETTINGS_WITHOUT_R4_EFFECT: readonly { setting: keyof ValidationSettings; value: unknown; query: Record<string, string>; flags: string[] }[] = [
  { setting: 'r5BundleRelativeReferencePolicy', value: 'always', query: { r5BundleRelativeReferencePolicy: 'always' }, flags: ['-r5-bundle-relative-reference-policy', 'always'] },
];

/** Whether the case's issue is in the outcome. */
export function hasIssue(outcome: ValidationOutcome, c: SettingCase): boolean {
  return outcome.issue.some((i) => (c.issue.severity === '*' || i.severity === c.issue.severity) && c.issue.text.test(i.details.text));
}
