import type { MikroORM } from '@mikro-orm/postgresql';
import { Container, type ServiceIdentifier } from 'inversify';
import type { Cache } from '../cache/index.js';
import type { OpenApiBuilder } from '../http/index.js';
import type { NatsHandle } from '../messaging/connection.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import type { Logger } from '../observability/logger.js';
import type { OutboxRelay } from '../persistence/index.js';
import { catalog as productionCatalog, type Catalog } from '#contracts/catalog.js';

/**
 * Shared pieces of the services' composition roots (services/<svc>/src/composition.ts).
 *
 * No decorators: under tsx there is no `design:paramtypes` metadata, so every binding is an explicit
 * constant or factory (`toDynamicValue(ctx => new X(ctx.get(TOKEN)))`), and the containers are
 * singleton-scoped: one adapter instance per process, shared by every use case that needs it.
 */

/**
 * A Symbol token that carries the type it resolves to. A plain `ServiceIdentifier<T>` symbol loses T
 * (inversify's identifier is the union `string | symbol | Newable<T> | …`, and TypeScript infers T only
 * from the Newable members), so the intersection with `symbol` keeps those members: `container.get(token)`
 * is typed without a type argument, and the token is still an ordinary Symbol at run time.
 */
export type Token<T> = ServiceIdentifier<T> & symbol;

export function token<T>(description: string): Token<T> {
  return Symbol(description);
}

/** The parts of the runtime frame (service-runtime.ts) the services' adapters use; ServiceRuntime has them all, tests pass minimal ones. */
export interface RuntimeParts {
  readonly logger: Logger;
  readonly metrics: ServiceMetrics;
  readonly db: { readonly orm: MikroORM };
  readonly nats: Pick<NatsHandle, 'nc' | 'js'>;
  /** Told after each commit that enqueued messages, so they leave at once instead of at the next poll. */
  readonly outbox: Pick<OutboxRelay, 'notify'>;
  readonly openApi: OpenApiBuilder;
  readonly cache?: Cache<unknown>;
  /** Subjects and streams (`nats.namespace`); the production catalog when absent. */
  readonly catalog?: Catalog;
}

export const RUNTIME_TOKENS = {
  logger: token<Logger>('Logger'),
  metrics: token<ServiceMetrics>('ServiceMetrics'),
  orm: token<MikroORM>('MikroORM'),
  nats: token<Pick<NatsHandle, 'nc' | 'js'>>('NatsHandle'),
  outbox: token<Pick<OutboxRelay, 'notify'>>('OutboxRelay'),
  openApi: token<OpenApiBuilder>('OpenApiBuilder'),
  /** Undefined in a service without a validate-code cache. */
  cache: token<Cache<unknown> | undefined>('Cache'),
  /** The contracts (subjects, versions, streams) events and queries use; tests bind an isolated one. */
  catalog: token<Catalog>('Catalog'),
} as const;

/** A singleton-scoped container with the runtime frame's pieces bound as constants. */
export function createServiceContainer(runtime: RuntimeParts): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(RUNTIME_TOKENS.logger).toConstantValue(runtime.logger);
  container.bind(RUNTIME_TOKENS.metrics).toConstantValue(runtime.metrics);
  container.bind(RUNTIME_TOKENS.orm).toConstantValue(runtime.db.orm);
  container.bind(RUNTIME_TOKENS.nats).toConstantValue(runtime.nats);
  container.bind(RUNTIME_TOKENS.outbox).toConstantValue(runtime.outbox);
  container.bind(RUNTIME_TOKENS.openApi).toConstantValue(runtime.openApi);
  container.bind(RUNTIME_TOKENS.cache).toConstantValue(runtime.cache);
  container.bind(RUNTIME_TOKENS.catalog).toConstantValue(runtime.catalog ?? productionCatalog);
  return container;
}
