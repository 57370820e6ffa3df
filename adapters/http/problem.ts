import type { Response } from 'express';
import type { ServerResponse } from 'node:http';
import type { FieldProblem } from '#shared-kernel/domain/errors.js';

/**
 * RFC 9457 Problem Details. Type URI scheme (one for the whole platform):
 * `https://nhsn-link.example/problems/<slug>`, where the slug names the kind of problem
 * (`validation-failed`, `malformed-json`, `not-found`, ...). The URIs are stable identifiers, not
 * necessarily resolvable; clients switch on `type`, people read `title` and `detail`.
 */
export const PROBLEM_TYPE_BASE = 'https://nhsn-link.example/problems/';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** One field at fault (`errors` member): the vocabulary's FieldProblem, e.g. `facility.timeZone`, `items[2].code`, `pageSize`. */
export type FieldError = FieldProblem;

export interface ProblemDetails {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly traceId: string;
  readonly instance?: string;
  readonly errors?: readonly FieldError[];
}

export function problemType(slug: string): string {
  return `${PROBLEM_TYPE_BASE}${slug}`;
}

/**
 * An error a handler throws to answer with a Problem Details response. Its `detail` is sent to the
 * client, so it must not contain internals; unexpected errors should simply be thrown as they are
 * (they become a generic 500).
 */
export class HttpProblem extends Error {
  override readonly name = 'HttpProblem';

  constructor(
    readonly status: number,
    readonly slug: string,
    readonly title: string,
    readonly detail: string,
    readonly errors?: readonly FieldError[],
    /** Extra response headers, e.g. `Allow` for 405 or `Retry-After` for 503. */
    readonly headers: Readonly<Record<string, string>> = {},
    /** Extension members (RFC 9457 §3.2), e.g. `facilities` of a signing key in use. */
    readonly extensions: Readonly<Record<string, unknown>> = {},
  ) {
    super(detail);
  }

  get type(): string {
    return problemType(this.slug);
  }

  static badRequest(detail: string, errors?: readonly FieldError[]): HttpProblem {
    return new HttpProblem(400, errors?.length ? 'validation-failed' : 'bad-request', errors?.length ? 'Validation failed' : 'Bad request', detail, errors);
  }

  static unauthorized(detail = 'Authentication is required'): HttpProblem {
    return new HttpProblem(401, 'unauthorized', 'Unauthorized', detail);
  }

  static forbidden(detail = 'Not allowed'): HttpProblem {
    return new HttpProblem(403, 'forbidden', 'Forbidden', detail);
  }

  static notFound(detail: string): HttpProblem {
    return new HttpProblem(404, 'not-found', 'Not found', detail);
  }

  static methodNotAllowed(method: string, allowed: readonly string[]): HttpProblem {
    return new HttpProblem(405, 'method-not-allowed', 'Method not allowed',
      `Method ${method} is not allowed here; allowed: ${allowed.join(', ')}`, undefined, { Allow: allowed.join(', ') });
  }

  static conflict(detail: string): HttpProblem {
    return new HttpProblem(409, 'conflict', 'Conflict', detail);
  }

  static payloadTooLarge(detail: string): HttpProblem {
    return new HttpProblem(413, 'payload-too-large', 'Payload too large', detail);
  }

  static unsupportedMediaType(detail: string): HttpProblem {
    return new HttpProblem(415, 'unsupported-media-type', 'Unsupported media type', detail);
  }

  static unprocessable(detail: string, errors?: readonly FieldError[]): HttpProblem {
    return new HttpProblem(422, 'unprocessable-content', 'Unprocessable content', detail, errors);
  }

  static badGateway(detail = 'An upstream service gave an invalid response'): HttpProblem {
    return new HttpProblem(502, 'bad-gateway', 'Bad gateway', detail);
  }

  static serviceUnavailable(detail = 'The service is temporarily unavailable', retryAfterSeconds?: number): HttpProblem {
    return new HttpProblem(503, 'service-unavailable', 'Service unavailable', detail, undefined,
      retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) });
  }

  /** The generic 500: says nothing about the cause (that goes to the log with the trace id). */
  static internal(): HttpProblem {
    return new HttpProblem(500, 'internal-error', 'Internal server error',
      'An unexpected error occurred. Quote the traceId when reporting it.');
  }

  toProblemDetails(traceId: string, instance?: string): ProblemDetails {
    return {
      ...this.extensions,
      type: this.type, title: this.title, status: this.status, detail: this.detail, traceId,
      ...(instance === undefined ? {} : { instance }),
      ...(this.errors?.length ? { errors: this.errors } : {}),
    };
  }
}

/** The trace id the front middleware stored for this request ('' outside the standard app). */
export function traceIdOf(res: Response): string {
  return typeof res.locals.traceId === 'string' ? res.locals.traceId : '';
}

/** The request path without query string, used as the problem `instance`. */
export function requestPath(originalUrl: string): string {
  const queryStart = originalUrl.indexOf('?');
  return queryStart === -1 ? originalUrl : originalUrl.slice(0, queryStart);
}

export function sendProblem(res: Response, problem: HttpProblem): void {
  for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  res.status(problem.status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(problem.toProblemDetails(traceIdOf(res), requestPath(res.req.originalUrl))));
}

/**
 * The answer sendProblem gives (status, the problem's headers, `application/problem+json; charset=utf-8`,
 * X-Trace-Id), written on a plain node response in one go: for a handler outside express (the
 * gateway's pass-through) and for the proxy, which answers on the node response in both paths.
 */
export function writeProblem(res: ServerResponse, problem: HttpProblem, traceId: string, instance: string): void {
  const body = JSON.stringify(problem.toProblemDetails(traceId, instance));
  res.writeHead(problem.status, {
    ...problem.headers,
    'content-type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
    'content-length': Buffer.byteLength(body),
    'x-trace-id': traceId,
  });
  res.end(body);
}
