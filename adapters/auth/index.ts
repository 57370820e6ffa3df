/**
 * Inbound authentication for the services and the gateway: bearer JWT verification (jose; asymmetric
 * algorithms only; access tokens only, not ID tokens; issuer, audience, expiry with clock skew; keys
 * from a JWKS URL kept through the provider's outages, an inline JWKS or a PEM key), the policy
 * AuthenticatedUser (401 + WWW-Authenticate; 503 + Retry-After when the keys cannot be read),
 * permissions (403), the principal kinds (token, anonymous), and the settings.
 */
export {
  ACCEPTED_ALGORITHMS, DEFAULT_ACCEPTED_TOKEN_TYPES, DEFAULT_ID_TOKEN_CLAIMS, TokenRejectedError, createTokenVerifier,
  type TokenFailure, type TokenVerifier, type TokenVerifierOptions,
} from './token-verifier.js';
export { ANONYMOUS_PRINCIPAL, holdsPermission, type AnonymousPrincipal, type Principal, type TokenPrincipal } from './principal.js';
export { KeySetUnavailableError, RemoteKeySet, type KeySetReadEvent, type KeySetStatus, type RemoteKeySetOptions } from './remote-key-set.js';
export { alreadyAuthenticated, authenticatedUser, requirePermission, requirePermissionForWrites, type AuthMode, type AuthenticatedUserOptions } from './middleware.js';
export { AUTH_MODES, authSettings, verifierFromConfig, type AuthConfig } from './settings.js';
