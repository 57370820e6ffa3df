/**
 * The label of the "Uncategorized" pseudo-category where it is shown with issues. Its fixed
 * severity (WARNING) would contradict the errors and fatal issues it often holds, and those are
 * exactly the ones that make a submission invalid; so wherever the issues are known, the label
 * says the most severe of them (category severities have no FATAL: a fatal issue is labelled ERROR).
 */
import { UNCATEGORIZED, type Category, type CategorySeverity } from '../categorization/category.js';
import { severityRank, toSeverity, type IssueSeverity } from './issue-severity.js';

/** information → INFORMATION, warning → WARNING, error and fatal → ERROR (an unknown severity counts as error). */
export function categorySeverityOf(severity: IssueSeverity | string | undefined): CategorySeverity {
  const known = toSeverity(severity) ?? 'error';
  return severityRank(known) >= severityRank('error') ? 'ERROR' : known === 'warning' ? 'WARNING' : 'INFORMATION';
}

/** Uncategorized, labelled with the most severe severity of the issues it holds. */
export function uncategorizedHolding(mostSevere: IssueSeverity | string | undefined): Category {
  const severity = categorySeverityOf(mostSevere);
  return severity === UNCATEGORIZED.severity ? UNCATEGORIZED : Object.freeze({ ...UNCATEGORIZED, severity });
}
