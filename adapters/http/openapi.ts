import {
  OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi, type ResponseConfig, type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';
import { PROBLEM_CONTENT_TYPE } from './problem.js';

// Once per process, before any schema calls `.openapi(...)`; every service reaches it through this module.
extendZodWithOpenApi(z);

export const FieldErrorSchema = z.object({
  field: z.string(),
  message: z.string(),
});

export const ProblemDetailsSchema = z.object({
  type: z.string().openapi({ description: 'https://nhsn-link.example/problems/<slug>', example: 'https://nhsn-link.example/problems/not-found' }),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  traceId: z.string().openapi({ description: 'Quote this when reporting a problem' }),
  instance: z.string().optional(),
  errors: z.array(FieldErrorSchema).optional(),
}).openapi({ description: 'RFC 9457 Problem Details' });

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid input', 401: 'Not authenticated', 403: 'Not allowed', 404: 'Not found', 405: 'Method not allowed',
  409: 'Conflict', 413: 'Payload too large', 415: 'Unsupported media type', 422: 'Unprocessable content', 429: 'Too many requests',
  500: 'Unexpected error', 502: 'Upstream failure', 503: 'Unavailable',
};

/** Name of the bearer security scheme every document declares (and requires globally). */
export const BEARER_SCHEME = 'bearerAuth';

export interface OpenApiInfo {
  readonly title: string;
  readonly version: string;
  readonly description?: string;
}

/**
 * Collects a service's routes (zod request/response schemas) into an OpenAPI 3.1 document.
 * Route modules call `registerPath` with express-style paths (`/facilities/:facilityId`); they are
 * converted to OpenAPI templates (`/facilities/{facilityId}`).
 */
export class OpenApiBuilder {
  readonly registry = new OpenAPIRegistry();
  /** The registered ProblemDetails component (a `$ref` in generated documents). */
  readonly problemSchema: typeof ProblemDetailsSchema;

  constructor(private readonly info: OpenApiInfo, private readonly servers: ReadonlyArray<{ url: string; description?: string }> = []) {
    this.problemSchema = this.registry.register('ProblemDetails', ProblemDetailsSchema);
    // Swagger UI shows its Authorize button for a declared scheme; the services take the bearer token
    // of the identity provider (auth.mode jwt), and with auth.mode none the header is simply ignored.
    this.registry.registerComponent('securitySchemes', BEARER_SCHEME, {
      type: 'http', scheme: 'bearer', bearerFormat: 'JWT',
      description: 'Access token of the identity provider (auth.mode jwt). Not needed with auth.mode none.',
    });
  }

  /** Registers a named component schema, returned so it can be used in route definitions. */
  register<S extends z.ZodType>(refId: string, schema: S): S {
    return this.registry.register(refId, schema);
  }

  registerPath(route: RouteConfig): void {
    this.registry.registerPath({ ...route, path: toOpenApiPath(route.path) });
  }

  /** Old express-style paths answered by the routes of new ones (renamed-routes.ts): documented as deprecated copies. */
  private readonly deprecatedAliases: { from: string; to: string }[] = [];

  registerDeprecatedAlias(from: string, to: string): void {
    this.deprecatedAliases.push({ from: toOpenApiPath(from), to: toOpenApiPath(to) });
  }

  /** Problem Details responses for the given statuses, to spread into a route's `responses`. */
  problemResponses(...statuses: number[]): Record<number, ResponseConfig> {
    return Object.fromEntries(statuses.map((status) => [status, {
      description: STATUS_TEXT[status] ?? 'Problem',
      content: { [PROBLEM_CONTENT_TYPE]: { schema: this.problemSchema } },
    }]));
  }

  document(): OpenAPIV3_1.Document {
    const generator = new OpenApiGeneratorV31(this.registry.definitions);
    const document = generator.generateDocument({
      openapi: '3.1.0',
      info: { ...this.info },
      servers: this.servers.map((server) => ({ ...server })),
      security: [{ [BEARER_SCHEME]: [] }],
    });
    // zod-to-openapi types the result with openapi3-ts; the JSON is the same document.
    const result = document as unknown as OpenAPIV3_1.Document;
    for (const { from, to } of this.deprecatedAliases) {
      const item = result.paths?.[to];
      if (!item) continue;
      const copy: Record<string, unknown> = {};
      for (const [method, operation] of Object.entries(item)) {
        const op = operation as OpenAPIV3_1.OperationObject;
        copy[method] = { ...op, deprecated: true, summary: `${op.summary ?? ''} (deprecated path: use ${to})`, ...(op.operationId ? { operationId: `${op.operationId}Deprecated` } : {}) };
      }
      result.paths![from] = copy as OpenAPIV3_1.PathItemObject;
    }
    return result;
  }
}

/** `/a/:id/b/*splat` → `/a/{id}/b/{splat}` (express 5 path syntax to OpenAPI templates). */
export function toOpenApiPath(path: string): string {
  return path.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}
