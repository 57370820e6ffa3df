import {
  ConfigError, enumSetting, envVarName, isSecureOrLoopbackUrl, stringSetting, urlSetting, type ConfigProblem,
} from '#adapters/config/index.js';
import type { OutboundCredentials } from '#adapters/outbound-http/index.js';

/**
 * The validation service's own credentials for the EXTERNAL FHIR terminology server
 * (`svc.fhir-terminology-service-url`). A caller's token never goes there: the server is not part of
 * the platform. The platform terminology service (`svc.terminology-service-url`) gets the caller's
 * token instead (header propagation) and needs none of these.
 */
export const TERMINOLOGY_AUTH_KINDS = ['none', 'basic', 'bearer', 'client-credentials'] as const;

const PREFIX = 'svc.fhir-terminology-service';

export function terminologyCredentialSettings() {
  return {
    terminologyAuth: enumSetting(`${PREFIX}.auth`, 'How the validation service authenticates at the external FHIR terminology server: none, basic (username + password), bearer (token), client-credentials (OAuth2 token from token-url with client-id + client-secret). Callers\' tokens are never sent there', TERMINOLOGY_AUTH_KINDS).default('none'),
    terminologyUsername: stringSetting(`${PREFIX}.username`, 'User name for auth basic').optional(),
    terminologyPassword: stringSetting(`${PREFIX}.password`, 'Password for auth basic').secret().optional(),
    terminologyToken: stringSetting(`${PREFIX}.token`, 'Bearer token for auth bearer').secret().optional(),
    terminologyTokenUrl: urlSetting(`${PREFIX}.token-url`, 'OAuth2 token endpoint for auth client-credentials (https; http only on loopback)').optional(),
    terminologyClientId: stringSetting(`${PREFIX}.client-id`, 'OAuth2 client id for auth client-credentials').optional(),
    terminologyClientSecret: stringSetting(`${PREFIX}.client-secret`, 'OAuth2 client secret for auth client-credentials').secret().optional(),
    terminologyScope: stringSetting(`${PREFIX}.scope`, 'OAuth2 scope requested with auth client-credentials (space-separated; unset = none requested)').optional(),
    terminologyClientAuthentication: enumSetting(`${PREFIX}.client-authentication`, 'How the client id and secret go to the token endpoint: basic (HTTP Basic, client_secret_basic) or post (form fields, client_secret_post)', ['basic', 'post'] as const).default('basic'),
  };
}

export interface TerminologyCredentialConfig {
  readonly fhirTerminologyServiceUrl?: string;
  readonly terminologyAuth: (typeof TERMINOLOGY_AUTH_KINDS)[number];
  readonly terminologyUsername?: string;
  readonly terminologyPassword?: string;
  readonly terminologyToken?: string;
  readonly terminologyTokenUrl?: string;
  readonly terminologyClientId?: string;
  readonly terminologyClientSecret?: string;
  readonly terminologyScope?: string;
  readonly terminologyClientAuthentication: 'basic' | 'post';
}

/**
 * The configured credentials, or a ConfigError naming what is missing: the settings the chosen kind
 * needs, an http token endpoint or terminology server off loopback (the secret would cross the network
 * in clear).
 */
export function terminologyCredentials(config: TerminologyCredentialConfig): OutboundCredentials {
  const problems: ConfigProblem[] = [];
  const need = (suffix: string, message: string) => problems.push({ property: `${PREFIX}.${suffix}`, envVar: envVarName(`${PREFIX}.${suffix}`), message });
  const required = (suffix: string, value: string | undefined) => {
    if (!value) need(suffix, `is required when ${PREFIX}.auth is ${config.terminologyAuth}`);
    return value ?? '';
  };
  let credentials: OutboundCredentials;
  switch (config.terminologyAuth) {
    case 'none':
      return { kind: 'none' };
    case 'basic':
      credentials = { kind: 'basic', username: required('username', config.terminologyUsername), password: required('password', config.terminologyPassword) };
      break;
    case 'bearer':
      credentials = { kind: 'bearer', token: required('token', config.terminologyToken) };
      break;
    case 'client-credentials': {
      const tokenUrl = required('token-url', config.terminologyTokenUrl);
      if (tokenUrl && !isSecureOrLoopbackUrl(tokenUrl)) need('token-url', `must be an https URL (plain http on loopback only: the client secret would cross the network in clear); got ${JSON.stringify(tokenUrl)}`);
      credentials = {
        kind: 'client-credentials', tokenUrl, clientId: required('client-id', config.terminologyClientId),
        clientSecret: required('client-secret', config.terminologyClientSecret), clientAuthentication: config.terminologyClientAuthentication,
        ...(config.terminologyScope ? { scope: config.terminologyScope } : {}),
      };
      break;
    }
  }
  const server = config.fhirTerminologyServiceUrl;
  if (!server) {
    need('auth', `is ${config.terminologyAuth} but svc.fhir-terminology-service-url (SVC_FHIR_TERMINOLOGY_SERVICE_URL) is not set: there is no external server to send the credentials to`);
  } else if (!isSecureOrLoopbackUrl(server)) {
    need('auth', `is ${config.terminologyAuth}, which needs an https svc.fhir-terminology-service-url (plain http on loopback only: the credentials would cross the network in clear); got ${JSON.stringify(server)}`);
  }
  if (problems.length) throw new ConfigError(problems);
  return credentials;
}
