/**
 * What the outside can reach in rendered manifests (part of `checkManifests`):
 * - Ingress paths route only the admin API (`/api`, `/api/...`) and the platform's public key set
 *   (`/.well-known/jwks.json`, Exact): anything wider (`/`) would make the gateway's /health, /metrics,
 *   /swagger, /docs and /api-docs public; no Ingress backend is a Service's metrics port.
 * - Every service serves /metrics on its own port (`metrics.port`, not the API port), declared as the
 *   container port `metrics`, and the scrape annotations point at it.
 * - Authentication is on (auth.mode jwt) and the JWKS comes over https: the start-up checks would
 *   refuse the rest, here it fails before a rollout does.
 * - Where an Ingress exposes the platform, the API documents are served to authenticated users only
 *   (docs.authenticated true) or not at all (docs.enabled false).
 */
import { envVarName, isSecureOrLoopbackUrl } from '#adapters/config/index.js';
import { specOf, type IngressSpec, type ServiceSpec, type WorkloadSpec } from './k8s-model.js';
import type { K8sObject } from './kustomize.js';
import type { ServiceDeployment } from './manifest-checks.js';
import { containerEnv, containers } from './pod-env.js';

const label = (object: K8sObject) => `${object.kind}/${object.metadata.name}`;

export const PUBLIC_JWKS_PATH = '/.well-known/jwks.json';
const METRICS = envVarName('metrics.port');
const DOCS = envVarName('docs.enabled');
const DOCS_AUTHENTICATED = envVarName('docs.authenticated');

/** Whether an Ingress path reaches only the API or the public key set. */
function routesOnlyPublicPaths(path: string, pathType: string | undefined): boolean {
  if (path === PUBLIC_JWKS_PATH) return pathType === 'Exact';
  return path === '/api' || path.startsWith('/api/');
}

function checkIngresses(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  for (const ingress of objects.filter((o) => o.kind === 'Ingress')) {
    const spec = specOf<IngressSpec>(ingress);
    const paths = (spec.rules ?? []).flatMap((rule) => rule.http?.paths ?? []);
    const defaultBackend = spec.defaultBackend;
    if (defaultBackend) problems.push(`${label(ingress)}: a defaultBackend routes every path; route /api and ${PUBLIC_JWKS_PATH} only`);
    for (const entry of paths) {
      const path = String(entry.path ?? '/');
      if (!routesOnlyPublicPaths(path, entry.pathType)) {
        problems.push(`${label(ingress)}: path ${path} (${entry.pathType ?? 'no pathType'}) reaches more than the API: /health, /metrics, /swagger, /docs and /api-docs would be public; route /api (Prefix) and ${PUBLIC_JWKS_PATH} (Exact) only`);
      }
      const backend = entry.backend?.service;
      if (!backend) continue;
      const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === backend.name);
      const ports = service ? specOf<ServiceSpec>(service).ports ?? [] : [];
      const port = ports.find((p) => (backend.port?.name ? p.name === backend.port.name : p.port === backend.port?.number));
      if (port && (port.name === 'metrics' || port.targetPort === 'metrics')) problems.push(`${label(ingress)}: path ${path} routes to the metrics port of Service ${backend.name}`);
    }
  }
  return problems;
}

function checkService(objects: readonly K8sObject[], service: ServiceDeployment, exposed: boolean): string[] {
  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === service.deployment);
  const container = deployment && containers(deployment).find((c) => c.name === service.deployment);
  if (!deployment || !container) return []; // reported by the workload checks
  const owner = `${label(deployment)} container ${container.name}`;
  const env = containerEnv(objects, container, owner).values;
  const problems: string[] = [];

  const metricsPort = env[METRICS]?.trim();
  if (!metricsPort) {
    problems.push(`${owner}: metrics.port (${METRICS}) is unset, so /metrics is served on the API port; give the scraper a port of its own`);
  } else {
    if (metricsPort === env[envVarName('http.port')]?.trim()) problems.push(`${owner}: metrics.port (${METRICS}) ${metricsPort} is the API port`);
    const declared = (container.ports ?? []).find((p) => p.name === 'metrics');
    if (String(declared?.containerPort) !== metricsPort) problems.push(`${owner}: container port "metrics" must be ${METRICS} ${metricsPort}; got ${declared?.containerPort ?? 'none'}`);
    const annotations = specOf<WorkloadSpec>(deployment).template?.metadata?.annotations ?? {};
    if (annotations['prometheus.io/scrape'] === 'true') {
      if (annotations['prometheus.io/port'] !== metricsPort) problems.push(`${label(deployment)}: prometheus.io/port ${annotations['prometheus.io/port'] ?? 'unset'} is not the metrics port ${metricsPort}`);
      if ((annotations['prometheus.io/path'] ?? '/metrics') !== '/metrics') problems.push(`${label(deployment)}: prometheus.io/path must be /metrics`);
    }
  }
  if ((env[envVarName('auth.mode')] ?? 'jwt').trim() === 'none') {
    problems.push(`${owner}: auth.mode none turns authentication off (every caller an administrator); allowed on loopback only, never in a cluster`);
  }
  const jwks = env[envVarName('auth.jwks-url')]?.trim();
  if (jwks && /^https?:/i.test(jwks) && !isSecureOrLoopbackUrl(jwks)) problems.push(`${owner}: auth.jwks-url must be https; got ${jwks}`);
  const docsOn = (env[DOCS] ?? 'true').trim().toLowerCase() !== 'false';
  if (exposed && docsOn && (env[DOCS_AUTHENTICATED] ?? 'false').trim().toLowerCase() !== 'true') {
    problems.push(`${owner}: docs.authenticated (${DOCS_AUTHENTICATED}) must be true where an Ingress exposes the platform (or docs.enabled ${DOCS} false): the API documents only to authenticated users`);
  }
  return problems;
}

export function checkExposure(objects: readonly K8sObject[], services: readonly ServiceDeployment[]): string[] {
  const exposed = objects.some((o) => o.kind === 'Ingress');
  return [...checkIngresses(objects), ...services.flatMap((service) => checkService(objects, service, exposed))];
}
