/**
 * Per-facility validation scope (the specification's known deficiency "every facility validates
 * against every stored artifact", which we fix): a named validation configuration says which
 * packages (name AND version) and which RESOURCE artifacts apply; a facility is assigned one.
 * A facility without an assignment validates against all artifacts (the original behaviour).
 *
 * Two facilities on different versions of the same IG therefore validate each against its own
 * version in the same running service: both versions are stored (as two PACKAGE artifacts), the
 * engine loads both, and each facility's scope hides the other version (DefinitionIndex.scoped).
 */
import { InvalidInputError } from '#shared-kernel/domain/errors.js';
import { parseSettings, SettingsInputError } from '../engine/settings-input.js';
import type { ValidationSettings } from '../engine/validator-options.js';

export interface PackagePin {
  readonly name: string;
  readonly version: string;
}

export interface ValidationScope {
  /** The configuration's name (also its cache key in the engine, together with its content). */
  readonly name: string;
  /** Packages that apply, with their versions. R4 core always applies. */
  readonly packages: readonly PackagePin[];
  /** RESOURCE artifacts that apply, by canonical URL or resource id; absent = all of them. */
  readonly resources?: readonly string[];
  /**
   * true (default): ONLY the listed packages (and core) are visible — list the dependencies too.
   * false: the listed versions win over other versions of the same packages; other packages stay visible.
   */
  readonly exclusive?: boolean;
  /**
   * The HL7 validator's settings the facility's submissions are validated with (best-practice level,
   * extension domains, reference policy, ...: domain/engine/validator-options.ts); absent = the
   * engine's defaults. $validate applies them too when given the facility or the configuration.
   */
  readonly settings?: ValidationSettings;
}

/** A validation configuration refused (400): the shared vocabulary's InvalidInputError, naming the field when it is known. */
export class ValidationScopeError extends InvalidInputError {
  override readonly name = 'ValidationScopeError';
  constructor(message: string, readonly field?: string) {
    super(message, field ? [{ field, message }] : []);
  }
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Checks a configuration from user input; throws ValidationScopeError naming the field. */
export function parseValidationScope(input: unknown): ValidationScope {
  if (!isRecord(input)) throw new ValidationScopeError('A validation configuration is a JSON object');
  const value = input;
  if (typeof value.name !== 'string' || !NAME.test(value.name)) throw new ValidationScopeError('name: 1-128 letters, digits, . _ -, starting with a letter or digit', 'name');
  if (!Array.isArray(value.packages)) throw new ValidationScopeError('packages: a list of {name, version}', 'packages');
  const packages = value.packages.map((p: unknown, i) => {
    const pin = isRecord(p) ? p : undefined;
    if (typeof pin?.name !== 'string' || pin.name === '' || typeof pin.version !== 'string' || pin.version === '') {
      throw new ValidationScopeError(`packages[${i}]: needs a name and a version`, `packages[${i}]`);
    }
    return { name: pin.name, version: pin.version };
  });
  let resources: string[] | undefined;
  if (value.resources !== undefined && value.resources !== null) {
    if (!Array.isArray(value.resources) || value.resources.some((r) => typeof r !== 'string' || r === '')) {
      throw new ValidationScopeError('resources: a list of canonical URLs or resource ids', 'resources');
    }
    resources = value.resources.filter((r): r is string => typeof r === 'string');
  }
  if (value.exclusive !== undefined && typeof value.exclusive !== 'boolean') throw new ValidationScopeError('exclusive: true or false', 'exclusive');
  let settings: ValidationSettings | undefined;
  try {
    settings = value.settings === undefined || value.settings === null ? undefined : parseSettings(value.settings, 'settings');
  } catch (error) {
    if (error instanceof SettingsInputError) throw new ValidationScopeError(error.message, error.field);
    throw error;
  }
  return {
    name: value.name, packages, ...(resources ? { resources } : {}), ...(value.exclusive === undefined ? {} : { exclusive: value.exclusive }),
    ...(settings && Object.keys(settings).length > 0 ? { settings } : {}),
  };
}

/**
 * A stable key of the scope's content (two equal configurations share one scoped engine). The
 * settings are not part of it: they are applied per validation, on the same definitions.
 */
export function scopeKey(scope: ValidationScope): string {
  const packages = [...scope.packages].map((p) => `${p.name}#${p.version}`).sort();
  const resources = scope.resources ? [...scope.resources].sort() : null;
  return JSON.stringify({ packages, resources, exclusive: scope.exclusive ?? true });
}

/** Whether a loose conformance resource applies in the scope. */
export function scopeIncludesResource(scope: ValidationScope, resource: { url?: unknown; id?: unknown }): boolean {
  if (!scope.resources) return true;
  return scope.resources.some((r) => r === resource.url || r === resource.id);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
