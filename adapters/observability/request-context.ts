import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What the current incoming request hands down to code that does not see the request:
 * the trace id (for log lines and outgoing `traceparent`) and the caller's Authorization header
 * (passed on to other services, as the specification requires).
 */
export interface RequestContext {
  readonly traceId: string;
  /** Span id of the incoming request, when it came with a traceparent. */
  readonly spanId?: string;
  /** Trace flags of the incoming request (`01` = sampled). */
  readonly traceFlags?: string;
  /** The incoming `Authorization` header value, verbatim. Never log it. */
  readonly authorization?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` (and everything it awaits or schedules) with `context` as the current context. */
export function runWithContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** The context of the request being served, or undefined outside a request (jobs, start-up). */
export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}
