/** Small helpers for reading OperationOutcomes in engine tests. */
import { possibleMessageIds } from '#validation/domain/engine/message-ids.js';
import { formatMessage, MESSAGES, type MessageId } from '#validation/domain/engine/messages.js';
import { issueMessageId, type Issue, type ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';

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

/**
 * The engine message (messages.ts key) an issue was reported with. Issues carry the HL7 validator's
 * id (message-ids.ts), which several engine messages can share (INV_FAILED for a failed invariant and
 * a failed best practice): among the messages that carry that id, the one whose template in the
 * active wording words the issue's text. Tests state the rule they expect by the engine's key.
 */
export function engineKeyOf(issue: Issue): string | undefined {
  const id = issueMessageId(issue);
  if (id === undefined) return undefined;
  const candidates = (Object.keys(MESSAGES) as MessageId[]).filter((key) => possibleMessageIds(key).includes(id));
  if (candidates.length <= 1) return candidates[0] ?? id;
  // the most specific template first: most literal text, then fewest placeholders
  const literal = (key: MessageId) => formatMessage(key, []).replace(/\{\d+\}/g, '').length;
  const holes = (key: MessageId) => formatMessage(key, []).split(/\{\d+\}/).length;
  candidates.sort((a, b) => literal(b) - literal(a) || holes(a) - holes(b));
  return candidates.find((key) => templatePattern(formatMessage(key, [])).test(issue.details.text)) ?? candidates[0];
}

function templatePattern(template: string): RegExp {
  // test-only, on our own templates: literal text with each {n} as a lazy wildcard
  const source = template.split(/\{\d+\}/).map((part) => part.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')).join('[\\s\\S]*?');
  return new RegExp(`^${source}$`);
}
