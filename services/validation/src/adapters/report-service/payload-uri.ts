/**
 * ReadyForValidation's optional `payloadUri` (where the report service put the patient's submission)
 * is fetched only when it points INTO the configured report service: same scheme, host and port as
 * `svc.report-service-url`, and a path under its base path. Anything else (another host, a cloud
 * metadata address, a file: URL, credentials in the URL, encoded dots or slashes that a server
 * could decode into another path) is refused, so a message on the bus cannot make the validation
 * service call an address of the sender's choosing (server-side request forgery). A refused or
 * unreadable payloadUri falls back to the report service's submission route, as the contract says.
 */

export type PayloadLocation =
  | { readonly allowed: true; readonly url: URL }
  | { readonly allowed: false; readonly reason: string };

export function payloadLocation(reportServiceUrl: string, payloadUri: string): PayloadLocation {
  const base = new URL(reportServiceUrl);
  let url: URL;
  try {
    url = new URL(payloadUri);
  } catch {
    return { allowed: false, reason: 'not an absolute URL' };
  }
  if (url.protocol !== base.protocol) return { allowed: false, reason: `scheme ${url.protocol.replace(':', '')} is not the report service's ${base.protocol.replace(':', '')}` };
  // URL lower-cases the host and drops a default port, so equal addresses compare equal.
  if (url.hostname !== base.hostname || url.port !== base.port) return { allowed: false, reason: 'another host or port than the report service' };
  if (url.username !== '' || url.password !== '') return { allowed: false, reason: 'credentials in the URL' };
  if (/%2e|%2f|%5c/i.test(url.pathname)) return { allowed: false, reason: 'encoded dots or slashes in the path' };
  const basePath = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  // new URL() has already resolved `.` and `..` segments, so this is the path the server is asked for.
  if (!url.pathname.startsWith(basePath)) return { allowed: false, reason: `path outside the report service's base path ${basePath}` };
  url.hash = '';
  return { allowed: true, url };
}

/**
 * The submission at a payloadUri as the bytes the flow hands to the validator: a JSON document
 * (Bundle, MeasureReport, PatientSubmissionModel) as it came, or NDJSON (one resource per line, the
 * original system's blob format) as the text of a collection Bundle of those lines (written around
 * them, not re-serialized). Undefined when it is neither (the submission route is used instead).
 * Each document is parsed here only to tell which it is; the value is dropped.
 */
export function payloadBytes(text: string): Uint8Array | undefined {
  if (isJson(text)) return UTF8.encode(text);
  const lines: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    if (!isJson(line)) return undefined;
    lines.push(`{"resource":${line}}`);
  }
  if (lines.length === 0) return undefined;
  return UTF8.encode(`{"resourceType":"Bundle","type":"collection","entry":[${lines.join(',')}]}`);
}

const UTF8 = new TextEncoder();

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
