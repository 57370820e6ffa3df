/**
 * The outcome of a resource whose validation passed its deadline. The engine cannot stop itself
 * (its checks are synchronous); the worker pool that runs it can, by terminating the worker, and
 * then reports the resource with this outcome: one fatal issue in the shape every engine issue
 * has (severity, code, details.text, diagnostics, expression, message id), so categories,
 * validity and the stored results treat it like any other fatal issue.
 */
import { formatMessage, MESSAGES } from '../messages.js';
import { EXT_MESSAGE_ID, type Issue, type ValidationOutcome } from './issue.js';

/**
 * `resource`: this resource passed the per-resource budget; `submission`: its submission passed the
 * submission budget first; `memory`: its worker passed its heap limit validating it (the budget is
 * then in MB, not ms).
 */
export type DeadlineKind = 'resource' | 'submission' | 'memory';

const MESSAGE_OF = { resource: 'VALIDATION_TIMEOUT', submission: 'SUBMISSION_TIMEOUT', memory: 'VALIDATION_OUT_OF_MEMORY' } as const;
const DEADLINE_KINDS: readonly DeadlineKind[] = ['resource', 'submission', 'memory'];

/** The resource's root expression (its type) when it has a plausible one, as the engine's own root issues have. */
function rootExpression(resource: unknown): string[] | undefined {
  if (typeof resource !== 'object' || resource === null) return undefined;
  const type: unknown = Reflect.get(resource, 'resourceType');
  return typeof type === 'string' && /^[A-Z][A-Za-z]{0,63}$/.test(type) ? [type] : undefined;
}

/** One fatal issue saying the validation of `resource` did not finish within `budget` (ms, or MB for `memory`). */
export function deadlineOutcome(kind: DeadlineKind, resource: unknown, budget: number): ValidationOutcome {
  const id = MESSAGE_OF[kind];
  const text = formatMessage(id, [Math.round(budget)]);
  const issue: Issue = {
    severity: 'fatal', code: MESSAGES[id].code, details: { text }, diagnostics: text,
    extension: [{ url: EXT_MESSAGE_ID, valueCode: id }],
  };
  const expression = rootExpression(resource);
  if (expression) issue.expression = expression;
  return { resourceType: 'OperationOutcome', issue: [issue] };
}

/** The deadline issue of an outcome, if the pool gave it one. */
export function deadlineIssueOf(outcome: Pick<ValidationOutcome, 'issue'>): { kind: DeadlineKind; text: string } | undefined {
  for (const issue of outcome.issue) {
    const id = issue.extension?.find((e) => e.url === EXT_MESSAGE_ID)?.valueCode;
    const kind = DEADLINE_KINDS.find((k) => MESSAGE_OF[k] === id);
    if (kind && issue.severity === 'fatal') return { kind, text: issue.details.text };
  }
  return undefined;
}
