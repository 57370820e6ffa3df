/**
 * The one path the gateway both checks and routes.
 *
 * The gateway used to decide "is this /api/<component>/... (so: authenticate)" on the raw path and
 * then route `new URL(raw)`, which resolves dot segments (also percent-encoded ones): the path that was
 * checked was not the path that was routed (`/api/validation/../tenant/x`, `/api/validation/%2e%2e/%2e%2e/metrics`).
 * Here a request path is accepted only when reading it is unambiguous, and that same path is what the
 * authentication decision and the routing both see:
 * - every segment is percent-decoded once (malformed encoding: refused);
 * - a segment that is, or decodes to, `.` or `..` is refused (a traversal, plain or encoded: no
 *   client of this API needs one, and resolving it would route what was not asked for);
 * - a segment that decodes to something containing `/` or `\` (an encoded slash or backslash), a raw
 *   backslash, a control character, or a percent-encoding left after decoding (double encoding:
 *   `%252e%252e` would become `..` in a service that decodes once more) is refused.
 * An accepted path has no dot segment and no ambiguous separator, so its normal form is itself: it is
 * passed on byte for byte (the services match routes on the raw path, e.g. `/api/$validate`).
 */
export type CheckedPath =
  | { readonly ok: true; readonly path: string; readonly search: string }
  | { readonly ok: false; readonly detail: string };

/** `%` and two hex digits: a linear scan for a percent-encoding left in an already decoded segment. */
function hasPercentEncoding(text: string): boolean {
  for (let i = text.indexOf('%'); i !== -1 && i + 2 < text.length; i = text.indexOf('%', i + 1)) {
    if (isHex(text.charCodeAt(i + 1)) && isHex(text.charCodeAt(i + 2))) return true;
  }
  return false;
}

function isHex(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** The request target (`req.url`: path and query, as the client sent it), checked; see above. */
export function checkRequestTarget(requestTarget: string): CheckedPath {
  const queryStart = requestTarget.indexOf('?');
  const path = queryStart === -1 ? requestTarget : requestTarget.slice(0, queryStart);
  const search = queryStart === -1 ? '' : requestTarget.slice(queryStart);
  if (!path.startsWith('/')) return { ok: false, detail: 'The request target must be a path starting with "/".' };
  if (path.includes('\\')) return { ok: false, detail: 'The request path must not contain a backslash.' };
  for (const segment of path.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return { ok: false, detail: 'The request path has a malformed percent-encoding.' };
    }
    if (decoded === '.' || decoded === '..') return { ok: false, detail: 'The request path must not contain dot segments ("." or "..", plain or percent-encoded).' };
    if (decoded.includes('/') || decoded.includes('\\')) return { ok: false, detail: 'The request path must not contain an encoded slash or backslash.' };
    if (hasPercentEncoding(decoded)) return { ok: false, detail: 'The request path must not be percent-encoded twice.' };
    if (hasControlCharacter(decoded)) return { ok: false, detail: 'The request path must not contain control characters.' };
  }
  return { ok: true, path, search };
}
