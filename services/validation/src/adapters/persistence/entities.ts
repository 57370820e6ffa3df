import { defineEntity, p } from '@mikro-orm/postgresql';
import type { MatcherJson } from '../../domain/categorization/matcher.js';
import { SubmissionResultsEntity } from './submission-results-table.js';

/**
 * MikroORM entity definitions of the validation API's tables (created by migrations.ts; column
 * names are snake_case). The repositories mostly use the Kysely query builder on these tables,
 * because they need bulk writes and aggregates the unit of work does not do well.
 */
export const ArtifactEntity = defineEntity({
  name: 'ArtifactEntity',
  tableName: 'artifact',
  properties: {
    id: p.integer().primary().autoincrement(),
    type: p.string().length(16),
    name: p.string().length(255),
    content: p.blob(),
    size: p.integer(),
    packageName: p.string().length(255).nullable(),
    version: p.string().length(255).nullable(),
    fhirVersion: p.string().length(64).nullable(),
    resourceType: p.string().length(64).nullable(),
    url: p.string().length(1000).nullable(),
    /** PackageSummary (PACKAGE) or the same shape for one resource, so details never re-read the archive. */
    summary: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const CategoryEntity = defineEntity({
  name: 'CategoryEntity',
  tableName: 'category',
  properties: {
    id: p.string().primary().length(255),
    title: p.string().length(255),
    severity: p.string().length(16),
    acceptable: p.boolean(),
    guidance: p.string().length(1000),
  },
});

export const CategoryRuleEntity = defineEntity({
  name: 'CategoryRuleEntity',
  tableName: 'category_rule',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    categoryId: p.string().length(255),
    matcher: p.json<MatcherJson>(),
    timestamp: p.datetime(),
  },
});

export const validationApiEntities = [ArtifactEntity, CategoryEntity, CategoryRuleEntity, SubmissionResultsEntity];
