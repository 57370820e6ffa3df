import type { MikroORM } from '@mikro-orm/postgresql';
import type { ValidationApiRepositories } from '../http/validation-api-module.js';
import { PgArtifactRepository } from './artifact-repository.js';
import { PgCategoryRepository } from './category-repository.js';
import { PgResultRepository } from './result-repository.js';

/** The validation API's stores on PostgreSQL (composition roots: the service's, tests', benchmarks'). */
export function pgValidationApiRepositories(orm: MikroORM): ValidationApiRepositories {
  return { artifacts: new PgArtifactRepository(orm), categories: new PgCategoryRepository(orm), results: new PgResultRepository(orm) };
}
