import { currentContext, type RequestContext } from './request-context.js';
import { childTraceContext, formatTraceparent, generateTraceContext, traceContextFromHeader } from './trace-context.js';

/**
 * Trace propagation for everything that is not an HTTP request: NATS messages, queries and the
 * outbox. A receiver continues the sender's trace (a new one when the header is missing or
 * invalid); a sender passes on the current trace with a new span id, so one submission can be
 * followed by its traceId from the first HTTP request to the last message.
 */
export const TRACEPARENT = 'traceparent';

/** The context a message handler runs in: the trace of the incoming traceparent, or a new trace. */
export function contextFromTraceparent(header: string | undefined | null): RequestContext {
  const trace = traceContextFromHeader(header);
  return { traceId: trace.traceId, spanId: trace.spanId, traceFlags: trace.flags };
}

/** What to send on an outgoing message or call: a child span of the current context, or a new trace outside any. */
export function outgoingTraceparent(context: RequestContext | undefined = currentContext()): string {
  return formatTraceparent(context ? childTraceContext({ traceId: context.traceId, flags: context.traceFlags }) : generateTraceContext());
}

/** True when the header record already has a traceparent (header names are case-insensitive). */
export function hasTraceparent(headers: Readonly<Record<string, string>> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === TRACEPARENT);
}

/** `headers` plus a traceparent of the current trace when the caller gave none; the caller's one wins. */
export function withTraceparent(headers: Readonly<Record<string, string>> | undefined, context: RequestContext | undefined = currentContext()): Record<string, string> {
  return hasTraceparent(headers) ? { ...headers } : { ...headers, [TRACEPARENT]: outgoingTraceparent(context) };
}
