/**
 * Resources built to make a backtracking regular expression run for ever, each paired with what a
 * validator must answer instead (in linear time). Shared by the engine, CLI and HTTP tests.
 */
import { profile } from './helpers.js';

const XHTML = 'http://www.w3.org/1999/xhtml';
const REGEX_EXT = 'http://hl7.org/fhir/StructureDefinition/regex';

/** `(a+)+$` against forty a's and a '!': about 2^40 steps for a backtracking engine. */
export const CATASTROPHIC_PATTERN = '(a+)+$';
export const CATASTROPHIC_VALUE = 'a'.repeat(40) + '!';

/** A start tag with many quoted attributes that ends in something other than '>' (the old tag pattern doubled per attribute). */
export function narrativeWithManyAttributes(attributes = 60): Record<string, unknown> {
  return {
    resourceType: 'Patient', id: 'p1',
    text: { status: 'generated', div: `<div xmlns="${XHTML}"><p${' a="x"'.repeat(attributes)} =x</p></div>` },
  };
}

/** Many '<' (or '<a') and no '>' (the old tag patterns rescanned to the end from every '<'). */
export function narrativeWithManyOpenBrackets(count = 200_000, unit = '<'): Record<string, unknown> {
  return { resourceType: 'Patient', id: 'p1', text: { status: 'generated', div: `<div xmlns="${XHTML}">${unit.repeat(count)}</div>` } };
}

/** A QuestionnaireResponse whose contained Questionnaire asks for a catastrophic regex. */
export function questionnaireResponseWithRegex(pattern = CATASTROPHIC_PATTERN, answer = CATASTROPHIC_VALUE): Record<string, unknown> {
  return {
    resourceType: 'QuestionnaireResponse', id: 'qr1',
    text: { status: 'generated', div: `<div xmlns="${XHTML}">answers</div>` },
    contained: [{
      resourceType: 'Questionnaire', id: 'q', status: 'active',
      item: [{ linkId: 'code', type: 'string', extension: [{ url: REGEX_EXT, valueString: pattern }] }],
    }],
    questionnaire: '#q', status: 'completed',
    item: [{ linkId: 'code', answer: [{ valueString: answer }] }],
  };
}

export const HOSTILE_PROFILE_URL = 'http://example.org/StructureDefinition/hostile-patient';

/** A profile whose invariant calls matches() with a catastrophic pattern, and whose regex extension is one too. */
export function hostileProfile(pattern = CATASTROPHIC_PATTERN): Record<string, unknown> {
  const literal = pattern.split('\\').join('\\\\').split("'").join("\\'"); // as a FHIRPath string literal
  return profile(HOSTILE_PROFILE_URL, 'Patient', [
    { id: 'Patient.name.family', path: 'Patient.name.family', constraint: [{ key: 'hostile-1', severity: 'error', human: 'family is all a', expression: `matches('${literal}')` }] },
    { id: 'Patient.name.given', path: 'Patient.name.given', extension: [{ url: REGEX_EXT, valueString: pattern }] },
  ]);
}

export function patientForHostileProfile(value = CATASTROPHIC_VALUE): Record<string, unknown> {
  return {
    resourceType: 'Patient', id: 'p1', meta: { profile: [HOSTILE_PROFILE_URL] },
    text: { status: 'generated', div: `<div xmlns="${XHTML}">x</div>` },
    name: [{ family: value, given: [value] }],
  };
}
