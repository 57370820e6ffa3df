/**
 * Request body sizes along the way in (part of `checkManifests`): ingress-nginx refuses a body above
 * its `proxy-body-size` (1m unless annotated) with its own 413 before the gateway or the service sees
 * it. That was the production Ingress's state: `$validate` took 50 MB Bundles (validate.body-limit)
 * behind an Ingress that stopped them at 1 MB. So, for every component behind the admin gateway:
 * - the Ingress path that routes `/api/<component>/...` (the longest Prefix, across Ingresses, as
 *   nginx picks it) lets through the largest body the service takes (BODY_LIMITS);
 * - the gateway's own gateway.body-limit does too.
 * A path that lets through a larger body than any service behind it takes is reported as well: the
 * 1 MB default should keep guarding the routes that take small JSON bodies.
 */
import { envVarName } from '#adapters/config/index.js';
import { specOf, type IngressPath, type IngressSpec } from './k8s-model.js';
import type { K8sObject } from './kustomize.js';
import { containerEnv, containers } from './pod-env.js';

export const BODY_SIZE_ANNOTATION = 'nginx.ingress.kubernetes.io/proxy-body-size';
/** ingress-nginx's client_max_body_size when an Ingress does not say. */
const NGINX_DEFAULT_BODY_SIZE = '1m';
const GATEWAY = 'admin-gateway';

/** The properties that bound the bodies each component (gateway upstream name = Deployment name) takes. */
export const BODY_LIMITS: Readonly<Record<string, readonly string[]>> = {
  validation: ['validate.body-limit', 'http.raw-limit', 'http.json-limit'],
  tenant: ['http.json-limit'],
};

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3 };

/** A size as nginx (`1m`, `512k`, `0` = no limit) or the services' settings (`50mb`) write it; undefined when unreadable. */
export function parseSize(value: string): number | undefined {
  const match = /^(\d+)\s*([a-z]{0,2})$/i.exec(value.trim());
  const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) return undefined;
  const bytes = Number(match[1]) * unit;
  return bytes === 0 ? Infinity : bytes;
}

const label = (object: K8sObject) => `${object.kind}/${object.metadata.name}`;
const mib = (bytes: number) => (bytes === Infinity ? 'no limit' : `${(bytes / 1024 ** 2).toFixed(bytes % 1024 ** 2 === 0 ? 0 : 2)} MiB`);

function envOf(objects: readonly K8sObject[], deployment: string): Record<string, string> | undefined {
  const object = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === deployment);
  const container = object && containers(object).find((c) => c.name === deployment);
  return container ? containerEnv(objects, container, deployment).values : undefined;
}

/** Whether nginx's Prefix `path` matches `url` (element-wise, as Kubernetes defines Prefix). */
function prefixMatches(path: string, url: string): boolean {
  const prefix = path.replace(/\/+$/, '');
  return url === prefix || url.startsWith(`${prefix}/`);
}

export function checkIngressBodyLimits(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  const routes: Array<{ ingress: K8sObject; entry: IngressPath; size: number }> = [];
  for (const ingress of objects.filter((o) => o.kind === 'Ingress')) {
    const annotation = ingress.metadata.annotations?.[BODY_SIZE_ANNOTATION] ?? NGINX_DEFAULT_BODY_SIZE;
    const size = parseSize(annotation);
    if (size === undefined) {
      problems.push(`${label(ingress)}: ${BODY_SIZE_ANNOTATION} ${JSON.stringify(annotation)} is not a size (e.g. 1m, 50m)`);
      continue;
    }
    for (const entry of (specOf<IngressSpec>(ingress).rules ?? []).flatMap((rule) => rule.http?.paths ?? [])) {
      if (entry.backend?.service?.name === GATEWAY && entry.pathType !== 'Exact') routes.push({ ingress, entry, size });
    }
  }
  if (routes.length === 0) return problems;
  const gatewayEnv = envOf(objects, GATEWAY) ?? {};
  const gatewayLimit = parseSize(gatewayEnv[envVarName('gateway.body-limit')] ?? '50mb') ?? 0;
  const needed = new Map<IngressPath, number>();
  for (const [component, properties] of Object.entries(BODY_LIMITS)) {
    const env = envOf(objects, component);
    if (!env) continue;
    const largest = Math.max(...properties.map((property) => parseSize(env[envVarName(property)] ?? '') ?? 0));
    const url = `/api/${component}/`;
    const route = routes.filter((r) => prefixMatches(String(r.entry.path ?? '/'), url))
      .sort((a, b) => String(b.entry.path).length - String(a.entry.path).length)[0];
    if (!route) continue;
    needed.set(route.entry, Math.max(needed.get(route.entry) ?? 0, largest));
    if (route.size < largest) {
      problems.push(`${label(route.ingress)}: path ${route.entry.path} lets bodies up to ${mib(route.size)} through (${BODY_SIZE_ANNOTATION}), but the ${component} service takes up to ${mib(largest)} (${properties.map(envVarName).join(', ')}): nginx would refuse them first`);
    }
    if (gatewayLimit < largest) {
      problems.push(`Deployment/${GATEWAY}: gateway.body-limit (${envVarName('gateway.body-limit')}) ${mib(gatewayLimit)} is below what the ${component} service takes (${mib(largest)})`);
    }
  }
  for (const { ingress, entry, size } of routes) {
    const most = needed.get(entry);
    if (most !== undefined && size > most) {
      problems.push(`${label(ingress)}: path ${entry.path} lets bodies up to ${mib(size)} through, more than any service behind it takes (${mib(most)}); keep the limit where it guards`);
    }
  }
  return problems;
}
