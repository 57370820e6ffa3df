import { Container } from 'inversify';
import { verifierFromConfig, type TokenVerifier } from '#adapters/auth/index.js';
import type { ConfigOf } from '#adapters/config/index.js';
import { createLogger, type Logger } from '#adapters/observability/logger.js';
import { token } from '#adapters/runtime/container.js';
import type { gatewaySchema } from './config.js';
import { createGatewayApp, type GatewayApp } from './gateway-app.js';

export type GatewayConfig = ConfigOf<typeof gatewaySchema>;

/**
 * The admin gateway's composition root (it has no database or NATS, so no runtime frame). The
 * verifier is the port that matters: a test or an air-gapped deployment rebinds it before the app
 * is resolved. Resolving it throws the ConfigError of missing auth settings, which main.ts reports.
 */
export const TOKENS = {
  config: token<GatewayConfig>('GatewayConfig'),
  logger: token<Logger>('Logger'),
  /** Undefined with auth.mode none. */
  verifier: token<TokenVerifier | undefined>('TokenVerifier'),
  gatewayApp: token<GatewayApp>('GatewayApp'),
} as const;

export function buildGatewayContainer(config: GatewayConfig): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.config).toConstantValue(config);
  container.bind(TOKENS.logger).toDynamicValue(() => createLogger('admin-gateway', config.logLevel));
  container.bind(TOKENS.verifier).toDynamicValue((ctx) => verifierFromConfig(config, ctx.get(TOKENS.logger)));
  container.bind(TOKENS.gatewayApp).toDynamicValue((ctx) => createGatewayApp({
    upstreams: { validation: config.validationUrl, tenant: config.tenantUrl },
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    maxBodyBytes: config.maxBodyBytes,
    jwksUpstream: config.tenantUrl,
    authMode: config.authMode,
    verifier: ctx.get(TOKENS.verifier),
    logger: ctx.get(TOKENS.logger),
    docs: config.docsEnabled,
    docsAuthenticated: config.docsAuthenticated,
    serveMetrics: config.metricsPort === undefined,
  }));
  return container;
}
