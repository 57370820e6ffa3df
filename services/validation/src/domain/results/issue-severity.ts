import { InvalidInputError } from '#shared-kernel/domain/errors.js';

/**
 * FHIR issue severities, ordered from least to most severe. A "minimum severity" filter keeps
 * issues at that level or above: information < warning < error < fatal.
 */
export const ISSUE_SEVERITIES = ['information', 'warning', 'error', 'fatal'] as const;
export type IssueSeverity = (typeof ISSUE_SEVERITIES)[number];

/** A severity parameter that names none (400 naming `severity`): the shared vocabulary's InvalidInputError. */
export class UnknownSeverityError extends InvalidInputError {
  override readonly name = 'UnknownSeverityError';
  constructor(readonly value: string) {
    super(`Unknown severity "${value.slice(0, 40)}"; use one of ${ISSUE_SEVERITIES.join(', ')}`,
      [{ field: 'severity', message: `must be one of ${ISSUE_SEVERITIES.join(', ')}` }]);
  }
}

/** Parses a severity in any case (`ERROR`, `error`); throws UnknownSeverityError otherwise. */
export function parseSeverity(value: string): IssueSeverity {
  const lower = value.trim().toLowerCase();
  const known = ISSUE_SEVERITIES.find((severity) => severity === lower);
  if (known !== undefined) return known;
  throw new UnknownSeverityError(value);
}

/** Lenient form for data coming from engines or clients: unknown values become undefined. */
export function toSeverity(value: unknown): IssueSeverity | undefined {
  if (typeof value !== 'string') return undefined;
  const lower = value.trim().toLowerCase();
  return ISSUE_SEVERITIES.find((severity) => severity === lower);
}

export function severityRank(severity: IssueSeverity): number {
  return ISSUE_SEVERITIES.indexOf(severity);
}

/** The severities at `minimum` or above, e.g. error → [error, fatal]. */
export function severitiesAtLeast(minimum: IssueSeverity): IssueSeverity[] {
  return ISSUE_SEVERITIES.slice(severityRank(minimum));
}
