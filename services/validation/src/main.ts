import 'reflect-metadata';
import { exitOnConfigError, loadConfig } from '../../../adapters/config/index.js';
import { createLogger } from '../../../adapters/observability/logger.js';
import { startServiceRuntime } from '../../../adapters/runtime/service-runtime.js';
import { catalog } from '../../../contracts/catalog.js';
import { ArtifactChangeNotifier, EngineHost } from './adapters/engine/index.js';
import { engineTerminologyKnowledge } from './adapters/engine/terminology-knowledge.js';
import { createValidationApiModule, validationApiEntities, validationApiMigrations } from './adapters/http/validation-api-module.js';
import { startReadyForValidationConsumer } from './adapters/messaging/ready-for-validation-consumer.js';
import { categoryServiceCatalog, preQualRoutes, resultServiceSource } from './adapters/prequal/index.js';
import { PgArtifactRepository } from './adapters/persistence/artifact-repository.js';
import { PgReportJobStore, PgReportSubmissions, reportJobEntities, reportJobMigrations, reportJobRoutes } from './adapters/report-jobs/index.js';
import { HttpReportService } from './adapters/report-service/http-report-service.js';
import type { CachedValidateCode, ValidateCodeCacheStore } from './adapters/terminology/index.js';
import { ReportJobService } from './application/report-jobs/index.js';
import { PgFacilityScopes, PgFlowStore, ValidationFlow, validationFlowEntities, validationFlowMigrations } from './application/validation-flow/index.js';
import { validationSchema } from './config.js';

/**
 * Composition root of the validation service: the runtime frame (database, NATS, outbox, cache,
 * HTTP with auth) → the engine host (definitions from the stored artifacts, worker pool, rebuild
 * on change in every instance) → the validation API → start-up initialization → the
 * ReadyForValidation consumer → listen. Shutdown (SIGTERM): HTTP, then the consumer (in-flight
 * submissions finish or are redelivered), then the engine's workers, then NATS and the database.
 */
const config = exitOnConfigError(() => loadConfig(validationSchema), createLogger('validation'));
const runtime = await exitOnConfigError(() => startServiceRuntime({
  serviceName: 'validation',
  apiTitle: 'Validation service API',
  config,
  entities: [...validationApiEntities, ...validationFlowEntities, ...reportJobEntities],
  migrations: [...validationApiMigrations, ...validationFlowMigrations, ...reportJobMigrations],
  cacheNamespace: 'validation:validate-code',
  processingRoutes: [/\/\$validate/, /\/\$categorize/, /\/\$validate-and-categorize/],
}), createLogger('validation'));

const terminology = {
  fhirTerminologyServiceUrl: config.fhirTerminologyServiceUrl,
  terminologyServiceUrl: config.terminologyServiceUrl,
  timeoutMs: config.terminologyTimeoutMs,
  validateCodeTtlSeconds: config.cacheValidateCodeTtl,
};
const engine = new EngineHost({
  artifacts: new PgArtifactRepository(runtime.db.orm),
  workers: config.validationWorkers,
  definitionCacheDir: config.definitionCacheDir,
  terminology,
  terminologyCache: runtime.cache as ValidateCodeCacheStore<CachedValidateCode> | undefined,
  workerCache: {
    type: config.cacheType, ttlSeconds: config.cacheValidateCodeTtl, memoryMaxEntries: config.cacheMemoryMaxEntries, namespace: 'validation:validate-code',
    redis: {
      host: config.cacheServerHost, port: config.cacheServerPort, username: config.cacheServerUsername,
      password: config.cacheServerPassword, database: config.cacheServerDatabase,
    },
  },
  logger: runtime.logger,
  registry: runtime.metrics.registry,
  metrics: runtime.metrics,
  logLevel: config.logLevel,
});
await engine.start();

const notifier = new ArtifactChangeNotifier({ nc: runtime.nats.nc, reload: (reason) => engine.reload(reason), logger: runtime.logger });
notifier.start();

const api = createValidationApiModule({
  orm: runtime.db.orm,
  openApi: runtime.openApi,
  validator: engine,
  artifactListener: notifier.listener(),
  artifactInitDir: config.artifactInitDir,
  validateBodyLimit: config.validateBodyLimit,
  terminologyKnowledge: engineTerminologyKnowledge(engine, Boolean(config.fhirTerminologyServiceUrl || config.terminologyServiceUrl)),
  onBrokenRule: (ruleId, categoryId, reason) => runtime.logger.warn({ ruleId, categoryId, reason }, 'a stored category rule does not compile; skipped'),
});
// The pre-qualification report goes before api.router (see prequal-routes.ts).
runtime.api.use(preQualRoutes(runtime.openApi, {
  results: resultServiceSource(api.results), categories: categoryServiceCatalog(api.categories), logger: runtime.logger,
}));
runtime.api.use(api.router);
const initialized = await api.initializeIfEmpty({ artifactInit: config.artifactInit });
if (initialized.artifacts || initialized.categories) runtime.logger.info({ initialized }, 'initialized empty artifact/category tables');

const completion = catalog.byName('ValidationComplete');
const flow = new ValidationFlow({
  source: new HttpReportService({
    baseUrl: config.reportServiceUrl, pathTemplate: config.reportServicePath, timeoutMs: config.reportServiceTimeoutMs,
    serviceToken: config.reportServiceToken, logger: runtime.logger,
  }),
  validator: engine,
  scopes: new PgFacilityScopes(runtime.db.orm),
  categories: api.categories,
  store: new PgFlowStore(runtime.db.orm),
  completion: { subject: completion.subject, schemaVersion: completion.version },
  afterCommit: () => runtime.outbox.notify(),
});
// Re-categorize / re-validate jobs run in this instance; jobs orphaned by a restart are failed here.
const reportJobs = new ReportJobService({
  store: new PgReportJobStore(runtime.db.orm), submissions: new PgReportSubmissions(runtime.db.orm), flow, categories: api.categories,
  schemaVersion: catalog.byName('ReadyForValidation').version,
  onError: (err, context) => runtime.logger.warn({ err, ...context }, 'report job step failed'),
});
const interrupted = await reportJobs.start();
if (interrupted > 0) runtime.logger.warn({ interrupted }, 'report jobs interrupted by a restart marked failed');
runtime.api.use(reportJobRoutes(runtime.openApi, reportJobs));
const consumer = await startReadyForValidationConsumer({
  js: runtime.nats.js, catalog, flow, logger: runtime.logger, metrics: runtime.metrics,
  maxDeliver: config.validationMaxDeliveries, concurrency: config.validationConsumerConcurrency,
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
