import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { RequestRecord } from '#adapters/http/index.js';
import { traceContextFromHeader } from '#adapters/observability/trace-context.js';
import type { Proxy } from './proxy/forward.js';
import { checkRequestTarget } from './proxy/gateway-path.js';

export interface PassThroughOptions {
  readonly proxy: Proxy;
  /** The caller's principal when it is known without waiting (alreadyAuthenticated), else undefined. */
  readonly authenticated: (req: IncomingMessage) => unknown;
  /** Records the request as express's request logging does (requestRecorder). */
  readonly record: RequestRecord;
  /** Every other request: the gateway's express app. */
  readonly fallback: (req: IncomingMessage, res: ServerResponse) => void;
  /** Answers what passing on threw (express's error handler would have: logged, a 500 Problem). */
  readonly failed: (error: unknown, req: IncomingMessage, res: ServerResponse, traceId: string, path: string) => void;
}

/** The route label express's request logging gives a proxied request (no route of the app matched it). */
const PROXIED_ROUTE = 'unmatched';

/**
 * The gateway's hot path, in front of express. A request for a service (`/api/<component>/...`, its
 * path checked by gateway-path.ts) whose caller is already authenticated (a bearer token the verifier
 * accepted before and still remembers, or auth.mode none) is passed on right here, with the trace id,
 * request log line and duration histogram that express's front middleware would give it. Everything
 * else goes to the express app as it is, which checks, authenticates and answers it as before: a
 * refused path, a token not verified yet (it is verified there, before any byte of the body is read,
 * and remembered), a wrong one, the gateway's own routes. So the pass-through lets nothing in that
 * the express path would refuse, and what it passes on goes through the same proxy.
 *
 * Why: express's per-request work (its request and response objects, the router, the middleware
 * chain, a promise for the token check) cost about as much as everything else the gateway does for
 * a proxied request besides its two socket writes.
 */
export function passThrough(options: PassThroughOptions): RequestListener {
  const { proxy, authenticated, record, fallback, failed } = options;
  return (req, res) => {
    const checked = checkRequestTarget(req.url ?? '/');
    const target = checked.ok ? proxy.route(checked) : undefined;
    if (!target || authenticated(req) === undefined) {
      fallback(req, res);
      return;
    }
    const started = process.hrtime.bigint();
    const traceparent = req.headers.traceparent;
    const trace = traceContextFromHeader(typeof traceparent === 'string' ? traceparent : undefined);
    // 'close' follows 'finish' on every response, and comes alone when the client went away first (499).
    res.on('close', () => {
      record(req.method ?? '', target.externalPath, PROXIED_ROUTE, res.writableFinished ? res.statusCode : 499, Number(process.hrtime.bigint() - started) / 1e9, trace.traceId);
    });
    try {
      proxy.forward(req, res, target, trace);
    } catch (error) {
      // Outside express a throw here would end the process; there it was the error handler's.
      failed(error, req, res, trace.traceId, target.externalPath);
    }
  };
}
