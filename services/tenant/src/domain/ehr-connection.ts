import type { ProblemCollector } from '#shared-kernel/domain/errors.js';

/**
 * A facility's registration at one EHR authorization server (SMART Backend Services): the client id
 * the EHR gave the platform for this facility and the EHR's token endpoint. The signing-key registry
 * signs client assertions only for these: `iss` = `sub` = `clientId`, `aud` = `tokenUrl`. Neither is
 * secret (the credential is the signed assertion), but both decide where an assertion is accepted,
 * so only an administrator sets them, through the facility configuration.
 */
export interface EhrConnection {
  /** Chosen by the administrator, unique within the facility; callers name it to pick a connection. */
  readonly name: string;
  readonly clientId: string;
  /** Absolute https URL (http only to a loopback address, for local trials). */
  readonly tokenUrl: string;
}

export const EHR_CONNECTIONS_MAX = 20;
export const EHR_CONNECTION_NAME_MAX_LENGTH = 64;
export const EHR_CLIENT_ID_MAX_LENGTH = 255;
export const EHR_TOKEN_URL_MAX_LENGTH = 2048;

/**
 * Why `value` is not an acceptable token endpoint, or undefined when it is: an absolute https URL
 * without credentials or fragment; plain http only to a loopback host (localhost, 127.0.0.0/8, ::1),
 * since anything else would carry the assertion unencrypted.
 */
export function tokenUrlProblem(value: string): string | undefined {
  if (value.length > EHR_TOKEN_URL_MAX_LENGTH) return `must be at most ${EHR_TOKEN_URL_MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL (https://…)';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https URL';
  if (url.hostname === '') return 'must name a host';
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  if (url.hash !== '') return 'must not carry a fragment (#…)';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return 'must use https (plain http is accepted only for a loopback address such as 127.0.0.1 or localhost)';
  }
  return undefined;
}

/** `localhost`, an IPv4 address in 127.0.0.0/8 or `[::1]` (as the WHATWG URL parser normalises hosts). */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  const parts = hostname.split('.');
  return parts.length === 4 && parts[0] === '127' && parts.every((part) => part !== '' && part.length <= 3 && [...part].every((c) => c >= '0' && c <= '9'));
}

/** The URL as the registry compares and signs it (WHATWG serialisation: lower-case scheme and host). */
export function normalizeTokenUrl(value: string): string {
  return new URL(value).href;
}

function hasControlCharacter(value: string): boolean {
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0; // a string's characters are never empty
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function isNameCharacter(char: string): boolean {
  return (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || (char >= '0' && char <= '9') || char === '-' || char === '_' || char === '.';
}

/**
 * Checks the connections of a facility write, adding every problem to `problems` with its field
 * (`ehrConnections[1].tokenUrl`), and returns them trimmed and with normalised URLs.
 */
export function validateEhrConnections(input: readonly Partial<EhrConnection>[], problems: ProblemCollector): EhrConnection[] {
  if (input.length > EHR_CONNECTIONS_MAX) problems.add('ehrConnections', `ehrConnections: at most ${EHR_CONNECTIONS_MAX} connections`);
  const seen = new Set<string>();
  return input.map((connection, index) => {
    const field = (member: string) => `ehrConnections[${index}].${member}`;
    const name = typeof connection.name === 'string' ? connection.name.trim() : '';
    const clientId = typeof connection.clientId === 'string' ? connection.clientId.trim() : '';
    const rawUrl = typeof connection.tokenUrl === 'string' ? connection.tokenUrl.trim() : '';

    if (name === '') problems.add(field('name'), `${field('name')} is required`);
    else if (name.length > EHR_CONNECTION_NAME_MAX_LENGTH || ![...name].every(isNameCharacter)) {
      problems.add(field('name'), `${field('name')} must be 1 to ${EHR_CONNECTION_NAME_MAX_LENGTH} letters, digits, '-', '_' or '.'`);
    } else if (seen.has(name.toLowerCase())) {
      problems.add(field('name'), `${field('name')}: the name ${JSON.stringify(name)} is used twice (names are compared ignoring case)`);
    }
    seen.add(name.toLowerCase());

    if (clientId === '') problems.add(field('clientId'), `${field('clientId')} is required`);
    else if (clientId.length > EHR_CLIENT_ID_MAX_LENGTH) problems.add(field('clientId'), `${field('clientId')} must be at most ${EHR_CLIENT_ID_MAX_LENGTH} characters`);
    else if (hasControlCharacter(clientId)) problems.add(field('clientId'), `${field('clientId')} must not contain control characters`);

    let tokenUrl = rawUrl;
    if (rawUrl === '') problems.add(field('tokenUrl'), `${field('tokenUrl')} is required`);
    else {
      const problem = tokenUrlProblem(rawUrl);
      if (problem) problems.add(field('tokenUrl'), `${field('tokenUrl')} ${problem}`);
      else tokenUrl = normalizeTokenUrl(rawUrl);
    }
    return { name, clientId, tokenUrl };
  });
}
