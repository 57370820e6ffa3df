import type { Container } from 'inversify';
import type { ConfigOf } from '#adapters/config/index.js';
import { createServiceContainer, RUNTIME_TOKENS, token, type RuntimeParts } from '#adapters/runtime/container.js';
import { MikroTenantStore } from './adapters/persistence/tenant-store.js';
import type { ReportScheduler } from './application/report-scheduler.js';
import { systemClock, type Clock } from './domain/clock.js';
import type { TenantStore } from './domain/ports/tenant-store.js';
import type { tenantServiceSchema } from './service-schema.js';
import { createSigningKeyModule, type SigningKeyModule } from './signing-keys/index.js';
import { createTenantModule, type TenantModule } from './tenant-module.js';

export type TenantServiceConfig = ConfigOf<typeof tenantServiceSchema>;

/**
 * The tenant service's composition root. The store and the clock are the ports worth swapping:
 * the use cases and the scheduler of the tenant module and the signing-key registry all take them
 * from here, so one rebinding (e.g. `container.rebind(TOKENS.clock).toConstantValue(new ManualClock(…))`,
 * before anything is resolved) moves time for the whole service.
 */
export const TOKENS = {
  ...RUNTIME_TOKENS,
  config: token<TenantServiceConfig>('TenantServiceConfig'),
  tenantStore: token<TenantStore>('TenantStore'),
  clock: token<Clock>('Clock'),
  /** Facilities, plans, mappings, vendors: use cases, routes, NATS queries and the scheduler (tenant-module.ts). */
  tenantModule: token<TenantModule>('TenantModule'),
  scheduler: token<ReportScheduler>('ReportScheduler'),
  signingKeyModule: token<SigningKeyModule>('SigningKeyModule'),
} as const;

export function buildTenantContainer(config: TenantServiceConfig, runtime: RuntimeParts): Container {
  const container = createServiceContainer(runtime);
  container.bind(TOKENS.config).toConstantValue(config);
  container.bind(TOKENS.clock).toConstantValue(systemClock);
  container.bind(TOKENS.tenantStore).toDynamicValue((ctx) => {
    const outbox = ctx.get(TOKENS.outbox);
    return new MikroTenantStore({ orm: ctx.get(TOKENS.orm), catalog: ctx.get(TOKENS.catalog), afterCommit: () => outbox.notify() });
  });
  container.bind(TOKENS.tenantModule).toDynamicValue((ctx) => {
    const outbox = ctx.get(TOKENS.outbox);
    return createTenantModule({
      orm: ctx.get(TOKENS.orm), config, logger: ctx.get(TOKENS.logger), nats: ctx.get(TOKENS.nats).nc,
      catalog: ctx.get(TOKENS.catalog), clock: ctx.get(TOKENS.clock), store: ctx.get(TOKENS.tenantStore),
      afterCommit: () => outbox.notify(),
    });
  });
  container.bind(TOKENS.scheduler).toDynamicValue((ctx) => ctx.get(TOKENS.tenantModule).scheduler);
  container.bind(TOKENS.signingKeyModule).toDynamicValue((ctx) => {
    const outbox = ctx.get(TOKENS.outbox);
    const clock = ctx.get(TOKENS.clock);
    return createSigningKeyModule({
      orm: ctx.get(TOKENS.orm), config, logger: ctx.get(TOKENS.logger), nats: ctx.get(TOKENS.nats).nc,
      catalog: ctx.get(TOKENS.catalog), afterCommit: () => outbox.notify(), now: () => clock.now(),
    });
  });
  return container;
}
