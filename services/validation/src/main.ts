import 'reflect-metadata';
import { exitOnConfigError, loadConfig } from '#adapters/config/index.js';
import { createLogger } from '#adapters/observability/logger.js';
import { startServiceRuntime } from '#adapters/runtime/service-runtime.js';
import { checkInitialSourceSettings } from './adapters/artifacts/initial-sources.js';
import { initializeAndStartEngine } from './adapters/engine/initialize-and-start.js';
import { workersHealthCheck } from './adapters/engine/workers-health.js';
import { validationApiEntities, validationApiHttpFrame, validationApiMigrations } from './adapters/http/validation-api-module.js';
import { terminologyCredentials } from './adapters/terminology/index.js';
import { consumerConcurrency, startReadyForValidationConsumer } from './adapters/messaging/ready-for-validation-consumer.js';
import { reportJobEntities, reportJobMigrations } from './adapters/report-jobs/index.js';
import { validationFlowEntities, validationFlowMigrations } from './adapters/persistence/validation-flow-tables.js';
import { buildValidationContainer, TOKENS } from './composition.js';
import { checkValidationSettings, validationSchema } from './config.js';

/**
 * Entry point of the validation service: the runtime frame (database, NATS, outbox, cache,
 * HTTP with auth) → the validation API → start-up initialization (the embedded IG packages when
 * no artifact is stored) → the engine host (definitions from the stored artifacts, worker pool,
 * rebuild on change in every instance) → the ReadyForValidation consumer → listen. The workers' health
 * joins /health/ready and /health (a pool that makes no progress for validation.stall-timeout-ms
 * cannot recover by itself). Shutdown (SIGTERM): HTTP, then the consumer (in-flight
 * submissions finish or are redelivered), then the engine's workers, then NATS and the database.
 * Every object, use cases and routers included, comes from the inversify container (composition.ts);
 * this file decides the order in which they start, are mounted and stop.
 */
const config = exitOnConfigError(() => {
  const loaded = loadConfig(validationSchema);
  checkValidationSettings(loaded);
  checkInitialSourceSettings(loaded);
  terminologyCredentials(loaded); // incomplete terminology credentials stop the start-up here (exit 78), not at the first call
  return loaded;
}, createLogger('validation'));
const runtime = await exitOnConfigError(() => startServiceRuntime({
  serviceName: 'validation',
  apiTitle: 'Validation service API',
  config,
  entities: [...validationApiEntities, ...validationFlowEntities, ...reportJobEntities],
  migrations: [...validationApiMigrations, ...validationFlowMigrations, ...reportJobMigrations],
  cacheNamespace: 'validation:validate-code',
  // $validate, $validate-and-categorize, $categorize and uploads read their large bodies themselves, after authentication
  ...validationApiHttpFrame(config.validateBodyLimit),
}), createLogger('validation'));

const container = buildValidationContainer(config, runtime);
const engine = container.get(TOKENS.engineHost);

const notifier = container.get(TOKENS.artifactChangeNotifier);
notifier.start();

const api = container.get(TOKENS.validationApi);
// The pre-qualification report goes before api.router (see prequal-routes.ts).
runtime.api.use(container.get(TOKENS.preQualRouter));
runtime.api.use(api.router);
runtime.api.use(container.get(TOKENS.validationConfigurationRouter));
// Default artifacts before the engine's first build (initialize-and-start.ts): one build, with them.
const { initialized } = await initializeAndStartEngine(api, engine, { artifactInit: config.artifactInit });
const workersCheck = workersHealthCheck(engine, config.validationStallTimeoutMs);
runtime.http.addReadinessCheck(workersCheck);
runtime.http.addLivenessCheck(workersCheck);
if (initialized.artifacts || initialized.categories) runtime.logger.info({ initialized }, 'initialized empty artifact/category tables');
if (initialized.artifacts && initialized.artifacts.failed.length > 0) {
  runtime.logger.error({ failed: initialized.artifacts.failed }, 'some default artifacts could not be loaded');
}

const flow = container.get(TOKENS.validationFlow);
// Re-categorize / re-validate jobs run in this instance; jobs cut off by a restart are resumed here (or by another instance).
const reportJobs = container.get(TOKENS.reportJobService);
const interrupted = await reportJobs.start();
if (interrupted.resumed > 0) runtime.logger.info({ resumed: interrupted.resumed }, 'report jobs cut off by a restart resumed');
if (interrupted.failed > 0) runtime.logger.warn({ failed: interrupted.failed }, 'report jobs cut off by restarts too often marked failed');
runtime.api.use(container.get(TOKENS.reportJobRouter));
const consumer = await startReadyForValidationConsumer({
  js: runtime.nats.js, catalog: runtime.catalog, flow, logger: runtime.logger, metrics: runtime.metrics,
  maxDeliver: config.validationMaxDeliveries, concurrency: consumerConcurrency(config.validationConsumerConcurrency, engine.workerThreads),
  // Backpressure: no more messages while the workers' queue is at validation.queue-limit.
  beforeFetch: () => engine.whenRoom(),
  provision: config.natsProvision,
  outageHorizonMs: config.validationOutageRetryHorizon * 1_000,
  outageBackoff: { maxMs: config.validationOutageRetryMaxDelay * 1_000 },
});
// One ordered stopper (the runtime runs stoppers concurrently): in-flight submissions must finish
// on live workers, so the consumer drains before the engine's workers stop.
runtime.onShutdown(async () => {
  await consumer.stop(Math.max(1_000, config.shutdownGraceMs - 6_000)); // HTTP close may have taken up to 5 s
  reportJobs.stop();
  notifier.stop();
  await engine.close();
});
await runtime.listen();
