import { ConfigError, envVarCandidates, loadConfig, type ConfigSchema } from './load.js';

export interface DeploymentEnv {
  /** The `data` of the service's ConfigMap (variable → value). */
  readonly configMap: Readonly<Record<string, string>>;
  /** The variable names the service's Secret provides (values are not needed). */
  readonly secretKeys?: readonly string[];
}

/**
 * Checks a Kubernetes deployment's environment against the schema, so manifests cannot drift from
 * the code: every ConfigMap key must be a declared variable, secrets must not sit in the ConfigMap,
 * required properties must be provided, and the ConfigMap values must load. Returns the problems
 * (empty when consistent).
 */
export function checkDeploymentEnv(schema: ConfigSchema, deployment: DeploymentEnv): string[] {
  const problems: string[] = [];
  const owner = new Map<string, { name: string; secret: boolean; required: boolean }>();
  for (const { spec } of Object.values(schema)) {
    for (const variable of envVarCandidates(spec.name)) {
      owner.set(variable, { name: spec.name, secret: spec.secret, required: !spec.hasDefault && !spec.optional });
    }
  }
  const provided = new Set([...Object.keys(deployment.configMap), ...(deployment.secretKeys ?? [])]);

  for (const key of Object.keys(deployment.configMap)) {
    const setting = owner.get(key);
    if (!setting) problems.push(`ConfigMap key ${key} is not a declared configuration variable`);
    else if (setting.secret) problems.push(`ConfigMap key ${key} holds the secret ${setting.name}; move it to a Secret`);
  }
  for (const key of deployment.secretKeys ?? []) {
    if (!owner.has(key)) problems.push(`Secret key ${key} is not a declared configuration variable`);
  }
  for (const { spec } of Object.values(schema)) {
    const required = !spec.hasDefault && !spec.optional;
    if (required && !envVarCandidates(spec.name).some((variable) => provided.has(variable))) {
      problems.push(`${spec.name} is required but neither the ConfigMap nor the Secret provides it`);
    }
  }

  // Values present in the ConfigMap must parse; required secrets get a placeholder so they do not count twice.
  const placeholders = Object.fromEntries((deployment.secretKeys ?? []).map((key) => [key, 'placeholder']));
  try {
    loadConfig(schema, { ...placeholders, ...deployment.configMap });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) {
      if (!problem.message.startsWith('is required')) problems.push(`${problem.property} (${problem.envVar}) ${problem.message}`);
    }
  }
  return problems;
}
