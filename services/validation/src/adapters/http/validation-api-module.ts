/**
 * The validation API's HTTP side: one router over the use cases the composition root built
 * (composition.ts `createValidationApiModule`), its settings and what the HTTP frame must know:
 *
 * ```ts
 * const api = createValidationApiModule({ repositories: pgValidationApiRepositories(db.orm), openApi, validator, ... }); // composition.ts
 * const http = createHttpApp({ ..., ...validationApiHttpFrame(config.validateBodyLimit), openApi });  // $validate bodies: their own limit
 * http.app.use(api.router);   // = validationApiRouter(openApi, api, options)
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
import type { ArtifactService } from '../../application/artifact-service.js';
import type { CategoryService } from '../../application/category-service.js';
import type { ResultService } from '../../application/result-service.js';
import type { ValidationApiService } from '../../application/validation-api-service.js';
import { ARTIFACT_INIT_MODES } from '../artifacts/initial-sources.js';
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

/** The use cases the routes call, built by the composition root. */
export interface ValidationApiUseCases {
  readonly artifacts: ArtifactService;
  readonly categories: CategoryService;
  readonly validation: ValidationApiService;
  readonly results: ResultService;
}

export interface ValidationApiRouterOptions {
  readonly validateBodyLimit?: number;
  /** validation.max-requests-per-caller; absent = unbounded. */
  readonly validateMaxPerCaller?: number;
  readonly uploadLimit?: number;
}

/** Every route of the validation API (listed above), on the given use cases. */
export function validationApiRouter(openApi: OpenApiBuilder, useCases: ValidationApiUseCases, options: ValidationApiRouterOptions = {}): Router {
  const schemas = validationApiSchemas(openApi);
  const router = Router();
  router.use(artifactRoutes(openApi, schemas, useCases.artifacts, { uploadLimit: options.uploadLimit }));
  router.use(categoryRoutes(openApi, schemas, useCases.categories));
  router.use(validateRoutes(openApi, schemas, useCases.validation, {
    bodyLimit: options.validateBodyLimit, ...(options.validateMaxPerCaller === undefined ? {} : { maxPerCaller: options.validateMaxPerCaller }),
  }));
  router.use(resultRoutes(openApi, schemas, useCases.results));
  return router;
}
