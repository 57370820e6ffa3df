/**
 * A profile's `regex` extension on a primitive element: the value must match the pattern whole
 * (Java's `String.matches`, as the HL7 validator applies it). The pattern runs on RE2, so it takes
 * time linear in the value; a pattern RE2 cannot run is reported as a warning, not evaluated.
 */
import { compileLinearRegex, isRegexError } from '../../regex/linear-regex.js';
import type { MessageId } from '../messages.js';

export interface ValueRegexProblem {
  id: MessageId;
  args: unknown[];
  severity: 'error' | 'warning';
}

export function checkValueRegex(pattern: string, type: string, value: string): ValueRegexProblem | undefined {
  const regex = compileLinearRegex(pattern);
  if (isRegexError(regex)) return { id: 'REGEX_EXCEPTION', args: [pattern, type, regex.error], severity: 'warning' };
  return regex.matchesWhole(value) ? undefined : { id: 'PRIMITIVE_REGEX', args: [value, pattern], severity: 'error' };
}
