import type { Router } from 'express';
import type { Container } from 'inversify';
import { setMessageWording } from './domain/engine/wording.js';
import { redisConnection } from '#adapters/cache/index.js';
import type { ConfigOf } from '#adapters/config/index.js';
import type { OpenApiBuilder } from '#adapters/http/index.js';
import { createServiceContainer, RUNTIME_TOKENS, token, type RuntimeParts } from '#adapters/runtime/container.js';
import { ArtifactChangeNotifier, artifactsChangedSubject, EngineHost } from './adapters/engine/index.js';
import { engineTerminologyKnowledge } from './adapters/engine/terminology-knowledge.js';
import { initialArtifactSources } from './adapters/artifacts/initial-sources.js';
import { validationApiEntities, validationApiMigrations, validationApiRouter, type ValidationApiUseCases } from './adapters/http/validation-api-module.js';
import { DirectoryArtifactSource } from './adapters/persistence/directory-artifact-source.js';
import { pgValidationApiRepositories, type ValidationApiRepositories } from './adapters/persistence/validation-api-repositories.js';
import { PgArtifactRepository } from './adapters/persistence/artifact-repository.js';
import { PgReportJobStore, PgReportSubmissions, reportJobRoutes } from './adapters/report-jobs/index.js';
import { categoryServiceCatalog, preQualRoutes, resultServiceSource } from './adapters/prequal/index.js';
import { HttpReportMetadata } from './adapters/report-service/http-report-metadata.js';
import { HttpReportService } from './adapters/report-service/http-report-service.js';
import { remoteTerminologyConfigured, terminologyCredentials, type TerminologySettings } from './adapters/terminology/index.js';
import { ArtifactService, type InitializationReport } from './application/artifact-service.js';
import { CategoryService } from './application/category-service.js';
import { EnginePackageInspector } from './application/engine-package-inspector.js';
import { ResultService } from './application/result-service.js';
import { ValidationApiService } from './application/validation-api-service.js';
import { ValidationConfigurationService } from './application/validation-configuration-service.js';
import { ReportJobService } from './application/report-jobs/index.js';
import { ValidationFlow, type FlowStore, type ScopedResourceValidator } from './application/validation-flow/index.js';
import { PgFacilityScopes } from './adapters/persistence/pg-facility-scopes.js';
import { validationConfigurationRoutes } from './adapters/http/validation-configuration-routes.js';
import { groupLimitFor, PgFlowStore } from './adapters/persistence/pg-flow-store.js';
import { consumerConcurrency } from './adapters/messaging/ready-for-validation-consumer.js';
import type { ArtifactChangeListener, ArtifactRepository, InitialArtifactSource } from './domain/ports/artifact-repository.js';
import type { CategorizationRunner } from './domain/ports/categorization-runner.js';
import type { ImportOutcome } from './domain/ports/category-repository.js';
import type { FhirXmlReader } from './domain/ports/fhir-xml-reader.js';
import type { PackageInspector } from './domain/ports/package-inspector.js';
import type { TerminologyKnowledge } from './domain/ports/terminology-knowledge.js';
import type { ValidationConfigurationLookup } from './domain/ports/validation-configuration-lookup.js';
import type { ValidationConfigurationStore } from './domain/ports/validation-configuration-store.js';
import type { FacilityScopes } from './domain/ports/facility-scopes.js';
import type { SubmissionSource } from './domain/ports/submission-source.js';
import type { ReportMetadataSource } from './domain/ports/prequal.js';
import type { ResourceValidator } from './domain/ports/resource-validator.js';
import type { validationSchema } from './config.js';

export type ValidationConfig = ConfigOf<typeof validationSchema>;

/**
 * The validation service's composition root: one token per port or adapter that a use case depends
 * on, bound to its production adapter. Everything is a singleton, so the API, the flow and the
 * report jobs share one engine (one worker pool, one definition index). A test or another
 * deployment rebinds a port (`container.rebind(TOKENS.submissionSource).toConstantValue(fake)`)
 * BEFORE resolving what depends on it: a resolved singleton keeps the instances it was built with.
 */
export const TOKENS = {
  ...RUNTIME_TOKENS,
  config: token<ValidationConfig>('ValidationConfig'),
  artifactRepository: token<ArtifactRepository>('ArtifactRepository'),
  /** The engine's lifecycle (start, reload on artifact change, close); use cases see it as resourceValidator. */
  engineHost: token<EngineHost>('EngineHost'),
  resourceValidator: token<ResourceValidator & ScopedResourceValidator>('ResourceValidator'),
  artifactChangeNotifier: token<ArtifactChangeNotifier>('ArtifactChangeNotifier'),
  /** Artifacts, categories, $validate and results: the use cases (built here) and their router (validation-api-module.ts). */
  validationApi: token<ValidationApiModule>('ValidationApiModule'),
  artifactService: token<ArtifactService>('ArtifactService'),
  categoryService: token<CategoryService>('CategoryService'),
  validationApiService: token<ValidationApiService>('ValidationApiService'),
  resultService: token<ResultService>('ResultService'),
  /** The report service, where the flow fetches a patient's submission. */
  submissionSource: token<SubmissionSource>('SubmissionSource'),
  /** The report service again, for a report's measures and period on the pre-qualification report. */
  reportMetadata: token<ReportMetadataSource>('ReportMetadataSource'),
  /** Which validation configuration each facility uses: read by the flow (cached)… */
  facilityScopes: token<FacilityScopes>('FacilityScopes'),
  /** …and written by the configuration routes: the same instance, so a write clears the cache the flow reads. */
  validationConfigurations: token<ValidationConfigurationStore>('ValidationConfigurationStore'),
  /** The configurations' use case, on that store. */
  validationConfigurationService: token<ValidationConfigurationService>('ValidationConfigurationService'),
  flowStore: token<FlowStore>('FlowStore'),
  validationFlow: token<ValidationFlow>('ValidationFlow'),
  reportJobService: token<ReportJobService>('ReportJobService'),
  /** The routers beside the API's, on the use cases and stores above (main.ts mounts them, the pre-qualification one before the API's). */
  preQualRouter: token<Router>('PreQualRouter'),
  validationConfigurationRouter: token<Router>('ValidationConfigurationRouter'),
  reportJobRouter: token<Router>('ReportJobRouter'),
} as const;

export interface ValidationApiDependencies {
  readonly repositories: ValidationApiRepositories;
  readonly openApi: OpenApiBuilder;
  /** The FHIR engine. */
  readonly validator: ResourceValidator;
  /** Where $categorize matches: the engine host (a worker, under the deadline); default this thread (tests). */
  readonly categorization?: CategorizationRunner;
  /** Where $validate finds the validation configuration a request names (by facility or by name); absent: none. */
  readonly configurations?: ValidationConfigurationLookup;
  /** Told after artifacts change (the engine rebuilds its definitions; other instances are notified). */
  readonly artifactListener?: ArtifactChangeListener;
  /** What `$initialize` loads, in order (initial-sources.ts); default: `artifactInitDir` alone. */
  readonly initialArtifacts?: readonly InitialArtifactSource[];
  /** `artifact.init-dir`, when `initialArtifacts` is not given (tests, benchmarks). */
  readonly artifactInitDir?: string;
  readonly packageInspector?: PackageInspector;
  /** What is known without artifacts (R4 core, the terminology server) for the terminology dependencies. */
  readonly terminologyKnowledge?: TerminologyKnowledge;
  readonly validateBodyLimit?: number;
  /** validation.max-requests-per-caller; absent = unbounded. */
  readonly validateMaxPerCaller?: number;
  /** A $validate/$categorize request's budget from its arrival (validation.resource-timeout-ms); absent = the workers' per-resource deadline only. */
  readonly validateTimeoutMs?: number;
  readonly uploadLimit?: number;
  /** Reads RESOURCE artifacts uploaded as FHIR XML (the engine host); without it they are refused. */
  readonly xmlReader?: FhirXmlReader;
  /** Reports a stored rule that no longer compiles or is over MAX_RULE_PROGRAM_SIZE (skipped). */
  readonly onBrokenRule?: (ruleId: number, categoryId: string, reason: string) => void;
  /** How long a categorizer (compiled latest rules) is reused; default 2000 ms. Writes on this instance drop it at once. */
  readonly categorizerTtlMs?: number;
}

export interface ValidationApiModule extends ValidationApiUseCases {
  readonly router: Router;
  readonly entities: typeof validationApiEntities;
  readonly migrations: typeof validationApiMigrations;
  /** Runs both initializations when their tables are empty (artifacts only when `artifactInit`). */
  initializeIfEmpty(options: { artifactInit: boolean }): Promise<{ artifacts?: InitializationReport; categories?: ImportOutcome }>;
}

const NO_LISTENER: ArtifactChangeListener = { artifactsChanged: () => Promise.resolve() };

/**
 * The validation API's use cases (artifacts, categories, $validate, results), built on the given
 * ports, with their router. The container binds it (TOKENS.validationApi); tests and benchmarks call
 * it directly with their own stores and validator.
 */
export function createValidationApiModule(deps: ValidationApiDependencies): ValidationApiModule {
  const { repositories } = deps;
  const categories = new CategoryService(repositories.categories, {
    onBrokenRule: (rule, reason) => deps.onBrokenRule?.(rule.id, rule.categoryId, reason),
    ...(deps.categorizerTtlMs === undefined ? {} : { categorizerTtlMs: deps.categorizerTtlMs }),
  });
  const artifacts = new ArtifactService(
    repositories.artifacts,
    deps.packageInspector ?? new EnginePackageInspector(deps.xmlReader),
    deps.artifactListener ?? NO_LISTENER,
    deps.initialArtifacts ?? [new DirectoryArtifactSource(deps.artifactInitDir)],
    deps.terminologyKnowledge,
    deps.xmlReader,
  );
  const validation = new ValidationApiService(deps.validator, categories, deps.configurations, deps.categorization, deps.validateTimeoutMs);
  const results = new ResultService(repositories.results, repositories.categories);
  const useCases: ValidationApiUseCases = { artifacts, categories, validation, results };
  const router = validationApiRouter(deps.openApi, useCases, {
    validateBodyLimit: deps.validateBodyLimit, validateMaxPerCaller: deps.validateMaxPerCaller, uploadLimit: deps.uploadLimit,
  });

  return {
    ...useCases,
    router,
    entities: validationApiEntities,
    migrations: validationApiMigrations,
    async initializeIfEmpty({ artifactInit }) {
      const outcome: { artifacts?: InitializationReport; categories?: ImportOutcome } = {};
      // An empty store gets the initial artifacts; one that has artifacts gets the newer versions of its packages (a new release's embedded ones).
      if (artifactInit) outcome.artifacts = await artifacts.isEmpty() ? await artifacts.initialize() : await artifacts.upgradePackages();
      if (await categories.isEmpty()) outcome.categories = await categories.initialize();
      return outcome;
    },
  };
}

/**
 * Where the engine's terminology questions go, cloned into every worker thread. With
 * terminology.transport nats the platform terminology service is asked over the service's own NATS
 * connection settings (its user, never a caller's token), through the same cache as over HTTP.
 */
export function terminologySettings(config: ValidationConfig): TerminologySettings {
  return {
    fhirTerminologyServiceUrl: config.fhirTerminologyServiceUrl,
    terminologyServiceUrl: config.terminologyServiceUrl,
    transport: config.terminologyTransport,
    timeoutMs: config.terminologyTimeoutMs,
    unavailableSeverity: config.terminologyUnavailableSeverity,
    validateCodeTtlSeconds: config.cacheValidateCodeTtl,
    credentials: terminologyCredentials(config),
    nats: {
      servers: config.natsServers, user: config.natsUser, pass: config.natsPassword, token: config.natsToken, namespace: config.natsNamespace,
    },
  };
}

export function buildValidationContainer(config: ValidationConfig, runtime: RuntimeParts): Container {
  // issues worded in this thread (deadline outcomes) follow the setting too; the workers get it with their setup
  setMessageWording(config.messageWording);
  const container = createServiceContainer(runtime);
  container.bind(TOKENS.config).toConstantValue(config);
  container.bind(TOKENS.artifactRepository).toDynamicValue((ctx) => new PgArtifactRepository(ctx.get(TOKENS.orm)));
  container.bind(TOKENS.engineHost).toDynamicValue((ctx) => new EngineHost({
    artifacts: ctx.get(TOKENS.artifactRepository),
    workers: config.validationWorkers,
    resourceTimeoutMs: config.validationResourceTimeoutMs,
    submissionTimeoutMs: config.validationSubmissionTimeoutMs,
    workerHeapMb: config.validationWorkerHeapMb,
    maxIssuesPerResource: config.validationMaxIssuesPerResource,
    queueLimit: config.validationQueueLimit,
    maxMbInFlight: config.validationMaxMbInFlight,
    definitionCacheDir: config.definitionCacheDir,
    terminology: terminologySettings(config),
    ...(config.referenceServerUrl ? { referenceServer: { url: config.referenceServerUrl, timeoutMs: config.referenceServerTimeoutMs } } : {}),
    workerCache: {
      type: config.cacheType, ttlSeconds: config.cacheValidateCodeTtl, memoryMaxEntries: config.cacheMemoryMaxEntries, namespace: 'validation:validate-code',
      redis: redisConnection(config),
    },
    logger: ctx.get(TOKENS.logger),
    registry: ctx.get(TOKENS.metrics).registry,
    metrics: ctx.get(TOKENS.metrics),
    logLevel: config.logLevel,
    messageWording: config.messageWording,
  }));
  container.bind(TOKENS.resourceValidator).toService(TOKENS.engineHost);
  container.bind(TOKENS.artifactChangeNotifier).toDynamicValue((ctx) => {
    const engine = ctx.get(TOKENS.engineHost);
    const artifacts = ctx.get(TOKENS.artifactRepository);
    return new ArtifactChangeNotifier({
      nc: ctx.get(TOKENS.nats).nc, reload: (reason) => engine.reload(reason), logger: ctx.get(TOKENS.logger), metrics: ctx.get(TOKENS.metrics),
      subject: artifactsChangedSubject(ctx.get(TOKENS.catalog)),
      generation: artifacts.generation && {
        stored: () => artifacts.generation!(), running: () => engine.generation?.artifactsGeneration, checkIntervalMs: config.artifactCheckInterval * 1_000,
      },
    });
  });
  container.bind(TOKENS.validationApi).toDynamicValue((ctx) => {
    const logger = ctx.get(TOKENS.logger);
    return createValidationApiModule({
      // The artifact store the engine host reads too; categories and results are the API's own.
      repositories: { ...pgValidationApiRepositories(ctx.get(TOKENS.orm)), artifacts: ctx.get(TOKENS.artifactRepository) },
      openApi: ctx.get(TOKENS.openApi),
      validator: ctx.get(TOKENS.resourceValidator),
      // $categorize matches in a validation worker, under the per-resource deadline
      categorization: ctx.get(TOKENS.engineHost),
      // $validate applies a facility's (or a named) validation configuration as the flow does
      configurations: ctx.get(facilityScopes),
      artifactListener: ctx.get(TOKENS.artifactChangeNotifier).listener(),
      initialArtifacts: initialArtifactSources(config),
      validateBodyLimit: config.validateBodyLimit,
      // uploads read their bodies themselves (ownBodyRoutes in main.ts), within http.raw-limit as before
      uploadLimit: config.httpRawLimit,
      validateMaxPerCaller: config.validateMaxPerCaller,
      // a synchronous request is answered within the resource budget from its arrival, not after it
      validateTimeoutMs: config.validationResourceTimeoutMs,
      xmlReader: ctx.get(TOKENS.engineHost),
      terminologyKnowledge: engineTerminologyKnowledge(ctx.get(TOKENS.engineHost), remoteTerminologyConfigured(terminologySettings(config))),
      onBrokenRule: (ruleId, categoryId, reason) => logger.warn({ ruleId, categoryId, reason }, 'a stored category rule does not compile or is over the program size limit; skipped'),
    });
  });
  container.bind(TOKENS.artifactService).toDynamicValue((ctx) => ctx.get(TOKENS.validationApi).artifacts);
  container.bind(TOKENS.categoryService).toDynamicValue((ctx) => ctx.get(TOKENS.validationApi).categories);
  container.bind(TOKENS.validationApiService).toDynamicValue((ctx) => ctx.get(TOKENS.validationApi).validation);
  container.bind(TOKENS.resultService).toDynamicValue((ctx) => ctx.get(TOKENS.validationApi).results);
  container.bind(TOKENS.submissionSource).toDynamicValue((ctx) => new HttpReportService({
    baseUrl: config.reportServiceUrl, pathTemplate: config.reportServicePath, timeoutMs: config.reportServiceTimeoutMs,
    serviceToken: config.reportServiceToken, logger: ctx.get(TOKENS.logger),
  }));
  container.bind(TOKENS.reportMetadata).toDynamicValue((ctx) => new HttpReportMetadata({
    baseUrl: config.reportServiceUrl, pathTemplate: config.reportServiceReportPath, timeoutMs: config.reportServiceTimeoutMs,
    serviceToken: config.reportServiceToken, logger: ctx.get(TOKENS.logger),
  }));
  const facilityScopes = token<PgFacilityScopes>('PgFacilityScopes');
  container.bind(facilityScopes).toDynamicValue((ctx) => new PgFacilityScopes(ctx.get(TOKENS.orm)));
  container.bind(TOKENS.facilityScopes).toDynamicValue((ctx) => ctx.get(facilityScopes));
  container.bind(TOKENS.validationConfigurations).toDynamicValue((ctx) => ctx.get(facilityScopes));
  // The commits waiting to be gathered hold consumer slots: groups of a third of them at most (groupLimitFor).
  container.bind(TOKENS.flowStore).toDynamicValue((ctx) => new PgFlowStore(ctx.get(TOKENS.orm), {
    maxGroup: groupLimitFor(consumerConcurrency(config.validationConsumerConcurrency, ctx.get(TOKENS.engineHost).workerThreads)),
  }));
  container.bind(TOKENS.validationFlow).toDynamicValue((ctx) => {
    const outbox = ctx.get(TOKENS.outbox);
    const completion = ctx.get(TOKENS.catalog).byName('ValidationComplete');
    return new ValidationFlow({
      source: ctx.get(TOKENS.submissionSource),
      validator: ctx.get(TOKENS.resourceValidator),
      scopes: ctx.get(TOKENS.facilityScopes),
      categories: ctx.get(TOKENS.categoryService),
      store: ctx.get(TOKENS.flowStore),
      completion: { subject: completion.subject, schemaVersion: completion.version },
      afterCommit: ({ lastInFlight }) => outbox.notify({ now: lastInFlight }),
    });
  });
  container.bind(TOKENS.reportJobService).toDynamicValue((ctx) => {
    const orm = ctx.get(TOKENS.orm);
    const logger = ctx.get(TOKENS.logger);
    const completion = ctx.get(TOKENS.catalog).byName('ValidationComplete');
    const outbox = ctx.get(TOKENS.outbox);
    return new ReportJobService({
      store: new PgReportJobStore(orm),
      submissions: new PgReportSubmissions(orm, { completion: { subject: completion.subject, schemaVersion: completion.version }, afterCommit: () => outbox.notify() }),
      flow: ctx.get(TOKENS.validationFlow), categories: ctx.get(TOKENS.categoryService),
      schemaVersion: ctx.get(TOKENS.catalog).byName('ReadyForValidation').version,
      onError: (err, context) => logger.warn({ err, ...context }, 'report job step failed'),
    });
  });
  container.bind(TOKENS.preQualRouter).toDynamicValue((ctx) => preQualRoutes(ctx.get(TOKENS.openApi), {
    results: resultServiceSource(ctx.get(TOKENS.resultService)), categories: categoryServiceCatalog(ctx.get(TOKENS.categoryService)),
    reportMetadata: ctx.get(TOKENS.reportMetadata), logger: ctx.get(TOKENS.logger),
  }));
  container.bind(TOKENS.validationConfigurationService).toDynamicValue((ctx) => new ValidationConfigurationService(ctx.get(TOKENS.validationConfigurations)));
  container.bind(TOKENS.validationConfigurationRouter).toDynamicValue((ctx) => validationConfigurationRoutes(ctx.get(TOKENS.openApi), ctx.get(TOKENS.validationConfigurationService)));
  container.bind(TOKENS.reportJobRouter).toDynamicValue((ctx) => reportJobRoutes(ctx.get(TOKENS.openApi), ctx.get(TOKENS.reportJobService)));
  return container;
}
