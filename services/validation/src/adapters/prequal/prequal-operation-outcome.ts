/**
 * The pre-qualification report as a FHIR R4 OperationOutcome: one issue per message group
 * (severity, code, details.text = the message, expression = the sample locations) with an
 * extension naming its categories and its count, and an extension on the outcome with the verdict.
 */
import type { PreQualReport } from '../../domain/prequal/prequal-report.js';

export const PREQUAL_EXTENSION_BASE = 'https://nhsn-link.example/fhir/StructureDefinition/';
/** On each issue: `category` (valueCode, repeated) and `count` (valueInteger) of the message group. */
export const ISSUE_GROUP_EXTENSION = `${PREQUAL_EXTENSION_BASE}prequal-issue-group`;
/** On the outcome: `facilityId`, `reportId`, `preQualified`, `issueCount`, `minimumSeverity`. */
export const VERDICT_EXTENSION = `${PREQUAL_EXTENSION_BASE}prequal-verdict`;

/** FHIR IssueType codes; a stored code outside them (should not happen) is sent as `processing`. */
const ISSUE_TYPES = new Set([
  'invalid', 'structure', 'required', 'value', 'invariant', 'security', 'login', 'unknown', 'expired', 'forbidden', 'suppressed',
  'processing', 'not-supported', 'duplicate', 'multiple-matches', 'not-found', 'deleted', 'too-long', 'code-invalid', 'extension',
  'too-costly', 'business-rule', 'conflict', 'transient', 'lock-error', 'no-store', 'exception', 'timeout', 'incomplete',
  'throttled', 'informational',
]);

interface Extension { url: string; [value: string]: unknown }

export interface PreQualOperationOutcome {
  resourceType: 'OperationOutcome';
  extension: Extension[];
  issue: Record<string, unknown>[];
}

export function renderPreQualOperationOutcome(report: PreQualReport): PreQualOperationOutcome {
  const issue = report.issues.map((group) => ({
    extension: [{
      url: ISSUE_GROUP_EXTENSION,
      extension: [
        ...group.categoryIds.map((id) => ({ url: 'category', valueCode: id })),
        { url: 'count', valueInteger: group.count },
      ],
    }],
    severity: group.severity,
    code: ISSUE_TYPES.has(group.code) ? group.code : 'processing',
    details: { text: group.message },
    ...(group.expressions.length > 0 ? { expression: [...group.expressions] } : {}),
  }));
  return {
    resourceType: 'OperationOutcome',
    extension: [{
      url: VERDICT_EXTENSION,
      extension: [
        { url: 'facilityId', valueString: report.facilityId },
        { url: 'reportId', valueString: report.reportId },
        { url: 'preQualified', valueBoolean: report.verdict.preQualified },
        { url: 'issueCount', valueInteger: report.verdict.issueCount },
        { url: 'minimumSeverity', valueCode: report.minimumSeverity },
      ],
    }],
    // OperationOutcome.issue is 1..*: a filter that leaves nothing still answers one informational issue.
    issue: issue.length > 0 ? issue : [{
      severity: 'information',
      code: 'informational',
      details: { text: `No issues at or above ${report.minimumSeverity}` },
    }],
  };
}
