import { Migration } from '@mikro-orm/migrations';
import { CompressResultsWithLz4, CreateValidationOutcomeTable, RememberAnnouncedEvents, StoreResultsPerSubmission } from './submission-results-table.js';

/**
 * Tables of the validation API. Names are what the migration table records: never rename a
 * migration; add a new one for every change.
 */
export class CreateValidationApiTables extends Migration {
  override up(): void {
    this.addSql(`create table "artifact" (
      "id" serial primary key,
      "type" varchar(16) not null check ("type" in ('RESOURCE', 'PACKAGE')),
      "name" varchar(255) not null,
      "content" bytea not null,
      "size" integer not null,
      "package_name" varchar(255) null,
      "version" varchar(255) null,
      "fhir_version" varchar(64) null,
      "resource_type" varchar(64) null,
      "url" varchar(1000) null,
      "summary" jsonb null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now(),
      constraint "artifact_type_name_unique" unique ("type", "name"))`);

    this.addSql(`create table "category" (
      "id" varchar(255) primary key,
      "title" varchar(255) not null,
      "severity" varchar(16) not null check ("severity" in ('ERROR', 'WARNING', 'INFORMATION')),
      "acceptable" boolean not null,
      "guidance" varchar(1000) not null)`);

    this.addSql(`create table "category_rule" (
      "id" bigserial primary key,
      "category_id" varchar(255) not null references "category" ("id") on delete cascade,
      "matcher" jsonb not null,
      "timestamp" timestamptz not null)`);
    // Latest rule per category: the first row of this index for a category.
    this.addSql('create index "category_rule_latest_index" on "category_rule" ("category_id", "timestamp" desc, "id" desc)');

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
    // A patient's results: the replace-by-patient delete and the patient query (in id order).
    this.addSql('create index "validation_result_patient_index" on "validation_result" ("facility_id", "report_id", "patient_id", "id")');
    // A report's results in id order (paging stops early) with the severity at hand (counts need no heap visit).
    this.addSql('create index "validation_result_report_index" on "validation_result" ("facility_id", "report_id", "id") include ("severity")');

    // facility_id and report_id are copied from the result so that per-report category counts and the
    // issues of one category are answered from this table's index alone (no join over every result).
    this.addSql(`create table "result_category" (
      "result_id" bigint not null references "validation_result" ("id") on delete cascade,
      "category_id" varchar(255) not null references "category" ("id") on delete cascade,
      "facility_id" varchar(255) not null,
      "report_id" varchar(255) not null,
      primary key ("result_id", "category_id"))`);
    this.addSql('create index "result_category_report_index" on "result_category" ("facility_id", "report_id", "category_id", "result_id")');
    // Deleting a category cascades through this one.
    this.addSql('create index "result_category_category_index" on "result_category" ("category_id")');
  }

  override down(): void {
    this.addSql('drop table if exists "result_category"');
    this.addSql('drop table if exists "validation_result"');
    this.addSql('drop table if exists "category_rule"');
    this.addSql('drop table if exists "category"');
    this.addSql('drop table if exists "artifact"');
  }
}

/**
 * The two foreign keys of result_category cost more than the rest of a patient's write: the flow
 * writes ~150 links per patient, and each link ran two referential-integrity checks (row lock +
 * lookup each, through SPI). The writers keep the same guarantees themselves:
 * - results and their links are only written and deleted together, in one transaction
 *   (replacePatientResultsIn, recategorizePatient), links deleted explicitly;
 * - a link is inserted only for a category that exists, under a shared advisory lock that deleting
 *   a category takes exclusively before it deletes the category and then its links; so a category
 *   deleted while a patient is written leaves no link behind (result-repository.ts).
 */
export class ResultLinksCheckedByTheWriters extends Migration {
  override up(): void {
    this.addSql('alter table "result_category" drop constraint if exists "result_category_result_id_fkey"');
    this.addSql('alter table "result_category" drop constraint if exists "result_category_category_id_fkey"');
  }

  override down(): void {
    this.addSql('delete from "result_category" rc where not exists (select 1 from "validation_result" r where r."id" = rc."result_id") or not exists (select 1 from "category" c where c."id" = rc."category_id")');
    this.addSql('alter table "result_category" add constraint "result_category_result_id_fkey" foreign key ("result_id") references "validation_result" ("id") on delete cascade');
    this.addSql('alter table "result_category" add constraint "result_category_category_id_fkey" foreign key ("category_id") references "category" ("id") on delete cascade');
  }
}

/**
 * The generation of the stored artifacts: a counter that every change of the `artifact` table
 * increments in the changing transaction (a row trigger, so every writer counts: the API, the
 * initialization, an operator's SQL). Each instance compares it every `validation.artifact-check-interval`
 * with the generation its engine was built from and rebuilds when they differ, so replicas converge
 * even when the "artifacts changed" notice (core NATS, fire and forget) is lost.
 */
export class CountArtifactGenerations extends Migration {
  override up(): void {
    this.addSql(`create table "artifact_generation" (
      "id" smallint primary key default 1 check ("id" = 1),
      "generation" bigint not null)`);
    this.addSql(`insert into "artifact_generation" ("id", "generation") values (1, 1)`);
    this.addSql(`create function "artifact_generation_bump"() returns trigger language plpgsql as $$
      begin
        update "artifact_generation" set "generation" = "generation" + 1 where "id" = 1;
        return null;
      end $$`);
    this.addSql(`create trigger "artifact_generation_bump" after insert or update or delete on "artifact"
      for each row execute function "artifact_generation_bump"()`);
    this.addSql(`create trigger "artifact_generation_bump_truncate" after truncate on "artifact"
      for each statement execute function "artifact_generation_bump"()`);
  }

  override down(): void {
    this.addSql('drop trigger if exists "artifact_generation_bump_truncate" on "artifact"');
    this.addSql('drop trigger if exists "artifact_generation_bump" on "artifact"');
    this.addSql('drop function if exists "artifact_generation_bump"()');
    this.addSql('drop table if exists "artifact_generation"');
  }
}

/**
 * In order of their names. The outcome table was first created by the flow's migrations; it holds
 * the results now, so it is created here, before the migration that moves the results into it.
 */
export const validationApiMigrations = [
  { name: 'Migration20261122050000_validation_api_tables', class: CreateValidationApiTables },
  { name: 'Migration20261122060000_validation_outcome', class: CreateValidationOutcomeTable },
  { name: 'Migration20261122090000_result_links_checked_by_the_writers', class: ResultLinksCheckedByTheWriters },
  { name: 'Migration20261125100000_results_per_submission', class: StoreResultsPerSubmission },
  { name: 'Migration20261125130000_results_compressed_with_lz4', class: CompressResultsWithLz4 },
  { name: 'Migration20261126010000_artifact_generation', class: CountArtifactGenerations },
  { name: 'Migration20261201090000_results_remember_announced_events', class: RememberAnnouncedEvents },
];
