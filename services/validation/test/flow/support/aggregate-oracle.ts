/**
 * The reference the outcome's text is held to: the object-by-object aggregation the flow used before
 * its outcome became text written once per entry (rebaseIssue on each issue, entries in Bundle order,
 * at most `maxIssues` kept, the rest counted at their worst severity). The service no longer builds
 * this value; encoded-outcome.spec.ts checks that the text it writes is `JSON.stringify` of it.
 */
import { entryPath, MAX_ISSUES_PER_SUBMISSION, rebaseExpression, type FhirResourceJson } from '#validation/domain/flow/index.js';
import type { Issue, IssueSeverity, ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';

/** The engine's position extensions: a rebased issue drops them (the line and column were the entry's own). */
const POSITION_EXTENSIONS = new Set([
  'http://hl7.org/fhir/StructureDefinition/operationoutcome-issue-line',
  'http://hl7.org/fhir/StructureDefinition/operationoutcome-issue-col',
]);

/** One issue of a resource validated alone, rewritten to point into the Bundle, object by object. */
export function rebaseIssue(issue: Issue, index: number, resource: FhirResourceJson): Issue {
  const rebased: Issue = { ...issue };
  const rewrite = (values: unknown) => (Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string').map((v) => rebaseExpression(v, index, resource)) : undefined);
  rebased.expression = rewrite(issue.expression) ?? [entryPath(index, resource)];
  const location = rewrite(issue.location);
  if (location) rebased.location = location;
  else delete rebased.location;
  if (rebased.diagnostics !== undefined && rebased.diagnostics === issue.details?.text) delete rebased.diagnostics;
  if (Array.isArray(issue.extension)) {
    const kept = issue.extension.filter((e: { url?: unknown } | null) => typeof e?.url !== 'string' || !POSITION_EXTENSIONS.has(e.url));
    if (kept.length > 0) rebased.extension = kept;
    else delete rebased.extension;
  }
  return rebased;
}

const SEVERITY_ORDER: readonly IssueSeverity[] = ['information', 'warning', 'error', 'fatal'];

export function referenceAggregate(entries: readonly { index: number; resource: FhirResourceJson; outcome: ValidationOutcome }[], maxIssues = MAX_ISSUES_PER_SUBMISSION): ValidationOutcome {
  const total = entries.reduce((n, entry) => n + entry.outcome.issue.length, 0);
  const kept = total <= maxIssues ? total : maxIssues - 1;
  const issue: Issue[] = [];
  let worstOmitted = 0;
  for (const { index, resource, outcome } of [...entries].sort((a, b) => a.index - b.index)) {
    for (const item of outcome.issue) {
      if (issue.length < kept) issue.push(rebaseIssue(item, index, resource));
      else worstOmitted = Math.max(worstOmitted, SEVERITY_ORDER.indexOf(item.severity));
    }
  }
  if (kept < total) {
    const text = `${total - kept} further issues of this submission were not kept: at most ${maxIssues} issues are stored per submission`;
    issue.push({ severity: SEVERITY_ORDER[worstOmitted] ?? 'fatal', code: 'too-costly', details: { text } });
  }
  return { resourceType: 'OperationOutcome', issue };
}
