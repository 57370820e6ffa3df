/**
 * The parts of Kubernetes objects the deployment checks and their tests read, as parsed manifest
 * data. Every field is optional: a manifest may lack any of them, and that is what the checks look
 * for. Value types are the Kubernetes API's; `specOf` gives an object's spec in the shape its kind has.
 */
import type { K8sObject } from './kustomize.js';

export interface KeyRef {
  name: string;
  key: string;
  optional?: boolean;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: KeyRef; configMapKeyRef?: KeyRef };
}

export interface EnvFromSource {
  configMapRef?: { name: string };
  secretRef?: { name: string };
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
}

export interface Probe {
  httpGet?: { path?: string; port?: string | number };
  failureThreshold?: number;
  periodSeconds?: number;
}

export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  privileged?: boolean;
}

export interface ContainerPort {
  name?: string;
  containerPort?: number;
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  volumeMounts?: VolumeMount[];
  ports?: ContainerPort[];
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  securityContext?: SecurityContext;
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  lifecycle?: { preStop?: { sleep?: { seconds?: number } } };
}

export interface Volume {
  name: string;
  emptyDir?: { sizeLimit?: string };
  persistentVolumeClaim?: { claimName: string };
  [source: string]: unknown;
}

export interface PodSpec {
  containers?: Container[];
  volumes?: Volume[];
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  automountServiceAccountToken?: boolean;
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  [field: string]: unknown;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
}

/** Deployment and Job (their pod template; the Job's bounds). */
export interface WorkloadSpec {
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: PodSpec };
  selector?: LabelSelector;
  replicas?: number;
  backoffLimit?: number;
  activeDeadlineSeconds?: number;
  ttlSecondsAfterFinished?: number;
  [field: string]: unknown;
}

export interface ServicePort {
  name?: string;
  port?: number;
  targetPort?: string | number;
}

export interface ServiceSpec {
  selector?: Record<string, string>;
  ports?: ServicePort[];
}

export interface IngressBackend {
  service?: { name: string; port?: { name?: string; number?: number } };
}

export interface IngressPath {
  path?: string;
  pathType?: string;
  backend?: IngressBackend;
}

export interface IngressSpec {
  rules?: { http?: { paths?: IngressPath[] } }[];
  defaultBackend?: IngressBackend;
}

export interface PodDisruptionBudgetSpec {
  selector?: LabelSelector;
}

export interface HorizontalPodAutoscalerSpec {
  scaleTargetRef?: { kind?: string; name?: string };
}

export interface PersistentVolumeClaimSpec {
  resources?: { requests?: { storage?: string } };
}

/** Secrets and ConfigMaps carry their values beside the metadata, not in a spec. */
export interface DataObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** The spec of an object in the shape of its kind (the caller knows the kind); `{}` when it has none. */
export function specOf<S>(object: K8sObject): S {
  return (object.spec ?? {}) as S;
}

/** The data of a Secret or ConfigMap. */
export function dataOf(object: K8sObject): DataObject {
  return object as DataObject;
}
