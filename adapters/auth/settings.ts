import {
  ConfigError, booleanSetting, enumSetting, envVarName, intSetting, isLoopbackHost, isSecureOrLoopbackUrl, listSetting, secondsSetting,
  stringSetting, urlSetting, type ConfigProblem,
} from '../config/index.js';
import type { Logger } from '../observability/logger.js';
import type { AuthMode } from './middleware.js';
import { createTokenVerifier, DEFAULT_ACCEPTED_TOKEN_TYPES, DEFAULT_ID_TOKEN_CLAIMS, type TokenVerifier } from './token-verifier.js';

export const AUTH_MODES = ['jwt', 'none'] as const satisfies readonly AuthMode[];

/** Inbound authentication settings shared by the services and the gateway. */
export function authSettings() {
  return {
    authMode: enumSetting('auth.mode', 'Inbound authentication: jwt (verify bearer tokens) or none (every caller an administrator; refused unless http.host is loopback)', AUTH_MODES).default('jwt'),
    authIssuer: listSetting('auth.issuer', 'Accepted token issuers (iss)').optional(),
    authAudience: listSetting('auth.audience', 'Accepted token audiences (aud): this API\'s identifier, never a UI\'s OIDC client id (an ID token\'s audience)').optional(),
    authJwksUrl: urlSetting('auth.jwks-url', 'JWKS URL of the identity provider (https; http only on loopback)').optional(),
    authJwksStaleMaxAge: secondsSetting('auth.jwks-stale-max-age', 'How long the last key set read from auth.jwks-url keeps verifying tokens while the identity provider cannot be reached; after that requests get 503', { min: 0, max: 7 * 24 * 3600 }).default(3600),
    authPublicKey: stringSetting('auth.public-key', 'PEM public key (SPKI) used instead of a JWKS URL').optional(),
    authPublicKeyAlgorithm: enumSetting('auth.public-key-algorithm', 'Algorithm of auth.public-key',
      ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const).default('RS256'),
    authClockSkew: intSetting('auth.clock-skew-seconds', 'Tolerated clock difference when checking exp/nbf', { min: 0, max: 600 }).default(60),
    authTokenTypes: listSetting('auth.token-types', 'Accepted JWT header typ values (case-insensitive; application/ optional); a token with another typ is refused')
      .default([...DEFAULT_ACCEPTED_TOKEN_TYPES]),
    authTokenTypeRequired: booleanSetting('auth.token-type-required', 'Refuse tokens without a header typ (false only for an identity provider whose access tokens carry none)').default(true),
    authIdTokenClaims: listSetting('auth.id-token-claims', 'Claims only OpenID Connect ID tokens carry: a token with any of them is refused as an ID token (drop nonce for Keycloak before 24, whose access tokens carried it)')
      .default([...DEFAULT_ID_TOKEN_CLAIMS]),
    authAdminPermission: stringSetting('auth.admin-permission', 'Permission (claim permissions/scope) required for writes').default('IsLinkAdmin'),
  };
}

export interface AuthConfig {
  authMode: AuthMode;
  authIssuer?: readonly string[];
  authAudience?: readonly string[];
  authJwksUrl?: string;
  authJwksStaleMaxAge: number;
  authPublicKey?: string;
  authPublicKeyAlgorithm: 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA';
  authClockSkew: number;
  authTokenTypes: readonly string[];
  authTokenTypeRequired: boolean;
  authIdTokenClaims: readonly string[];
  /** The interface the HTTP API listens on: auth.mode none is allowed on loopback only. */
  httpHost: string;
}

/**
 * The verifier for mode jwt, undefined for mode none; throws a ConfigError naming every problem
 * (checked at start-up, so the process exits with 78):
 * - mode none while http.host is not loopback: it would make anyone who can reach the port an
 *   administrator;
 * - mode jwt without issuer, audience or keys, or with a JWKS URL over plain http to another machine
 *   (whoever sits on the path could hand us their own keys).
 * With `logger`, each failed read of the key set is logged (the answer to callers says only 503).
 */
export function verifierFromConfig(config: AuthConfig, logger?: Logger): TokenVerifier | undefined {
  const problems: ConfigProblem[] = [];
  const need = (property: string, message: string) => problems.push({ property, envVar: envVarName(property), message });
  if (config.authMode === 'none') {
    if (!isLoopbackHost(config.httpHost)) {
      need('auth.mode', `is none (no authentication: every caller is an administrator), which is allowed only when http.host (HTTP_HOST) is a loopback address (127.0.0.0/8, ::1, localhost); got http.host ${JSON.stringify(config.httpHost)}`);
      throw new ConfigError(problems);
    }
    return undefined;
  }
  const { authIssuer: issuer, authAudience: audience } = config;
  if (!issuer?.length) need('auth.issuer', 'is required when auth.mode is jwt (set AUTH_MODE=none with HTTP_HOST=127.0.0.1 for a local trial only)');
  if (!audience?.length) need('auth.audience', 'is required when auth.mode is jwt');
  if (!config.authJwksUrl && !config.authPublicKey) need('auth.jwks-url', 'or auth.public-key (AUTH_PUBLIC_KEY) is required when auth.mode is jwt');
  if (config.authJwksUrl && !isSecureOrLoopbackUrl(config.authJwksUrl)) {
    need('auth.jwks-url', `must be an https URL (plain http is allowed on loopback only: anyone on the path could substitute the keys); got ${JSON.stringify(config.authJwksUrl)}`);
  }
  // A missing issuer or audience has put its problem in the list.
  if (problems.length || !issuer || !audience) throw new ConfigError(problems);
  return createTokenVerifier({
    issuer: [...issuer],
    audience: [...audience],
    jwksUrl: config.authJwksUrl,
    jwksStaleMaxAgeSeconds: config.authJwksStaleMaxAge,
    publicKeyPem: config.authPublicKey,
    publicKeyAlgorithm: config.authPublicKeyAlgorithm,
    clockSkewSeconds: config.authClockSkew,
    acceptedTypes: config.authTokenTypes,
    requireType: config.authTokenTypeRequired,
    idTokenClaims: config.authIdTokenClaims,
    onKeySetRead: logger && ((event) => {
      if (event.ok) logger.debug({ keys: event.keys }, 'identity provider key set read');
      else logger.warn({ jwksUrl: config.authJwksUrl, reason: event.reason, servingStale: event.servingStale }, 'the identity provider\'s key set could not be read');
    }),
  });
}
