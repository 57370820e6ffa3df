import type { RequestHandler, Response } from 'express';
import { HttpProblem } from './problem.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export interface PutBodyOptions {
  /** The resource uses UUID ids: a non-UUID URL id gives 400 `Invalid Id format`. */
  readonly uuid?: boolean;
  /** Name of the id property in the body; default `id`. */
  readonly idField?: string;
}

/**
 * The specification's PUT rules: the URL id must be a UUID when the resource uses UUIDs
 * (400 `Invalid Id format`), and the body must carry the same id (400 otherwise).
 * Returns the body as an object for further validation.
 */
export function assertPutBody(urlId: string, body: unknown, options: PutBodyOptions = {}): Record<string, unknown> {
  const idField = options.idField ?? 'id';
  if (options.uuid && !isUuid(urlId)) throw HttpProblem.badRequest('Invalid Id format');
  if (!isJsonObject(body)) {
    throw HttpProblem.badRequest('Request body must be a JSON object');
  }
  const bodyId = body[idField];
  const same = typeof bodyId === 'string'
    && (options.uuid ? bodyId.toLowerCase() === urlId.toLowerCase() : bodyId === urlId);
  if (!same) {
    throw HttpProblem.badRequest('Body id must equal the id in the URL', [{ field: idField, message: 'must equal the id in the URL' }]);
  }
  return body;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** PUT success: 202 Accepted with the updated representation (or no body). */
export function sendAccepted(res: Response, representation?: unknown): void {
  if (representation === undefined) res.status(202).end();
  else res.status(202).json(representation);
}

/** POST create: 201 Created, `Location` = URI of the new resource, body = its representation. */
export function sendCreated(res: Response, location: string, representation: unknown): void {
  res.status(201).location(location).json(representation);
}

/** Route guard: 415 unless the request body has one of `types` (e.g. `application/gzip`). */
export function requireContentType(...types: string[]): RequestHandler {
  return (req, _res, next) => {
    if (req.is(types)) {
      next();
      return;
    }
    const given = req.header('content-type') ?? 'none';
    next(HttpProblem.unsupportedMediaType(`Content-Type must be one of ${types.join(', ')}; got ${given}`));
  };
}

