import 'reflect-metadata';
import { verifierFromConfig } from '../../../adapters/auth/index.js';
import { exitOnConfigError, loadConfig } from '../../../adapters/config/index.js';
import { listen } from '../../../adapters/http/index.js';
import { createLogger } from '../../../adapters/observability/logger.js';
import { gatewaySchema } from './config.js';
import { createGatewayApp } from './gateway-app.js';

const bootLogger = createLogger('admin-gateway');
const config = await exitOnConfigError(() => {
  const loaded = loadConfig(gatewaySchema);
  return { config: loaded, verifier: verifierFromConfig(loaded) };
}, bootLogger);
const logger = createLogger('admin-gateway', config.config.logLevel);

const gateway = createGatewayApp({
  upstreams: { validation: config.config.validationUrl, tenant: config.config.tenantUrl },
  upstreamTimeoutMs: config.config.upstreamTimeoutMs,
  jwksUpstream: config.config.tenantUrl,
  authMode: config.config.authMode,
  verifier: config.verifier,
  logger,
});
const server = await listen(gateway.finish(), config.config.httpPort, config.config.httpHost);
logger.info({ url: server.url }, 'admin gateway listening');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  await server.close(config.config.shutdownGraceMs);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
