import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { countOf } from './count.js';
import { UNCATEGORIZED_ID } from '../../domain/categorization/category.js';
import { severitiesAtLeast, type IssueSeverity } from '../../domain/results/issue-severity.js';
import type {
  CategoryIssueCount, NewResult, PageRequest, PatientKey, ResultPage, ResultRepository, ResultScope, StoredResult,
} from '../../domain/results/result-repository.js';
import { fitForStorage } from '../../domain/results/validation-issue.js';

interface ResultRow {
  id: string | number; facility_id: string; report_id: string; patient_id: string; severity: IssueSeverity; code: string;
  message: string; location: string | null; expression: string | null; message_id: string | null;
}

/**
 * Replaces the results of one patient submission inside the caller's transaction (`em` must be
 * transactional): one statement deletes the old rows and their links, one statement draws the new
 * ids from the sequence, inserts the results and inserts their category links.
 *
 * Why arrays (`unnest`) instead of multi-row VALUES: the flow writes ~100 results and ~150 links per
 * patient, hundreds of patients a second. A VALUES list of 1,000 bind parameters is parsed and
 * planned afresh every time and costs a round trip per table; array parameters cost the same to
 * plan whatever the count, and the links join the new ids in the database (no RETURNING order to
 * rely on). There are no foreign keys on result_category (their per-row checks cost more than the
 * rest of the write; migration ResultLinksCheckedByTheWriters): links are written only for
 * categories that exist, under the shared category-links lock (see lockCategoryLinksShared), so a
 * category deleted meanwhile gets no link and a deleted category does not fail the whole write.
 * Exported for the validation flow, which writes results and its outbox message in one transaction.
 */
export async function replacePatientResultsIn(em: EntityManager, key: PatientKey, results: readonly NewResult[]): Promise<number> {
  const db = em.getKysely<any>();
  await lockCategoryLinksShared(em);
  await sql`
    with old as (
      delete from validation_result where facility_id = ${key.facilityId} and report_id = ${key.reportId} and patient_id = ${key.patientId}
      returning id
    )
    delete from result_category where result_id in (select id from old)`.execute(db);
  if (results.length === 0) return 0;

  const columns = { severity: [] as string[], code: [] as string[], message: [] as string[], location: [] as (string | null)[], expression: [] as (string | null)[], messageId: [] as (string | null)[] };
  const linkOrdinals: number[] = [];
  const linkCategories: string[] = [];
  results.forEach((result, i) => {
    const issue = fitForStorage(result.issue);
    columns.severity.push(issue.severity);
    columns.code.push(issue.code);
    columns.message.push(issue.message);
    columns.location.push(issue.location ?? null);
    columns.expression.push(issue.expression ?? null);
    columns.messageId.push(issue.messageId ?? null);
    for (const categoryId of new Set(result.categoryIds)) {
      if (categoryId === UNCATEGORIZED_ID) continue;
      linkOrdinals.push(i + 1);
      linkCategories.push(categoryId);
    }
  });
  // "fresh" calls nextval (volatile), so PostgreSQL evaluates it once and both inserts see the same ids.
  await sql`
    with fresh as (
      select nextval('validation_result_id_seq') as id, r.*
      from unnest(${columns.severity}::text[], ${columns.code}::text[], ${columns.message}::text[], ${columns.location}::text[],
                  ${columns.expression}::text[], ${columns.messageId}::text[])
           with ordinality as r(severity, code, message, location, expression, message_id, ordinal)
    ), stored as (
      insert into validation_result (id, facility_id, report_id, patient_id, severity, code, message, location, expression, message_id)
      select id, ${key.facilityId}, ${key.reportId}, ${key.patientId}, severity, code, message, location, expression, message_id from fresh
    )
    insert into result_category (result_id, category_id, facility_id, report_id)
    select fresh.id, link.category_id, ${key.facilityId}, ${key.reportId}
    from unnest(${linkOrdinals}::bigint[], ${linkCategories}::text[]) as link(ordinal, category_id)
    join fresh on fresh.ordinal = link.ordinal
    join category on category.id = link.category_id`.execute(db);
  return results.length;
}

/**
 * Inserts category links for stored results (re-categorization), inside the caller's transaction,
 * under the same rule as replacePatientResultsIn: only categories that exist, under the shared lock.
 */
export async function insertCategoryLinksIn(em: EntityManager, scope: { facilityId: string; reportId: string }, links: readonly { resultId: string | number; categoryId: string }[]): Promise<void> {
  const wanted = links.filter((link) => link.categoryId !== UNCATEGORIZED_ID);
  if (wanted.length === 0) return;
  const categoryIds = wanted.map((link) => link.categoryId);
  await lockCategoryLinksShared(em);
  await sql`
    insert into result_category (result_id, category_id, facility_id, report_id)
    select link.result_id, link.category_id, ${scope.facilityId}, ${scope.reportId}
    from unnest(${wanted.map((link) => String(link.resultId))}::bigint[], ${categoryIds}::text[]) as link(result_id, category_id)
    join category on category.id = link.category_id
    on conflict do nothing`.execute(em.getKysely<any>());
}

/** The one advisory lock that orders link writers against category deletion (see below). */
const CATEGORY_LINKS_LOCK = 'result_category|links-vs-category-deletion';

/**
 * Writers of result links hold this lock SHARED until they commit (many at once); deleting
 * categories takes it EXCLUSIVE (lockCategoryLinksExclusive), so a deletion waits for the link
 * writes in progress and then, with a new snapshot, deletes their links too, and a link write that
 * starts later waits for the deletion and no longer finds the category (its INSERT's snapshot is
 * taken after the lock is granted). One lock in memory per transaction: cheaper than locking every
 * linked category row (FOR KEY SHARE writes each row and makes multixacts under concurrency).
 */
export async function lockCategoryLinksShared(em: EntityManager): Promise<void> {
  await sql`select pg_advisory_xact_lock_shared(hashtextextended(${CATEGORY_LINKS_LOCK}, 0))`.execute(em.getKysely<any>());
}

export async function lockCategoryLinksExclusive(em: EntityManager): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${CATEGORY_LINKS_LOCK}, 0))`.execute(em.getKysely<any>());
}

/** Validation results in PostgreSQL (tables validation_result, result_category). */
export class PgResultRepository implements ResultRepository {
  constructor(private readonly orm: MikroORM) {}

  async replacePatientResults(key: PatientKey, results: readonly NewResult[]): Promise<number> {
    return this.orm.em.fork().transactional((em) => replacePatientResultsIn(em, key, results));
  }

  async findResults(scope: ResultScope, minimumSeverity: IssueSeverity | undefined, page: PageRequest): Promise<ResultPage> {
    const em = this.orm.em.fork();
    const db = em.getKysely<any>();
    const filtered = () => {
      let query = db.selectFrom('validation_result').where('facility_id', '=', scope.facilityId).where('report_id', '=', scope.reportId);
      if (scope.patientId !== undefined) query = query.where('patient_id', '=', scope.patientId);
      if (minimumSeverity !== undefined && minimumSeverity !== 'information') query = query.where('severity', 'in', severitiesAtLeast(minimumSeverity));
      return query;
    };
    const [countRow, rows] = await Promise.all([
      filtered().select((eb: any) => eb.fn.countAll().as('count')).executeTakeFirst(),
      filtered().selectAll().orderBy('id').offset(page.offset).limit(page.limit).execute() as Promise<ResultRow[]>,
    ]);
    return { records: await withCategories(em, rows), totalCount: countOf(countRow) };
  }

  async countByCategory(facilityId: string, reportId: string): Promise<CategoryIssueCount[]> {
    const db = this.orm.em.fork().getKysely<any>();
    const links = () => db.selectFrom('result_category').where('facility_id', '=', facilityId).where('report_id', '=', reportId);
    const [linked, total, categorized] = await Promise.all([
      links().select(['category_id', (eb: any) => eb.fn.countAll().as('count')]).groupBy('category_id').execute(),
      db.selectFrom('validation_result').where('facility_id', '=', facilityId).where('report_id', '=', reportId)
        .select((eb: any) => eb.fn.countAll().as('count')).executeTakeFirst(),
      links().select((eb: any) => eb.fn.count('result_id').distinct().as('count')).executeTakeFirst(),
    ]);
    const counts: CategoryIssueCount[] = (linked as unknown as { category_id: string; count: string | number }[])
      .map((row) => ({ categoryId: row.category_id, count: Number(row.count) }));
    const none = countOf(total) - countOf(categorized);
    if (none > 0) counts.push({ categoryId: UNCATEGORIZED_ID, count: none });
    return counts.sort((a, b) => b.count - a.count || a.categoryId.localeCompare(b.categoryId));
  }

  async validityCounts(scope: ResultScope): Promise<{ unacceptableIssueCount: number; uncategorizedErrorCount: number; uncategorizedIssueCount: number; issueCount: number }> {
    const db = this.orm.em.fork().getKysely<any>();
    const results = () => {
      let query = db.selectFrom('validation_result as r').where('r.facility_id', '=', scope.facilityId).where('r.report_id', '=', scope.reportId);
      if (scope.patientId !== undefined) query = query.where('r.patient_id', '=', scope.patientId);
      return query;
    };
    const noLink = ({ not, exists, selectFrom }: any) => not(exists(selectFrom('result_category as rc').select('rc.result_id').whereRef('rc.result_id', '=', 'r.id')));
    const [all, unacceptable, uncategorized, uncategorizedErrors] = await Promise.all([
      results().select((eb: any) => eb.fn.countAll().as('count')).executeTakeFirst(),
      results().where(({ exists, selectFrom }: any) => exists(selectFrom('result_category as rc').innerJoin('category as c', 'c.id', 'rc.category_id')
        .select('rc.result_id').whereRef('rc.result_id', '=', 'r.id').where('c.acceptable', '=', false)))
        .select((eb: any) => eb.fn.countAll().as('count')).executeTakeFirst(),
      results().where(noLink).select((eb: any) => eb.fn.countAll().as('count')).executeTakeFirst(),
      results().where('r.severity', 'in', ['error', 'fatal']).where(noLink).select((eb: any) => eb.fn.countAll().as('count')).executeTakeFirst(),
    ]);
    return {
      unacceptableIssueCount: countOf(unacceptable), uncategorizedErrorCount: countOf(uncategorizedErrors),
      uncategorizedIssueCount: countOf(uncategorized), issueCount: countOf(all),
    };
  }

  async findByCategory(facilityId: string, reportId: string, categoryId: string, page: PageRequest): Promise<ResultPage> {
    const em = this.orm.em.fork();
    const db = em.getKysely<any>();
    if (categoryId !== UNCATEGORIZED_ID) {
      const links = () => db.selectFrom('result_category')
        .where('facility_id', '=', facilityId).where('report_id', '=', reportId).where('category_id', '=', categoryId);
      const [countRow, rows] = await Promise.all([
        links().select((eb: any) => eb.fn.countAll().as('count')).executeTakeFirst(),
        db.selectFrom('validation_result as r')
          .where('r.id', 'in', links().select('result_id').orderBy('result_id').offset(page.offset).limit(page.limit))
          .selectAll('r').orderBy('r.id').execute() as Promise<ResultRow[]>,
      ]);
      return { records: await withCategories(em, rows), totalCount: countOf(countRow) };
    }
    const unlinked = () => db.selectFrom('validation_result as r').where('r.facility_id', '=', facilityId).where('r.report_id', '=', reportId)
      .where(({ not, exists, selectFrom }: any) => not(exists(selectFrom('result_category as rc').select('rc.result_id').whereRef('rc.result_id', '=', 'r.id'))));
    const [countRow, rows] = await Promise.all([
      unlinked().select((eb: any) => eb.fn.countAll().as('count')).executeTakeFirst(),
      unlinked().selectAll('r').orderBy('r.id').offset(page.offset).limit(page.limit).execute() as Promise<ResultRow[]>,
    ]);
    return { records: await withCategories(em, rows), totalCount: countOf(countRow) };
  }
}

async function withCategories(em: EntityManager, rows: readonly ResultRow[]): Promise<StoredResult[]> {
  if (rows.length === 0) return [];
  const links = await em.getKysely<any>().selectFrom('result_category').select(['result_id', 'category_id'])
    .where('result_id', 'in', rows.map((row) => row.id)).orderBy('result_id').orderBy('category_id').execute() as { result_id: string; category_id: string }[];
  const byResult = new Map<string, string[]>();
  for (const link of links) {
    const key = String(link.result_id);
    const list = byResult.get(key);
    if (list) list.push(link.category_id);
    else byResult.set(key, [link.category_id]);
  }
  return rows.map((row) => ({
    id: Number(row.id), facilityId: row.facility_id, reportId: row.report_id, patientId: row.patient_id,
    severity: row.severity, code: row.code, message: row.message,
    ...(row.location === null ? {} : { location: row.location }),
    ...(row.expression === null ? {} : { expression: row.expression }),
    ...(row.message_id === null ? {} : { messageId: row.message_id }),
    categoryIds: byResult.get(String(row.id)) ?? [],
  }));
}
