/**
 * Validation configurations and their assignment to facilities (issue 6 item 7), in PostgreSQL.
 * `scopeOf` is read on every submission, so answers are kept for `ttlMs` (default 10 s): a change
 * reaches every instance within that time without any messaging.
 *
 * HTTP routes for these belong to the validation API (not mounted yet); the methods here are what
 * they would call: saveConfiguration / deleteConfiguration / listConfigurations / assign.
 */
import { defineEntity, p, type MikroORM } from '@mikro-orm/postgresql';
import { Migration } from '@mikro-orm/migrations';
import { parseValidationScope, type FacilityScopes, type ValidationScope } from '../../domain/flow/validation-scope.js';

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

export class PgFacilityScopes implements FacilityScopes {
  private readonly cache = new Map<string, { scope: ValidationScope | undefined; until: number }>();

  constructor(private readonly orm: MikroORM, private readonly ttlMs = 10_000) {}

  async scopeOf(facilityId: string): Promise<ValidationScope | undefined> {
    const hit = this.cache.get(facilityId);
    if (hit && hit.until > Date.now()) return hit.scope;
    const row = await this.db().selectFrom('facility_validation_configuration as f')
      .innerJoin('validation_configuration as c', 'c.name', 'f.configuration_name')
      .select(['c.definition']).where('f.facility_id', '=', facilityId).executeTakeFirst() as { definition: unknown } | undefined;
    const scope = row ? parseValidationScope(row.definition) : undefined;
    this.cache.set(facilityId, { scope, until: Date.now() + this.ttlMs });
    return scope;
  }

  /** Creates or replaces a configuration (checked first: ValidationScopeError names the bad field). */
  async saveConfiguration(input: unknown): Promise<ValidationScope> {
    const scope = parseValidationScope(input);
    const row = { definition: JSON.stringify(scope), updated_at: new Date() };
    await this.db().insertInto('validation_configuration').values({ name: scope.name, ...row })
      .onConflict((oc: any) => oc.column('name').doUpdateSet(row)).execute();
    this.cache.clear();
    return scope;
  }

  async deleteConfiguration(name: string): Promise<boolean> {
    const result = await this.db().deleteFrom('validation_configuration').where('name', '=', name).executeTakeFirst();
    this.cache.clear();
    return Number(result.numDeletedRows) > 0;
  }

  async listConfigurations(): Promise<ValidationScope[]> {
    const rows = await this.db().selectFrom('validation_configuration').select(['definition']).orderBy('name').execute() as { definition: unknown }[];
    return rows.map((r) => parseValidationScope(r.definition));
  }

  /** Assigns a configuration to a facility; `undefined` = back to all artifacts. */
  async assign(facilityId: string, configurationName: string | undefined): Promise<void> {
    if (configurationName === undefined) {
      await this.db().deleteFrom('facility_validation_configuration').where('facility_id', '=', facilityId).execute();
    } else {
      await this.db().insertInto('facility_validation_configuration').values({ facility_id: facilityId, configuration_name: configurationName })
        .onConflict((oc: any) => oc.column('facility_id').doUpdateSet({ configuration_name: configurationName })).execute();
    }
    this.cache.delete(facilityId);
  }

  private db() {
    return this.orm.em.fork().getKysely<any>();
  }
}
