/** Small helpers for reading OperationOutcomes in engine tests. */
import type { Issue, ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';

export function errorsOf(o: ValidationOutcome): Issue[] {
  return o.issue.filter((i) => i.severity === 'error' || i.severity === 'fatal');
}

export function describe_(o: ValidationOutcome): string {
  return o.issue.map((i) => `${i.severity} ${i.expression?.[0] ?? ''} ${i.details.text}`).join('\n');
}

/** The issues whose text contains `text` (and, when given, at `expression`). */
export function issuesWith(o: ValidationOutcome, text: string | RegExp, expression?: string): Issue[] {
  return o.issue.filter((i) => (typeof text === 'string' ? i.details.text.includes(text) : text.test(i.details.text)) && (expression === undefined || i.expression?.[0] === expression));
}

/** A differential-only profile (the snapshot is generated when it is first used). */
export function profile(url: string, type: string, elements: Record<string, unknown>[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    resourceType: 'StructureDefinition',
    id: url.split('/').pop(),
    url,
    version: '1.0.0',
    name: 'Test' + type,
    status: 'active',
    kind: type === 'Extension' || /^[a-z]/.test(type) || ['HumanName', 'Quantity', 'CodeableConcept', 'Coding'].includes(type) ? 'complex-type' : 'resource',
    abstract: false,
    type,
    baseDefinition: `http://hl7.org/fhir/StructureDefinition/${type}`,
    derivation: 'constraint',
    differential: { element: [{ id: type, path: type }, ...elements] },
    ...extra,
  };
}
