/**
 * What a $validate call asks for, read from its query parameters and its body: the resource, the
 * profiles, which validation configuration applies (the facility's, or one named) and the HL7
 * validator's settings (domain/engine/settings-input.ts names them). So that what an operator
 * tries on $validate is what the flow decides, the same configuration (packages and settings) can
 * be named here as the flow takes it from the facility.
 *
 * The body is the resource itself, or a FHIR `Parameters` that carries it as the `resource`
 * parameter (the FHIR $validate operation's form) with the other inputs as parameters of the same
 * names as the query parameters (`profile`, `facility`, `configuration`, each setting). A Parameters
 * without a `resource` parameter is itself the resource to validate. Parameters win over query
 * parameters of the same name; a setting given in the request wins over the configuration's.
 */
import { InvalidInputError } from '#shared-kernel/domain/errors.js';
import { isSettingName, readText, SETTINGS, settingsFromQuery, SettingsInputError } from '../domain/engine/settings-input.js';
import type { ValidationSettings } from '../domain/engine/validator-options.js';
import { isFhirXmlText, type ResourceInput } from '../domain/ports/resource-validator.js';

export interface ValidateRequest {
  /** The resource: parsed JSON, or FHIR XML as received (validated as XML where the engine runs). */
  readonly resource: ResourceInput;
  readonly profiles: readonly string[];
  /** The facility whose validation configuration applies (as the flow applies it). */
  readonly facilityId?: string;
  /** A validation configuration by name (instead of a facility's). */
  readonly configuration?: string;
  readonly settings: ValidationSettings;
}

/** Query parameters $validate reads besides the settings. */
export const VALIDATE_QUERY_PARAMETERS = ['profile', 'facility', 'configuration'] as const;

export function readValidateRequest(body: unknown, query: Record<string, unknown>): ValidateRequest {
  const fromQuery = readQuery(query);
  if (isFhirXmlText(body)) return { resource: body, ...fromQuery };
  if (!isObject(body) || typeof body.resourceType !== 'string') {
    throw new InvalidInputError('The body must be a FHIR resource in JSON (an object with resourceType) or XML', [{ field: 'resourceType', message: 'is required' }]);
  }
  if (body.resourceType !== 'Parameters' || !Array.isArray(body.parameter) || !body.parameter.some((p) => isObject(p) && p.name === 'resource')) {
    return { resource: body, ...fromQuery };
  }
  return readParameters(body.parameter as unknown[], fromQuery);
}

function readQuery(query: Record<string, unknown>): Omit<ValidateRequest, 'resource'> {
  const text = (name: string): string | undefined => {
    const v = query[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v === '') throw badInput(name, 'a non-empty text, given once');
    return v;
  };
  const profiles = query.profile === undefined ? [] : (Array.isArray(query.profile) ? query.profile : [query.profile]).map(String).filter(Boolean);
  let settings: ValidationSettings;
  try {
    settings = settingsFromQuery(query);
  } catch (error) {
    throw asInvalidInput(error);
  }
  const facilityId = text('facility');
  const configuration = text('configuration');
  if (facilityId !== undefined && configuration !== undefined) throw badInput('configuration', 'give a facility or a configuration, not both');
  return { profiles, settings, ...(facilityId === undefined ? {} : { facilityId }), ...(configuration === undefined ? {} : { configuration }) };
}

/** The FHIR $validate form: `resource`, `profile`, `facility`, `configuration` and the settings as parameters. */
function readParameters(parameters: unknown[], fromQuery: Omit<ValidateRequest, 'resource'>): ValidateRequest {
  let resource: Record<string, unknown> | undefined;
  const profiles: string[] = [];
  const texts = new Map<string, string[]>();
  for (const [i, p] of parameters.entries()) {
    if (!isObject(p) || typeof p.name !== 'string') throw badInput(`parameter[${i}]`, 'a parameter with a name');
    if (p.name === 'resource') {
      if (resource || !isObject(p.resource) || typeof p.resource.resourceType !== 'string') throw badInput(`parameter[${i}].resource`, 'one resource');
      resource = p.resource;
      continue;
    }
    const value = primitiveValue(p);
    if (value === undefined) throw badInput(`parameter[${i}]`, `${p.name} needs a value[x] of a primitive type`);
    if (p.name === 'profile') profiles.push(value);
    else if (p.name === 'facility' || p.name === 'configuration' || isSettingName(p.name)) texts.set(p.name, [...(texts.get(p.name) ?? []), value]);
    else throw badInput(`parameter[${i}]`, `unknown parameter ${p.name} (known: resource, ${VALIDATE_QUERY_PARAMETERS.join(', ')}, ${SETTINGS.map((s) => s.name).join(', ')})`);
  }
  const settings: Record<string, unknown> = { ...fromQuery.settings };
  try {
    for (const spec of SETTINGS) {
      const given = texts.get(spec.name);
      if (given) settings[spec.name] = readText(spec, given, spec.name);
    }
  } catch (error) {
    throw asInvalidInput(error);
  }
  const one = (name: string) => {
    const given = texts.get(name);
    if (given && given.length > 1) throw badInput(name, 'given once');
    return given?.[0];
  };
  const facilityId = one('facility') ?? fromQuery.facilityId;
  const configuration = one('configuration') ?? fromQuery.configuration;
  if (facilityId !== undefined && configuration !== undefined) throw badInput('configuration', 'give a facility or a configuration, not both');
  return {
    resource: resource!, profiles: [...fromQuery.profiles, ...profiles], settings: settings as ValidationSettings,
    ...(facilityId === undefined ? {} : { facilityId }), ...(configuration === undefined ? {} : { configuration }),
  };
}

/** A parameter's value as text (valueBoolean true → 'true', valueInteger 3 → '3'), or undefined. */
function primitiveValue(p: Record<string, unknown>): string | undefined {
  for (const key in p) {
    if (!key.startsWith('value')) continue;
    const v = p[key];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  }
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function badInput(field: string, message: string): InvalidInputError {
  return new InvalidInputError(`${field}: ${message}`, [{ field, message }]);
}

function asInvalidInput(error: unknown): unknown {
  return error instanceof SettingsInputError ? badInput(error.field, error.message.slice(error.field.length + 2) || error.message) : error;
}
