/**
 * Inbound authentication for the services and the gateway: bearer JWT verification (jose; asymmetric
 * algorithms only; issuer, audience, expiry with clock skew; keys from a JWKS URL, an inline JWKS or a
 * PEM key), the policy AuthenticatedUser (401 + WWW-Authenticate), permissions (403), and the settings.
 */
export { ACCEPTED_ALGORITHMS, TokenRejectedError, createTokenVerifier, type Principal, type TokenFailure, type TokenVerifier, type TokenVerifierOptions } from './token-verifier.js';
export { ANONYMOUS_PRINCIPAL, authenticatedUser, requirePermission, requirePermissionForWrites, type AuthMode, type AuthenticatedUserOptions } from './middleware.js';
export { AUTH_MODES, authSettings, verifierFromConfig, type AuthConfig } from './settings.js';
