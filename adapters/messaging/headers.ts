/**
 * Header names and conversions shared by the publisher, the consumer runner and the dead-letter
 * stream. NATS headers are multi-valued; our messages use one value per header, so the first wins.
 */
import { headers as createHeaders, type MsgHdrs } from '@nats-io/transport-node';

export const MSG_ID_HEADER = 'Nats-Msg-Id';
/** W3C trace context, propagated from producer to consumer (and to the dead letter). */
export const TRACEPARENT_HEADER = 'traceparent';

export function headersToRecord(h: MsgHdrs | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  for (const key of h.keys()) out[key] = h.get(key);
  return out;
}

export function recordToHeaders(record: Record<string, string> | undefined): MsgHdrs | undefined {
  if (!record || Object.keys(record).length === 0) return undefined;
  const h = createHeaders();
  for (const [k, v] of Object.entries(record)) h.set(k, v);
  return h;
}
