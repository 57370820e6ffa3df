/**
 * A small kustomize renderer for the features deploy/ uses, so CI can render the manifests without
 * the kustomize binary (not installable from npm). It is NOT a general kustomize: it implements
 * the subset below and refuses anything else with an error naming the field, so a manifest never
 * silently renders differently here than under `kubectl apply -k`.
 *
 * Supported kustomization fields:
 * - `resources`: YAML files (one or more documents) and directories holding a kustomization.yaml,
 *   rendered recursively, in order.
 * - `namespace`: set on every namespaced object.
 * - `labels` (`pairs`, `includeSelectors`, `includeTemplates`) and the older `commonLabels`
 *   (= labels with selectors and templates): metadata labels of every object; with templates also
 *   the pod template of workloads; with selectors also Deployment/StatefulSet/DaemonSet
 *   `spec.selector.matchLabels`, Service `spec.selector` and PodDisruptionBudget `spec.selector.matchLabels`.
 * - `commonAnnotations`: metadata annotations of every object.
 * - `images` (`name`, `newName`, `newTag`, `digest`): container and init-container images whose name
 *   (without tag/digest) equals `name`.
 * - `patches`: strategic-merge patches given by `path` or inline `patch`, ONE patch per entry (as in
 *   kustomize), applied to the object with its kind and name, or to the objects selected by `target`
 *   (`kind`, `name`, exact match).
 *   Merge rules: maps merge recursively, `null` removes a key, and these lists merge by key instead of
 *   being replaced: `containers`/`initContainers`/`env`/`volumes`/`imagePullSecrets` by `name`,
 *   `volumeMounts` by `mountPath`, container `ports` by `containerPort`, Service `ports` by `port`;
 *   an item `{ name: x, $patch: delete }` removes that item. JSON 6902 patches are refused.
 *
 * Not supported (errors): generators (configMapGenerator, secretGenerator — Secrets are never in the
 * repository anyway), namePrefix/nameSuffix, replicas, components, replacements, helmCharts, crds.
 * Without generators a ConfigMap change does not roll the pods; the runbook says to run
 * `kubectl rollout restart`.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

/** A Kubernetes object as plain data. */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export class KustomizeError extends Error {
  override readonly name = 'KustomizeError';
}

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

const SUPPORTED_FIELDS = new Set([
  'apiVersion', 'kind', 'resources', 'namespace', 'labels', 'commonLabels', 'commonAnnotations', 'images', 'patches',
]);

/** Kinds that have no namespace (only those kustomize would meet in a deployment like ours). */
const CLUSTER_SCOPED = new Set([
  'Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'PersistentVolume', 'StorageClass',
  'PriorityClass', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'IngressClass',
]);

const WORKLOADS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job']);

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses every YAML document of a file; empty documents (a trailing `---`) are skipped. */
export function parseYamlDocuments(text: string, source: string): unknown[] {
  const documents = parseAllDocuments(text);
  if (!Array.isArray(documents)) throw new KustomizeError(`${source}: not a YAML stream`);
  const values: unknown[] = [];
  for (const document of documents) {
    if (document.errors.length > 0) throw new KustomizeError(`${source}: ${document.errors[0]!.message}`);
    const value: unknown = document.toJS();
    if (value !== null && value !== undefined) values.push(value);
  }
  return values;
}

function asK8sObject(value: unknown, source: string): K8sObject {
  if (!isObject(value)) throw new KustomizeError(`${source}: a resource must be a mapping`);
  const metadata = value.metadata;
  if (typeof value.apiVersion !== 'string' || typeof value.kind !== 'string' || !isObject(metadata) || typeof metadata.name !== 'string') {
    throw new KustomizeError(`${source}: a resource needs apiVersion, kind and metadata.name`);
  }
  return value as unknown as K8sObject;
}

function kustomizationFile(dir: string): string | undefined {
  return KUSTOMIZATION_FILES.map((name) => path.join(dir, name)).find((file) => existsSync(file));
}

/** Renders the kustomization in `dir` to its list of objects. */
export function renderKustomization(dir: string): K8sObject[] {
  return render(path.resolve(dir), []);
}

function render(dir: string, stack: string[]): K8sObject[] {
  if (stack.includes(dir)) throw new KustomizeError(`cycle in kustomizations: ${[...stack, dir].join(' → ')}`);
  const file = kustomizationFile(dir);
  if (!file) throw new KustomizeError(`${dir}: no kustomization.yaml`);
  const [kustomization] = parseYamlDocuments(readFileSync(file, 'utf8'), file);
  if (!isObject(kustomization)) throw new KustomizeError(`${file}: not a mapping`);
  for (const field of Object.keys(kustomization)) {
    if (!SUPPORTED_FIELDS.has(field)) throw new KustomizeError(`${file}: field "${field}" is not supported by this renderer (see scripts/deploy/kustomize.ts)`);
  }

  let objects: K8sObject[] = [];
  for (const entry of listOf(kustomization.resources, 'resources', file)) {
    if (typeof entry !== 'string') throw new KustomizeError(`${file}: resources entries must be paths`);
    const target = path.resolve(dir, entry);
    if (!existsSync(target)) throw new KustomizeError(`${file}: resource ${entry} does not exist`);
    if (statSync(target).isDirectory()) objects.push(...render(target, [...stack, dir]));
    else objects.push(...parseYamlDocuments(readFileSync(target, 'utf8'), target).map((value) => asK8sObject(value, target)));
  }
  assertUnique(objects, file);

  for (const patch of listOf(kustomization.patches, 'patches', file)) objects = applyPatchEntry(objects, patch, dir, file);
  if (kustomization.namespace !== undefined) setNamespace(objects, String(kustomization.namespace));
  if (kustomization.commonLabels !== undefined) {
    addLabels(objects, stringMap(kustomization.commonLabels, 'commonLabels', file), { selectors: true, templates: true });
  }
  for (const label of listOf(kustomization.labels, 'labels', file)) {
    if (!isObject(label)) throw new KustomizeError(`${file}: labels entries must be mappings`);
    const unknown = Object.keys(label).filter((key) => !['pairs', 'includeSelectors', 'includeTemplates'].includes(key));
    if (unknown.length) throw new KustomizeError(`${file}: labels field "${unknown[0]}" is not supported`);
    const selectors = label.includeSelectors === true;
    addLabels(objects, stringMap(label.pairs, 'labels.pairs', file), { selectors, templates: selectors || label.includeTemplates === true });
  }
  if (kustomization.commonAnnotations !== undefined) {
    const annotations = stringMap(kustomization.commonAnnotations, 'commonAnnotations', file);
    for (const object of objects) object.metadata.annotations = { ...object.metadata.annotations, ...annotations };
  }
  for (const image of listOf(kustomization.images, 'images', file)) setImage(objects, image, file);
  return objects;
}

function listOf(value: unknown, field: string, file: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new KustomizeError(`${file}: ${field} must be a list`);
  return value;
}

function stringMap(value: unknown, field: string, file: string): Record<string, string> {
  if (!isObject(value)) throw new KustomizeError(`${file}: ${field} must be a mapping`);
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, String(v)]));
}

const identity = (object: K8sObject) => `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;

function assertUnique(objects: readonly K8sObject[], file: string): void {
  const seen = new Set<string>();
  for (const object of objects) {
    const id = identity(object);
    if (seen.has(id)) throw new KustomizeError(`${file}: ${object.kind} ${object.metadata.name} is declared twice`);
    seen.add(id);
  }
}

function setNamespace(objects: K8sObject[], namespace: string): void {
  for (const object of objects) {
    if (!CLUSTER_SCOPED.has(object.kind)) object.metadata.namespace = namespace;
  }
}

function mergeInto(target: Record<string, unknown>, key: string, labels: Record<string, string>): void {
  target[key] = { ...(isObject(target[key]) ? target[key] : {}), ...labels };
}

function addLabels(objects: K8sObject[], labels: Record<string, string>, include: { selectors: boolean; templates: boolean }): void {
  for (const object of objects) {
    mergeInto(object.metadata, 'labels', labels);
    const spec = isObject(object.spec) ? object.spec : undefined;
    if (!spec) continue;
    if (include.templates && WORKLOADS.has(object.kind) && isObject(spec.template)) {
      const template = spec.template;
      if (!isObject(template.metadata)) template.metadata = {};
      mergeInto(template.metadata as Record<string, unknown>, 'labels', labels);
    }
    if (!include.selectors) continue;
    if ((WORKLOADS.has(object.kind) && object.kind !== 'Job') || object.kind === 'PodDisruptionBudget') {
      if (!isObject(spec.selector)) spec.selector = {};
      mergeInto(spec.selector as Record<string, unknown>, 'matchLabels', labels);
    }
    if (object.kind === 'Service') mergeInto(spec, 'selector', labels);
  }
}

function splitImage(image: string): { name: string; tag?: string; digest?: string } {
  const at = image.indexOf('@');
  const withoutDigest = at >= 0 ? image.slice(0, at) : image;
  const digest = at >= 0 ? image.slice(at + 1) : undefined;
  // A colon after the last slash is a tag; one before it belongs to a registry port.
  const colon = withoutDigest.lastIndexOf(':');
  const hasTag = colon > withoutDigest.lastIndexOf('/');
  return { name: hasTag ? withoutDigest.slice(0, colon) : withoutDigest, tag: hasTag ? withoutDigest.slice(colon + 1) : undefined, digest };
}

function setImage(objects: K8sObject[], entry: unknown, file: string): void {
  if (!isObject(entry) || typeof entry.name !== 'string') throw new KustomizeError(`${file}: images entries need a name`);
  const unknown = Object.keys(entry).filter((key) => !['name', 'newName', 'newTag', 'digest'].includes(key));
  if (unknown.length) throw new KustomizeError(`${file}: images field "${unknown[0]}" is not supported`);
  for (const object of objects) {
    const podSpec = isObject(object.spec) && isObject(object.spec.template) && isObject(object.spec.template.spec) ? object.spec.template.spec : undefined;
    if (!podSpec) continue;
    for (const list of [podSpec.containers, podSpec.initContainers]) {
      for (const container of Array.isArray(list) ? list : []) {
        if (!isObject(container) || typeof container.image !== 'string') continue;
        const current = splitImage(container.image);
        if (current.name !== entry.name) continue;
        const name = typeof entry.newName === 'string' ? entry.newName : current.name;
        if (entry.digest !== undefined) container.image = `${name}@${String(entry.digest)}`;
        else if (entry.newTag !== undefined) container.image = `${name}:${String(entry.newTag)}`;
        else container.image = `${name}${current.tag ? `:${current.tag}` : ''}${current.digest ? `@${current.digest}` : ''}`;
      }
    }
  }
}

function applyPatchEntry(objects: K8sObject[], entry: unknown, dir: string, file: string): K8sObject[] {
  if (!isObject(entry)) throw new KustomizeError(`${file}: patches entries must be mappings`);
  const unknown = Object.keys(entry).filter((key) => !['path', 'patch', 'target'].includes(key));
  if (unknown.length) throw new KustomizeError(`${file}: patches field "${unknown[0]}" is not supported`);
  const source = typeof entry.path === 'string' ? path.resolve(dir, entry.path) : `${file} (inline patch)`;
  const text = typeof entry.path === 'string' ? readFileSync(source, 'utf8') : typeof entry.patch === 'string' ? entry.patch : undefined;
  if (text === undefined) throw new KustomizeError(`${file}: a patch needs path or patch`);
  const target = entry.target === undefined ? undefined : entry.target;
  if (target !== undefined && (!isObject(target) || Object.keys(target).some((key) => !['kind', 'name'].includes(key)))) {
    throw new KustomizeError(`${file}: patch target supports only kind and name`);
  }
  const documents = parseYamlDocuments(text, source);
  // kustomize's `patches` field takes exactly one patch per entry (kubernetes-sigs/kustomize#3929).
  if (documents.length !== 1) throw new KustomizeError(`${source}: a patches entry must hold exactly one patch, found ${documents.length}`);
  for (const document of documents) {
    if (Array.isArray(document)) throw new KustomizeError(`${source}: JSON 6902 patches are not supported; use a strategic-merge patch`);
    if (!isObject(document)) throw new KustomizeError(`${source}: a patch must be a mapping`);
    const kind = (target?.kind as string | undefined) ?? (document.kind as string | undefined);
    const name = (target?.name as string | undefined) ?? (isObject(document.metadata) ? (document.metadata.name as string | undefined) : undefined);
    if (!kind || !name) throw new KustomizeError(`${source}: a patch needs kind and metadata.name (or a target)`);
    const matches = objects.filter((object) => object.kind === kind && object.metadata.name === name);
    if (matches.length === 0) throw new KustomizeError(`${source}: no ${kind} named ${name} to patch`);
    objects = objects.map((object) => {
      if (!matches.includes(object)) return object;
      const { apiVersion: _a, kind: _k, ...body } = document;
      const patched = strategicMerge(object as unknown as JsonObject, body, []) as unknown as K8sObject;
      patched.metadata.name = object.metadata.name; // a patch never renames
      return patched;
    });
  }
  return objects;
}

/** The field items of the list at `path` are merged by, or undefined when the list is replaced. */
function mergeKey(pathSoFar: readonly string[], items: readonly Json[]): string | undefined {
  const field = pathSoFar[pathSoFar.length - 1];
  switch (field) {
    case 'containers': case 'initContainers': case 'env': case 'volumes': case 'imagePullSecrets':
      return 'name';
    case 'volumeMounts':
      return 'mountPath';
    case 'ports':
      return items.some((item) => isObject(item) && 'containerPort' in item) ? 'containerPort' : 'port';
    default:
      return undefined;
  }
}

/** Strategic merge of `patch` into `base` (new objects; inputs untouched). */
export function strategicMerge(base: Json | undefined, patch: Json, pathSoFar: readonly string[]): Json {
  if (isObject(patch)) {
    const directive = patch.$patch;
    if (directive !== undefined) throw new KustomizeError(`$patch: ${String(directive)} is only supported on list items (at ${pathSoFar.join('.') || 'root'})`);
    const result: JsonObject = isObject(base) ? { ...base } : {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete result[key];
      else result[key] = strategicMerge(result[key], value, [...pathSoFar, key]);
    }
    return result;
  }
  if (Array.isArray(patch)) {
    const key = mergeKey(pathSoFar, [...(Array.isArray(base) ? base : []), ...patch]);
    if (!key || !Array.isArray(base)) {
      return patch.filter((item) => !(isObject(item) && item.$patch === 'delete'));
    }
    const result: Json[] = [...base];
    for (const item of patch) {
      if (!isObject(item) || item[key] === undefined) throw new KustomizeError(`list ${pathSoFar.join('.')} merges by "${key}"; a patch item lacks it`);
      const index = result.findIndex((existing) => isObject(existing) && existing[key] === item[key]);
      if (item.$patch === 'delete') {
        if (index >= 0) result.splice(index, 1);
        continue;
      }
      if (item.$patch !== undefined) throw new KustomizeError(`$patch: ${String(item.$patch)} is not supported (at ${pathSoFar.join('.')})`);
      if (index >= 0) result[index] = strategicMerge(result[index], item, [...pathSoFar, String(item[key])]);
      else result.push(item);
    }
    return result;
  }
  return patch;
}
