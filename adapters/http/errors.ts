import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
import type { Logger } from '../observability/logger.js';
import { DomainError } from '#shared-kernel/domain/errors.js';
import { UpstreamError } from '../outbound-http/upstream-error.js';
import { problemOf } from './domain-problems.js';
import { UnstorableStringError } from './front.js';
import { allowedMethods } from './route-table.js';
import { HttpProblem, requestPath, sendProblem, traceIdOf } from './problem.js';

/** Tail handler for requests no route answered: 405 with Allow when the path exists, else 404. */
export function notFoundHandler(app: Express): RequestHandler {
  return (req, _res, next) => {
    const path = requestPath(req.originalUrl);
    const allowed = allowedMethods(app, path);
    next(allowed.length > 0 && !allowed.includes(req.method)
      ? HttpProblem.methodNotAllowed(req.method, allowed)
      : HttpProblem.notFound(`No resource at ${req.method} ${path}`));
  };
}

/** Errors raised by express's body parsers (body-parser / raw-body) carry a `type` and a status. */
/** What body-parser and other http-errors style libraries put on their errors. */
interface BodyParserError { message: string; type?: unknown; status?: unknown; limit?: unknown; expose?: unknown }

function fromBodyParser(thrown: unknown): HttpProblem | undefined {
  if (thrown instanceof UnstorableStringError) return HttpProblem.badRequest(thrown.message);
  if (!(thrown instanceof Error)) return undefined;
  const error: BodyParserError = thrown;
  switch (error.type) {
    case 'entity.parse.failed':
      return new HttpProblem(400, 'malformed-json', 'Malformed JSON', `Request body is not valid JSON: ${error.message}`);
    case 'entity.too.large':
      return HttpProblem.payloadTooLarge(`Request body exceeds the limit of ${String(error.limit)} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return HttpProblem.unsupportedMediaType(error.message);
    case 'request.aborted':
    case 'request.size.invalid':
      return HttpProblem.badRequest(error.message);
    default:
      // The router could not decode a path parameter (`%`, `%zz`, percent-encoded bytes that are no UTF-8)
      if (thrown instanceof URIError && error.status === 400) {
        return HttpProblem.badRequest('A path segment is not valid percent-encoded UTF-8');
      }
      // Other client errors from http-errors style libraries say themselves whether the message is safe.
      if (error.expose && typeof error.status === 'number' && error.status >= 400 && error.status < 500) {
        return new HttpProblem(error.status, 'bad-request', 'Bad request', error.message);
      }
      return undefined;
  }
}

/**
 * Final error handler: every error becomes Problem Details. The shared failure vocabulary
 * (NotFoundError, InvalidInputError, ...) is mapped by domain-problems.ts. Unknown errors give a
 * generic 500 (no message, no stack) and are logged at error level with the trace id.
 */
export function problemErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const traceId = traceIdOf(res);
    let problem = error instanceof HttpProblem ? error
      : error instanceof DomainError ? problemOf(error)
        : fromBodyParser(error);
    if (!problem && error instanceof UpstreamError) {
      logger.warn({ err: error, traceId, upstream: `${error.method} ${error.url}`, status: error.status, attempts: error.attempts },
        'upstream call failed');
      problem = HttpProblem.badGateway();
    }
    if (!problem) {
      logger.error({ err: error, traceId, method: req.method, path: requestPath(req.originalUrl) }, 'unhandled error');
      problem = HttpProblem.internal();
    }
    sendProblem(res, problem);
  };
}
