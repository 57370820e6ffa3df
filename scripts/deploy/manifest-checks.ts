/**
 * Checks of rendered Kubernetes manifests (the output of scripts/deploy/kustomize.ts), run in CI by
 * test/deploy. Every check returns problems as `Kind/name: message` strings (empty = fine), so a test
 * can assert both that the real manifests pass and that a broken copy fails with the right message.
 *
 * - `validateSchemas`: built-in kinds against the Kubernetes JSON schemas of kubernetes-models
 *   (see deploy/README.md for the Kubernetes version), NACK kinds against crd-schemas.ts; an
 *   unknown kind is a problem.
 * - `checkWorkloads`: every workload (Deployments and Jobs; another workload kind is a problem until
 *   the checks cover it) runs as non-root with a read-only root file system, no privilege escalation,
 *   /tmp on an emptyDir, CPU and memory requests and limits, no service-account token, and has the
 *   files its configuration names (the CA of `db.url`'s sslrootcert, NODE_EXTRA_CA_CERTS) on a volume
 *   mount. Each Deployment's container also has startup/readiness/liveness probes on the health
 *   endpoints and gets SIGTERM long enough before SIGKILL to drain (`terminationGracePeriodSeconds` ≥
 *   preStop sleep + `shutdown.grace-ms` + margin, and the drain covers what the service declares, such as
 *   the gateway's upstream timeout); each Job has restartPolicy Never or OnFailure,
 *   backoffLimit, activeDeadlineSeconds and ttlSecondsAfterFinished.
 * - `checkNoSecretValues`: no Secret with data; in no workload a secret as a literal env value or a
 *   whole Secret through envFrom.
 * - `checkServiceConfiguration`: every property a service declares (adapters/config `describeConfig`)
 *   is in its ConfigMap (non-secret) or referenced through secretKeyRef (secret), and
 *   `checkDeploymentEnv` finds nothing (unknown keys, secrets in the ConfigMap, values that do not parse);
 *   every Job is declared with the schema of the program it runs, whose properties must be provided
 *   the same way and parse.
 * - `checkReferences`: Services, PDBs, the HPA and Ingress backends point at something that exists;
 *   referenced ConfigMaps and PersistentVolumeClaims exist; no Service or PDB selects a Job's pods.
 * - `checkExposure` (exposure-checks.ts): what the outside can reach (Ingress paths, the metrics port,
 *   API documents, authentication);
 * - `checkIngressBodyLimits` (ingress-body-limits.ts): the Ingress lets through the bodies the services take.
 */
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import {
  ConfigError, checkDeploymentEnv, describeConfig, envVarCandidates, loadConfig, parsePostgresUrl, type ConfigSchema,
} from '#adapters/config/index.js';
import { CUSTOM_RESOURCE_SCHEMAS } from './crd-schemas.js';
import { checkExposure } from './exposure-checks.js';
import { checkIngressBodyLimits } from './ingress-body-limits.js';
import {
  dataOf, specOf, type Container, type HorizontalPodAutoscalerSpec, type IngressSpec, type PersistentVolumeClaimSpec,
  type PodDisruptionBudgetSpec, type ServiceSpec, type Volume, type VolumeMount, type WorkloadSpec,
} from './k8s-model.js';
import type { K8sObject } from './kustomize.js';
import { containerEnv, containers, podSpec } from './pod-env.js';

/** How a service is deployed: the Deployment (and its container, same name) and its configuration schema. */
export interface ServiceDeployment {
  readonly deployment: string;
  readonly schema: ConfigSchema;
  /** Minimum time the startupProbe allows before liveness applies (failureThreshold × periodSeconds). */
  readonly minStartupSeconds?: number;
  /** Variables whose value is a directory the service writes: must be a mount of a writable volume. */
  readonly writableDirSettings?: readonly string[];
  /** Variables whose value is a file the service writes: its directory must be a writable mount. */
  readonly writableFileSettings?: readonly string[];
  /** Variables whose value is a directory the service reads: must be a mount. */
  readonly mountedDirSettings?: readonly string[];
  /** PersistentVolumeClaims the pod must mount. */
  readonly claims?: readonly string[];
  /**
   * Variables (milliseconds) that `shutdown.grace-ms` must cover: work that may legitimately take that
   * long when SIGTERM arrives (the gateway's upstream timeout) would otherwise be cut off by the drain.
   */
  readonly graceCovers?: readonly string[];
  /** A PersistentVolumeClaim whose whole content the service copies to /tmp: the /tmp emptyDir's sizeLimit must be at least its size. */
  readonly tmpHoldsClaim?: string;
}

/** A Job of the manifests, the container that runs its program, and the settings that program reads. */
export interface JobDeployment {
  readonly job: string;
  readonly container: string;
  /** The settings the program reads; its ConfigMap may hold more (a service's), those are not its concern. */
  readonly schema: ConfigSchema;
}

/**
 * A setting the manifests provide before the service's schema declares it (work in progress in
 * another module). While undeclared, its "not a declared configuration variable" problem is not
 * reported but it must still be present; once declared it is checked like any other, and its
 * secret flag must match.
 */
export interface AnticipatedSetting {
  readonly deployment: string;
  readonly property: string;
  readonly envVar: string;
  readonly secret: boolean;
}

/**
 * Environment variables read by the runtime rather than by a configuration schema: the heap size, and
 * the extra CA certificates Node trusts for every TLS connection (rediss:// to a privately signed Redis).
 */
export const RUNTIME_ENV = new Set(['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS']);

/** Seconds between SIGTERM's hard-exit timer and SIGKILL that we want to keep free. */
export const TERMINATION_MARGIN_SECONDS = 5;

/** Default of `shutdown.grace-ms` (adapters/config shutdownSettings) when the ConfigMap does not set it. */
const DEFAULT_GRACE_MS = 10_000;

const label = (object: K8sObject) => `${object.kind}/${object.metadata.name}`;

// ---------------------------------------------------------------------------------------------
// Schemas

const ajv = new Ajv({ allErrors: true, strict: false });
const customValidators = new Map(Object.entries(CUSTOM_RESOURCE_SCHEMAS).map(([key, schema]) => [key, ajv.compile(schema)]));

const formatAjvErrors = (errors: readonly ErrorObject[] | null | undefined) =>
  (errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'}${error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : ''}${error.keyword === 'enum' ? ` (${(error.params.allowedValues as unknown[]).join(', ')})` : ''}`);

type ModelClass = new (data: unknown) => { validate(): void };
const modelModules = new Map<string, Promise<Record<string, unknown> | undefined>>();

/** The kubernetes-models class of a built-in kind, or undefined when the group/version or kind is unknown. */
async function modelClass(apiVersion: string, kind: string): Promise<ModelClass | undefined> {
  if (!/^([a-z0-9.-]+\/)?v[0-9]+((alpha|beta)[0-9]+)?$/.test(apiVersion)) return undefined;
  let loading = modelModules.get(apiVersion);
  if (!loading) {
    loading = import(`kubernetes-models/${apiVersion}`).then((module: Record<string, unknown>) => module, () => undefined);
    modelModules.set(apiVersion, loading);
  }
  const module = await loading;
  const candidate = module?.[kind];
  return typeof candidate === 'function' ? (candidate as ModelClass) : undefined;
}

export async function validateSchemas(objects: readonly K8sObject[]): Promise<string[]> {
  const problems: string[] = [];
  for (const object of objects) {
    const custom = customValidators.get(`${object.apiVersion}/${object.kind}`);
    if (custom) {
      if (!custom(object)) problems.push(...formatAjvErrors(custom.errors).map((message) => `${label(object)}: ${message}`));
      continue;
    }
    const Model = await modelClass(object.apiVersion, object.kind);
    if (!Model) {
      problems.push(`${label(object)}: unknown kind ${object.kind} of ${object.apiVersion} (no Kubernetes schema and no custom schema)`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      const errors = (error as { errors?: ErrorObject[] }).errors;
      const messages = errors?.length ? formatAjvErrors(errors) : [(error as Error).message];
      problems.push(...messages.map((message) => `${label(object)}: ${message}`));
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Pod helpers

const deployments = (objects: readonly K8sObject[]) => objects.filter((object) => object.kind === 'Deployment');
const jobs = (objects: readonly K8sObject[]) => objects.filter((object) => object.kind === 'Job');
/** The kinds the workload checks cover; any other pod-running kind is reported rather than waved through. */
const CHECKED_WORKLOADS = new Set(['Deployment', 'Job']);
const POD_KINDS = new Set(['Deployment', 'Job', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'CronJob', 'Pod', 'ReplicationController']);
const workloads = (objects: readonly K8sObject[]) => objects.filter((object) => CHECKED_WORKLOADS.has(object.kind));

const mountPaths = (container: Container) => new Map<string, VolumeMount>((container.volumeMounts ?? []).map((mount) => [String(mount.mountPath), mount]));

function volumeOf(object: K8sObject, name: string): Volume | undefined {
  return (podSpec(object).volumes ?? []).find((volume) => volume.name === name);
}

// ---------------------------------------------------------------------------------------------
// Workload policy

const PROBE_PATHS = { startupProbe: '/health', readinessProbe: '/health/ready', livenessProbe: '/health' } as const;

/**
 * Files a container's configuration names that must be on a volume (the image has no such files and
 * its root file system is read-only): the CA of `db.url`'s sslrootcert, when the program reads db.url
 * (`schema`; unknown program: assume it does), and NODE_EXTRA_CA_CERTS, which Node itself reads.
 */
function configuredFiles(env: Record<string, string>, schema: ConfigSchema | undefined): { variable: string; file: string }[] {
  const files: { variable: string; file: string }[] = [];
  const readsDbUrl = !schema || Object.values(schema).some((setting) => setting.spec.name === 'db.url');
  if (env.DB_URL && readsDbUrl) {
    try {
      const rootCert = parsePostgresUrl(env.DB_URL).sslRootCert;
      if (rootCert) files.push({ variable: 'DB_URL (sslrootcert)', file: rootCert });
    } catch {
      // A DB_URL that does not parse is reported by the configuration check.
    }
  }
  if (env.NODE_EXTRA_CA_CERTS) files.push({ variable: 'NODE_EXTRA_CA_CERTS', file: env.NODE_EXTRA_CA_CERTS });
  return files;
}

/** The policy every pod-running object meets, whatever its kind. */
function checkPodPolicy(objects: readonly K8sObject[], workload: K8sObject, schema: ConfigSchema | undefined): string[] {
  const problems: string[] = [];
  const owner = label(workload);
  const pod = podSpec(workload);
  if (pod.securityContext?.runAsNonRoot !== true) problems.push(`${owner}: pod securityContext.runAsNonRoot must be true`);
  const podUser = pod.securityContext?.runAsUser;
  if (pod.automountServiceAccountToken !== false) problems.push(`${owner}: automountServiceAccountToken must be false (the services do not call the Kubernetes API)`);
  if (containers(workload).length === 0) problems.push(`${owner}: no containers`);
  for (const container of containers(workload)) {
    const where = `${owner} container ${container.name}`;
    for (const kind of ['requests', 'limits'] as const) {
      for (const resource of ['cpu', 'memory']) {
        if (container.resources?.[kind]?.[resource] === undefined) problems.push(`${where}: resources.${kind}.${resource} is missing`);
      }
    }
    const security = container.securityContext ?? {};
    const user = security.runAsUser ?? podUser;
    if (user === undefined || user === 0) problems.push(`${where}: must run as a non-root user id (runAsUser), got ${user ?? 'none'}`);
    if (security.runAsNonRoot === false) problems.push(`${where}: securityContext.runAsNonRoot is false`);
    if (security.readOnlyRootFilesystem !== true) problems.push(`${where}: securityContext.readOnlyRootFilesystem must be true`);
    if (security.allowPrivilegeEscalation !== false) problems.push(`${where}: securityContext.allowPrivilegeEscalation must be false`);
    if (security.privileged === true) problems.push(`${where}: must not be privileged`);

    const mounts = mountPaths(container);
    const tmp = mounts.get('/tmp');
    if (!tmp || !volumeOf(workload, tmp.name)?.emptyDir) problems.push(`${where}: /tmp must be an emptyDir mount (the root file system is read-only)`);
    const env = containerEnv(objects, container, where);
    for (const { variable, file } of configuredFiles(env.values, schema)) {
      if (!mounts.has(path.posix.dirname(file))) problems.push(`${where}: ${variable} names ${file}, which is not in a mounted directory`);
    }
  }
  return problems;
}

export function checkWorkloads(
  objects: readonly K8sObject[], services: readonly ServiceDeployment[] = [], declaredJobs: readonly JobDeployment[] = [],
): string[] {
  const problems: string[] = [];
  const schemaOf = (workload: K8sObject) => (workload.kind === 'Job'
    ? declaredJobs.find((j) => j.job === workload.metadata.name)?.schema
    : services.find((s) => s.deployment === workload.metadata.name)?.schema);
  for (const object of objects) {
    if (POD_KINDS.has(object.kind) && !CHECKED_WORKLOADS.has(object.kind)) {
      problems.push(`${label(object)}: the workload checks do not cover kind ${object.kind}; extend scripts/deploy/manifest-checks.ts before using it`);
    }
  }
  for (const workload of workloads(objects)) problems.push(...checkPodPolicy(objects, workload, schemaOf(workload)));

  for (const job of jobs(objects)) {
    const spec = specOf<WorkloadSpec>(job);
    const owner = label(job);
    const restart = podSpec(job).restartPolicy;
    if (restart !== 'Never' && restart !== 'OnFailure') problems.push(`${owner}: restartPolicy must be Never or OnFailure, got ${restart ?? 'none'}`);
    // Explicit bounds: how often it retries, how long it may run, and that a finished Job goes away
    // (a Job's template is immutable, so the next apply can only re-create it once it is gone).
    for (const field of ['backoffLimit', 'activeDeadlineSeconds', 'ttlSecondsAfterFinished'] as const) {
      if (typeof spec[field] !== 'number') problems.push(`${owner}: ${field} must be set`);
    }
  }

  for (const deployment of deployments(objects)) {
    const owner = label(deployment);
    const pod = podSpec(deployment);
    const service = services.find((s) => s.deployment === deployment.metadata.name);

    for (const container of containers(deployment)) {
      const where = `${owner} container ${container.name}`;
      for (const [probe, path] of Object.entries(PROBE_PATHS) as [keyof typeof PROBE_PATHS, string][]) {
        const spec = container[probe];
        if (!spec) problems.push(`${where}: ${probe} is missing`);
        else if (spec.httpGet?.path !== path) problems.push(`${where}: ${probe} must GET ${path}, got ${spec.httpGet?.path ?? 'no httpGet'}`);
      }

      const mounts = mountPaths(container);
      const env = containerEnv(objects, container, where);
      const graceMs = Number(env.values.SHUTDOWN_GRACE_MS || DEFAULT_GRACE_MS);
      const preStop = Number(container.lifecycle?.preStop?.sleep?.seconds ?? 0);
      const needed = preStop + Math.ceil(graceMs / 1000) + TERMINATION_MARGIN_SECONDS;
      const granted = pod.terminationGracePeriodSeconds ?? 30;
      if (granted < needed) {
        problems.push(`${owner}: terminationGracePeriodSeconds ${granted} < preStop ${preStop} s + shutdown.grace-ms ${graceMs} ms + margin ${TERMINATION_MARGIN_SECONDS} s = ${needed} s`);
      }

      if (!service) continue;
      for (const variable of service.graceCovers ?? []) {
        const setting = describeConfig(service.schema).find((row) => row.envVar === variable);
        const covered = Number(env.values[variable] || setting?.default);
        if (Number.isFinite(covered) && graceMs < covered) {
          problems.push(`${where}: shutdown.grace-ms ${graceMs} ms < ${setting?.property ?? variable} ${covered} ms; a request in flight at SIGTERM would be cut off`);
        }
      }
      if (service.minStartupSeconds !== undefined) {
        const startup = container.startupProbe ?? {};
        const window = (startup.failureThreshold ?? 3) * (startup.periodSeconds ?? 10);
        if (window < service.minStartupSeconds) problems.push(`${where}: startupProbe allows ${window} s, needs ≥ ${service.minStartupSeconds} s for definition loading`);
      }
      for (const variable of service.writableDirSettings ?? []) {
        const dir = env.values[variable];
        const mount = dir ? mounts.get(dir) : undefined;
        if (!mount) problems.push(`${where}: ${variable}=${dir ?? '(unset)'} is not a volume mount (the root file system is read-only)`);
        else if (mount.readOnly) problems.push(`${where}: ${variable}=${dir} is mounted read-only but the service writes there`);
      }
      for (const variable of service.writableFileSettings ?? []) {
        const file = env.values[variable];
        const mount = file ? mounts.get(path.posix.dirname(file)) : undefined;
        if (!mount) problems.push(`${where}: ${variable}=${file ?? '(unset)'} is not in a mounted directory (the root file system is read-only)`);
        else if (mount.readOnly) problems.push(`${where}: ${variable}=${file} is on a read-only mount but the service writes it`);
      }
      for (const variable of service.mountedDirSettings ?? []) {
        const dir = env.values[variable];
        if (!dir || !mounts.has(dir)) problems.push(`${where}: ${variable}=${dir ?? '(unset)'} is not a volume mount`);
      }
      if (service.tmpHoldsClaim) {
        const claimObject = objects.find((o) => o.kind === 'PersistentVolumeClaim' && o.metadata.name === service.tmpHoldsClaim);
        const claim = claimObject && { spec: specOf<PersistentVolumeClaimSpec>(claimObject) };
        const needed = quantityBytes(claim?.spec.resources?.requests?.storage);
        const tmp = mounts.get('/tmp');
        const limit = quantityBytes(tmp ? volumeOf(deployment, tmp.name)?.emptyDir?.sizeLimit : undefined);
        if (needed !== undefined && (limit === undefined || limit < needed)) {
          problems.push(`${where}: /tmp emptyDir sizeLimit ${tmp ? volumeOf(deployment, tmp.name)?.emptyDir?.sizeLimit ?? 'unset' : 'unset'} is smaller than the ${service.tmpHoldsClaim} volume (${String(claim?.spec.resources?.requests?.storage)}), whose packages it must hold`);
        }
      }
      for (const claim of service.claims ?? []) {
        const volume = (pod.volumes ?? []).find((v) => v.persistentVolumeClaim?.claimName === claim);
        if (!volume || ![...mounts.values()].some((mount) => mount.name === volume.name)) problems.push(`${where}: must mount the PersistentVolumeClaim ${claim}`);
      }
    }
  }
  return problems;
}

const QUANTITY_UNITS: Record<string, number> = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };

/** A Kubernetes storage quantity (`256Mi`, `2Gi`, `1G`) in bytes; undefined when absent or not understood. */
export function quantityBytes(quantity: unknown): number | undefined {
  const match = typeof quantity === 'string' || typeof quantity === 'number' ? /^(\d+(?:\.\d+)?)([kMGT]i?|Ki)?$/.exec(String(quantity)) : null;
  return match ? Number(match[1]) * QUANTITY_UNITS[match[2] ?? '']! : undefined;
}

// ---------------------------------------------------------------------------------------------
// Secrets

export function checkNoSecretValues(objects: readonly K8sObject[], services: readonly ServiceDeployment[] = []): string[] {
  const problems: string[] = [];
  for (const object of objects) {
    const secret = dataOf(object);
    if (object.kind === 'Secret' && (Object.keys(secret.data ?? {}).length > 0 || Object.keys(secret.stringData ?? {}).length > 0)) {
      problems.push(`${label(object)}: Secret values must not be in the repository; the operator creates the Secret (docs/operations.md)`);
    }
  }
  // Any workload, whatever program it runs (a Job runs a service's image with that service's Secret).
  const secretVariables = new Set(services.flatMap((service) =>
    describeConfig(service.schema).filter((row) => row.secret).flatMap((row) => envVarCandidates(row.property))));
  for (const workload of workloads(objects)) {
    for (const container of containers(workload)) {
      const where = `${label(workload)} container ${container.name}`;
      for (const entry of container.env ?? []) {
        if (typeof entry.value === 'string' && secretVariables.has(entry.name)) problems.push(`${where}: secret ${entry.name} given as a literal value; use secretKeyRef`);
      }
      for (const source of container.envFrom ?? []) {
        if (source.secretRef) problems.push(`${where}: envFrom secretRef ${source.secretRef.name} hides which secrets are used; reference each key with secretKeyRef`);
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Configuration coverage

export function checkServiceConfiguration(
  objects: readonly K8sObject[], services: readonly ServiceDeployment[], anticipated: readonly AnticipatedSetting[] = [],
  declaredJobs: readonly JobDeployment[] = [],
): string[] {
  const problems = checkJobConfiguration(objects, declaredJobs);
  for (const service of services) {
    const deployment = deployments(objects).find((d) => d.metadata.name === service.deployment);
    if (!deployment) {
      problems.push(`Deployment/${service.deployment}: missing`);
      continue;
    }
    const container = containers(deployment).find((c) => c.name === service.deployment);
    const owner = `${label(deployment)} container ${service.deployment}`;
    if (!container) {
      problems.push(`${owner}: missing`);
      continue;
    }
    const env = containerEnv(objects, container, owner);
    problems.push(...env.problems);
    const rows = describeConfig(service.schema);
    const declared = new Set(rows.flatMap((row) => envVarCandidates(row.property)));
    const pending = anticipated.filter((setting) => setting.deployment === service.deployment && !declared.has(setting.envVar));

    problems.push(...unprovidedSettings(owner, rows, env));
    for (const row of rows) {
      const candidates = envVarCandidates(row.property);
      const expected = anticipated.find((setting) => setting.deployment === service.deployment && candidates.includes(setting.envVar));
      if (expected && expected.secret !== row.secret) {
        problems.push(`${owner}: ${row.property} is declared ${row.secret ? 'secret' : 'not secret'} but the manifests treat it as ${expected.secret ? 'secret' : 'plain'}`);
      }
    }
    for (const setting of pending) {
      const present = setting.secret ? env.secretKeys.includes(setting.envVar) : setting.envVar in env.values;
      if (!present) problems.push(`${owner}: anticipated ${setting.property} (${setting.envVar}) is not provided`);
    }

    const pendingVariables = new Set(pending.map((setting) => setting.envVar));
    const configMap = Object.fromEntries(Object.entries(env.values).filter(([key]) => !RUNTIME_ENV.has(key) && !pendingVariables.has(key)));
    const secretKeys = env.secretKeys.filter((key) => !pendingVariables.has(key));
    // checkDeploymentEnv loads the Secret keys with a placeholder value; a secret with a format (the
    // base64 master key) then "fails to parse". We never have secret values, so those are dropped.
    const secretParseProblem = (problem: string) => rows.some((row) => row.secret && secretKeys.includes(row.envVar) && problem.startsWith(`${row.property} (${row.envVar}) `));
    problems.push(...checkDeploymentEnv(service.schema, { configMap, secretKeys }).filter((p) => !secretParseProblem(p)).map((problem) => `${owner}: ${problem}`));
  }
  return problems;
}

/** Properties of `rows` the container does not get: a secret without secretKeyRef, a plain one not in its ConfigMap. */
function unprovidedSettings(owner: string, rows: ReturnType<typeof describeConfig>, env: { values: Record<string, string>; secretKeys: string[] }): string[] {
  const problems: string[] = [];
  for (const row of rows) {
    const candidates = envVarCandidates(row.property);
    if (row.secret && !candidates.some((variable) => env.secretKeys.includes(variable))) {
      problems.push(`${owner}: secret ${row.property} (${row.envVar}) is not referenced with secretKeyRef`);
    }
    if (!row.secret && !candidates.some((variable) => variable in env.values)) {
      problems.push(`${owner}: ${row.property} (${row.envVar}) is not in the ConfigMap`);
    }
  }
  return problems;
}

/**
 * Every Job must be declared with the schema of the program it runs; each property of that schema is
 * in the Job's environment (ConfigMap or literal when plain, secretKeyRef when secret) and parses.
 * Variables of the ConfigMap the program does not read are not its concern (a Job shares a service's).
 */
function checkJobConfiguration(objects: readonly K8sObject[], declaredJobs: readonly JobDeployment[]): string[] {
  const problems: string[] = [];
  for (const job of jobs(objects)) {
    const declared = declaredJobs.find((d) => d.job === job.metadata.name);
    if (!declared) {
      problems.push(`${label(job)}: not declared in scripts/deploy/platform-services.ts (PLATFORM_JOBS) with the schema of the program it runs, so its configuration is unchecked`);
      continue;
    }
    const container = containers(job).find((c) => c.name === declared.container);
    const owner = `${label(job)} container ${declared.container}`;
    if (!container) {
      problems.push(`${owner}: missing`);
      continue;
    }
    const env = containerEnv(objects, container, owner);
    problems.push(...env.problems);
    const rows = describeConfig(declared.schema);
    problems.push(...unprovidedSettings(owner, rows, env));
    for (const row of rows.filter((r) => r.secret)) {
      for (const variable of envVarCandidates(row.property).filter((v) => v in env.values)) problems.push(`${owner}: secret ${row.property} comes from ${variable} in a ConfigMap or literal; use secretKeyRef`);
    }
    const secretRows = rows.filter((row) => row.secret);
    const placeholders = Object.fromEntries(env.secretKeys.filter((key) => secretRows.some((row) => row.envVar === key)).map((key) => [key, 'placeholder']));
    try {
      loadConfig(declared.schema, { ...env.values, ...placeholders });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const problem of error.problems) {
        if (!problem.message.startsWith('is required') && !secretRows.some((row) => row.property === problem.property)) {
          problems.push(`${owner}: ${problem.property} (${problem.envVar}) ${problem.message}`);
        }
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// References between objects

const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels?.[key] === value);

export function checkReferences(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  const podLabels = (d: K8sObject) => specOf<WorkloadSpec>(d).template?.metadata?.labels ?? {};
  const exists = (kind: string, name: string) => objects.some((object) => object.kind === kind && object.metadata.name === name);
  for (const object of objects) {
    switch (object.kind) {
      case 'Job':
      case 'Deployment': {
        const spec = specOf<WorkloadSpec>(object);
        if (object.kind === 'Deployment' && !matches(spec.selector?.matchLabels, podLabels(object))) problems.push(`${label(object)}: selector does not match the pod template labels`);
        for (const volume of podSpec(object).volumes ?? []) {
          const claim = volume.persistentVolumeClaim?.claimName;
          if (claim && !exists('PersistentVolumeClaim', claim)) problems.push(`${label(object)}: volume ${volume.name} claims ${claim}, which is not in the manifests`);
        }
        break;
      }
      case 'Service': {
        const spec = specOf<ServiceSpec>(object);
        const targets = deployments(objects).filter((d) => matches(spec.selector, podLabels(d)));
        if (targets.length === 0) problems.push(`${label(object)}: selector matches no Deployment`);
        // A running Job pod without a readiness probe counts as ready: it would receive the Service's traffic.
        for (const job of jobs(objects).filter((j) => matches(spec.selector, podLabels(j)))) problems.push(`${label(object)}: selector also matches the pods of ${label(job)}`);
        for (const port of spec.ports ?? []) {
          if (typeof port.targetPort !== 'string') continue;
          const named = targets.some((d) => containers(d).some((c) => (c.ports ?? []).some((p) => p.name === port.targetPort)));
          if (targets.length && !named) problems.push(`${label(object)}: targetPort ${port.targetPort} is not a container port name`);
        }
        break;
      }
      case 'Ingress': {
        const spec = specOf<IngressSpec>(object);
        const backends = (spec.rules ?? []).flatMap((rule) => rule.http?.paths ?? []).flatMap((p) => (p.backend?.service ? [p.backend.service] : []));
        for (const backend of backends) {
          const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === backend.name);
          const portName = backend.port?.name;
          if (!service) problems.push(`${label(object)}: backend Service ${backend.name} is not in the manifests`);
          else if (portName && !(specOf<ServiceSpec>(service).ports ?? []).some((p) => p.name === portName)) {
            problems.push(`${label(object)}: Service ${backend.name} has no port named ${portName}`);
          }
        }
        break;
      }
      case 'PodDisruptionBudget': {
        const spec = specOf<PodDisruptionBudgetSpec>(object);
        if (!deployments(objects).some((d) => matches(spec.selector?.matchLabels, podLabels(d)))) problems.push(`${label(object)}: selector matches no Deployment`);
        for (const job of jobs(objects).filter((j) => matches(spec.selector?.matchLabels, podLabels(j)))) problems.push(`${label(object)}: selector also matches the pods of ${label(job)}`);
        break;
      }
      case 'HorizontalPodAutoscaler': {
        const target = specOf<HorizontalPodAutoscalerSpec>(object).scaleTargetRef ?? {};
        const deployment = objects.find((o) => o.kind === target.kind && o.metadata.name === target.name);
        if (!deployment) problems.push(`${label(object)}: scaleTargetRef ${target.kind}/${target.name} is not in the manifests`);
        else if (specOf<WorkloadSpec>(deployment).replicas !== undefined) {
          problems.push(`${label(deployment)}: sets replicas although HorizontalPodAutoscaler/${object.metadata.name} owns them (every apply would reset the scale)`);
        }
        break;
      }
    }
  }
  return problems;
}

/** Every check; empty when the manifests are fine. */
export async function checkManifests(
  objects: readonly K8sObject[], services: readonly ServiceDeployment[], anticipated: readonly AnticipatedSetting[] = [],
  declaredJobs: readonly JobDeployment[] = [],
): Promise<string[]> {
  return [
    ...(await validateSchemas(objects)),
    ...checkWorkloads(objects, services, declaredJobs),
    ...checkNoSecretValues(objects, services),
    ...checkServiceConfiguration(objects, services, anticipated, declaredJobs),
    ...checkReferences(objects),
    ...checkExposure(objects, services),
    ...checkIngressBodyLimits(objects),
  ];
}
