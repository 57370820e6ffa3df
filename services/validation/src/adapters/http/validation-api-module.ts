/**
 * The validation API as one module for the composition root (services/validation/src/main.ts):
 *
 * ```ts
 * const config = loadConfig({ ...validationApiSettings(), ...others });
 * const db = await openDatabase({ ..., entities: [...validationApiEntities, ...], migrations: [...validationApiMigrations, ...] });
 * const api = createValidationApiModule({ repositories: pgValidationApiRepositories(db.orm), openApi, validator, artifactListener, initialArtifacts: initialArtifactSources(config), ... });
 * const http = createHttpApp({ ..., routeBodyLimits: validateRouteBodyLimits(config.validateBodyLimit), openApi });   // $validate bodies: their own limit
 *   // ... and anyMediaTypeRoutes: ARTIFACT_UPLOAD_ROUTES (uploads read any body themselves; others get 415)
 * http.app.use(api.router);
 * await api.initializeIfEmpty({ artifactInit: config.artifactInit });                   // the specification's planned start-up change
 * ```
 *
 * Routes (all under /api; the gateway exposes them as /api/validation/...):
 *   GET    /api/artifact                                   all artifacts, without content (204 when none)
 *   POST   /api/aritfact/$initialize, /api/artifact/$initialize   load the embedded packages and/or `artifact.init-dir`
 *   GET    /api/artifact/$terminology-dependencies         value sets / code systems needed by all artifacts
 *   GET    /api/artifact/package/{packageId}               package with details (same as GET /api/artifact/PACKAGE/{name})
 *   GET    /api/artifact/package/{packageId}/terminology-dependencies
 *   GET    /api/artifact/{type}/{name}                     one artifact (no content)
 *   GET    /api/artifact/{type}/{name}/content             application/gzip or application/fhir+json
 *   PUT    /api/artifact/{type}/{name}                     raw body; 201 created (+ Location), 202 replaced, 400 unreadable
 *   DELETE /api/artifact/{type}/{name}                     204
 *   GET    /api/category                                   all categories (204 when none)
 *   POST   /api/category/$initialize                       bundled default categories
 *   GET    /api/category/$export, POST /api/category/$import[?replaceAll=true]
 *   GET|PUT|DELETE /api/category/{id}
 *   GET    /api/category/{id}/rule, POST|PUT /api/category/{id}/rule, GET /api/category/{id}/rule/history
 *   DELETE /api/category/rule/{ruleId}
 *   POST   /api/$validate?categorize=&summarize=, POST /api/$validate-and-categorize, POST /api/$categorize?summarize=
 *   GET    /api/result/{facilityId}/{reportId}[?severity=&pageSize=&pageNumber=]
 *   GET    /api/result/{facilityId}/{reportId}/$categories
 *   GET    /api/result/{facilityId}/{reportId}/$categories/{categoryId}
 *   GET    /api/result/{facilityId}/{reportId}/{patientId}[?severity=]   (any patient id, `categories` and `validity` too)
 *   GET    /api/result/{facilityId}/{reportId}/$validity, /api/result/{facilityId}/{reportId}/{patientId}/$validity   (404 when nothing was validated)
 */
import { Router } from 'express';
import type { OpenApiBuilder } from '#adapters/http/index.js';
import { booleanSetting, byteSizeSetting, enumSetting, intSetting, stringSetting } from '#adapters/config/index.js';
import { ArtifactService, type InitializationReport } from '../../application/artifact-service.js';
import { CategoryService } from '../../application/category-service.js';
import { EnginePackageInspector } from '../../application/engine-package-inspector.js';
import { ResultService } from '../../application/result-service.js';
import { ValidationApiService, type ValidationConfigurationLookup } from '../../application/validation-api-service.js';
import type { ArtifactChangeListener, ArtifactRepository, InitialArtifactSource } from '../../domain/ports/artifact-repository.js';
import type { PackageInspector } from '../../domain/ports/package-inspector.js';
import type { TerminologyKnowledge } from '../../domain/ports/terminology-knowledge.js';
import type { CategoryRepository, ImportOutcome } from '../../domain/ports/category-repository.js';
import type { ResourceValidator } from '../../domain/ports/resource-validator.js';
import type { CategorizationRunner } from '../../domain/ports/categorization-runner.js';
import type { FhirXmlReader } from '../../domain/ports/fhir-xml-reader.js';
import type { ResultRepository } from '../../domain/ports/result-repository.js';
import { ARTIFACT_INIT_MODES } from '../artifacts/initial-sources.js';
import { DirectoryArtifactSource } from '../persistence/directory-artifact-source.js';
import { validationApiEntities } from '../persistence/entities.js';
import { validationApiMigrations } from '../persistence/migrations.js';
import { ARTIFACT_UPLOAD_ROUTES, artifactRoutes } from './artifact-routes.js';
import { categoryRoutes } from './category-routes.js';
import { resultRoutes } from './result-routes.js';
import { validationApiSchemas } from './schemas.js';
import { FHIR_XML_ROUTES, PROCESSING_ROUTES, VALIDATE_BODY_ROUTES, validateRouteBodyLimits, validateRoutes } from './validate-routes.js';

export { validationApiEntities, validationApiMigrations };
export { ARTIFACT_UPLOAD_ROUTES } from './artifact-routes.js';

/**
 * What the service's HTTP frame must know of these routes (startServiceRuntime / serviceHttpApp): the
 * processing POSTs any authenticated user may make, and the routes that read their (large) bodies
 * themselves, after authentication, with their own limits (validate.body-limit, http.raw-limit for uploads).
 */
export function validationApiHttpFrame(validateBodyLimit: number) {
  return {
    processingRoutes: PROCESSING_ROUTES,
    routeBodyLimits: validateRouteBodyLimits(validateBodyLimit),
    anyMediaTypeRoutes: [...ARTIFACT_UPLOAD_ROUTES, ...FHIR_XML_ROUTES],
    ownBodyRoutes: [...VALIDATE_BODY_ROUTES, ...ARTIFACT_UPLOAD_ROUTES],
  };
}

/** Configuration properties of the validation API (spread into the service's config schema). */
export function validationApiSettings() {
  return {
    artifactInit: booleanSetting('artifact.init', 'Load the default artifacts (embedded IG packages and/or artifact.init-dir, see artifact.init-mode) at start-up when no artifact is stored').default(true),
    artifactInitDir: stringSetting('artifact.init-dir', 'Directory of more default artifacts (.tgz packages, .json resources) for $initialize and the start-up initialization').optional(),
    artifactInitMode: enumSetting('artifact.init-mode', 'add: the embedded IG packages plus artifact.init-dir (a package there replaces the embedded one of the same name); replace: only artifact.init-dir (then required)', ARTIFACT_INIT_MODES).default('add'),
    validateBodyLimit: byteSizeSetting('validate.body-limit', 'Largest resource or Bundle accepted by $validate').default(50 * 1024 ** 2),
    validateMaxPerCaller: intSetting('validation.max-requests-per-caller', '$validate and $validate-and-categorize requests of one caller (token subject) running at a time: beyond it the answer is 429 with Retry-After, so one caller cannot take every place the API has in the worker queue', { min: 1, max: 10_000 }).default(8),
  };
}

/** The stores of the validation API (PostgreSQL in the service: pgValidationApiRepositories), built by the composition root. */
export interface ValidationApiRepositories {
  readonly artifacts: ArtifactRepository;
  readonly categories: CategoryRepository;
  readonly results: ResultRepository;
}

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
  readonly uploadLimit?: number;
  /** Reads RESOURCE artifacts uploaded as FHIR XML (the engine host); without it they are refused. */
  readonly xmlReader?: FhirXmlReader;
  /** Reports a stored rule that no longer compiles or is over MAX_RULE_PROGRAM_SIZE (skipped). */
  readonly onBrokenRule?: (ruleId: number, categoryId: string, reason: string) => void;
  /** How long a categorizer (compiled latest rules) is reused; default 2000 ms. Writes on this instance drop it at once. */
  readonly categorizerTtlMs?: number;
}

export interface ValidationApiModule {
  readonly router: Router;
  readonly categories: CategoryService;
  readonly artifacts: ArtifactService;
  readonly validation: ValidationApiService;
  readonly results: ResultService;
  readonly entities: typeof validationApiEntities;
  readonly migrations: typeof validationApiMigrations;
  /** Runs both initializations when their tables are empty (artifacts only when `artifactInit`). */
  initializeIfEmpty(options: { artifactInit: boolean }): Promise<{ artifacts?: InitializationReport; categories?: ImportOutcome }>;
}

const NO_LISTENER: ArtifactChangeListener = { artifactsChanged: async () => undefined };

export function createValidationApiModule(deps: ValidationApiDependencies): ValidationApiModule {
  const { repositories } = deps;
  const categories = new CategoryService(repositories.categories, {
    onBrokenRule: (rule, reason) => deps.onBrokenRule?.(rule.id, rule.categoryId, reason),
    ...(deps.categorizerTtlMs === undefined ? {} : { categorizerTtlMs: deps.categorizerTtlMs }),
  });
  const artifacts = new ArtifactService(
    repositories.artifacts,
    deps.packageInspector ?? new EnginePackageInspector(),
    deps.artifactListener ?? NO_LISTENER,
    deps.initialArtifacts ?? [new DirectoryArtifactSource(deps.artifactInitDir)],
    deps.terminologyKnowledge,
    deps.xmlReader,
  );
  const validation = new ValidationApiService(deps.validator, categories, deps.configurations, deps.categorization);
  const results = new ResultService(repositories.results, repositories.categories);

  const schemas = validationApiSchemas(deps.openApi);
  const router = Router();
  router.use(artifactRoutes(deps.openApi, schemas, artifacts, { uploadLimit: deps.uploadLimit }));
  router.use(categoryRoutes(deps.openApi, schemas, categories));
  router.use(validateRoutes(deps.openApi, schemas, validation, { bodyLimit: deps.validateBodyLimit, ...(deps.validateMaxPerCaller === undefined ? {} : { maxPerCaller: deps.validateMaxPerCaller }) }));
  router.use(resultRoutes(deps.openApi, schemas, results));

  return {
    router, categories, artifacts, validation, results,
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
