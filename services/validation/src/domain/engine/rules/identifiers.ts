/**
 * An Identifier's system and value, as HL7's checkIdentifier checks every Identifier: the system
 * must be an absolute reference (http:, https:, urn: or ldap:); with the system `urn:ietf:rfc:3986`
 * the value must itself be an absolute URI; the system `https://tools.ietf.org/html/rfc4122` is a
 * mistake for `urn:ietf:rfc:3986` (a warning when the value is a UUID, an error otherwise).
 */
import type { NodeContext } from '../context/node-context.js';

const RFC_3986 = 'urn:ietf:rfc:3986';
const RFC_4122 = 'https://tools.ietf.org/html/rfc4122';
// linear: anchored, fixed-length groups of one character class
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The Identifier value `v` at ctx (structural walk). */
export function checkIdentifier(ctx: NodeContext, v: Record<string, unknown>): void {
  const system = v.system;
  if (typeof system !== 'string') return;
  if (!(system.startsWith('http:') || system.startsWith('https:') || system.startsWith('urn:') || system.startsWith('ldap:'))) {
    ctx.report('error', 'Type_Specific_Checks_DT_Identifier_System', [], ctx.path, ctx.at);
  }
  const value = typeof v.value === 'string' ? v.value : undefined;
  if (value === undefined) return;
  if (system === RFC_3986 && !isAbsolute(value)) {
    ctx.report('error', 'TYPE_SPECIFIC_CHECKS_DT_IDENTIFIER_IETF_SYSTEM_VALUE', [value], ctx.path, ctx.at);
  } else if (system === RFC_4122) {
    if (value.startsWith('urn:uuid:')) ctx.report('warning', 'TYPE_SPECIFIC_CHECKS_DT_IDENTIFIER_IETF_SYSTEM_WRONG_3', [value], ctx.path, ctx.at);
    else if (UUID.test(value)) ctx.report('warning', 'TYPE_SPECIFIC_CHECKS_DT_IDENTIFIER_IETF_SYSTEM_WRONG_2', [value], ctx.path, ctx.at);
    else ctx.report('error', 'TYPE_SPECIFIC_CHECKS_DT_IDENTIFIER_IETF_SYSTEM_WRONG_1', [value], ctx.path, ctx.at);
  }
}

/** HL7's isAbsolute for an identifier value: the URI schemes it takes as absolute. */
function isAbsolute(uri: string): boolean {
  return uri === '' || ['http:', 'https:', 'urn:uuid:', 'urn:oid:', 'urn:ietf:', 'urn:iso:', 'urn:iso-astm:', 'mailto:', 'urn:x-fhir:'].some((scheme) => uri.startsWith(scheme));
}
