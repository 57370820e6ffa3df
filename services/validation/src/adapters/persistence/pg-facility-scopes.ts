/**
 * Validation configurations and their assignment to facilities, in PostgreSQL.
 * `scopeOf` is read on every submission, so answers are kept for `ttlMs` (default 10 s): a change
 * reaches every instance within that time without any messaging.
 *
 * The HTTP routes (adapters/http/validation-configuration-routes.ts) call the methods below. Reads for
 * the API go to the database, not the cache, so an operator sees what was just written.
 */
import { defineEntity, p, type MikroORM } from '@mikro-orm/postgresql';
import { Migration } from '@mikro-orm/migrations';
import type { ColumnType } from 'kysely';
import { isObject } from '../../domain/engine/json/json-value.js';
import { countOf } from './count.js';
import { parseValidationScope, type ValidationScope } from '../../domain/flow/validation-scope.js';
import type { FacilityScopes } from '../../domain/ports/facility-scopes.js';
import type { ValidationConfigurationLookup } from '../../domain/ports/validation-configuration-lookup.js';
import type { ValidationConfigurationStore } from '../../domain/ports/validation-configuration-store.js';

export const ValidationConfigurationEntity = defineEntity({
  name: 'ValidationConfigurationEntity',
  tableName: 'validation_configuration',
  properties: {
    name: p.string().primary().length(128),
    definition: p.json<Record<string, unknown>>(),
    updatedAt: p.datetime(),
  },
});

export const FacilityValidationConfigurationEntity = defineEntity({
  name: 'FacilityValidationConfigurationEntity',
  tableName: 'facility_validation_configuration',
  properties: {
    facilityId: p.string().primary().length(255),
    configurationName: p.string().length(128),
  },
});

export class CreateValidationConfigurationTables extends Migration {
  override up(): void {
    this.addSql(`create table "validation_configuration" (
      "name" varchar(128) primary key,
      "definition" jsonb not null,
      "updated_at" timestamptz not null default now())`);
    this.addSql(`create table "facility_validation_configuration" (
      "facility_id" varchar(255) primary key,
      "configuration_name" varchar(128) not null references "validation_configuration" ("name") on delete cascade)`);
  }

  override down(): void {
    this.addSql('drop table if exists "facility_validation_configuration"');
    this.addSql('drop table if exists "validation_configuration"');
  }
}

/** The tables as Kysely sees them (jsonb written as JSON text, read parsed). */
interface ConfigurationDatabase {
  validation_configuration: { name: string; definition: ColumnType<unknown, string, string>; updated_at: ColumnType<Date, Date | undefined, Date> };
  facility_validation_configuration: { facility_id: string; configuration_name: string };
}

export class PgFacilityScopes implements FacilityScopes, ValidationConfigurationStore, ValidationConfigurationLookup {
  private readonly cache = new Map<string, { scope: ValidationScope | undefined; until: number }>();

  constructor(private readonly orm: MikroORM, private readonly ttlMs = 10_000) {}

  async scopeOf(facilityId: string): Promise<ValidationScope | undefined> {
    const hit = this.cache.get(facilityId);
    if (hit && hit.until > Date.now()) return hit.scope;
    const row = await this.db().selectFrom('facility_validation_configuration as f')
      .innerJoin('validation_configuration as c', 'c.name', 'f.configuration_name')
      .select(['c.definition']).where('f.facility_id', '=', facilityId).executeTakeFirst();
    const scope = row ? parseValidationScope(row.definition) : undefined;
    this.cache.set(facilityId, { scope, until: Date.now() + this.ttlMs });
    return scope;
  }

  /** Creates or replaces a configuration (checked first: ValidationScopeError names the bad field). */
  async saveConfiguration(input: unknown): Promise<ValidationScope> {
    const scope = parseValidationScope(input);
    const row = { definition: JSON.stringify(scope), updated_at: new Date() };
    await this.db().insertInto('validation_configuration').values({ name: scope.name, ...row })
      .onConflict((oc) => oc.column('name').doUpdateSet(row)).execute();
    this.cache.clear();
    return scope;
  }

  async deleteConfiguration(name: string): Promise<boolean> {
    const result = await this.db().deleteFrom('validation_configuration').where('name', '=', name).executeTakeFirst();
    this.cache.clear();
    return Number(result.numDeletedRows) > 0;
  }

  async listConfigurations(): Promise<ValidationScope[]> {
    const rows = await this.db().selectFrom('validation_configuration').select(['definition']).orderBy('name').execute();
    return rows.map((r) => parseValidationScope(r.definition));
  }

  /** Creates a configuration; `created: false` (nothing written) when the name exists already. */
  async createConfiguration(input: unknown): Promise<{ scope: ValidationScope; created: boolean }> {
    const scope = parseValidationScope(input);
    const result = await this.db().insertInto('validation_configuration')
      .values({ name: scope.name, definition: JSON.stringify(scope), updated_at: new Date() })
      .onConflict((oc) => oc.column('name').doNothing()).executeTakeFirst();
    // A new configuration is assigned to no facility, so no cached scope can be stale.
    return { scope, created: Number(result.numInsertedOrUpdatedRows ?? 0) > 0 };
  }

  /** Replaces an existing configuration; undefined (nothing written) when it does not exist. */
  async replaceConfiguration(input: unknown): Promise<ValidationScope | undefined> {
    const scope = parseValidationScope(input);
    const result = await this.db().updateTable('validation_configuration')
      .set({ definition: JSON.stringify(scope), updated_at: new Date() }).where('name', '=', scope.name).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return undefined;
    this.cache.clear();
    return scope;
  }

  async getConfiguration(name: string): Promise<ValidationScope | undefined> {
    const row = await this.db().selectFrom('validation_configuration').select(['definition']).where('name', '=', name)
      .executeTakeFirst();
    return row ? parseValidationScope(row.definition) : undefined;
  }

  /** One page of configurations by name, with the total count (for the paged model). */
  async pageConfigurations(offset: number, limit: number): Promise<{ records: ValidationScope[]; totalCount: number }> {
    const db = this.db();
    const [rows, count] = await Promise.all([
      db.selectFrom('validation_configuration').select(['definition']).orderBy('name').offset(offset).limit(limit).execute(),
      db.selectFrom('validation_configuration').select((eb) => eb.fn.countAll().as('count')).executeTakeFirst(),
    ]);
    return { records: rows.map((r) => parseValidationScope(r.definition)), totalCount: countOf(count) };
  }

  /** Facilities assigned the configuration, sorted. */
  async facilitiesUsing(name: string): Promise<string[]> {
    const rows = await this.db().selectFrom('facility_validation_configuration').select(['facility_id'])
      .where('configuration_name', '=', name).orderBy('facility_id').execute();
    return rows.map((r) => r.facility_id);
  }

  /**
   * Deletes a configuration only while no facility uses it: deleting an assigned one would cascade
   * and silently move its facilities back to all artifacts. The row is locked first (FOR UPDATE
   * conflicts with the key-share lock an assignment's foreign key takes), so an assignment racing
   * this delete either is seen here or fails on the foreign key afterwards — never cascades away.
   */
  async deleteUnassignedConfiguration(name: string): Promise<{ outcome: 'deleted' | 'absent' } | { outcome: 'assigned'; facilities: string[] }> {
    const answer = await this.orm.em.fork().transactional(async (tx) => {
      const db = tx.getKysely<ConfigurationDatabase>();
      const row = await db.selectFrom('validation_configuration').select(['name']).where('name', '=', name).forUpdate().executeTakeFirst();
      if (!row) return { outcome: 'absent' as const };
      const facilities = (await db.selectFrom('facility_validation_configuration').select(['facility_id'])
        .where('configuration_name', '=', name).orderBy('facility_id').execute()).map((r) => r.facility_id);
      if (facilities.length > 0) return { outcome: 'assigned' as const, facilities };
      await db.deleteFrom('validation_configuration').where('name', '=', name).execute();
      return { outcome: 'deleted' as const };
    });
    if (answer.outcome === 'deleted') this.cache.clear();
    return answer;
  }

  /** The configuration assigned to a facility, read from the database (not the cache); undefined = all artifacts. */
  async configurationOf(facilityId: string): Promise<ValidationScope | undefined> {
    const row = await this.db().selectFrom('facility_validation_configuration as f')
      .innerJoin('validation_configuration as c', 'c.name', 'f.configuration_name')
      .select(['c.definition']).where('f.facility_id', '=', facilityId).executeTakeFirst();
    return row ? parseValidationScope(row.definition) : undefined;
  }

  /**
   * Assigns a configuration to a facility; `undefined` = back to all artifacts. Answers false (and
   * writes nothing) when the configuration does not exist.
   */
  async assign(facilityId: string, configurationName: string | undefined): Promise<boolean> {
    const db = this.db();
    if (configurationName === undefined) {
      await db.deleteFrom('facility_validation_configuration').where('facility_id', '=', facilityId).execute();
    } else {
      try {
        // insert ... select: nothing is inserted when the configuration does not exist.
        const result = await db.insertInto('facility_validation_configuration').columns(['facility_id', 'configuration_name'])
          .expression(db.selectFrom('validation_configuration').select((eb) => [eb.val(facilityId).as('facility_id'), 'name'])
            .where('name', '=', configurationName))
          .onConflict((oc) => oc.column('facility_id').doUpdateSet({ configuration_name: configurationName })).executeTakeFirst();
        if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      } catch (error) {
        // Deleted concurrently (deleteUnassignedConfiguration held its row): the foreign key refuses it.
        if (isObject(error) && (error.code === '23503' || error.name === 'ForeignKeyConstraintViolationException')) return false;
        throw error;
      }
    }
    this.cache.delete(facilityId);
    return true;
  }

  private db() {
    return this.orm.em.fork().getKysely<ConfigurationDatabase>();
  }
}
