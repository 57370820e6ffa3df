import type { Logger } from '../observability/logger.js';
import { ClientCredentialsToken } from './client-credentials.js';

/**
 * A service's own credentials for a system that is not ours (an external FHIR terminology server):
 * what it sends instead of the caller's token, which must never leave the platform.
 *
 * `OutboundCredentials` is plain data (it is cloned into the validation worker threads); secrets are in
 * it, so it is never logged (`describeCredentials` says what kind is configured, without values).
 * `authorizationSource` turns it into the source of the Authorization header the HTTP client sends.
 */
export type OutboundCredentials =
  | { readonly kind: 'none' }
  /** RFC 7617 Basic: user id and password. */
  | { readonly kind: 'basic'; readonly username: string; readonly password: string }
  /** A long-lived bearer token issued to this platform. */
  | { readonly kind: 'bearer'; readonly token: string }
  /** RFC 6749 section 4.4: a token obtained with the client's own id and secret, renewed before it expires. */
  | {
    readonly kind: 'client-credentials';
    readonly tokenUrl: string;
    readonly clientId: string;
    readonly clientSecret: string;
    readonly scope?: string;
    /** How the client authenticates at the token endpoint (RFC 6749 section 2.3.1); default basic. */
    readonly clientAuthentication?: 'basic' | 'post';
  };

/** Where the HTTP client gets its own Authorization header from. */
export interface AuthorizationSource {
  /** The header value (`Basic …`, `Bearer …`), or undefined to send none. Rejects when it cannot be obtained. */
  header(): Promise<string | undefined>;
  /**
   * The server answered 401 to `header`: forget it if it was a renewable token. True when asking
   * `header()` again may give a different value (worth one more attempt).
   */
  rejected?(header: string): boolean;
}

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
