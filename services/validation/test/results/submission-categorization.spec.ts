/** The per-submission categorization (groups) and the answers read from it, against the issue-by-issue rule. */
import { expect } from 'chai';
import { assessValidity } from '#validation/domain/categorization/validity.js';
import type { IssueSeverity } from '#validation/domain/results/issue-severity.js';
import { categorizeSubmission, issuesPerCategory, validityOfGroups, type CurrentCategories } from '#validation/domain/results/submission-categorization.js';
import { issuesFromOperationOutcome, operationOutcomeOf, type ValidationIssue } from '#validation/domain/results/validation-issue.js';

const SEVERITIES: IssueSeverity[] = ['information', 'warning', 'error', 'fatal'];

/** A deterministic pseudo-random mix of issues over categories a, b, c (and ids that no longer exist). */
function mix(n: number, seed: number) {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: n }, () => ({
    severity: SEVERITIES[Math.floor(next() * 4)]!,
    categoryIds: ['a', 'b', 'c', 'gone', 'uncategorized'].filter(() => next() < 0.3),
  }));
}

describe('submission categorization (domain)', () => {
  it('keeps each issue\'s categories in order and counts severities (errors include fatal)', () => {
    const result = categorizeSubmission([
      { severity: 'error', categoryIds: ['b', 'a', 'uncategorized'] },
      { severity: 'fatal', categoryIds: [] },
      { severity: 'warning', categoryIds: ['a', 'b'] },
      { severity: 'information', categoryIds: ['uncategorized'] },
    ]);
    expect(result.issueCategories).to.deep.equal([['b', 'a'], [], ['a', 'b'], []]);
    expect(result.groups).to.deep.equal([
      { categoryIds: ['a', 'b'], issues: 2, blockingIssues: 1 },
      { categoryIds: [], issues: 2, blockingIssues: 1 },
    ]);
    expect(result.severities).to.deep.equal({ issues: 4, information: 1, warnings: 1, errors: 2, fatal: 1 });
  });

  it('answers validity and per-category counts from the groups exactly as issue by issue, with deleted and unacceptable categories', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const issues = mix(200, seed);
      const groups = categorizeSubmission(issues).groups;
      for (const current of [
        new Map([['a', { acceptable: true }], ['b', { acceptable: false }], ['c', { acceptable: true }]]),
        new Map([['a', { acceptable: true }], ['c', { acceptable: true }]]),
        new Map<string, { acceptable: boolean }>(),
      ] as CurrentCategories[]) {
        const issueByIssue = assessValidity(issues.map((issue) => ({
          severity: issue.severity,
          categories: issue.categoryIds.flatMap((id) => (current.has(id) ? [{ id, acceptable: current.get(id)!.acceptable }] : [])),
        })));
        expect(validityOfGroups(groups, current)).to.deep.equal({ ...issueByIssue, issueCount: issues.length });

        const counts = new Map<string, { count: number; blockingCount: number }>();
        for (const issue of issues) {
          const existing = issue.categoryIds.filter((id) => current.has(id));
          for (const id of existing.length > 0 ? existing : ['uncategorized']) {
            const entry = counts.get(id) ?? { count: 0, blockingCount: 0 };
            entry.count++;
            if (issue.severity === 'error' || issue.severity === 'fatal') entry.blockingCount++;
            counts.set(id, entry);
          }
        }
        expect(issuesPerCategory(groups, current)).to.have.deep.members([...counts].map(([categoryId, entry]) => ({ categoryId, ...entry })));
      }
    }
  });

  it('orders category counts most frequent first, ties by id', () => {
    const groups = [{ categoryIds: ['b'], issues: 2, blockingIssues: 0 }, { categoryIds: ['a'], issues: 2, blockingIssues: 0 }, { categoryIds: [], issues: 5, blockingIssues: 0 }];
    expect(issuesPerCategory(groups, new Map([['a', { acceptable: true }], ['b', { acceptable: true }]])).map((c) => c.categoryId))
      .to.deep.equal(['uncategorized', 'a', 'b']);
  });
});

describe('operationOutcomeOf (issues kept as an OperationOutcome)', () => {
  it('reads back as exactly the same issues', () => {
    const issues: ValidationIssue[] = [
      { severity: 'error', code: 'structure', message: 'm1', expression: 'Patient.name', location: '3:14', messageId: 'MSG' },
      { severity: 'information', code: 'informational', message: '' },
      { severity: 'warning', code: 'invariant', message: 'm3', location: '7:?' },
      { severity: 'fatal', code: 'not-found', message: 'm4', messageId: 'X' },
    ];
    expect(issuesFromOperationOutcome(operationOutcomeOf(issues))).to.deep.equal(issues);
  });
});
