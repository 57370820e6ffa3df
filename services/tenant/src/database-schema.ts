import type { MigrationObject } from '@mikro-orm/postgresql';
import { OutboxMessageEntity } from '#adapters/persistence/index.js';
import { signingKeyEntities, signingKeyMigrations } from './signing-keys/index.js';
import { tenantEntities } from './adapters/persistence/entities.js';
import { tenantMigrations } from './adapters/persistence/migrations.js';

/**
 * The tenant database as the service process and its command-line tools open it: the facility
 * module's tables and the signing-key registry's, with both modules' migrations (each name once).
 */
export const tenantServiceEntities = [...tenantEntities, ...signingKeyEntities];
export const tenantServiceMigrations: MigrationObject[] = [
  ...tenantMigrations, ...signingKeyMigrations.filter((migration) => !tenantMigrations.some((own) => own.name === migration.name)),
];
/** For a process without the service runtime (which adds the outbox entity itself). */
export const tenantDatabaseEntities = [OutboxMessageEntity, ...tenantServiceEntities];
