/**
 * Validation results in PostgreSQL, one row per patient submission (submission-results-table.ts):
 * the writes of the flow, the results API's store, and its queries.
 *
 * A result (one issue) is read out of its submission's stored OperationOutcome: its id is the
 * submission row's id × 1,000,000 + the issue's position (1-based; an outcome keeps fewer issues
 * than that, entry-outcome.ts), stable until the submission is validated again. Results are listed
 * by patient, then in the order of the patient's outcome.
 *
 * Paging: every submission row carries its issue counts (per severity, per category group), so a
 * page is located with running sums over those small columns and only the few outcomes that
 * overlap the page are opened.
 *
 * Categories are those that exist when read: a result's category ids leave out deleted categories,
 * and a result left with none counts as uncategorized (submission-categorization.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { sql, type QueryExecutorProvider, type RawBuilder } from 'kysely';
import { OUTBOX_TABLE, type PendingOutboxRow } from '#adapters/persistence/index.js';
import type { CategoryDatabase } from './category-repository.js';
import { countOf } from './count.js';
import { UNCATEGORIZED_ID } from '../../domain/categorization/category.js';
import { assessValidity } from '../../domain/categorization/validity.js';
import type { IssueSeverity } from '../../domain/results/issue-severity.js';
import type {
  CategoryIssueCount, NewResult, PageRequest, PatientKey, ResultPage, ResultRepository, ResultScope, StoredResult,
} from '../../domain/ports/result-repository.js';
import {
  categorizeSubmission, isUncategorizedNow, issuesPerCategory, validityOfGroups,
  type CategoryGroup, type CurrentCategories, type SubmissionCategorization,
} from '../../domain/results/submission-categorization.js';
import { fitForStorage, issuesFromOperationOutcome, operationOutcomeOf, type ValidationIssue } from '../../domain/results/validation-issue.js';
import { SUBMISSION_RESULTS_TABLE } from './submission-results-table.js';

/** Issues per submission are numbered below this (result id = row id × this + position). */
export const RESULT_ID_FACTOR = 1_000_000;

export interface SubmissionResultsRecord {
  readonly key: PatientKey;
  /** The aggregated OperationOutcome as JSON text (stored as is). */
  readonly outcomeJson: string;
  readonly outcomeHash: string;
  readonly categorization: SubmissionCategorization;
  /** The verdict announced with this outcome. */
  readonly valid: boolean;
  readonly uncategorizedCount: number;
  readonly unacceptableCount: number;
  readonly resourceCount: number;
  /** The submission could not be obtained or read: a definite failure (see the table). */
  readonly unobtainable: boolean;
}

export interface StoredSubmission {
  /** The run id now stored: the write's when it is announced, else the one kept (the run last announced). */
  readonly runId: string;
  /** The write is announced (a new event, or without one a changed outcome; the first write of a submission always). */
  readonly changed: boolean;
}

/** One string per submission (facility, report, patient): two writes with the same one cannot share a statement. */
export function submissionKeyId(key: PatientKey): string {
  return JSON.stringify([key.facilityId, key.reportId, key.patientId]);
}

/** One submission to write with storeSubmissionResults, with its run id and announcement. */
export interface SubmissionWrite {
  readonly record: SubmissionResultsRecord;
  /**
   * The event the write answers (see FlowRecord.eventId): announced unless the submission's row
   * already lists it. Without one, announced when the outcome hash differs from the stored one.
   */
  readonly eventId?: string;
  /** The run id to store when the write is announced. */
  readonly runId: string;
  /** The outbox row announcing the outcome, inserted only when the write is announced. */
  readonly announcement?: PendingOutboxRow;
}

/**
 * Events a submission's row remembers as announced (newest first). A redelivery comes within the
 * consumer's retries (minutes) or, at the latest, when a re-created consumer replays the stream
 * (14 days): a submission gets a handful of events in that time, far fewer than this.
 */
export const REMEMBERED_EVENTS = 16;

/**
 * Writes the results of one or more submissions (distinct keys), replacing what was stored, and,
 * for each write that is announced, the outbox row announcing it: ONE statement, so one round trip
 * and one transaction for all of them. The flow commits every submission it handles this way;
 * under load it groups the commits of the submissions in flight (pg-flow-store.ts), and each round
 * trip saved is CPU saved on both ends (on the 2-core bench machine, where the database shares the
 * cores, that is what bounds throughput).
 *
 * What is announced: every event once (a ReadyForValidation answered by exactly one
 * ValidationComplete, specification lines 9, 19 and flow step 6). The row keeps the ids of the
 * events it announced (`handled_events`, the latest REMEMBERED_EVENTS): a write for an event it
 * lists is a redelivery and stores the results without announcing; a write for any other event
 * announces, even when the outcome is the same. A write without an event (re-validation job)
 * announces when the outcome hash differs from the one stored (the outcome last announced).
 * Results are rewritten either way: each write validated what the report service holds now.
 *
 * Why it is safe without an explicit lock: INSERT ... ON CONFLICT DO UPDATE locks the submission's
 * row and evaluates the `o.` columns on its LATEST committed version (not the statement's
 * snapshot), so of two writers of one submission the second waits for the first and then compares
 * with what the first stored. The run id is replaced by `runId` when the write is announced and
 * kept otherwise; the outbox row is inserted only when the stored run id is `runId`. One event
 * handled twice at once (its ack wait ran out on a slow instance) therefore announces once. Re-categorization reads the
 * row FOR UPDATE, which this statement waits for (and the other way round). The rows are written in
 * key order, so two statements writing overlapping sets of submissions lock them in the same order
 * and cannot deadlock.
 *
 * Returns what was stored for each write, in the order given. Two writes of one key in one call
 * are refused (PostgreSQL would reject the statement: ON CONFLICT cannot touch a row twice).
 */
export async function storeSubmissionResults(db: QueryExecutorProvider, writes: readonly SubmissionWrite[]): Promise<StoredSubmission[]> {
  if (writes.length === 0) return [];
  const keys = writes.map(({ record: { key } }) => submissionKeyId(key));
  if (new Set(keys).size !== keys.length) throw new Error('storeSubmissionResults: the same submission twice in one statement');
  const values = writes.map(({ record, eventId, runId, announcement }, ord) => {
    const { key, categorization: { issueCategories, groups, severities } } = record;
    return sql`(${ord}::int, ${key.facilityId}::text, ${key.reportId}::text, ${key.patientId}::text, ${record.outcomeJson}::text,
      ${JSON.stringify(issueCategories)}::text, ${groupsJson(groups)}::jsonb, ${record.outcomeHash}::text, ${record.valid}::boolean, ${runId}::text,
      ${severities.issues}::int, ${severities.errors}::int, ${severities.fatal}::int, ${severities.warnings}::int, ${severities.information}::int,
      ${record.uncategorizedCount}::int, ${record.unacceptableCount}::int, ${record.resourceCount}::int, ${record.unobtainable}::boolean,
      ${eventId ?? null}::text,
      ${announcement?.id ?? null}::uuid, ${announcement?.subject ?? null}::text, ${announcement?.payloadJson ?? null}::jsonb,
      ${announcement?.headersJson ?? null}::jsonb, ${announcement?.msgId ?? null}::text)`;
  });
  // Only with announcements: the results API's own store writes none (and its database has no outbox).
  const announce = writes.some((write) => write.announcement)
    ? sql`, announced as (
      insert into ${sql.table(OUTBOX_TABLE)} (id, subject, payload, headers, msg_id, created_at, published_at, attempts, next_attempt_at, last_error)
      select i.outbox_id, i.outbox_subject, i.outbox_payload, i.outbox_headers, i.outbox_msg_id, now(), null, 0, null, null
      from input i join stored s on s.facility_id = i.facility_id and s.report_id = i.report_id and s.patient_id = i.patient_id
      where i.outbox_id is not null and s.run_id = i.run_id
      order by i.ord
      )`
    : sql``;
  // The new row's handled_events is its event alone (empty without one); excluded.handled_events[1] is that event.
  const redelivery = sql`excluded.handled_events[1] = any(o.handled_events)`;
  const announced = sql`case when cardinality(excluded.handled_events) = 0 then o.outcome_hash is distinct from excluded.outcome_hash else not (${redelivery}) end`;
  const result = await sql<{ ord: number; run_id: string }>`
    with input (ord, facility_id, report_id, patient_id, outcome, issue_categories, category_groups, outcome_hash, valid, run_id,
      issue_count, error_count, fatal_count, warning_count, information_count, uncategorized_count, unacceptable_count, resource_count,
      unobtainable, event_id, outbox_id, outbox_subject, outbox_payload, outbox_headers, outbox_msg_id) as (
      values ${sql.join(values)}
    ),
    stored as (
      insert into ${sql.table(SUBMISSION_RESULTS_TABLE)} as o (facility_id, report_id, patient_id, outcome, issue_categories, category_groups,
        outcome_hash, valid, run_id, issue_count, error_count, fatal_count, warning_count, information_count,
        uncategorized_count, unacceptable_count, resource_count, unobtainable, handled_events, updated_at)
      select facility_id, report_id, patient_id, outcome, issue_categories, category_groups, outcome_hash, valid, run_id,
        issue_count, error_count, fatal_count, warning_count, information_count, uncategorized_count, unacceptable_count,
        resource_count, unobtainable, case when event_id is null then '{}'::text[] else array[event_id] end, now()
      from input order by facility_id, report_id, patient_id
      on conflict (facility_id, report_id, patient_id) do update set
        outcome = excluded.outcome, issue_categories = excluded.issue_categories, category_groups = excluded.category_groups,
        run_id = case when ${announced} then excluded.run_id else o.run_id end,
        outcome_hash = case when ${announced} then excluded.outcome_hash else o.outcome_hash end,
        handled_events = case when cardinality(excluded.handled_events) = 0 or ${redelivery} then o.handled_events
          else (excluded.handled_events || o.handled_events)[1:${sql.lit(REMEMBERED_EVENTS)}] end,
        valid = excluded.valid, issue_count = excluded.issue_count, error_count = excluded.error_count,
        fatal_count = excluded.fatal_count, warning_count = excluded.warning_count, information_count = excluded.information_count,
        uncategorized_count = excluded.uncategorized_count, unacceptable_count = excluded.unacceptable_count,
        resource_count = excluded.resource_count, unobtainable = excluded.unobtainable, updated_at = excluded.updated_at
      returning o.facility_id, o.report_id, o.patient_id, o.run_id
    )${announce}
    select i.ord, s.run_id from input i join stored s on s.facility_id = i.facility_id and s.report_id = i.report_id and s.patient_id = i.patient_id`.execute(db);
  const stored = new Map(result.rows.map((row) => [Number(row.ord), row.run_id]));
  return writes.map((write, ord) => {
    const runId = stored.get(ord);
    if (runId === undefined) throw new Error(`storeSubmissionResults: no row stored for write ${ord}`);
    return { runId, changed: runId === write.runId };
  });
}

/**
 * Replaces the categorization of a stored submission (re-categorization), in the caller's
 * transaction, which read the row with readSubmissionIssues(..., { lock: true }). Without
 * `announced`, the outcome hash and run id stay: the hash names the outcome last ANNOUNCED, so the
 * next validation of the submission announces the new categorization. With it (the verdict changed
 * and the caller enqueues its ValidationComplete in this transaction), they become the new run's.
 */
export async function updateCategorizationIn(
  em: EntityManager, key: PatientKey, categorization: SubmissionCategorization,
  verdict: { valid: boolean; uncategorizedCount: number; unacceptableCount: number },
  announced?: { runId: string; outcomeHash: string },
): Promise<void> {
  await sql`
    update ${sql.table(SUBMISSION_RESULTS_TABLE)} set issue_categories = ${JSON.stringify(categorization.issueCategories)},
      category_groups = ${groupsJson(categorization.groups)}::jsonb, valid = ${verdict.valid},
      uncategorized_count = ${verdict.uncategorizedCount}, unacceptable_count = ${verdict.unacceptableCount}, updated_at = now()
      ${announced ? sql`, run_id = ${announced.runId}, outcome_hash = ${announced.outcomeHash}` : sql``}
    where facility_id = ${key.facilityId} and report_id = ${key.reportId} and patient_id = ${key.patientId}`.execute(em.getKysely());
}

/** A stored submission as re-categorization reads it. */
export interface StoredSubmissionIssues {
  /** In outcome order. */
  readonly issues: ValidationIssue[];
  /** The stored outcome's text (what its hash covers). */
  readonly outcomeJson: string;
  readonly unobtainable: boolean;
  /** The verdict stored (and last announced, unless a re-categorization left it unannounced). */
  readonly valid: boolean;
  readonly severities: { readonly issues: number; readonly errors: number; readonly warnings: number; readonly information: number };
}

/**
 * The stored issues of one submission (in outcome order); undefined when none is stored. `lock`:
 * row-locked until the caller's transaction ends (a read-modify-write such as re-categorization;
 * a concurrent storeSubmissionResults waits for it).
 */
export async function readSubmissionIssues(em: EntityManager, key: PatientKey, options: { lock?: boolean } = {}): Promise<StoredSubmissionIssues | undefined> {
  const rows = await sql<{ outcome: string; unobtainable: boolean; valid: boolean; issue_count: number; error_count: number; warning_count: number; information_count: number }>`
    select outcome, unobtainable, valid, issue_count, error_count, warning_count, information_count from ${sql.table(SUBMISSION_RESULTS_TABLE)}
    where facility_id = ${key.facilityId} and report_id = ${key.reportId} and patient_id = ${key.patientId}
    ${options.lock ? sql`for update` : sql``}`.execute(em.getKysely());
  const row = rows.rows[0];
  return row && {
    issues: issuesFromOperationOutcome(JSON.parse(row.outcome)), outcomeJson: row.outcome, unobtainable: row.unobtainable, valid: row.valid,
    severities: { issues: row.issue_count, errors: row.error_count, warnings: row.warning_count, information: row.information_count },
  };
}

/** The categories as they are now (existence and acceptability), read in the caller's session. */
export async function currentCategoriesIn(em: EntityManager): Promise<CurrentCategories> {
  const rows = await em.getKysely<CategoryDatabase>().selectFrom('category').select(['id', 'acceptable']).execute();
  return new Map(rows.map((row) => [row.id, { acceptable: row.acceptable }]));
}

function groupsJson(groups: readonly CategoryGroup[]): string {
  return JSON.stringify(groups.map((group) => ({ c: group.categoryIds, n: group.issues, e: group.blockingIssues })));
}

/** Issue count column per minimum severity (information < warning < error < fatal). */
const COUNT_FROM: Readonly<Record<IssueSeverity, RawBuilder<number>>> = {
  information: sql<number>`issue_count`,
  warning: sql<number>`warning_count + error_count`,
  error: sql<number>`error_count`,
  fatal: sql<number>`fatal_count`,
};
const SEVERITY_RANK: Readonly<Record<IssueSeverity, number>> = { information: 0, warning: 1, error: 2, fatal: 3 };

export class PgResultRepository implements ResultRepository {
  constructor(private readonly orm: MikroORM) {}

  /**
   * Stores issues handed over as such (the results API's store; tests and benchmarks seed with it):
   * kept as an OperationOutcome of those issues, like the flow's, with the verdict by the rule.
   */
  async replacePatientResults(key: PatientKey, results: readonly NewResult[]): Promise<number> {
    const outcomeJson = JSON.stringify(operationOutcomeOf(results.map((result) => result.issue)));
    await this.orm.em.fork().transactional(async (tx) => {
      const current = await currentCategoriesIn(tx);
      const verdict = assessValidity(results.map((result) => ({
        severity: result.issue.severity,
        categories: result.categoryIds.flatMap((id) => {
          const category = current.get(id);
          return category ? [{ id, acceptable: category.acceptable }] : [];
        }),
      })));
      await storeSubmissionResults(tx.getKysely(), [{
        record: {
          key, outcomeJson, outcomeHash: createHash('sha256').update(outcomeJson).digest('hex'),
          categorization: categorizeSubmission(results.map((result) => ({ severity: result.issue.severity, categoryIds: result.categoryIds }))),
          valid: verdict.valid, uncategorizedCount: verdict.uncategorizedIssueCount, unacceptableCount: verdict.unacceptableIssueCount,
          resourceCount: 0, unobtainable: false,
        },
        runId: randomUUID(),
      }]);
    });
    return results.length;
  }

  async findResults(scope: ResultScope, minimumSeverity: IssueSeverity | undefined, page: PageRequest): Promise<ResultPage> {
    const minimum = SEVERITY_RANK[minimumSeverity ?? 'information'];
    const em = this.orm.em.fork();
    const [placement, current] = await Promise.all([placeBySeverity(em, scope, COUNT_FROM[minimumSeverity ?? 'information'], page), currentCategoriesIn(em)]);
    return readPage(em, placement, page, current, (issue) => SEVERITY_RANK[issue.severity] >= minimum);
  }

  async findByCategory(facilityId: string, reportId: string, categoryId: string, page: PageRequest): Promise<ResultPage> {
    const em = this.orm.em.fork();
    const current = await currentCategoriesIn(em);
    if (categoryId !== UNCATEGORIZED_ID && !current.has(categoryId)) return { records: [], totalCount: 0 };
    const inCategory = categoryId === UNCATEGORIZED_ID
      ? (categoryIds: readonly string[]) => isUncategorizedNow(categoryIds, current)
      : (categoryIds: readonly string[]) => categoryIds.includes(categoryId);
    const placement = await placeByGroups(em, { facilityId, reportId }, page, (group) => inCategory(group.categoryIds));
    return readPage(em, placement, page, current, (_, categoryIds) => inCategory(categoryIds));
  }

  async countByCategory(facilityId: string, reportId: string): Promise<CategoryIssueCount[]> {
    const [groups, current] = await this.groupsOf({ facilityId, reportId });
    return issuesPerCategory(groups, current);
  }

  async validityCounts(scope: ResultScope): Promise<{ unacceptableIssueCount: number; uncategorizedErrorCount: number; uncategorizedIssueCount: number; issueCount: number } | undefined> {
    // A submission without issues has no groups: whether anything was validated is asked on its own.
    const [[groups, current], stored] = await Promise.all([
      this.groupsOf(scope),
      sql<{ found: boolean }>`select exists (select 1 from ${sql.table(SUBMISSION_RESULTS_TABLE)} o where ${scopeFilter(scope)}) as found`.execute(this.orm.em.fork().getKysely()),
    ]);
    if (!stored.rows[0]?.found) return undefined;
    const { valid: _valid, ...counts } = validityOfGroups(groups, current);
    return counts;
  }

  /** The category groups of a report (or one submission) summed over its submissions, with the categories as they are now. */
  private async groupsOf(scope: ResultScope): Promise<[CategoryGroup[], CurrentCategories]> {
    const em = this.orm.em.fork();
    const [rows, current] = await Promise.all([
      sql<{ c: string[]; n: string | number; e: string | number }>`
        select g -> 'c' as c, sum((g ->> 'n')::int) as n, sum((g ->> 'e')::int) as e
        from ${sql.table(SUBMISSION_RESULTS_TABLE)} o cross join lateral jsonb_array_elements(o.category_groups) g
        where ${scopeFilter(scope)}
        group by g -> 'c'`.execute(em.getKysely()),
      currentCategoriesIn(em),
    ]);
    return [rows.rows.map((row) => ({ categoryIds: row.c, issues: Number(row.n), blockingIssues: Number(row.e) })), current];
  }
}

/** Where a page's issues are: the submissions overlapping it, each with the number of kept issues before it. */
interface Placement {
  readonly totalCount: number;
  readonly submissions: readonly { id: string; before: number }[];
}

/**
 * Placement by a count column (severity): running sums in SQL over the small columns; no group
 * or outcome is read for the submissions before or after the page.
 */
async function placeBySeverity(em: EntityManager, scope: ResultScope, count: RawBuilder<number>, page: PageRequest): Promise<Placement> {
  const db = em.getKysely();
  const [total, placed] = await Promise.all([
    sql<{ count: string | number }>`select coalesce(sum(${count}), 0) as count from ${sql.table(SUBMISSION_RESULTS_TABLE)} o where ${scopeFilter(scope)}`.execute(db),
    sql<{ id: string; before: string | number }>`
      with counted as (
        select o.id, o.patient_id, ${count} as n from ${sql.table(SUBMISSION_RESULTS_TABLE)} o where ${scopeFilter(scope)}
      ), placed as (
        select id, patient_id, n, sum(n) over (order by patient_id, id rows unbounded preceding) - n as before from counted where n > 0
      )
      select id, before from placed where before < ${page.offset + page.limit} and before + n > ${page.offset}
      order by patient_id, id`.execute(db),
  ]);
  return { totalCount: countOf(total.rows[0]), submissions: placed.rows.map((row) => ({ id: row.id, before: Number(row.before) })) };
}

/**
 * Placement by category: each submission's kept issues are summed from its category groups here
 * (whether a category exists is only known with the current categories; a submission has a few
 * groups, so this reads one small value per submission of the report).
 */
async function placeByGroups(em: EntityManager, scope: ResultScope, page: PageRequest, kept: (group: CategoryGroup) => boolean): Promise<Placement> {
  const rows = await sql<{ id: string; category_groups: { c: string[]; n: number; e: number }[] }>`
    select o.id, o.category_groups from ${sql.table(SUBMISSION_RESULTS_TABLE)} o where ${scopeFilter(scope)} order by o.patient_id, o.id`
    .execute(em.getKysely());
  const submissions: { id: string; before: number }[] = [];
  let before = 0;
  for (const row of rows.rows) {
    let n = 0;
    for (const group of row.category_groups) if (kept({ categoryIds: group.c, issues: group.n, blockingIssues: group.e })) n += group.n;
    if (n > 0 && before < page.offset + page.limit && before + n > page.offset) submissions.push({ id: row.id, before });
    before += n;
  }
  return { totalCount: before, submissions };
}

/** Reads the placed submissions' outcomes and cuts the page out of the issues `keep` accepts. */
async function readPage(em: EntityManager, placement: Placement, page: PageRequest, current: CurrentCategories, keep: (issue: ValidationIssue, categoryIds: readonly string[]) => boolean): Promise<ResultPage> {
  if (placement.submissions.length === 0) return { records: [], totalCount: placement.totalCount };
  const rows = await sql<{ id: string; facility_id: string; report_id: string; patient_id: string; outcome: string; issue_categories: string }>`
    select id, facility_id, report_id, patient_id, outcome, issue_categories from ${sql.table(SUBMISSION_RESULTS_TABLE)}
    where id = any(${placement.submissions.map((s) => s.id)}::bigint[])`.execute(em.getKysely());
  const byId = new Map(rows.rows.map((row) => [String(row.id), row]));
  const end = page.offset + page.limit;
  const records: StoredResult[] = [];
  for (const { id, before } of placement.submissions) {
    const row = byId.get(String(id));
    if (!row) continue; // replaced in between: its new row has another place; the page is short, as with any concurrent change
    const issues = issuesFromOperationOutcome(JSON.parse(row.outcome));
    const categories: unknown = JSON.parse(row.issue_categories);
    if (!isIdLists(categories)) throw new Error(`The issue categories of submission ${String(id)} are not lists of category ids`);
    let position = before;
    issues.forEach((issue, index) => {
      const stored = categories[index] ?? [];
      if (!keep(issue, stored)) return;
      if (position >= page.offset && position < end) {
        records.push({
          ...fitForStorage(issue),
          id: Number(row.id) * RESULT_ID_FACTOR + index + 1,
          facilityId: row.facility_id, reportId: row.report_id, patientId: row.patient_id,
          categoryIds: stored.filter((categoryId) => current.has(categoryId)),
        });
      }
      position++;
    });
  }
  return { records, totalCount: placement.totalCount };
}

function scopeFilter(scope: ResultScope): RawBuilder<unknown> {
  const report = sql`o.facility_id = ${scope.facilityId} and o.report_id = ${scope.reportId}`;
  return scope.patientId === undefined ? report : sql`${report} and o.patient_id = ${scope.patientId}`;
}

/** issue_categories as the writer stores it: per issue, the ids of its categories. */
function isIdLists(value: unknown): value is string[][] {
  return Array.isArray(value) && value.every((ids: unknown) => Array.isArray(ids) && ids.every((id: unknown) => typeof id === 'string'));
}
