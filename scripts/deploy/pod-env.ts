/**
 * Reading a rendered workload's pod: its spec, its containers, and a container's environment as the
 * kubelet would give it (ConfigMap keys from envFrom, literal values, secretKeyRefs, configMapKeyRefs).
 * Shared by the manifest checks (manifest-checks.ts, exposure-checks.ts).
 */
import { dataOf, specOf, type Container, type PodSpec, type WorkloadSpec } from './k8s-model.js';
import type { K8sObject } from './kustomize.js';

export function podSpec(object: K8sObject): PodSpec {
  return specOf<WorkloadSpec>(object).template?.spec ?? {};
}

export function containers(object: K8sObject): Container[] {
  const list = podSpec(object).containers;
  return Array.isArray(list) ? list : [];
}

/** Resolves a container's environment: ConfigMap keys from envFrom, literal env values, secretKeyRefs. */
export function containerEnv(objects: readonly K8sObject[], container: Container, owner: string): {
  values: Record<string, string>; secretKeys: string[]; literals: Record<string, string>; problems: string[];
} {
  const problems: string[] = [];
  const values: Record<string, string> = {};
  const literals: Record<string, string> = {};
  const secretKeys: string[] = [];
  const configMap = (name: string) => {
    const found = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === name);
    return found && dataOf(found);
  };
  for (const source of container.envFrom ?? []) {
    if (!source.configMapRef) continue;
    const map = configMap(source.configMapRef.name);
    if (!map) {
      problems.push(`${owner}: envFrom refers to ConfigMap ${source.configMapRef.name}, which is not in the manifests`);
      continue;
    }
    Object.assign(values, map.data ?? {});
  }
  for (const entry of container.env ?? []) {
    if (typeof entry.value === 'string') {
      literals[entry.name] = entry.value;
      values[entry.name] = entry.value;
    } else if (entry.valueFrom?.secretKeyRef) {
      const ref = entry.valueFrom.secretKeyRef;
      if (ref.key !== entry.name) problems.push(`${owner}: env ${entry.name} reads Secret key ${ref.key}; name the Secret key like the variable`);
      secretKeys.push(entry.name);
    } else if (entry.valueFrom?.configMapKeyRef) {
      const ref = entry.valueFrom.configMapKeyRef;
      const value = configMap(ref.name)?.data?.[ref.key];
      if (value === undefined && !ref.optional) problems.push(`${owner}: env ${entry.name} reads ConfigMap ${ref.name} key ${ref.key}, which does not exist`);
      if (value !== undefined) values[entry.name] = value;
    }
  }
  return { values, secretKeys, literals, problems };
}
