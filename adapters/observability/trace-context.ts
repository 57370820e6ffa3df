import { randomHex } from '../runtime/random-pool.js';

/**
 * W3C Trace Context (`traceparent`): `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`.
 * Anything invalid is replaced by a newly generated context rather than rejected, as the
 * recommendation asks of receivers.
 */
export interface TraceContext {
  readonly version: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly flags: string;
}

/** A value with the fields of a TraceContext (what traceIdMiddleware puts in `res.locals`). */
export function isTraceContext(value: unknown): value is TraceContext {
  return typeof value === 'object' && value !== null
    && 'version' in value && typeof value.version === 'string' && 'traceId' in value && typeof value.traceId === 'string'
    && 'spanId' in value && typeof value.spanId === 'string' && 'flags' in value && typeof value.flags === 'string';
}

const HEX = /^[0-9a-f]+$/;
const ALL_ZERO = /^0+$/;

/** Parses a traceparent header; undefined when absent or invalid. */
export function parseTraceparent(header: string | undefined | null): TraceContext | undefined {
  if (!header) return undefined;
  const parts = header.trim().split('-');
  if (parts.length < 4) return undefined;
  const [version, traceId, spanId, flags] = parts;
  if (version === undefined || traceId === undefined || spanId === undefined || flags === undefined) return undefined; // not reached: 4 parts at least
  if (version.length !== 2 || !HEX.test(version) || version === 'ff') return undefined;
  // Version 00 has exactly four fields; later versions may append more, which we ignore.
  if (version === '00' && parts.length !== 4) return undefined;
  if (traceId.length !== 32 || !HEX.test(traceId) || ALL_ZERO.test(traceId)) return undefined;
  if (spanId.length !== 16 || !HEX.test(spanId) || ALL_ZERO.test(spanId)) return undefined;
  if (flags.length !== 2 || !HEX.test(flags)) return undefined;
  return { version: '00', traceId, spanId, flags };
}

export function formatTraceparent(context: Pick<TraceContext, 'traceId' | 'spanId' | 'flags'>): string {
  return `00-${context.traceId}-${context.spanId}-${context.flags}`;
}

export function newTraceId(): string {
  return randomHex(16);
}

export function newSpanId(): string {
  return randomHex(8);
}

/** A fresh, sampled trace. */
export function generateTraceContext(): TraceContext {
  return { version: '00', traceId: newTraceId(), spanId: newSpanId(), flags: '01' };
}

/** The incoming context, or a new one when the header is missing or invalid. */
export function traceContextFromHeader(header: string | undefined | null): TraceContext {
  return parseTraceparent(header) ?? generateTraceContext();
}

/** Same trace, new span: what a service sends on its outgoing calls. */
export function childTraceContext(parent: Pick<TraceContext, 'traceId'> & { flags?: string }): TraceContext {
  return { version: '00', traceId: parent.traceId, spanId: newSpanId(), flags: parent.flags ?? '01' };
}
