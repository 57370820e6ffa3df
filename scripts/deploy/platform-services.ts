/**
 * What deploy/ must provide for each service: its Deployment, its configuration schema, and the
 * volumes its settings point at. Used by the manifest checks (test/deploy, scripts/deploy/check-manifests.ts).
 */
import { gatewaySchema } from '../../services/admin-gateway/src/config.js';
import { tenantSchema } from '../../services/tenant/src/config.js';
import { validationSchema } from '../../services/validation/src/config.js';
import type { AnticipatedSetting, ServiceDeployment } from './manifest-checks.js';

export const PLATFORM_SERVICES: readonly ServiceDeployment[] = [
  {
    deployment: 'validation',
    schema: validationSchema,
    // Cold start: FHIR core definitions, snapshot generation and IG packages before the server listens.
    minStartupSeconds: 120,
    writableDirSettings: ['VALIDATION_DEFINITION_CACHE_DIR'],
    mountedDirSettings: ['ARTIFACT_INIT_DIR'],
    claims: ['ig-packages'],
  },
  { deployment: 'tenant', schema: tenantSchema, claims: ['jwks'] },
  { deployment: 'admin-gateway', schema: gatewaySchema, claims: ['jwks'] },
];

/**
 * Settings the manifests already provide while the service's schema does not declare them yet.
 * signing-keys.master-key: the key-encryption key of the tenant service's key registry (in progress).
 * Once services/tenant/src/config.ts declares it, the ordinary checks apply and this entry only
 * asserts that it is declared secret.
 */
export const ANTICIPATED_SETTINGS: readonly AnticipatedSetting[] = [
  { deployment: 'tenant', property: 'signing-keys.master-key', envVar: 'SIGNING_KEYS_MASTER_KEY', secret: true },
];
