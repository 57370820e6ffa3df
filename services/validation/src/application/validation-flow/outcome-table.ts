/**
 * The stored aggregated OperationOutcome of each patient submission (flow step 4): one row per
 * (facility, report, patient), replaced by every validation of that submission. `outcome_hash`
 * identifies the distinct outcome (the ValidationComplete message id is derived from it), so a
 * duplicate event with the same outcome emits nothing new.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';
import { Migration } from '@mikro-orm/migrations';
import { CreateValidationConfigurationTables, FacilityValidationConfigurationEntity, ValidationConfigurationEntity } from './facility-scopes.js';

export const VALIDATION_OUTCOME_TABLE = 'validation_outcome';

export const ValidationOutcomeEntity = defineEntity({
  name: 'ValidationOutcomeEntity',
  tableName: VALIDATION_OUTCOME_TABLE,
  properties: {
    id: p.bigint().primary().autoincrement(),
    facilityId: p.string().length(255),
    reportId: p.string().length(255),
    patientId: p.string().length(255),
    outcome: p.json<Record<string, unknown>>(),
    outcomeHash: p.string().length(64),
    valid: p.boolean(),
    runId: p.string().length(64),
    issueCount: p.integer(),
    errorCount: p.integer(),
    warningCount: p.integer(),
    informationCount: p.integer(),
    uncategorizedCount: p.integer(),
    unacceptableCount: p.integer(),
    resourceCount: p.integer(),
    updatedAt: p.datetime(),
  },
});

export class CreateValidationOutcomeTable extends Migration {
  override up(): void {
    this.addSql(`create table "${VALIDATION_OUTCOME_TABLE}" (
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
    this.addSql(`drop table if exists "${VALIDATION_OUTCOME_TABLE}"`);
  }
}

export const validationFlowEntities = [ValidationOutcomeEntity, ValidationConfigurationEntity, FacilityValidationConfigurationEntity];
export const validationFlowMigrations = [
  { name: 'Migration20261122060000_validation_outcome', class: CreateValidationOutcomeTable },
  { name: 'Migration20261122061000_validation_configuration', class: CreateValidationConfigurationTables },
];
