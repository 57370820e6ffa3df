/** Categories and results shared by the pre-qualification tests. */
import type { Category } from '#validation/domain/categorization/category.js';
import type { PreQualIssue } from '#validation/domain/ports/prequal.js';

export const MISSING_CODE: Category = {
  id: 'missing_code', title: 'Missing code', severity: 'ERROR', acceptable: false, guidance: 'Send a code from the required value set.',
};
export const DISPLAY_MISMATCH: Category = {
  id: 'display_mismatch', title: 'Display mismatch', severity: 'WARNING', acceptable: true, guidance: 'Displays are informative; no action needed.',
};
export const UNUSED: Category = {
  id: 'unused', title: 'Never matched', severity: 'INFORMATION', acceptable: true, guidance: 'Nothing.',
};
export const CATEGORIES: readonly Category[] = [MISSING_CODE, DISPLAY_MISMATCH, UNUSED];

export const SCRIPT_MESSAGE = 'Code <script>alert(1)</script> is not valid';
export const IMG_MESSAGE = 'Value "><img src=x onerror=alert(2)> is not allowed';

export function issue(message: string, severity: string, categoryIds: string[], patientId = 'p1', expression?: string): PreQualIssue {
  return { message, severity, code: 'code-invalid', categoryIds, patientId, ...(expression ? { expression } : {}) };
}

/**
 * 10 issues: 4 × missing code (errors, unacceptable), 3 × display mismatch (warnings, acceptable),
 * 1 × both categories, 1 uncategorized warning, 1 uncategorized information with a hostile message.
 */
export function sampleIssues(): PreQualIssue[] {
  return [
    issue('Code is missing', 'error', ['missing_code'], 'p1', 'Bundle.entry[0].resource.code'),
    issue('Code is missing', 'error', ['missing_code'], 'p2', 'Bundle.entry[1].resource.code'),
    issue('Code is missing', 'error', ['missing_code'], 'p2', 'Bundle.entry[2].resource.code'),
    issue('Code is missing', 'fatal', ['missing_code'], 'p3', 'Bundle.entry[0].resource.code'),
    issue('Display is wrong', 'warning', ['display_mismatch'], 'p1'),
    issue('Display is wrong', 'warning', ['display_mismatch'], 'p2'),
    issue('Display is wrong', 'warning', ['display_mismatch'], 'p3'),
    issue('Display and code are wrong', 'error', ['missing_code', 'display_mismatch'], 'p1'),
    issue(IMG_MESSAGE, 'warning', [], 'p4'),
    issue(SCRIPT_MESSAGE, 'information', ['uncategorized'], 'p4', 'Bundle.entry[9].resource.code'),
  ];
}

export const CONTEXT = { facilityId: 'facility-1', reportId: 'report-1', generatedAt: new Date('2026-11-22T06:00:00Z') };
