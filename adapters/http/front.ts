import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from '../observability/logger.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import { runWithContext } from '../observability/request-context.js';
import { isTraceContext, traceContextFromHeader } from '../observability/trace-context.js';
import { HttpProblem, requestPath } from './problem.js';
import { routeTemplate } from './route-table.js';

/** Media types parsed as JSON into `req.body`. */
export const JSON_MEDIA_TYPES = ['application/json', 'application/fhir+json', 'application/*+json'];
/** Media types read as a Buffer into `req.body` (package uploads). */
export const RAW_MEDIA_TYPES = ['application/gzip', 'application/x-gzip', 'application/octet-stream', 'application/x-tar'];

/**
 * Takes the trace id from a valid `traceparent` header or makes a new one, stores it in
 * `res.locals.traceId` and answers it in `X-Trace-Id` (set first, so error responses carry it too).
 */
export function traceIdMiddleware(): RequestHandler {
  return (req, res, next) => {
    const trace = traceContextFromHeader(req.header('traceparent'));
    res.locals.traceId = trace.traceId;
    res.locals.traceContext = trace;
    res.setHeader('X-Trace-Id', trace.traceId);
    next();
  };
}

/** A route whose JSON body has its own size limit instead of the app's (e.g. `POST /api/$validate`: whole Bundles). */
export interface RouteBodyLimit {
  readonly method: string;
  /** The full request path, as the client sends it (`/api/$validate`); matched ignoring case and a trailing slash. */
  readonly path: string;
  readonly limit: number | string;
}

/** `METHOD /path` without trailing slashes (a linear scan: the path is the client's). */
function routeKey(method: string, path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 0x2f) end--;
  return `${method.toUpperCase()} ${path.slice(0, end).toLowerCase()}`;
}

/** A JSON body escapes a string no store can hold (errors.ts answers it 400; body-parser keeps the class, not own properties). */
export class UnstorableStringError extends Error {
  override readonly name = 'UnstorableStringError';
}

/** The value of the four hex digits at `at`, or -1. */
function hexAt(buf: Buffer, at: number): number {
  if (at + 4 > buf.length) return -1;
  let value = 0;
  for (let i = at; i < at + 4; i++) {
    const c = (buf[i] ?? 0) | 0x20; // digits keep their value; letters become lower case
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * The first `\u` escape in JSON text that makes no storable text: `\u0000` (PostgreSQL's text and jsonb
 * refuse NUL) or an unpaired surrogate such as `\ud800` (not Unicode; jsonb refuses it, a text column
 * would keep U+FFFD). Only an escape can: UTF-8 has no surrogates and a raw NUL is no valid JSON. A
 * backslash escaped itself (`\\u0000`, the six characters) is text. Linear: each backslash is looked at
 * at most twice.
 */
export function unstorableEscape(buf: Buffer): string | undefined {
  let at = buf.indexOf('\\u');
  while (at !== -1) {
    let slashes = 1;
    while (at - slashes >= 0 && buf[at - slashes] === 0x5c) slashes++;
    let next = at + 2;
    if (slashes % 2 === 1) {
      const code = hexAt(buf, at + 2);
      if (code === 0) return '\\u0000';
      if (code >= 0xdc00 && code <= 0xdfff) return buf.toString('latin1', at, at + 6);
      if (code >= 0xd800 && code <= 0xdbff) {
        const low = buf[at + 6] === 0x5c && buf[at + 7] === 0x75 ? hexAt(buf, at + 8) : -1;
        if (low < 0xdc00 || low > 0xdfff) return buf.toString('latin1', at, at + 6);
        next = at + 12;
      }
    }
    at = buf.indexOf('\\u', next);
  }
  return undefined;
}

/** Refuses, before it is parsed, a JSON body that escapes a string no store can hold (as a value or a member name): a 400, where it reached the store as a 500. */
function storableStrings(_req: unknown, _res: unknown, buf: Buffer): void {
  const escape = unstorableEscape(buf);
  if (escape !== undefined) {
    throw new UnstorableStringError(`The request body escapes ${escape === '\\u0000' ? 'the NUL character' : 'an unpaired surrogate'} (${escape}): neither is text that can be stored`);
  }
}

/**
 * The JSON parser reads the body once, before routing: a route with a larger limit of its own must
 * be known here, or the app's limit refuses its body (413) before the route is reached. Routes in
 * `ownBodyRoutes` read their bodies themselves (their own parser and limit, in the route): the app's
 * parsers leave them alone, so a large body is read only by the route that takes it.
 */
export function bodyParsers(
  jsonLimit: number | string, rawLimit: number | string, routeLimits: readonly RouteBodyLimit[] = [], ownBodyRoutes: readonly AnyMediaTypeRoute[] = [],
): RequestHandler[] {
  const json = express.json({ limit: jsonLimit, type: JSON_MEDIA_TYPES, verify: storableStrings });
  const own = new Map(routeLimits.map((route) => [routeKey(route.method, route.path), express.json({ limit: route.limit, type: JSON_MEDIA_TYPES, verify: storableStrings })]));
  const parsers: RequestHandler[] = [
    own.size === 0 ? json : (req, res, next) => (own.get(routeKey(req.method, req.path)) ?? json)(req, res, next),
    express.raw({ limit: rawLimit, type: RAW_MEDIA_TYPES }),
  ];
  if (ownBodyRoutes.length === 0) return parsers;
  const readsOwnBody = (method: string, path: string) => ownBodyRoutes.some((route) => route.method === method && route.path.test(path));
  return parsers.map((parser): RequestHandler => (req, res, next) => (readsOwnBody(req.method, req.path) ? next() : parser(req, res, next)));
}

/**
 * Guards mounted before any body is read (authentication on `/api`): a request they refuse is
 * answered without its body being read. The connection is then closed rather than kept alive, so
 * the rest of a large body is not drained from the socket either.
 */
export function guardBeforeBodies(handlers: readonly RequestHandler[]): RequestHandler[] {
  return handlers.map((handler): RequestHandler => (req, res, next) => handler(req, res, (error?: unknown) => {
    if (error !== undefined && error !== 'route' && error !== 'router' && hasUnreadBody(req)) res.setHeader('Connection', 'close');
    next(error);
  }));
}

function hasUnreadBody(req: { headers: Record<string, unknown>; readableEnded: boolean }): boolean {
  const length = req.headers['content-length'];
  return !req.readableEnded && ((typeof length === 'string' && length !== '0') || req.headers['transfer-encoding'] !== undefined);
}

/** A route that reads request bodies of any media type itself (e.g. package uploads sent by `curl --data-binary`). */
export interface AnyMediaTypeRoute {
  readonly method: string;
  /** Matched against the request path; keep it linear (no nested quantifiers), the path is the client's. */
  readonly path: RegExp;
}

/**
 * 415 Problem Details for a request body no parser read: the services read JSON (and package bytes on
 * the upload routes), so an XML or form body would otherwise reach a handler as "no body" and be
 * answered with a misleading 400. FHIR XML is the common case and gets a pointed detail.
 */
export function unsupportedBodyGuard(anyMediaTypeRoutes: readonly AnyMediaTypeRoute[] = []): RequestHandler {
  const readable = [...JSON_MEDIA_TYPES, ...RAW_MEDIA_TYPES];
  return (req, _res, next) => {
    // `req.is` is null without a body, false for a body of another type; an empty body is no body.
    if (req.headers['content-length'] === '0' || req.is(readable) !== false) return next();
    if (anyMediaTypeRoutes.some((route) => route.method === req.method && route.path.test(req.path))) return next();
    const given = req.header('content-type') ?? '(none)';
    const xml = req.is(['xml', '+xml', 'text/xml']) !== false;
    next(HttpProblem.unsupportedMediaType(xml
      ? `Content-Type ${given} is not supported: this service reads FHIR as JSON only; send application/fhir+json`
      : `Content-Type ${given} is not supported: send application/json (application/fhir+json for FHIR resources)`));
  };
}

/**
 * 400 for a path or query that holds the NUL character (`%00`): no id, name or filter of these APIs
 * can hold it, and PostgreSQL text cannot store or compare it (the query would fail: a 500).
 */
export function nulCharacterGuard(): RequestHandler {
  return (req, _res, next) => {
    next(req.url.includes('%00') ? HttpProblem.badRequest('The path and query must not contain the NUL character (%00)') : undefined);
  };
}

/**
 * Runs the rest of the chain inside the request context (trace id + incoming Authorization).
 * Placed after the body parsers on purpose: they resume from socket events, which would lose
 * an AsyncLocalStorage context entered before them.
 */
export function requestContextMiddleware(): RequestHandler {
  return (req, res, next) => {
    const trace: unknown = res.locals.traceContext;
    if (!isTraceContext(trace)) throw new Error('requestContextMiddleware needs traceIdMiddleware before it');
    runWithContext({ traceId: trace.traceId, spanId: trace.spanId, traceFlags: trace.flags, authorization: req.header('authorization') }, next);
  };
}

/** Paths polled by probes and scrapers; logged at debug so they do not drown real traffic. */
const QUIET_PATHS = /^\/(health(\/ready)?|metrics)$/;

/** One finished request, recorded: its log line and the duration histogram. */
export type RequestRecord = (method: string, path: string, route: string, status: number, seconds: number, traceId: unknown) => void;

/**
 * Logs one line per request (method, path, status, duration, trace id; never bodies, query strings
 * or headers) and records `http_request_duration_seconds` by route template. Shared by
 * requestLogging and by a handler in front of express (the gateway's pass-through), which record
 * into the same histogram (metrics.histogram returns the registered one).
 */
export function requestRecorder(logger: Logger, metrics: ServiceMetrics): RequestRecord {
  const duration = metrics.histogram({
    name: 'http_request_duration_seconds',
    help: 'Duration of HTTP requests by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  // The request line's fields are fixed (method, path without query, status, duration, trace id) and
  // carry no secret, so it skips the logger's redaction, which cost more than writing the line.
  const requestLog = logger.child({}, { redact: [] });
  return (method, path, route, status, seconds, traceId) => {
    duration.observe({ method, route, status_code: String(status) }, seconds);
    const line = { method, path, status, durationMs: Math.round(seconds * 1e4) / 10, traceId };
    if (QUIET_PATHS.test(path)) requestLog.debug(line, 'request');
    else if (status >= 500) requestLog.warn(line, 'request');
    else requestLog.info(line, 'request');
  };
}

/** Records each request (requestRecorder) when its response is finished, or the client went away (499). */
export function requestLogging(app: Express, logger: Logger, metrics: ServiceMetrics): RequestHandler {
  const record = requestRecorder(logger, metrics);
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const path = requestPath(req.originalUrl);
      // A route template (not the concrete path) keeps the label set small.
      const template = req.route ? routeTemplate(app, req.method, path) : undefined;
      const route = template || 'unmatched';
      record(req.method, path, route, res.writableFinished ? res.statusCode : 499, seconds, res.locals.traceId);
    };
    res.on('finish', finish);
    res.on('close', finish);
    next();
  };
}
