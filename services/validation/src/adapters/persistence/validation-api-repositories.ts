import type { MikroORM } from '@mikro-orm/postgresql';
import type { ArtifactRepository } from '../../domain/ports/artifact-repository.js';
import type { CategoryRepository } from '../../domain/ports/category-repository.js';
import type { ResultRepository } from '../../domain/ports/result-repository.js';
import { PgArtifactRepository } from './artifact-repository.js';
import { PgCategoryRepository } from './category-repository.js';
import { PgResultRepository } from './result-repository.js';

/** The stores of the validation API. */
export interface ValidationApiRepositories {
  readonly artifacts: ArtifactRepository;
  readonly categories: CategoryRepository;
  readonly results: ResultRepository;
}

/** The validation API's stores on PostgreSQL (composition roots: the service's, tests', benchmarks'). */
export function pgValidationApiRepositories(orm: MikroORM): ValidationApiRepositories {
  return { artifacts: new PgArtifactRepository(orm), categories: new PgCategoryRepository(orm), results: new PgResultRepository(orm) };
}
