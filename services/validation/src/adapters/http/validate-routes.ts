import express, { Router, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import { HttpProblem, JSON_MEDIA_TYPES, type AnyMediaTypeRoute, type OpenApiBuilder, type RouteBodyLimit } from '#adapters/http/index.js';
import { operationOutcomeXml } from '../../domain/engine/outcome/outcome-xml.js';
import type { ValidationApiService } from '../../application/validation-api-service.js';
import { requestClockMs, type FhirJsonText } from '../../domain/ports/resource-validator.js';
import { SETTINGS } from '../../domain/engine/settings-input.js';
import { perCallerLimit } from './caller-limit.js';
import { booleanQuery } from './errors.js';
import type { ValidationApiSchemas } from './schemas.js';

export interface ValidateRouteOptions {
  /** Largest resource or Bundle accepted, in bytes; default 50 MiB. Give the app the same limit for these routes (validateRouteBodyLimits). */
  readonly bodyLimit?: number;
  /** Validating requests of one caller at a time (validation.max-requests-per-caller); beyond, 429. Default unbounded. */
  readonly maxPerCaller?: number;
}

/**
 * The processing routes: POSTs that compute an answer and store nothing, so any authenticated user
 * may call them (no admin permission). Exact paths.
 */
export const PROCESSING_ROUTES = ['/api/$validate', '/api/$validate-and-categorize', '/api/$categorize'] as const;

/**
 * These routes take whole Bundles: the app's JSON parser must apply `validate.body-limit` to them,
 * not `http.json-limit` (it parses before routing, so the route's own parser would come too late).
 */
export function validateRouteBodyLimits(limit: number): RouteBodyLimit[] {
  return PROCESSING_ROUTES.map((path) => ({ method: 'POST', path, limit }));
}

/**
 * The routes that read their bodies themselves, after authentication and with `validate.body-limit`
 * (the app's parsers must leave them alone: createHttpApp `ownBodyRoutes`). Exact paths, ignoring
 * case and a trailing slash.
 */
export const VALIDATE_BODY_ROUTES: readonly AnyMediaTypeRoute[] = [
  { method: 'POST', path: /^\/api\/\$validate\/?$/i },
  { method: 'POST', path: /^\/api\/\$validate-and-categorize\/?$/i },
  { method: 'POST', path: /^\/api\/\$categorize\/?$/i },
];

/**
 * The validating routes also take FHIR XML (`application/fhir+xml`), which the app's parsers do not
 * read: the app must let these bodies through (anyMediaTypeRoutes), and the routes read them (and
 * answer 415 for other XML types). Exact paths, ignoring case and a trailing slash.
 */
export const FHIR_XML_ROUTES: readonly AnyMediaTypeRoute[] = [
  { method: 'POST', path: /^\/api\/\$validate\/?$/i },
  { method: 'POST', path: /^\/api\/\$validate-and-categorize\/?$/i },
];

const FHIR_XML = 'application/fhir+xml';

/** The answers the validating routes give besides 200 (see the description of `$validate`). */
const DEADLINE_AND_CAPACITY = 'A request not answered within `validation.resource-timeout-ms` of its arrival (reading the body, waiting for a '
  + 'worker and validating count) is answered 422 (Problem Details, '
  + 'type `validation-timeout`, detail "Validation of this resource did not finish within N ms"): mostly the content made the validation too '
  + 'costly and the same request would fail again, so it is not a server error (a request that waited long for a busy worker may pass on a later try). When every validation worker is busy '
  + 'and `validation.queue-limit` requests already wait, the answer is 503 with Retry-After; a caller with `validation.max-requests-per-caller` '
  + 'validations already running is answered 429 with Retry-After.';

const FLAGS = z.object({
  categorize: z.enum(['true', 'false']).optional().openapi({ description: 'Add each issue\'s categories (uncategorized when none matches)' }),
  summarize: z.enum(['true', 'false']).optional().openapi({ description: 'Answer counts: by message, or by category when categorized' }),
});

/**
 * What the validation itself is told (application/validate-request.ts): the validation configuration
 * that applies (a facility's, as the flow applies it, or one by name), profiles, and the HL7
 * validator's settings by name (docs/validator-settings.md); the same names work as parameters of a
 * FHIR `Parameters` body that carries the resource as `resource`.
 */
const VALIDATION_QUERY = z.object({
  facility: z.string().optional().openapi({ description: 'Validate as the flow validates this facility\'s submissions: with its validation configuration (packages, resources, settings)' }),
  configuration: z.string().optional().openapi({ description: 'Validate with this validation configuration (by name) instead of a facility\'s' }),
  profile: z.string().optional().openapi({ description: 'A profile to validate against besides meta.profile (repeatable)' }),
  ...Object.fromEntries(SETTINGS.map((s) => [s.name, z.string().optional().openapi({ description: `${s.description} (HL7 ${s.flag})` })])),
});

/** $validate, $validate-and-categorize and $categorize. */
export function validateRoutes(openApi: OpenApiBuilder, schemas: ValidationApiSchemas, service: ValidationApiService, options: ValidateRouteOptions = {}): Router {
  const router = Router();
  const tags = ['Validation'];
  const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
  const fhirBody = { required: true, content: {
    'application/fhir+json': { schema: z.record(z.string(), z.unknown()).openapi({ description: 'Any FHIR R4 resource or Bundle' }) },
    [FHIR_XML]: { schema: z.string().openapi({ description: 'Any FHIR R4 resource or Bundle in FHIR XML' }) },
  } };
  // Route-level parsers for bodies the app's parsers left alone (VALIDATE_BODY_ROUTES); a body the app already parsed passes through.
  // FHIR arrives as text, read where it is validated (with locations and the engine's limits, as the CLI reads a file).
  const limit = options.bodyLimit ?? 50 * 1024 * 1024;
  const largeJson = express.json({ limit, type: JSON_MEDIA_TYPES });
  const fhirText = express.text({ limit, type: FHIR_XML });
  const fhirJson = express.raw({ limit, type: JSON_MEDIA_TYPES });
  const authorization = (header: string | undefined) => (header ? { authorization: header } : {});
  const callerLimit: RequestHandler = options.maxPerCaller === undefined ? (_req, _res, next) => next() : perCallerLimit(options.maxPerCaller);
  // When each request reached its route, before its body is read: the service's request budget counts from here.
  const arrivals = new WeakMap<Request, number>();
  const arrived: RequestHandler = (req, _res, next) => {
    arrivals.set(req, requestClockMs());
    next();
  };
  const receivedAt = (req: Request) => {
    const receivedAtMs = arrivals.get(req);
    return receivedAtMs === undefined ? {} : { receivedAtMs };
  };

  openApi.registerPath({
    method: 'post', path: '/api/$validate', tags, summary: 'Validate a FHIR resource',
    description: 'Validates against FHIR R4, the profiles in meta.profile and terminology bindings. Default answer: the OperationOutcome. '
      + '`categorize=true`: the issues with their categories. `summarize=true`: counts by message, or by category with categorize. '
      + '`facility` or `configuration` validates with that validation configuration, as the flow does; settings by name (or as parameters of a '
      + '`Parameters` body carrying the resource as `resource`) win over the configuration\'s. A bad setting is a 400 naming it; an unknown configuration 404. '
      + DEADLINE_AND_CAPACITY,
    request: { query: FLAGS.merge(VALIDATION_QUERY), body: fhirBody },
    responses: {
      200: {
        description: 'The OperationOutcome (application/fhir+json by default, application/fhir+xml when the Accept header prefers it); with the flags CategorizedIssue[], MessageCount[] or CategoryCount[] (application/json)',
        content: {
          'application/fhir+json': { schema: schemas.OperationOutcome },
          [FHIR_XML]: { schema: z.string().openapi({ description: 'The OperationOutcome in FHIR XML' }) },
          'application/json': { schema: z.union([z.array(schemas.CategorizedIssue), z.array(schemas.MessageCount), z.array(schemas.CategoryCount)]) },
        },
      },
      ...openApi.problemResponses(400, 413, 415, 422, 429, 500, 503),
    },
  });
  router.post('/api/$validate', arrived, callerLimit, fhirJson, fhirText, async (req, res) => {
    const answer = await service.validate(fhirResource(req), { categorize: booleanQuery(req.query, 'categorize'), summarize: booleanQuery(req.query, 'summarize') },
      { query: req.query, ...authorization(req.header('authorization')), ...receivedAt(req) });
    switch (answer.kind) {
      case 'outcome':
        // the OperationOutcome in XML when the caller prefers it (JSON for */* and by default)
        if (req.accepts(['application/fhir+json', 'application/json', FHIR_XML]) === FHIR_XML) res.type(FHIR_XML).send(operationOutcomeXml(answer.outcome));
        else res.type('application/fhir+json').send(JSON.stringify(answer.outcome));
        break;
      case 'issues': res.json(answer.issues); break;
      default: res.json(answer.summary);
    }
  });

  openApi.registerPath({
    method: 'post', path: '/api/$validate-and-categorize', tags, summary: 'Validate and categorize with a composite response',
    description: 'Answers the OperationOutcome, the categorized issues, summaries by category and by message, and the validity verdict '
      + '(valid when no issue is in a category that is not acceptable and no error or fatal issue is uncategorized). ' + DEADLINE_AND_CAPACITY,
    request: { query: VALIDATION_QUERY, body: fhirBody },
    responses: { 200: { description: 'Composite answer', ...json(schemas.CompositeValidation) }, ...openApi.problemResponses(400, 413, 415, 422, 429, 500, 503) },
  });
  router.post('/api/$validate-and-categorize', arrived, callerLimit, fhirJson, fhirText, async (req, res) => {
    res.json(await service.validateAndCategorize(fhirResource(req), { query: req.query, ...authorization(req.header('authorization')), ...receivedAt(req) }));
  });

  openApi.registerPath({
    method: 'post', path: '/api/$categorize', tags, summary: 'Categorize validation results using the latest rules',
    description: 'Body: an array of results (severity and code as FHIR codes or the original enum names), or `{results, categories}` to try rules before saving them. '
      + 'Nothing is stored. The matching runs in a validation worker: rules sent with the request are priced first (rule size × characters matched; '
      + 'over the limit: 400 naming it), and matching that passes `validation.resource-timeout-ms` from the request\'s arrival is stopped (422). When every worker is busy and '
      + '`validation.queue-limit` requests already wait: 503 with Retry-After.',
    request: { query: FLAGS.pick({ summarize: true }), body: { required: true, ...json(schemas.CategorizeRequest) } },
    responses: {
      200: { description: 'Results with categories, or counts by category', content: { 'application/json': { schema: z.union([z.array(schemas.CategorizeResult.extend({ categories: z.array(schemas.Category) })), z.array(schemas.CategoryCount)]) } } },
      ...openApi.problemResponses(400, 422, 500, 503),
    },
  });
  router.post('/api/$categorize', arrived, largeJson, async (req, res) => {
    const answer = await service.categorize(req.body, booleanQuery(req.query, 'summarize'), receivedAt(req));
    res.json(answer.kind === 'results' ? answer.results : answer.summary);
  });

  return router;
}

/**
 * The resource of a validating request: FHIR JSON or XML as text (read by the engine where it
 * validates), or JSON the app already parsed (an app that does not leave these routes their
 * bodies). Another XML type, or any body no parser read, is 415.
 */
function fhirResource(req: Request): unknown {
  const body: unknown = req.body;
  if (typeof body === 'string' && req.is(FHIR_XML)) return { xml: body };
  if (Buffer.isBuffer(body) && req.is(JSON_MEDIA_TYPES)) return fhirJsonInput(body);
  if (req.headers['content-length'] !== '0' && req.is(JSON_MEDIA_TYPES) === false) {
    throw HttpProblem.unsupportedMediaType(`Content-Type ${req.header('content-type') ?? '(none)'} is not supported: send FHIR as application/fhir+json or application/fhir+xml`);
  }
  return body;
}

/**
 * JSON as received: its bytes go to the worker unread (this thread neither decodes nor parses them),
 * unless the body may be a `Parameters`, whose parameters are read here (as text). A body without the
 * text `"Parameters"` (and without `\u` escapes, which could spell it) cannot be one: a native scan.
 */
function fhirJsonInput(body: Buffer): FhirJsonText {
  if (body.includes('"Parameters"') || body.includes('\\u')) return { json: body.toString('utf8') };
  const rootType = sniffedResourceType(body);
  // the bytes as they are when they fill their buffer (a large body: copied once, to the worker); a small
  // body sitting in a slab of Node's buffer pool is copied out first, so that the slab is not sent along
  const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
  return { json: own ? body : new Uint8Array(body), ...(rootType ? { rootType } : {}) };
}

/** The resourceType near the start, where it usually is (only the metrics' label: the engine reads the real one). */
function sniffedResourceType(body: Buffer): string | undefined {
  // linear: a literal, optional blanks, one bounded letter run
  return /"resourceType"\s*:\s*"([A-Za-z]{1,64})"/.exec(body.subarray(0, 512).toString('latin1'))?.[1];
}
