import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeConfig } from '#adapters/config/index.js';
import {
  dataOf, specOf, type Container, type IngressPath, type IngressSpec, type PodSpec, type ServiceSpec, type WorkloadSpec,
} from '#scripts/deploy/k8s-model.js';
import { renderKustomization, type K8sObject } from '#scripts/deploy/kustomize.js';
import {
  checkManifests, checkNoSecretValues, checkReferences, checkServiceConfiguration, checkWorkloads, validateSchemas,
} from '#scripts/deploy/manifest-checks.js';
import { BODY_SIZE_ANNOTATION, parseSize } from '#scripts/deploy/ingress-body-limits.js';
import { ANTICIPATED_SETTINGS, PLATFORM_JOBS, PLATFORM_SERVICES } from '#scripts/deploy/platform-services.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const deployDir = path.join(root, 'deploy');
const OVERLAYS = { base: path.join(deployDir, 'base'), production: path.join(deployDir, 'overlays/production') };

/** What a test goes on with; fails it, naming the missing part, when the rendered manifests lack it. */
function present<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} not rendered`);
  return value;
}
/** Rendered data as plain JSON, to break it in ways its type does not allow (a string port, no container name). */
const asJson = (value: object | undefined): Record<string, unknown> => present(value, 'the value to change') as Record<string, unknown>;
const find = (objects: readonly K8sObject[], kind: string, name: string): K8sObject => present(objects.find((o) => o.kind === kind && o.metadata.name === name), `${kind}/${name}`);
const workload = (objects: readonly K8sObject[], kind: string, name: string) => specOf<WorkloadSpec>(find(objects, kind, name));
const podOf = (objects: readonly K8sObject[], kind: string, name: string): PodSpec => present(workload(objects, kind, name).template?.spec, `${kind}/${name} pod`);
const container = (objects: readonly K8sObject[], name: string): Container => present(podOf(objects, 'Deployment', name).containers?.[0], `Deployment/${name} container`);
const configData = (objects: readonly K8sObject[], name: string): Record<string, string> => present(dataOf(find(objects, 'ConfigMap', name)).data, `ConfigMap/${name} data`);
/** A Kubernetes CPU quantity (`2`, `2.5`, `2500m`) in cores. */
const cpuCores = (quantity: string | number): number => (typeof quantity === 'string' && quantity.endsWith('m') ? Number(quantity.slice(0, -1)) / 1000 : Number(quantity));
const ingressPaths = (objects: readonly K8sObject[]): IngressPath[] => present(specOf<IngressSpec>(find(objects, 'Ingress', 'nhsn')).rules?.[0]?.http?.paths, 'Ingress/nhsn paths');

describe('deploy: rendered manifests', () => {
  const rendered = Object.fromEntries(Object.entries(OVERLAYS).map(([name, dir]) => [name, renderKustomization(dir)])) as Record<keyof typeof OVERLAYS, K8sObject[]>;

  it('base renders the three services with their Services, ConfigMaps, PDBs, the validation HPA, the JetStream provisioning Job and the shared volumes', () => {
    const kinds = rendered.base.map((o) => `${o.kind}/${o.metadata.name}`).sort();
    expect(kinds).to.deep.equal([
      'ConfigMap/admin-gateway-config', 'ConfigMap/tenant-config', 'ConfigMap/validation-config',
      'Deployment/admin-gateway', 'Deployment/tenant', 'Deployment/validation',
      'HorizontalPodAutoscaler/validation', 'Job/jetstream-provisioning',
      'PersistentVolumeClaim/ig-packages', 'PersistentVolumeClaim/jwks',
      'PodDisruptionBudget/admin-gateway', 'PodDisruptionBudget/tenant', 'PodDisruptionBudget/validation',
      'Service/admin-gateway', 'Service/tenant', 'Service/validation',
    ]);
  });

  it('production adds the NACK streams and the Ingress, puts everything in namespace nhsn and pins the images', () => {
    const production = rendered.production;
    const routes = ingressPaths(production).map((p) => `${p.path} ${p.backend?.service?.name}`);
    expect(routes).to.deep.equal(['/.well-known/jwks.json tenant', '/api admin-gateway']);
    const validationRoutes = present(specOf<IngressSpec>(find(production, 'Ingress', 'nhsn-validation')).rules?.[0]?.http?.paths, 'Ingress/nhsn-validation paths');
    expect(validationRoutes.map((p) => `${p.path} ${p.pathType} ${p.backend?.service?.name}`)).to.deep.equal(['/api/validation Prefix admin-gateway']);
    expect(production.filter((o) => o.kind === 'Stream').map((o) => o.metadata.name)).to.have.members(['acquisition', 'compliance', 'report', 'evaluation', 'dead-letter']);
    expect(production.every((o) => o.metadata.namespace === 'nhsn')).to.equal(true);
    for (const name of ['validation', 'tenant', 'admin-gateway']) {
      expect(container(production, name).image).to.equal(`registry.example.org/nhsn/${name}:0.1.0`);
    }
    const job = present(podOf(production, 'Job', 'jetstream-provisioning').containers?.[0], 'Job container');
    expect(job.image).to.equal('registry.example.org/nhsn/validation:0.1.0');
    expect(job.command).to.deep.equal(['node', 'dist/services/validation/src/cli/provision-jetstream.js']);
    expect(job.envFrom).to.deep.equal([{ configMapRef: { name: 'validation-config' } }]);
  });

  it('production patches merge into the base (env by name, ConfigMap keys, replicas) instead of replacing it', () => {
    const production = rendered.production;
    const validation = container(production, 'validation');
    const env = validation.env ?? [];
    expect(env.find((e) => e.name === 'NODE_OPTIONS')!.value).to.equal('--max-old-space-size=1536');
    expect(env.map((e) => e.name)).to.include.members(['DB_PASSWORD', 'SVC_REPORT_SERVICE_TOKEN']);
    expect(validation.resources?.limits).to.deep.equal({ cpu: '6', memory: '3Gi', 'ephemeral-storage': '5Gi' }); // the base's disk limit stays
    expect(validation.startupProbe?.httpGet?.path).to.equal('/health');
    const config = configData(production, 'validation-config');
    expect(config.DB_URL).to.equal('postgres://validation@postgresql.data.svc.cluster.local:5432/validation?sslmode=verify-full&sslrootcert=/etc/nhsn/tls/ca.crt');
    expect(config.DATA_CACHE_SERVER_URL).to.match(/^rediss:\/\//);
    expect(config.DB_HOST).to.equal('');
    expect(env.find((e) => e.name === 'NODE_EXTRA_CA_CERTS')!.value).to.equal('/etc/nhsn/tls/ca.crt');
    expect((validation.volumeMounts ?? []).map((m) => m.mountPath)).to.include('/etc/nhsn/tls');
    expect((container(production, 'tenant').volumeMounts ?? []).map((m) => m.mountPath)).to.include('/etc/nhsn/tls');
    expect(configData(production, 'tenant-config').DB_URL).to.contain('sslmode=verify-full');
    expect(config.VALIDATION_WORKERS).to.equal('4');
    expect(config.LOG_LEVEL).to.equal('info');
    expect(workload(production, 'Deployment', 'tenant').replicas).to.equal(2);
    expect(specOf<{ minReplicas?: number }>(find(production, 'HorizontalPodAutoscaler', 'validation')).minReplicas).to.equal(3);
    expect(workload(production, 'Deployment', 'validation').template?.metadata?.labels).to.include({
      'app.kubernetes.io/part-of': 'nhsn-platform', 'app.kubernetes.io/instance': 'nhsn-production',
    });
  });

  for (const overlay of Object.keys(OVERLAYS) as (keyof typeof OVERLAYS)[]) {
    describe(`${overlay}`, () => {
      it('every object is valid against its Kubernetes (or NACK) schema', async () => {
        expect(await validateSchemas(rendered[overlay])).to.deep.equal([]);
      });

      it('every Deployment and Job has resource limits, non-root user, read-only root FS; Deployments the probes and enough termination grace, Jobs their bounds', () => {
        expect(checkWorkloads(rendered[overlay], PLATFORM_SERVICES, PLATFORM_JOBS)).to.deep.equal([]);
      });

      it('every configuration property of every service and Job is in its ConfigMap or a secretKeyRef, and the values parse', () => {
        expect(checkServiceConfiguration(rendered[overlay], PLATFORM_SERVICES, ANTICIPATED_SETTINGS, PLATFORM_JOBS)).to.deep.equal([]);
      });

      it('the validation CPU limit leaves the main thread a third of a core per worker (docs/operations.md, Sizing CPU)', () => {
        const workers = Number(configData(rendered[overlay], 'validation-config').VALIDATION_WORKERS);
        const limit = cpuCores(present(container(rendered[overlay], 'validation').resources?.limits?.cpu, 'validation CPU limit'));
        expect(workers, 'VALIDATION_WORKERS is a fixed count here, not 0 (the node\'s cores)').to.be.greaterThan(0);
        expect(limit).to.be.at.least(1.35 * workers);
      });

      it('holds no Secret values and its references (selectors, HPA target, ConfigMaps, claims) resolve', () => {
        expect(checkNoSecretValues(rendered[overlay], PLATFORM_SERVICES)).to.deep.equal([]);
        expect(checkReferences(rendered[overlay])).to.deep.equal([]);
      });
    });
  }

  it('the ConfigMaps list exactly the non-secret properties and the secretKeyRefs exactly the secret ones (plus anticipated)', () => {
    for (const service of PLATFORM_SERVICES) {
      const rows = describeConfig(service.schema);
      const configMap = configData(rendered.production, `${service.deployment}-config`);
      expect(Object.keys(configMap).sort(), service.deployment).to.deep.equal(rows.filter((r) => !r.secret).map((r) => r.envVar).sort());
      const secretRefs = (container(rendered.production, service.deployment).env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.name);
      const anticipated = ANTICIPATED_SETTINGS.filter((s) => s.deployment === service.deployment && s.secret).map((s) => s.envVar);
      expect(secretRefs.sort(), service.deployment).to.deep.equal([...new Set([...rows.filter((r) => r.secret).map((r) => r.envVar), ...anticipated])].sort());
    }
  });

  it('each service serves /metrics on its own port, which the scrape annotations and the Service name; spec line 81: production serves the API documents to authenticated users', () => {
    for (const name of ['validation', 'tenant', 'admin-gateway']) {
      const config = configData(rendered.production, `${name}-config`);
      expect(config.METRICS_PORT, name).to.equal('9464');
      expect(config.METRICS_PORT).to.not.equal(config.HTTP_PORT);
      expect(config.DOCS_ENABLED, name).to.equal('true');
      expect(config.DOCS_AUTHENTICATED, name).to.equal('true');
      expect(configData(rendered.base, `${name}-config`).DOCS_ENABLED, name).to.equal('true');
      expect(configData(rendered.base, `${name}-config`).DOCS_AUTHENTICATED, name).to.equal('false');
      expect(container(rendered.production, name).ports).to.deep.include({ name: 'metrics', containerPort: 9464, protocol: 'TCP' });
      expect(workload(rendered.production, 'Deployment', name).template?.metadata?.annotations).to.include({ 'prometheus.io/port': '9464', 'prometheus.io/path': '/metrics' });
      expect((specOf<ServiceSpec>(find(rendered.production, 'Service', name)).ports ?? []).map((p) => p.name)).to.deep.equal(['http', 'metrics']);
    }
  });

  it('the tenant key-encryption keys are a required secret reference (the legacy single key an optional one), declared secret', () => {
    const env = container(rendered.production, 'tenant').env ?? [];
    expect(env.find((e) => e.name === 'SIGNING_KEYS_MASTER_KEYS')?.valueFrom?.secretKeyRef).to.deep.equal({ name: 'tenant-secrets', key: 'SIGNING_KEYS_MASTER_KEYS' });
    expect(env.find((e) => e.name === 'SIGNING_KEYS_MASTER_KEY')?.valueFrom?.secretKeyRef).to.deep.equal({ name: 'tenant-secrets', key: 'SIGNING_KEYS_MASTER_KEY', optional: true });
    const tenantSchema = PLATFORM_SERVICES.find((s) => s.deployment === 'tenant')!.schema;
    for (const property of ['signing-keys.master-keys', 'signing-keys.master-key']) {
      expect(describeConfig(tenantSchema).find((row) => row.property === property)?.secret, property).to.equal(true);
    }
  });

  it('no file under deploy/ declares a Secret (the operator creates them)', () => {
    const yamlFiles = (dir: string): string[] => readdirSync(dir).flatMap((entry) => {
      const full = path.join(dir, entry);
      return statSync(full).isDirectory() ? yamlFiles(full) : /\.ya?ml$/.test(entry) ? [full] : [];
    });
    const files = yamlFiles(deployDir);
    expect(files.length).to.be.greaterThan(10);
    const offenders = files.filter((file) => /^kind:\s*Secret\s*$/m.test(readFileSync(file, 'utf8')));
    expect(offenders).to.deep.equal([]);
  });
});

describe('deploy: a deliberately broken manifest fails the checks', () => {
  const pristine = renderKustomization(OVERLAYS.production);
  /** Problems of a mutated copy of the production rendering. */
  async function problemsAfter(mutate: (objects: K8sObject[]) => void): Promise<string[]> {
    const copy = structuredClone(pristine);
    mutate(copy);
    return checkManifests(copy, PLATFORM_SERVICES, ANTICIPATED_SETTINGS, PLATFORM_JOBS);
  }
  const expectProblem = (problems: string[], ...parts: string[]) =>
    expect(problems.some((p) => parts.every((part) => p.includes(part))), `no problem with ${parts.join(' & ')} in:\n${problems.join('\n')}`).to.equal(true);

  it('the untouched copy has no problems (so every failure below comes from its mutation)', async () => {
    expect(await problemsAfter(() => undefined)).to.deep.equal([]);
  });

  it('a wrong type (containerPort as a string) is a schema error', async () => {
    const problems = await problemsAfter((o) => { asJson(container(o, 'validation').ports?.[0]).containerPort = '8081'; });
    expectProblem(problems, 'Deployment/validation', '/spec/template/spec/containers/0/ports/0/containerPort', 'must be integer');
  });

  it('a missing required field (Deployment selector, container name) is a schema error', async () => {
    const problems = await problemsAfter((o) => {
      delete workload(o, 'Deployment', 'tenant').selector;
      delete asJson(container(o, 'admin-gateway')).name;
    });
    expectProblem(problems, 'Deployment/tenant', 'must have required property selector');
    expectProblem(problems, 'Deployment/admin-gateway', 'must have required property name');
  });

  it('a secret in the ConfigMap is reported', async () => {
    const problems = await problemsAfter((o) => { configData(o, 'validation-config').DB_PASSWORD = 'hunter2'; });
    expectProblem(problems, 'validation', 'ConfigMap key DB_PASSWORD holds the secret db.password');
  });

  it('a property missing from the ConfigMap, an undeclared key and a value that does not parse are reported', async () => {
    const problems = await problemsAfter((o) => {
      const data = configData(o, 'tenant-config');
      delete data.SCHEDULER_POLL_INTERVAL_MS;
      data.SCHEDULER_POLL_INTERVALL_MS = '1000';
      data.CACHE_TYPE = 'redis';
    });
    expectProblem(problems, 'tenant', 'scheduler.poll-interval-ms (SCHEDULER_POLL_INTERVAL_MS) is not in the ConfigMap');
    expectProblem(problems, 'tenant', 'ConfigMap key SCHEDULER_POLL_INTERVALL_MS is not a declared configuration variable');
    expectProblem(problems, 'tenant', 'cache.type (CACHE_TYPE) must be one of none, memory, distributed');
  });

  it('a secret neither referenced nor anticipated, a secret given as a literal, and a Secret with data are reported', async () => {
    const problems = await problemsAfter((o) => {
      const env = present(container(o, 'validation').env, 'validation env');
      env.splice(env.findIndex((e) => e.name === 'SVC_REPORT_SERVICE_TOKEN'), 1);
      const tenantEnv = present(container(o, 'tenant').env, 'tenant env');
      tenantEnv.splice(tenantEnv.findIndex((e) => e.name === 'SIGNING_KEYS_MASTER_KEY'), 1);
      tenantEnv.push({ name: 'NATS_TOKEN', value: 's3cret' });
      o.push({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'validation-secrets' }, data: { DB_PASSWORD: 'aHVudGVyMg==' } });
    });
    expectProblem(problems, 'validation', 'secret svc.report-service.token (SVC_REPORT_SERVICE_TOKEN) is not referenced with secretKeyRef');
    expectProblem(problems, 'tenant', 'SIGNING_KEYS_MASTER_KEY');
    expectProblem(problems, 'tenant', 'secret NATS_TOKEN given as a literal value');
    expectProblem(problems, 'Secret/validation-secrets', 'must not be in the repository');
  });

  it('missing probes, limits, root user, writable root FS, short termination grace and unmounted directories are reported', async () => {
    const problems = await problemsAfter((o) => {
      const validation = container(o, 'validation');
      delete validation.startupProbe;
      delete present(validation.resources?.limits, 'validation limits').memory;
      present(validation.securityContext, 'validation securityContext').readOnlyRootFilesystem = false;
      validation.volumeMounts = (validation.volumeMounts ?? []).filter((m) => m.mountPath !== '/var/cache/nhsn/fhir-definitions');
      present(container(o, 'tenant').volumeMounts?.find((m) => m.name === 'jwks'), 'jwks mount').readOnly = true;
      const tenant = podOf(o, 'Deployment', 'tenant');
      present(tenant.securityContext, 'tenant securityContext').runAsUser = 0;
      tenant.terminationGracePeriodSeconds = 10;
      present(container(o, 'admin-gateway').readinessProbe?.httpGet, 'readinessProbe').path = '/health';
    });
    expectProblem(problems, 'container validation', 'startupProbe is missing');
    expectProblem(problems, 'container validation', 'resources.limits.memory is missing');
    expectProblem(problems, 'container validation', 'readOnlyRootFilesystem must be true');
    expectProblem(problems, 'container validation', 'VALIDATION_DEFINITION_CACHE_DIR', 'is not a volume mount');
    expectProblem(problems, 'container tenant', 'non-root user id', 'got 0');
    expectProblem(problems, 'container tenant', 'SIGNING_KEYS_JWKS_PATH', 'read-only mount');
    expectProblem(problems, 'Deployment/tenant', 'terminationGracePeriodSeconds 10 <');
    expectProblem(problems, 'container admin-gateway', 'readinessProbe must GET /health/ready');
  });

  it('a Job is held to the same pod policy and to its own bounds, secrets and declared configuration', async () => {
    const problems = await problemsAfter((o) => {
      const job = workload(o, 'Job', 'jetstream-provisioning');
      const pod = podOf(o, 'Job', 'jetstream-provisioning');
      const provision = present(pod.containers?.[0], 'Job container');
      present(pod.securityContext, 'Job securityContext').runAsUser = 0;
      present(provision.securityContext, 'Job container securityContext').readOnlyRootFilesystem = false;
      delete present(provision.resources, 'Job container resources').limits;
      delete job.ttlSecondsAfterFinished;
      delete job.backoffLimit;
      pod.restartPolicy = 'Always';
      const env = present(provision.env, 'Job env');
      env.splice(env.findIndex((e) => e.name === 'NATS_PASSWORD'), 1);
      env.push({ name: 'NATS_TOKEN', value: 's3cret' });
      present(provision.envFrom, 'Job envFrom').push({ secretRef: { name: 'validation-secrets' } });
    });
    expectProblem(problems, 'Job/jetstream-provisioning container provision', 'non-root user id', 'got 0');
    expectProblem(problems, 'Job/jetstream-provisioning container provision', 'readOnlyRootFilesystem must be true');
    expectProblem(problems, 'Job/jetstream-provisioning container provision', 'resources.limits.cpu is missing');
    expectProblem(problems, 'Job/jetstream-provisioning', 'ttlSecondsAfterFinished must be set');
    expectProblem(problems, 'Job/jetstream-provisioning', 'backoffLimit must be set');
    expectProblem(problems, 'Job/jetstream-provisioning', 'restartPolicy must be Never or OnFailure');
    expectProblem(problems, 'Job/jetstream-provisioning container provision', 'secret nats.password (NATS_PASSWORD) is not referenced with secretKeyRef');
    expectProblem(problems, 'Job/jetstream-provisioning container provision', 'secret NATS_TOKEN given as a literal value');
    expectProblem(problems, 'Job/jetstream-provisioning container provision', 'envFrom secretRef validation-secrets hides which secrets are used');
  });

  it('a Job not declared with its program\'s schema, a Job whose pods a Service selects, and an unchecked workload kind are reported', async () => {
    const problems = await problemsAfter((o) => {
      const copy = structuredClone(find(o, 'Job', 'jetstream-provisioning'));
      copy.metadata.name = 'one-off';
      present(specOf<WorkloadSpec>(copy).template?.metadata?.labels, 'Job labels')['app.kubernetes.io/name'] = 'tenant';
      o.push(copy);
      o.push({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly' }, spec: { schedule: '@daily', jobTemplate: { spec: copy.spec } } });
    });
    expectProblem(problems, 'Job/one-off', 'not declared in scripts/deploy/platform-services.ts');
    expectProblem(problems, 'Service/tenant', 'selector also matches the pods of Job/one-off');
    expectProblem(problems, 'PodDisruptionBudget/tenant', 'selector also matches the pods of Job/one-off');
    expectProblem(problems, 'CronJob/nightly', 'the workload checks do not cover kind CronJob');
  });

  it('a value the provisioning Job reads that does not parse is reported for the Job too', async () => {
    const problems = await problemsAfter((o) => { configData(o, 'validation-config').VALIDATION_MAX_DELIVERIES = 'five'; });
    expectProblem(problems, 'Job/jetstream-provisioning container provision', 'validation.max-deliveries (VALIDATION_MAX_DELIVERIES) must be an integer');
  });

  it('a CA file named by DB_URL (sslrootcert) or NODE_EXTRA_CA_CERTS outside every mount is reported', async () => {
    const problems = await problemsAfter((o) => {
      const tenant = container(o, 'tenant');
      tenant.volumeMounts = (tenant.volumeMounts ?? []).filter((m) => m.mountPath !== '/etc/nhsn/tls');
      present(container(o, 'validation').env?.find((e) => e.name === 'NODE_EXTRA_CA_CERTS'), 'NODE_EXTRA_CA_CERTS').value = '/etc/ssl/extra/ca.crt';
    });
    expectProblem(problems, 'Deployment/tenant container tenant', 'DB_URL (sslrootcert) names /etc/nhsn/tls/ca.crt, which is not in a mounted directory');
    expectProblem(problems, 'Deployment/validation container validation', 'NODE_EXTRA_CA_CERTS names /etc/ssl/extra/ca.crt');
  });

  it('a database URL with a password in the ConfigMap is reported without echoing it', async () => {
    const problems = await problemsAfter((o) => { configData(o, 'tenant-config').DB_URL = 'postgres://tenant:hunter2@db/tenant'; });
    expectProblem(problems, 'tenant', 'db.url (DB_URL) must not contain a password');
    expect(problems.join('\n')).not.to.contain('hunter2');
  });

  it('a validation /tmp smaller than the IG packages it must hold during a rebuild is reported', async () => {
    const problems = await problemsAfter((o) => {
      present(podOf(o, 'Deployment', 'validation').volumes?.find((v) => v.name === 'tmp')?.emptyDir, 'tmp emptyDir').sizeLimit = '256Mi';
    });
    expectProblem(problems, 'Deployment/validation container validation', '/tmp emptyDir sizeLimit 256Mi is smaller than the ig-packages volume (2Gi)');
  });

  it('a gateway upstream timeout longer than its drain time is reported', async () => {
    const problems = await problemsAfter((o) => { configData(o, 'admin-gateway-config').GATEWAY_UPSTREAM_TIMEOUT_MS = '120000'; });
    expectProblem(problems, 'Deployment/admin-gateway container admin-gateway', 'shutdown.grace-ms 65000 ms < gateway.upstream-timeout-ms 120000 ms');
  });

  it('a raised shutdown.grace-ms without a longer termination grace is reported', async () => {
    const problems = await problemsAfter((o) => { configData(o, 'validation-config').SHUTDOWN_GRACE_MS = '60000'; });
    expectProblem(problems, 'Deployment/validation', 'shutdown.grace-ms 60000 ms');
  });

  it('a NACK Stream with a bad duration or a misspelt field, an unknown kind and a Consumer without durable are reported', async () => {
    const problems = await problemsAfter((o) => {
      const stream = specOf<Record<string, unknown>>(find(o, 'Stream', 'compliance'));
      stream.maxAge = '14 days';
      stream.maxMsgsize = 1024;
      o.push({ apiVersion: 'jetstream.nats.io/v1beta2', kind: 'Consumer', metadata: { name: 'validation' }, spec: { streamName: 'COMPLIANCE' } });
      o.push({ apiVersion: 'example.org/v1', kind: 'Widget', metadata: { name: 'w' } });
    });
    expectProblem(problems, 'Stream/compliance', '/spec/maxAge must match pattern');
    expectProblem(problems, 'Stream/compliance', 'must NOT have additional properties (maxMsgsize)');
    expectProblem(problems, 'Consumer/validation', 'must have required property', 'durableName');
    expectProblem(problems, 'Widget/w', 'unknown kind');
  });

  it('an Ingress that routes more than /api and the public key set, or to a metrics port, is reported', async () => {
    const problems = await problemsAfter((o) => {
      const paths = ingressPaths(o);
      present(paths.find((p) => p.backend?.service?.name === 'admin-gateway'), 'admin-gateway path').path = '/';
      paths.push({ path: '/.well-known/jwks.json/', pathType: 'Prefix', backend: { service: { name: 'tenant', port: { name: 'http' } } } });
      paths.push({ path: '/api/metrics', pathType: 'Exact', backend: { service: { name: 'validation', port: { name: 'metrics' } } } });
    });
    expectProblem(problems, 'Ingress/nhsn', 'path / (Prefix) reaches more than the API', '/metrics');
    expectProblem(problems, 'Ingress/nhsn', 'path /.well-known/jwks.json/ (Prefix) reaches more than the API');
    expectProblem(problems, 'Ingress/nhsn', 'path /api/metrics routes to the metrics port of Service validation');
  });

  it('metrics on the API port, a scrape annotation on another port, documents or authentication off where exposed are reported', async () => {
    const problems = await problemsAfter((o) => {
      const validation = configData(o, 'validation-config');
      validation.METRICS_PORT = '';
      present(workload(o, 'Deployment', 'tenant').template?.metadata?.annotations, 'tenant annotations')['prometheus.io/port'] = '8082';
      const gateway = configData(o, 'admin-gateway-config');
      gateway.DOCS_AUTHENTICATED = 'false';
      gateway.AUTH_MODE = 'none';
      gateway.AUTH_JWKS_URL = 'http://login.example.org/certs';
      container(o, 'tenant').ports = (container(o, 'tenant').ports ?? []).filter((p) => p.name !== 'metrics');
    });
    expectProblem(problems, 'Deployment/validation container validation', 'metrics.port (METRICS_PORT) is unset');
    expectProblem(problems, 'Deployment/tenant', 'prometheus.io/port 8082 is not the metrics port 9464');
    expectProblem(problems, 'Deployment/tenant container tenant', 'container port "metrics" must be METRICS_PORT 9464; got none');
    expectProblem(problems, 'Deployment/admin-gateway container admin-gateway', 'docs.authenticated (DOCS_AUTHENTICATED) must be true');
    expectProblem(problems, 'Deployment/admin-gateway container admin-gateway', 'auth.mode none');
    expectProblem(problems, 'Deployment/admin-gateway container admin-gateway', 'auth.jwks-url must be https');
  });

  it('issue 28: the Ingress lets $validate and package uploads through up to the validation service\'s own limit (50 MiB), the rest stays at 1 MiB', () => {
    const annotations = (name: string) => present(find(pristine, 'Ingress', name).metadata.annotations, `Ingress/${name} annotations`);
    expect(annotations('nhsn')).to.include({ [BODY_SIZE_ANNOTATION]: '1m' });
    expect(annotations('nhsn-validation')).to.include({ [BODY_SIZE_ANNOTATION]: '50m', 'nginx.ingress.kubernetes.io/proxy-request-buffering': 'off' });
    const validation = configData(pristine, 'validation-config');
    expect(parseSize(annotations('nhsn-validation')[BODY_SIZE_ANNOTATION]!)).to.equal(Math.max(parseSize(validation.VALIDATE_BODY_LIMIT!)!, parseSize(validation.HTTP_RAW_LIMIT!)!));
    expect(parseSize(annotations('nhsn')[BODY_SIZE_ANNOTATION]!)).to.equal(parseSize(configData(pristine, 'tenant-config').HTTP_JSON_LIMIT!));
    expect(parseSize(configData(pristine, 'admin-gateway-config').GATEWAY_BODY_LIMIT!)).to.equal(50 * 1024 ** 2);
  });

  it('an Ingress body limit below what the service behind it takes (nginx\'s 1m default), or a wider one than any takes, is reported', async () => {
    const withoutUploadRoute = await problemsAfter((o) => { delete present(find(o, 'Ingress', 'nhsn-validation').metadata.annotations, 'annotations')[BODY_SIZE_ANNOTATION]; });
    expectProblem(withoutUploadRoute, 'Ingress/nhsn-validation', 'path /api/validation lets bodies up to 1 MiB through', 'the validation service takes up to 50 MiB');
    const removed = await problemsAfter((o) => { o.splice(o.findIndex((x) => x.kind === 'Ingress' && x.metadata.name === 'nhsn-validation'), 1); });
    expectProblem(removed, 'Ingress/nhsn', 'path /api lets bodies up to 1 MiB through', 'VALIDATE_BODY_LIMIT');
    const wide = await problemsAfter((o) => { present(find(o, 'Ingress', 'nhsn').metadata.annotations, 'annotations')[BODY_SIZE_ANNOTATION] = '50m'; });
    expectProblem(wide, 'Ingress/nhsn', 'path /api lets bodies up to 50 MiB through, more than any service behind it takes (1 MiB)');
    const gateway = await problemsAfter((o) => { configData(o, 'admin-gateway-config').GATEWAY_BODY_LIMIT = '10mb'; });
    expectProblem(gateway, 'Deployment/admin-gateway', 'gateway.body-limit (GATEWAY_BODY_LIMIT) 10 MiB is below what the validation service takes (50 MiB)');
    const unreadable = await problemsAfter((o) => { present(find(o, 'Ingress', 'nhsn').metadata.annotations, 'annotations')[BODY_SIZE_ANNOTATION] = 'lots'; });
    expectProblem(unreadable, 'Ingress/nhsn', 'is not a size');
  });

  it('dangling references are reported (Service selector, HPA over fixed replicas, missing ConfigMap and claim)', async () => {
    const problems = await problemsAfter((o) => {
      specOf<ServiceSpec>(find(o, 'Service', 'tenant')).selector = { 'app.kubernetes.io/name': 'tenants' };
      workload(o, 'Deployment', 'validation').replicas = 2;
      present(container(o, 'admin-gateway').envFrom?.[0]?.configMapRef, 'admin-gateway envFrom').name = 'gateway-config';
      o.splice(o.findIndex((x) => x.kind === 'PersistentVolumeClaim' && x.metadata.name === 'jwks'), 1);
      present(ingressPaths(o)[0]?.backend?.service?.port, 'Ingress backend port').name = 'https';
    });
    expectProblem(problems, 'Ingress/nhsn', 'Service tenant has no port named https');
    expectProblem(problems, 'Service/tenant', 'selector matches no Deployment');
    expectProblem(problems, 'Deployment/validation', 'HorizontalPodAutoscaler/validation owns them');
    expectProblem(problems, 'admin-gateway', 'ConfigMap gateway-config, which is not in the manifests');
    expectProblem(problems, 'Deployment/tenant', 'claims jwks, which is not in the manifests');
  });
});
