/**
 * What deploy/ must provide for each service: its Deployment, the configuration schema of the
 * process (every setting it reads), and the volumes its settings point at; and for each Job the
 * schema of the program it runs. Used by the manifest checks (test/deploy,
 * scripts/deploy/check-manifests.ts).
 */
import { gatewaySchema } from '#gateway/config.js';
import { tenantServiceSchema } from '#tenant/service-schema.js';
import { provisioningSchema } from '#validation/cli/provision-jetstream.js';
import { validationSchema } from '#validation/config.js';
import type { AnticipatedSetting, JobDeployment, ServiceDeployment } from './manifest-checks.js';

export const PLATFORM_SERVICES: readonly ServiceDeployment[] = [
  {
    deployment: 'validation',
    schema: validationSchema,
    // Cold start: FHIR core definitions, snapshot generation and IG packages before the server listens.
    minStartupSeconds: 120,
    writableDirSettings: ['VALIDATION_DEFINITION_CACHE_DIR'],
    mountedDirSettings: ['ARTIFACT_INIT_DIR'],
    claims: ['ig-packages'],
    // Each engine rebuild writes every stored package to /tmp (adapters/engine/stored-artifacts.ts).
    tmpHoldsClaim: 'ig-packages',
  },
  {
    deployment: 'tenant',
    // What main.ts loads: the service's own settings plus the signing-key registry's.
    schema: tenantServiceSchema,
    // The JWKS document is written (temp file + rename) next to SIGNING_KEYS_JWKS_PATH, on the shared volume.
    writableFileSettings: ['SIGNING_KEYS_JWKS_PATH'],
    claims: ['jwks'],
  },
  // A proxied request may wait gateway.upstream-timeout-ms for its answer: the drain must allow that.
  { deployment: 'admin-gateway', schema: gatewaySchema, graceCovers: ['GATEWAY_UPSTREAM_TIMEOUT_MS'] },
];

/** The Jobs of deploy/ and the settings of the program each runs (checked like a service's). */
export const PLATFORM_JOBS: readonly JobDeployment[] = [
  // Streams and the durable consumer (deploy/base/validation/provision-job.yaml), with the validation image and ConfigMap.
  { job: 'jetstream-provisioning', container: 'provision', schema: provisioningSchema },
];

/**
 * Settings the manifests provide before the service's schema declares them (work in progress in
 * another module). While undeclared, the "not a declared configuration variable" problem is not
 * reported, but the setting must still be provided; once declared it is checked like any other and
 * its secret flag must match.
 * signing-keys.master-key: the key-encryption key of the tenant service's key registry.
 */
export const ANTICIPATED_SETTINGS: readonly AnticipatedSetting[] = [
  { deployment: 'tenant', property: 'signing-keys.master-key', envVar: 'SIGNING_KEYS_MASTER_KEY', secret: true },
];
