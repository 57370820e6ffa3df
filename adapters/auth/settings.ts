import { ConfigError, enumSetting, envVarName, intSetting, listSetting, stringSetting, urlSetting, type ConfigProblem } from '../config/index.js';
import type { AuthMode } from './middleware.js';
import { createTokenVerifier, type TokenVerifier } from './token-verifier.js';

export const AUTH_MODES = ['jwt', 'none'] as const satisfies readonly AuthMode[];

/** Inbound authentication settings shared by the services and the gateway. */
export function authSettings() {
  return {
    authMode: enumSetting('auth.mode', 'Inbound authentication: jwt (verify bearer tokens) or none (local development only)', AUTH_MODES).default('jwt'),
    authIssuer: listSetting('auth.issuer', 'Accepted token issuers (iss)').optional(),
    authAudience: listSetting('auth.audience', 'Accepted token audiences (aud)').optional(),
    authJwksUrl: urlSetting('auth.jwks-url', 'JWKS URL of the identity provider').optional(),
    authPublicKey: stringSetting('auth.public-key', 'PEM public key (SPKI) used instead of a JWKS URL').optional(),
    authPublicKeyAlgorithm: enumSetting('auth.public-key-algorithm', 'Algorithm of auth.public-key',
      ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const).default('RS256'),
    authClockSkew: intSetting('auth.clock-skew-seconds', 'Tolerated clock difference when checking exp/nbf', { min: 0, max: 600 }).default(60),
    authAdminPermission: stringSetting('auth.admin-permission', 'Permission (claim permissions/scope) required for writes').default('IsLinkAdmin'),
  };
}

export interface AuthConfig {
  authMode: AuthMode;
  authIssuer?: readonly string[];
  authAudience?: readonly string[];
  authJwksUrl?: string;
  authPublicKey?: string;
  authPublicKeyAlgorithm: 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA';
  authClockSkew: number;
}

/** The verifier for mode jwt; throws a ConfigError naming the missing settings (checked at start-up). */
export function verifierFromConfig(config: AuthConfig): TokenVerifier | undefined {
  if (config.authMode === 'none') return undefined;
  const problems: ConfigProblem[] = [];
  const need = (property: string, message: string) => problems.push({ property, envVar: envVarName(property), message });
  if (!config.authIssuer?.length) need('auth.issuer', 'is required when auth.mode is jwt (set AUTH_MODE=none for local development only)');
  if (!config.authAudience?.length) need('auth.audience', 'is required when auth.mode is jwt');
  if (!config.authJwksUrl && !config.authPublicKey) need('auth.jwks-url', 'or auth.public-key (AUTH_PUBLIC_KEY) is required when auth.mode is jwt');
  if (problems.length) throw new ConfigError(problems);
  return createTokenVerifier({
    issuer: [...config.authIssuer!],
    audience: [...config.authAudience!],
    jwksUrl: config.authJwksUrl,
    publicKeyPem: config.authPublicKey,
    publicKeyAlgorithm: config.authPublicKeyAlgorithm,
    clockSkewSeconds: config.authClockSkew,
  });
}
