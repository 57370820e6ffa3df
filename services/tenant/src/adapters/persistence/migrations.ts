import { Migration } from '@mikro-orm/migrations';
import type { MigrationObject } from '@mikro-orm/postgresql';
import { outboxMigration } from '#adapters/persistence/index.js';

/**
 * The tenant schema. Uniqueness the business depends on is enforced by the database, not by a
 * check-then-insert: facility.facility_id, measure_mapping (measure, dqm), one plan per
 * facility/mapping/month, one schedule row per facility and frequency.
 */
export class CreateTenantTables extends Migration {
  override up(): void {
    this.addSql(`create table "vendor" (
      "id" varchar(36) primary key,
      "name" varchar(255) not null,
      "authentication" text null
    )`);
    this.addSql(`create unique index "vendor_name_uq" on "vendor" ("name")`);
    this.addSql(`create table "vendor_version" (
      "id" varchar(36) primary key,
      "vendor_id" varchar(36) not null references "vendor" ("id"),
      "version" varchar(255) not null
    )`);
    this.addSql(`create unique index "vendor_version_vendor_version_uq" on "vendor_version" ("vendor_id", "version")`);

    this.addSql(`create table "facility" (
      "id" varchar(36) primary key,
      "facility_id" varchar(100) not null,
      "facility_name" varchar(255) null,
      "time_zone" varchar(64) not null,
      "scheduled_reports" jsonb not null,
      "vendor_version_id" varchar(36) null references "vendor_version" ("id"),
      "key_id" varchar(255) null,
      "is_deleted" boolean not null default false,
      "create_date" timestamptz not null,
      "modify_date" timestamptz null
    )`);
    // INCLUDE (is_deleted): counts and id pages of active facilities are answered from the index alone.
    this.addSql(`create unique index "facility_facility_id_uq" on "facility" ("facility_id") include ("is_deleted")`);
    this.addSql(`create index "facility_time_zone_idx" on "facility" ("time_zone")`);
    // Paged search sorts by name (and by id as tie-breaker); without it every page sorts the table.
    this.addSql(`create index "facility_facility_name_idx" on "facility" ("facility_name", "id") include ("is_deleted")`);

    this.addSql(`create table "measure_mapping" (
      "id" varchar(450) primary key,
      "dqm" varchar(255) not null,
      "measure" varchar(255) not null,
      "frequency" varchar(16) not null,
      "create_date" timestamptz not null,
      "modify_date" timestamptz null
    )`);
    this.addSql(`create unique index "measure_mapping_measure_dqm_uq" on "measure_mapping" ("measure", "dqm")`);

    this.addSql(`create table "facility_reporting_plan" (
      "id" varchar(450) primary key,
      "facility_id" varchar(100) not null references "facility" ("facility_id") on delete cascade,
      "measure_mapping_id" varchar(450) not null,
      "reporting_month" integer not null check ("reporting_month" between 1 and 12),
      "reporting_year" integer not null check ("reporting_year" between 2000 and 2100),
      "is_reporting" boolean not null,
      "create_date" timestamptz not null,
      "modify_date" timestamptz null
    )`);
    this.addSql(`create unique index "facility_reporting_plan_month_uq" on "facility_reporting_plan"
      ("facility_id", "measure_mapping_id", "reporting_year", "reporting_month")`);

    this.addSql(`create table "report_schedule" (
      "facility_id" varchar(100) not null,
      "frequency" varchar(16) not null,
      "time_zone" varchar(64) not null,
      "next_fire_at" timestamptz not null,
      "last_fired_period_start" timestamptz null,
      "claimed_by" varchar(200) null,
      "claimed_at" timestamptz null,
      primary key ("facility_id", "frequency")
    )`);
    this.addSql(`create index "report_schedule_next_fire_at_idx" on "report_schedule" ("next_fire_at")`);
  }

  override down(): void {
    for (const table of ['report_schedule', 'facility_reporting_plan', 'measure_mapping', 'facility', 'vendor_version', 'vendor']) {
      this.addSql(`drop table if exists "${table}"`);
    }
  }
}

/**
 * The EHR token endpoints of a facility with the client id registered at each (outbound
 * authentication): client assertions are signed only for these. A JSON array on the facility row,
 * read whole with the configuration; existing facilities get none.
 */
export class AddFacilityEhrConnections extends Migration {
  override up(): void {
    this.addSql(`alter table "facility" add column "ehr_connections" jsonb not null default '[]'::jsonb`);
    this.addSql(`alter table "facility" add constraint "facility_ehr_connections_is_array" check (jsonb_typeof("ehr_connections") = 'array')`);
  }

  override down(): void {
    this.addSql('alter table "facility" drop column if exists "ehr_connections"');
  }
}

/**
 * What keeps the paged facility search cheap at any size (see facility-search.ts):
 * - an index per sortBy column in (column, id) order carrying is_deleted, so every sort reads its ids
 *   from an index alone in either direction (id is the tie-breaker and follows the sort's direction);
 * - `facility_count`, one row with the number of active and of soft-deleted facilities and a version
 *   that every statement changing facility rows increments, kept by statement triggers in the writing
 *   transaction: the unfiltered search gets its exact total without counting the table, and a cached
 *   sort order (facility-order-cache.ts) knows whether it still matches the table. TRUNCATE resets the
 *   counts (and increments the version).
 */
export class AddFacilitySearchIndexesAndCount extends Migration {
  override up(): void {
    this.addSql(`create index "facility_id_sort_idx" on "facility" ("id") include ("is_deleted")`);
    // Replaces the single-column index: the same filter by zone, and a sort by zone ordered by id within it.
    this.addSql(`drop index if exists "facility_time_zone_idx"`);
    this.addSql(`create index "facility_time_zone_idx" on "facility" ("time_zone", "id") include ("is_deleted")`);
    this.addSql(`create index "facility_create_date_idx" on "facility" ("create_date", "id") include ("is_deleted")`);
    this.addSql(`create index "facility_modify_date_idx" on "facility" ("modify_date", "id") include ("is_deleted")`);

    this.addSql(`create table "facility_count" (
      "singleton" boolean primary key default true check ("singleton"),
      "active" bigint not null,
      "deleted" bigint not null,
      "version" bigint not null default 0
    )`);
    this.addSql(`insert into "facility_count" ("active", "deleted")
      select count(*) filter (where not "is_deleted"), count(*) filter (where "is_deleted") from "facility"`);
    // One function for the three row-changing statements, each with the transition tables it has
    // (PostgreSQL allows transition tables on single-event triggers only). One counter row, so two
    // writers never lock counters in opposite orders; a statement that changed no row changes nothing.
    this.addSql(`create function "facility_count_apply"() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          update "facility_count" set "active" = "active" + d.added_active, "deleted" = "deleted" + d.added_deleted, "version" = "version" + 1
            from (select count(*) filter (where not "is_deleted") as added_active, count(*) filter (where "is_deleted") as added_deleted from new_rows) d
            where d.added_active + d.added_deleted > 0;
        elsif tg_op = 'DELETE' then
          update "facility_count" set "active" = "active" - d.removed_active, "deleted" = "deleted" - d.removed_deleted, "version" = "version" + 1
            from (select count(*) filter (where not "is_deleted") as removed_active, count(*) filter (where "is_deleted") as removed_deleted from old_rows) d
            where d.removed_active + d.removed_deleted > 0;
        else
          -- Rows only move between active and soft-deleted; any other change may move them in a sort order.
          update "facility_count" set "active" = "active" + d.restored, "deleted" = "deleted" - d.restored, "version" = "version" + 1
            from (select (select count(*) filter (where not "is_deleted") from new_rows) - (select count(*) filter (where not "is_deleted") from old_rows) as restored) d
            where exists (select from new_rows);
        end if;
        return null;
      end $$`);
    this.addSql(`create trigger "facility_count_insert" after insert on "facility"
      referencing new table as new_rows for each statement execute function "facility_count_apply"()`);
    this.addSql(`create trigger "facility_count_delete" after delete on "facility"
      referencing old table as old_rows for each statement execute function "facility_count_apply"()`);
    this.addSql(`create trigger "facility_count_update" after update on "facility"
      referencing old table as old_rows new table as new_rows for each statement execute function "facility_count_apply"()`);
    this.addSql(`create function "facility_count_reset"() returns trigger language plpgsql as $$
      begin
        update "facility_count" set "active" = 0, "deleted" = 0, "version" = "version" + 1;
        return null;
      end $$`);
    this.addSql(`create trigger "facility_count_truncate" after truncate on "facility"
      for each statement execute function "facility_count_reset"()`);
  }

  override down(): void {
    for (const trigger of ['truncate', 'update', 'delete', 'insert']) this.addSql(`drop trigger if exists "facility_count_${trigger}" on "facility"`);
    for (const fn of ['reset', 'apply']) this.addSql(`drop function if exists "facility_count_${fn}"()`);
    this.addSql('drop table if exists "facility_count"');
    for (const index of ['facility_id_sort_idx', 'facility_create_date_idx', 'facility_modify_date_idx', 'facility_time_zone_idx']) {
      this.addSql(`drop index if exists "${index}"`);
    }
    this.addSql(`create index "facility_time_zone_idx" on "facility" ("time_zone")`);
  }
}

/** The tenant service's migrations, in order. Names are recorded in the database: never rename one. */
export const tenantMigrations: MigrationObject[] = [
  outboxMigration,
  { name: 'Migration20261122010000_tenant_tables', class: CreateTenantTables },
  { name: 'Migration20261201010000_facility_ehr_connections', class: AddFacilityEhrConnections },
  { name: 'Migration20261205010000_facility_search_indexes_and_count', class: AddFacilitySearchIndexesAndCount },
];
