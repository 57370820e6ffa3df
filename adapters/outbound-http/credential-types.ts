/**
 * The data and the interface the HTTP client and the credential sources share (client.ts sends what an
 * AuthorizationSource gives, client-credentials.ts is one and uses the client, credentials.ts picks one):
 * here, below all three, so none of them imports another in a circle.
 */

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
