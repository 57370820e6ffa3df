/**
 * MIME types (urn:ietf:bcp:13): `type/subtype` with an IANA top-level type and RFC 6838 token
 * characters, optionally followed by parameters (`text/plain; charset=utf-8`). The subtype
 * registry itself is not held: any well-formed subtype is accepted. `xml`, `json` and `ttl` are
 * accepted as FHIR's shorthands, as the HL7 validator does.
 */
const TOP_LEVEL_TYPES = new Set([
  'application', 'audio', 'example', 'font', 'haptics', 'image', 'message', 'model', 'multipart', 'text', 'video',
]);
const RESTRICTED_NAME = "[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}";
// Linear: anchored; the names are bounded (127), every parameter opens with ';' and its name ends at '=', neither of
// which its classes match, and a value is either quoted or has no quote: one reading per parameter.
const MIME = new RegExp(`^(${RESTRICTED_NAME})/(${RESTRICTED_NAME})((?:\\s*;\\s*[A-Za-z0-9!#$&^_.+-]+=(?:[^;"\\s]+|"[^"]*"))*)$`);

export type MimeTypeCheck = { valid: true } | { valid: false; reason: string };

// FHIR's own shorthands for its encodings, allowed wherever a mime type is (CapabilityStatement.format).
const FHIR_FORMAT_SHORTHANDS = new Set(['xml', 'json', 'ttl']);

export function checkMimeType(code: string): MimeTypeCheck {
  if (FHIR_FORMAT_SHORTHANDS.has(code)) return { valid: true };
  const match = MIME.exec(code.trim() === code ? code : '');
  if (!match) return { valid: false, reason: 'not of the form type/subtype' };
  const topLevel = match[1] ?? '';
  if (!TOP_LEVEL_TYPES.has(topLevel.toLowerCase())) return { valid: false, reason: `'${topLevel}' is not a registered top-level media type` };
  return { valid: true };
}
