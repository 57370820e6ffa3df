import type { Logger } from '../observability/logger.js';
import { SettingParseError, type Setting } from './setting.js';

/** A service's configuration declaration: JS key → setting. */
export type ConfigSchema = Record<string, Setting<unknown>>;

/** The loaded, typed configuration of a schema. */
export type ConfigOf<S extends ConfigSchema> = { readonly [K in keyof S]: S[K] extends Setting<infer T> ? T : never };

/**
 * THE mapping rule from property name to environment variable: upper-case the name and replace
 * every `.` and `-` with `_`. `svc.fhir-terminology-service-url` → `SVC_FHIR_TERMINOLOGY_SERVICE_URL`,
 * `MeasureConfig__CheckIfMeasureExists` → `MEASURECONFIG__CHECKIFMEASUREEXISTS`.
 */
export function envVarName(property: string): string {
  return property.toUpperCase().replace(/[.-]/g, '_');
}

const VALID_ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The variables that are read for a property, in precedence order: the derived name first, then
 * the property name spelled exactly as in the specification when that is a valid variable name
 * (so the .NET-style `MeasureConfig__CheckIfMeasureExists` of existing deployments keeps working).
 */
export function envVarCandidates(property: string): [string, ...string[]] {
  const derived = envVarName(property);
  return VALID_ENV_NAME.test(property) && property !== derived ? [derived, property] : [derived];
}

export interface ConfigProblem {
  readonly property: string;
  readonly envVar: string;
  readonly message: string;
}

/** Start-up configuration failure listing every bad property at once. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(readonly problems: readonly ConfigProblem[]) {
    const lines = problems.map((p) => `${p.property} (${p.envVar}) ${p.message}`);
    super(lines.length === 1
      ? `Invalid configuration: ${lines[0]}`
      : `Invalid configuration (${lines.length} problems):\n${lines.map((line) => `  - ${line}`).join('\n')}`);
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** Reads the first non-empty candidate variable; empty or blank values count as unset. */
function readRaw(property: string, env: Env): { envVar: string; raw?: string } {
  const candidates = envVarCandidates(property);
  for (const envVar of candidates) {
    const raw = env[envVar]?.trim();
    if (raw !== undefined && raw !== '') return { envVar, raw };
  }
  return { envVar: candidates[0] };
}

/**
 * Loads and validates every setting of `schema` from `env`; returns a frozen, typed object keyed like
 * the schema, or throws ConfigError naming each bad property and its environment variable.
 * Secret values are never included in messages.
 */
export function loadConfig<S extends ConfigSchema>(schema: S, env: Env = process.env): ConfigOf<S> {
  assertUniqueNames(schema);
  const problems: ConfigProblem[] = [];
  const result: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(schema)) {
    const spec = setting.spec;
    const { envVar, raw } = readRaw(spec.name, env);
    if (raw === undefined) {
      if (spec.hasDefault) result[key] = spec.defaultValue;
      else if (spec.optional) result[key] = undefined;
      else problems.push({ property: spec.name, envVar, message: `is required (${spec.type}) but not set` });
      continue;
    }
    try {
      result[key] = spec.parse(raw);
    } catch (error) {
      if (!(error instanceof SettingParseError)) throw error;
      const message = spec.secret ? error.message.replace(/; got .*$/s, '; got a secret value (not shown)') : error.message;
      problems.push({ property: spec.name, envVar, message });
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(result) as ConfigOf<S>;
}

function assertUniqueNames(schema: ConfigSchema): void {
  const seen = new Map<string, string>();
  for (const [key, setting] of Object.entries(schema)) {
    const variable = envVarName(setting.spec.name);
    const other = seen.get(variable);
    if (other !== undefined) throw new Error(`Config schema declares ${variable} twice (keys ${other} and ${key})`);
    seen.set(variable, key);
  }
}

export interface ConfigRow {
  readonly key: string;
  readonly property: string;
  readonly envVar: string;
  readonly type: string;
  /** Rendered default; `(required)` or `(unset)` when there is none. */
  readonly default: string;
  readonly required: boolean;
  readonly secret: boolean;
  readonly description: string;
}

/** One row per setting, for the docs/configuration.md table and the Kubernetes ConfigMap/Secret check. */
export function describeConfig(schema: ConfigSchema): ConfigRow[] {
  return Object.entries(schema).map(([key, { spec }]) => ({
    key,
    property: spec.name,
    envVar: envVarName(spec.name),
    type: spec.type,
    default: spec.hasDefault ? spec.format(spec.defaultValue) : spec.optional ? '(unset)' : '(required)',
    required: !spec.hasDefault && !spec.optional,
    secret: spec.secret,
    description: spec.description,
  }));
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function toMarkdownTable(rows: readonly ConfigRow[]): string {
  const header = '| Property | Environment variable | Type | Default | Secret | Description |\n|---|---|---|---|---|---|';
  const body = rows.map((row) =>
    `| \`${cell(row.property)}\` | \`${row.envVar}\` | ${cell(row.type)} | ${row.default.startsWith('(') ? row.default : `\`${cell(row.default)}\``} | ${row.secret ? 'yes' : 'no'} | ${cell(row.description)} |`);
  return [header, ...body].join('\n');
}

/** Exit status for configuration errors (sysexits.h EX_CONFIG). */
export const EX_CONFIG = 78;

/**
 * Runs a service's start-up function; a ConfigError (thrown or rejected) prints its message to
 * stderr, is logged at fatal, and ends the process with exit code 78. Other errors pass through.
 */
export function exitOnConfigError<T>(fn: () => Promise<T>, logger?: Logger): Promise<T>;
export function exitOnConfigError<T>(fn: () => T, logger?: Logger): T;
export function exitOnConfigError<T>(fn: () => T | Promise<T>, logger?: Logger): T | Promise<T> {
  const stop = (error: unknown): never => {
    if (error instanceof ConfigError) {
      logger?.fatal({ problems: error.problems }, error.message);
      process.stderr.write(`${error.message}\n`);
      process.exit(EX_CONFIG);
    }
    throw error;
  };
  try {
    const result = fn();
    return result instanceof Promise ? result.catch(stop) : result;
  } catch (error) {
    return stop(error);
  }
}
