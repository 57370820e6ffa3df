import 'reflect-metadata';
import { exitOnConfigError, loadConfig } from '#adapters/config/index.js';
import { listen, listenMetrics } from '#adapters/http/index.js';
import { createLogger } from '#adapters/observability/logger.js';
import { buildGatewayContainer, TOKENS } from './composition.js';
import { gatewaySchema } from './config.js';

const bootLogger = createLogger('admin-gateway');
const container = exitOnConfigError(() => {
  const built = buildGatewayContainer(loadConfig(gatewaySchema));
  built.get(TOKENS.verifier); // missing auth settings are a ConfigError: reported here, before anything starts
  return built;
}, bootLogger);
const config = container.get(TOKENS.config);
const logger = container.get(TOKENS.logger);

const gateway = container.get(TOKENS.gatewayApp);
const server = await listen(gateway.finish(), config.httpPort, config.httpHost);
const metricsServer = config.metricsPort === undefined ? undefined : await listenMetrics(gateway.metrics.registry, config.metricsPort, config.httpHost);
logger.info({ url: server.url, ...(metricsServer ? { metrics: `${metricsServer.url}/metrics` } : {}) }, 'admin gateway listening');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  await server.close(config.shutdownGraceMs);
  await metricsServer?.close(1_000);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
