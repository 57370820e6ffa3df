import { normalizeTokenUrl, type EhrConnection } from '../../domain/ehr-connection.js';
import { SigningKeyError } from './model.js';

/**
 * What a caller of SignClientAssertion may say about the assertion's audience: at most which of the
 * facility's configured EHR connections to sign for. `clientId` and `tokenUrl` are what callers of
 * the first contract version sent; they are accepted only as a choice among the configured
 * connections, never signed as given.
 */
export interface AssertionTargetRequest {
  readonly connection?: string;
  readonly clientId?: string;
  readonly tokenUrl?: string;
}

/**
 * The configured connection the assertion is for, or a refusal:
 * - no connection configured → `no-ehr-connection` (409: configure one first);
 * - a named connection the facility does not have, or none named while several are configured → `invalid` (400);
 * - a token URL or client id that matches no configured connection → `forbidden` (403 / FORBIDDEN):
 *   the registry never signs for an audience the facility's administrator did not configure.
 */
export function chooseEhrConnection(facilityId: string, connections: readonly EhrConnection[], request: AssertionTargetRequest): EhrConnection {
  const [first] = connections;
  if (first === undefined) {
    throw new SigningKeyError('no-ehr-connection',
      `Facility ${facilityId} has no EHR connection configured; add its client id and token URL to ehrConnections in PUT /api/facilities/${encodeURIComponent(facilityId)}`);
  }
  const names = connections.map((connection) => connection.name).join(', ');
  let chosen: EhrConnection | undefined;
  const wantedName = request.connection;
  if (wantedName !== undefined) {
    chosen = connections.find((connection) => connection.name.toLowerCase() === wantedName.toLowerCase());
    if (!chosen) throw new SigningKeyError('invalid', `connection: facility ${facilityId} has no EHR connection named ${JSON.stringify(request.connection)} (configured: ${names})`);
  }
  if (request.tokenUrl !== undefined) {
    const wanted = comparableUrl(request.tokenUrl);
    const matching = connections.filter((connection) => connection.tokenUrl === wanted);
    if (matching.length === 0 || (chosen && !matching.includes(chosen))) {
      throw new SigningKeyError('forbidden',
        `tokenUrl: ${JSON.stringify(request.tokenUrl)} is not a token endpoint configured for facility ${facilityId}${chosen ? ` in connection ${chosen.name}` : ''}; assertions are signed only for configured EHR connections (${names})`);
    }
    chosen ??= matching.find((connection) => request.clientId === undefined || connection.clientId === request.clientId) ?? matching[0];
  }
  if (!chosen) {
    if (connections.length > 1) {
      throw new SigningKeyError('invalid', `connection: facility ${facilityId} has ${connections.length} EHR connections (${names}); name the one to sign for`);
    }
    chosen = first;
  }
  if (request.clientId !== undefined && request.clientId !== chosen.clientId) {
    throw new SigningKeyError('forbidden',
      `clientId: ${JSON.stringify(request.clientId)} is not the client id configured for facility ${facilityId} in connection ${chosen.name}; assertions are signed only with the configured client id`);
  }
  return chosen;
}

/** The URL as stored (normalised), or the raw text when it does not parse (then it matches nothing). */
function comparableUrl(value: string): string {
  try {
    return normalizeTokenUrl(value);
  } catch {
    return value;
  }
}
