/**
 * The stored results of each patient submission: ONE row per (facility, report, patient), replaced
 * by every validation of that submission (flow steps 4 and 5).
 *
 * - `outcome`: the aggregated OperationOutcome as JSON text. Its issues ARE the submission's
 *   validation results (specification, "Validation result"): the results API reads them from here.
 * - `issue_categories`: JSON array parallel to the outcome's issues, each the issue's category ids.
 * - `category_groups`: jsonb `[{c: [ids], n: issues, e: error-or-fatal issues}]`, the issues counted
 *   per distinct set of categories (domain/results/submission-categorization.ts); per-report
 *   category counts and validity are summed from these small values.
 * - per-severity counts, so that a page of a report's results (optionally from a minimum severity
 *   on) is located by running sums without opening any outcome.
 * - `handled_events`: the ReadyForValidation events announced (newest first, a bounded number), so a
 *   redelivered event is answered once while every other event gets its ValidationComplete.
 * - `outcome_hash` identifies the outcome last announced (a re-validation job announces only a
 *   different one); `run_id` is the run that announced it (the ValidationComplete message id is
 *   derived from it); `valid` and the uncategorized/unacceptable counts are the verdict of the outcome stored.
 * - `unobtainable`: the report service had no readable submission (404, unreadable answer); the
 *   outcome is a definite failure that no category makes valid.
 *
 * Why one row per submission rather than one row per issue (the original system's table): the flow
 * writes ~100 issues per patient for every patient of every facility and reporting period. As rows
 * with their category links that was ~250 rows and ~750 index entries per patient, the largest
 * cost of the whole flow and of the shared database (measured: 4.4-6 ms of PostgreSQL CPU and ~90 KB
 * per submission); as one row it is one upsert of a compressed text (0.7 ms, ~9 KB). Reads are by
 * report and patient, which the per-submission counts serve directly.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';
import { Migration } from '@mikro-orm/migrations';

export const SUBMISSION_RESULTS_TABLE = 'validation_outcome';

/**
 * The columns read through Kysely's query builder (the writes are SQL of their own, see
 * storeSubmissionResults); the outcome is text since it is compressed with lz4.
 */
export interface SubmissionResultsDatabase {
  [SUBMISSION_RESULTS_TABLE]: { facility_id: string; report_id: string; patient_id: string; outcome: string; valid: boolean; outcome_hash: string; run_id: string };
}

export const SubmissionResultsEntity = defineEntity({
  name: 'SubmissionResultsEntity',
  tableName: SUBMISSION_RESULTS_TABLE,
  properties: {
    id: p.bigint().primary().autoincrement(),
    facilityId: p.string().length(255),
    reportId: p.string().length(255),
    patientId: p.string().length(255),
    outcome: p.text(),
    issueCategories: p.text(),
    categoryGroups: p.json<{ c: string[]; n: number; e: number }[]>(),
    outcomeHash: p.string().length(64),
    valid: p.boolean(),
    runId: p.string().length(64),
    issueCount: p.integer(),
    errorCount: p.integer(),
    fatalCount: p.integer(),
    warningCount: p.integer(),
    informationCount: p.integer(),
    uncategorizedCount: p.integer(),
    unacceptableCount: p.integer(),
    resourceCount: p.integer(),
    unobtainable: p.boolean(),
    handledEvents: p.array().default([]),
    updatedAt: p.datetime(),
  },
});

/** The table as the flow first created it (kept by name: databases record it as applied). */
export class CreateValidationOutcomeTable extends Migration {
  override up(): void {
    this.addSql(`create table "${SUBMISSION_RESULTS_TABLE}" (
      "id" bigserial primary key,
      "facility_id" varchar(255) not null,
      "report_id" varchar(255) not null,
      "patient_id" varchar(255) not null,
      "outcome" jsonb not null,
      "outcome_hash" varchar(64) not null,
      "valid" boolean not null,
      "run_id" varchar(64) not null,
      "issue_count" integer not null,
      "error_count" integer not null,
      "warning_count" integer not null,
      "information_count" integer not null,
      "uncategorized_count" integer not null,
      "unacceptable_count" integer not null,
      "resource_count" integer not null,
      "updated_at" timestamptz not null default now(),
      constraint "validation_outcome_submission_unique" unique ("facility_id", "report_id", "patient_id"))`);
  }

  override down(): void {
    this.addSql(`drop table if exists "${SUBMISSION_RESULTS_TABLE}"`);
  }
}

const MESSAGE_ID_URL = 'http://hl7.org/fhir/StructureDefinition/operationoutcome-message-id';
const LINE_URL = 'http://hl7.org/fhir/StructureDefinition/operationoutcome-issue-line';
const COLUMN_URL = 'http://hl7.org/fhir/StructureDefinition/operationoutcome-issue-col';

/**
 * From one row per issue (validation_result + result_category) to one row per submission.
 *
 * Every stored result is carried over: the flow wrote a submission's results in the order of its
 * outcome's issues, so the n-th result's links become the n-th issue's categories (links to
 * categories that no longer exist are dropped, as the old readers ignored them). Results stored
 * without an outcome (through the API) get an OperationOutcome built from them, so they read back
 * the same. The verdict columns of those are computed with the categories as they are now.
 * `outcome` becomes text (it is read whole, never queried inside; jsonb cost ~1.5 ms of database CPU
 * per write to parse and keep), compressed with lz4 where the server was built with it.
 */
export class StoreResultsPerSubmission extends Migration {
  override up(): void {
    this.addSql(`alter table "${SUBMISSION_RESULTS_TABLE}" alter column "outcome" type text using "outcome"::text`);
    this.addSql(`alter table "${SUBMISSION_RESULTS_TABLE}"
      add column "fatal_count" integer not null default 0,
      add column "issue_categories" text not null default '[]',
      add column "category_groups" jsonb not null default '[]',
      add column "unobtainable" boolean not null default false`);
    // The flow stored no resources only when it could not obtain or read the submission.
    this.addSql(`update "${SUBMISSION_RESULTS_TABLE}" set unobtainable = true where resource_count = 0`);
    this.addSql(`do $$ begin
      alter table "${SUBMISSION_RESULTS_TABLE}" alter column "outcome" set compression lz4, alter column "issue_categories" set compression lz4;
    exception when feature_not_supported then null; -- a server built without lz4 keeps the default (pglz)
    end $$`);

    // Results stored through the API without an outcome: an OperationOutcome made of them.
    this.addSql(`insert into "${SUBMISSION_RESULTS_TABLE}" (facility_id, report_id, patient_id, outcome, outcome_hash, valid, run_id,
        issue_count, error_count, warning_count, information_count, uncategorized_count, unacceptable_count, resource_count)
      select r.facility_id, r.report_id, r.patient_id,
        jsonb_build_object('resourceType', 'OperationOutcome', 'issue', jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
          'severity', r.severity, 'code', r.code, 'details', jsonb_build_object('text', r.message),
          'expression', case when r.expression is null then null else jsonb_build_array(r.expression) end,
          'extension', nullif(
            case when r.message_id is null then '[]'::jsonb else jsonb_build_array(jsonb_build_object('url', '${MESSAGE_ID_URL}', 'valueCode', r.message_id)) end
            || case when r.location ~ '^[0-9]{1,9}:[0-9]{1,9}$' then jsonb_build_array(
                 jsonb_build_object('url', '${LINE_URL}', 'valueInteger', split_part(r.location, ':', 1)::int),
                 jsonb_build_object('url', '${COLUMN_URL}', 'valueInteger', split_part(r.location, ':', 2)::int)) else '[]'::jsonb end,
            '[]'::jsonb))) order by r.id))::text,
        '', false, gen_random_uuid()::text,
        count(*), count(*) filter (where r.severity in ('error', 'fatal')), count(*) filter (where r.severity = 'warning'),
        count(*) filter (where r.severity = 'information'), 0, 0, 0
      from validation_result r
      where not exists (select 1 from "${SUBMISSION_RESULTS_TABLE}" o
                        where o.facility_id = r.facility_id and o.report_id = r.report_id and o.patient_id = r.patient_id)
      group by r.facility_id, r.report_id, r.patient_id`);

    // Each result's categories (existing ones, sorted), then per submission: issue_categories in result order and the groups.
    this.addSql(`with linked as (
        select r.facility_id, r.report_id, r.patient_id, r.id, r.severity,
          coalesce((select jsonb_agg(rc.category_id order by rc.category_id) from result_category rc join category c on c.id = rc.category_id
                    where rc.result_id = r.id), '[]'::jsonb) as categories
        from validation_result r
      ), per_submission as (
        select facility_id, report_id, patient_id, jsonb_agg(categories order by id)::text as issue_categories,
          count(*) filter (where severity = 'fatal') as fatal
        from linked group by facility_id, report_id, patient_id
      ), per_group as (
        select facility_id, report_id, patient_id,
          jsonb_agg(jsonb_build_object('c', categories, 'n', issues, 'e', blocking)) as category_groups
        from (select facility_id, report_id, patient_id, categories, count(*) as issues,
                count(*) filter (where severity in ('error', 'fatal')) as blocking
              from linked group by facility_id, report_id, patient_id, categories) g
        group by facility_id, report_id, patient_id
      )
      update "${SUBMISSION_RESULTS_TABLE}" o
      set issue_categories = s.issue_categories, fatal_count = s.fatal, category_groups = g.category_groups
      from per_submission s join per_group g using (facility_id, report_id, patient_id)
      where o.facility_id = s.facility_id and o.report_id = s.report_id and o.patient_id = s.patient_id`);
    // An outcome without result rows (none should exist): its issues uncategorized.
    this.addSql(`update "${SUBMISSION_RESULTS_TABLE}" set category_groups = jsonb_build_array(jsonb_build_object('c', '[]'::jsonb, 'n', issue_count, 'e', error_count))
      where category_groups = '[]'::jsonb and issue_count > 0`);
    this.addSql(`update "${SUBMISSION_RESULTS_TABLE}" o set fatal_count = (
        select count(*) from jsonb_array_elements(o.outcome::jsonb -> 'issue') i where i ->> 'severity' = 'fatal')
      where o.issue_categories = '[]' and o.issue_count > 0`);

    // The verdict of the submissions that had none (stored through the API, marked by the empty hash), by the validity rule.
    this.addSql(`update "${SUBMISSION_RESULTS_TABLE}" o set
        unacceptable_count = v.unacceptable, uncategorized_count = v.uncategorized, valid = (v.unacceptable = 0 and v.uncategorized_errors = 0)
      from (select o2.id,
              coalesce(sum((g ->> 'n')::int) filter (where exists (
                select 1 from jsonb_array_elements_text(g -> 'c') x join category c on c.id = x where not c.acceptable)), 0) as unacceptable,
              coalesce(sum((g ->> 'n')::int) filter (where jsonb_array_length(g -> 'c') = 0), 0) as uncategorized,
              coalesce(sum((g ->> 'e')::int) filter (where jsonb_array_length(g -> 'c') = 0), 0) as uncategorized_errors
            from "${SUBMISSION_RESULTS_TABLE}" o2 left join lateral jsonb_array_elements(o2.category_groups) g on true
            where o2.outcome_hash = ''
            group by o2.id) v
      where o.id = v.id`);
    this.addSql(`update "${SUBMISSION_RESULTS_TABLE}" set outcome_hash = encode(sha256(convert_to(outcome, 'UTF8')), 'hex') where outcome_hash = ''`);

    this.addSql('drop table if exists "result_category"');
    this.addSql('drop table if exists "validation_result"');
  }

  override down(): void {
    this.addSql(`create table "validation_result" (
      "id" bigserial primary key,
      "facility_id" varchar(255) not null,
      "report_id" varchar(255) not null,
      "patient_id" varchar(255) not null,
      "severity" varchar(16) not null check ("severity" in ('information', 'warning', 'error', 'fatal')),
      "code" varchar(255) not null,
      "message" text not null,
      "location" varchar(255) null,
      "expression" varchar(1000) null,
      "message_id" varchar(255) null)`);
    this.addSql('create index "validation_result_patient_index" on "validation_result" ("facility_id", "report_id", "patient_id", "id")');
    this.addSql('create index "validation_result_report_index" on "validation_result" ("facility_id", "report_id", "id") include ("severity")');
    this.addSql(`create table "result_category" (
      "result_id" bigint not null,
      "category_id" varchar(255) not null,
      "facility_id" varchar(255) not null,
      "report_id" varchar(255) not null,
      primary key ("result_id", "category_id"))`);
    this.addSql('create index "result_category_report_index" on "result_category" ("facility_id", "report_id", "category_id", "result_id")');
    this.addSql('create index "result_category_category_index" on "result_category" ("category_id")');
    // One result per issue (text, expression, line:col and message id as the results API reads them), then its links.
    this.addSql(`create temporary table migrated_issue on commit drop as
      select nextval('validation_result_id_seq') as id, o.facility_id, o.report_id, o.patient_id, i.ordinal,
        i.issue, coalesce(o.issue_categories::jsonb -> (i.ordinal::int - 1), '[]'::jsonb) as categories
      from "${SUBMISSION_RESULTS_TABLE}" o cross join lateral jsonb_array_elements(o.outcome::jsonb -> 'issue') with ordinality as i(issue, ordinal)
      order by o.id, i.ordinal`);
    this.addSql(`insert into validation_result (id, facility_id, report_id, patient_id, severity, code, message, location, expression, message_id)
      select id, facility_id, report_id, patient_id,
        case when issue ->> 'severity' in ('information', 'warning', 'error', 'fatal') then issue ->> 'severity' else 'error' end,
        left(coalesce(issue ->> 'code', 'processing'), 255),
        coalesce(issue -> 'details' ->> 'text', issue ->> 'diagnostics', ''),
        (select left(concat((select e ->> 'valueInteger' from jsonb_array_elements(issue -> 'extension') e where e ->> 'url' = '${LINE_URL}' limit 1), ':',
                coalesce((select e ->> 'valueInteger' from jsonb_array_elements(issue -> 'extension') e where e ->> 'url' = '${COLUMN_URL}' limit 1), '?')), 255)
         where exists (select 1 from jsonb_array_elements(issue -> 'extension') e where e ->> 'url' = '${LINE_URL}')),
        left(coalesce(issue -> 'expression' ->> 0, issue -> 'location' ->> 0), 1000),
        left((select coalesce(e ->> 'valueCode', e ->> 'valueString') from jsonb_array_elements(issue -> 'extension') e where e ->> 'url' = '${MESSAGE_ID_URL}' limit 1), 255)
      from migrated_issue`);
    this.addSql(`insert into result_category (result_id, category_id, facility_id, report_id)
      select m.id, c.value, m.facility_id, m.report_id from migrated_issue m cross join lateral jsonb_array_elements_text(m.categories) c
      join category on category.id = c.value on conflict do nothing`);
    this.addSql(`alter table "${SUBMISSION_RESULTS_TABLE}" drop column "category_groups", drop column "issue_categories", drop column "fatal_count", drop column "unobtainable"`);
    this.addSql(`alter table "${SUBMISSION_RESULTS_TABLE}" alter column "outcome" type jsonb using "outcome"::jsonb`);
  }
}

/**
 * The outcome and its categories are compressed with lz4 rather than PostgreSQL's default pglz:
 * inserting 60 KB outcomes costs the database ~0.26 ms per row with pglz and ~0.03 ms with lz4
 * (measured in psql; PostgreSQL's whole share of bench:flow is ~1 ms per submission), for about the
 * same stored size (~10x smaller than the text). Servers built without lz4 keep pglz (the setting is an optimization only).
 */
export class CompressResultsWithLz4 extends Migration {
  override up(): void {
    this.addSql(`do $$ begin
      execute 'alter table "${SUBMISSION_RESULTS_TABLE}" alter column "outcome" set compression lz4, alter column "issue_categories" set compression lz4';
    exception when feature_not_supported or invalid_parameter_value then
      raise notice 'lz4 compression not available: results stay compressed with pglz';
    end $$`);
  }

  override down(): void {
    this.addSql(`alter table "${SUBMISSION_RESULTS_TABLE}" alter column "outcome" set compression default, alter column "issue_categories" set compression default`);
  }
}

/**
 * The events each submission's row has announced (newest first, at most REMEMBERED_EVENTS of
 * result-repository.ts): one ValidationComplete per ReadyForValidation, however often it is
 * delivered, rather than one per distinct outcome. Rows stored before start empty: a redelivery of
 * an event announced before the upgrade is announced once more.
 */
export class RememberAnnouncedEvents extends Migration {
  override up(): void {
    this.addSql(`alter table "${SUBMISSION_RESULTS_TABLE}" add column "handled_events" text[] not null default '{}'`);
  }

  override down(): void {
    this.addSql(`alter table "${SUBMISSION_RESULTS_TABLE}" drop column "handled_events"`);
  }
}
