import type { Logger } from '../observability/logger.js';
import { ClientCredentialsToken } from './client-credentials.js';
import type { AuthorizationSource, OutboundCredentials } from './credential-types.js';

export interface AuthorizationSourceOptions {
  readonly logger: Logger;
  /** Per attempt at the token endpoint; default 10 s. */
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

/** The Authorization header source of `credentials`; undefined for kind none. */
export function authorizationSource(credentials: OutboundCredentials, options: AuthorizationSourceOptions): AuthorizationSource | undefined {
  switch (credentials.kind) {
    case 'none':
      return undefined;
    case 'basic': {
      const value = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`, 'utf8').toString('base64')}`;
      return { header: async () => value };
    }
    case 'bearer':
      return staticBearer(credentials.token);
    case 'client-credentials':
      return new ClientCredentialsToken(credentials, options);
  }
}

/** A fixed bearer token (`Bearer ` added unless the value has it). */
export function staticBearer(token: string): AuthorizationSource {
  const value = /^bearer /i.test(token) ? token : `Bearer ${token}`;
  return { header: async () => value };
}

/** What is configured, for a log line: the kind and non-secret parts only. */
export function describeCredentials(credentials: OutboundCredentials): Record<string, string> {
  switch (credentials.kind) {
    case 'none': return { credentials: 'none' };
    case 'basic': return { credentials: 'basic', username: credentials.username };
    case 'bearer': return { credentials: 'bearer' };
    case 'client-credentials': return { credentials: 'client-credentials', tokenUrl: credentials.tokenUrl, clientId: credentials.clientId };
  }
}
