/**
 * A conformance resource (a profile, value set, code system, questionnaire...) read from JSON or
 * XML text, for loading: supporting files, package members, uploaded artifacts. Unlike
 * validation, loading keeps no positions and reports only whether the text could be read.
 */
import type { PlanRegistry } from '../plan/plan-registry.js';
import { looksLikeXml, parseLocatedXml } from './located-xml.js';

export class UnreadableResourceError extends Error {}

/** The resource in `text` (JSON, or XML shaped with `plans`' core definitions); throws UnreadableResourceError when it cannot be read. */
export function parseResourceText(text: string, plans: PlanRegistry): unknown {
  if (!looksLikeXml(text)) {
    try {
      const value: unknown = JSON.parse(text);
      return value;
    } catch (e) {
      throw new UnreadableResourceError(e instanceof Error ? e.message : String(e));
    }
  }
  const read = parseLocatedXml(text, plans);
  const fatal = read.issues.find((i) => i.severity === 'fatal');
  if (fatal || read.value === undefined) {
    throw new UnreadableResourceError(fatal ? `${fatal.args[0] ?? fatal.messageId} (line ${fatal.line}, column ${fatal.col})` : 'not a FHIR resource');
  }
  return read.value;
}
