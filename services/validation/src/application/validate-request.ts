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
import { isSettingName, SETTINGS, settingsFromQuery, SettingsInputError } from '../domain/engine/settings-input.js';
import type { ValidationSettings } from '../domain/engine/validator-options.js';
import { canonicalMessageId, messageIdOf } from '../domain/engine/message-ids.js';
import { issueMessageId, type ValidationOutcome } from '../domain/engine/outcome/issue.js';
import { parseLocatedJson } from '../domain/engine/json/located-json.js';
import { isArray } from '../domain/engine/json/json-value.js';
import { isFhirJsonText, isFhirXmlText, type ResourceInput } from '../domain/ports/resource-validator.js';

export interface ValidateRequest {
  /** The resource: parsed JSON, or FHIR JSON or XML text as received (read where the engine runs). */
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

/**
 * `body`: the parsed JSON, FHIR JSON text or bytes (what the HTTP routes give: validated as text, so
 * issues carry line and column and the engine's depth limit applies) or FHIR XML text. JSON bytes
 * (a body that cannot be a `Parameters`) go on unread: the engine reads them where it validates, and
 * an unreadable body is refused after that (unreadableInput). JSON text (a possible `Parameters`) is
 * parsed here, to refuse what is not JSON or not a resource (400) and to read the parameters; a
 * resource taken out of a `Parameters` is handed on re-serialized (its positions in the body are not
 * known; it is read without locations).
 */
export function readValidateRequest(body: unknown, query: Record<string, unknown>): ValidateRequest {
  const fromQuery = readQuery(query);
  if (isFhirXmlText(body)) return { resource: body, ...fromQuery };
  // bytes: no Parameters form is possible (the caller made sure); read and checked where validated (unreadableInput)
  if (isFhirJsonText(body) && typeof body.json !== 'string') return { resource: body, ...fromQuery };
  const text = isFhirJsonText(body) && typeof body.json === 'string' ? body.json : undefined;
  const parsed = text !== undefined ? parseJsonText(text, fromQuery.settings.allowComments === true) : body;
  if (!isObject(parsed) || typeof parsed.resourceType !== 'string') {
    throw new InvalidInputError('The body must be a FHIR resource in JSON (an object with resourceType) or XML', [{ field: 'resourceType', message: 'is required' }]);
  }
  if (parsed.resourceType !== 'Parameters' || !isArray(parsed.parameter) || !parsed.parameter.some((p) => isObject(p) && p.name === 'resource')) {
    return { resource: text !== undefined ? { json: text, rootType: parsed.resourceType } : parsed, ...fromQuery };
  }
  const request = readParameters(parsed.parameter, fromQuery);
  if (text === undefined) return request;
  const { resource } = request;
  let json: string;
  try {
    json = JSON.stringify(resource);
  } catch (error) {
    // JSON.stringify recurses: a resource nested some 100,000 levels deep cannot be written again
    if (!(error instanceof RangeError)) throw error;
    throw badInput('parameter.resource', 'a resource nested less deeply (it cannot be read: nested too deeply)');
  }
  return { ...request, resource: { json, rootType: resource.resourceType, located: false } };
}

/**
 * The body read here (a possible `Parameters`). With `allowComments` (a query parameter) JSON with
 * comments is read as the engine reads it (HL7's JSON parser allows them when told so), and refused
 * for anything else that is not JSON.
 */
function parseJsonText(json: string, allowComments: boolean): unknown {
  try {
    const value: unknown = JSON.parse(json);
    return value;
  } catch (error) {
    if (allowComments) {
      const lenient = parseLocatedJson(json);
      if (lenient.value !== undefined && lenient.issues.every((i) => i.kind === 'comment')) return lenient.value;
    }
    // Only the position from the parser's message: the rest quotes the body.
    const at = error instanceof Error ? /at position \d+(?: \(line \d+ column \d+\))?/.exec(error.message)?.[0] : undefined;
    const where = at ? `error ${at}` : 'it ends too early or starts with something other than JSON';
    throw new InvalidInputError(`The body is not valid JSON: ${where}`, [{ field: '(body)', message: `is not valid JSON: ${where}` }]);
  }
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

/** A parsed resource taken out of a `Parameters`. */
type ParsedResource = Record<string, unknown> & { readonly resourceType: string };

/**
 * The FHIR $validate form: `resource`, `profile`, `facility`, `configuration` and the settings as
 * parameters. The caller has seen a parameter named `resource` among them.
 */
function readParameters(parameters: readonly unknown[], fromQuery: Omit<ValidateRequest, 'resource'>): ValidateRequest & { readonly resource: ParsedResource } {
  let resource: ParsedResource | undefined;
  const profiles: string[] = [];
  const texts = new Map<string, string[]>();
  for (const [i, p] of parameters.entries()) {
    if (!isObject(p) || typeof p.name !== 'string') throw badInput(`parameter[${i}]`, 'a parameter with a name');
    if (p.name === 'resource') {
      if (resource || !isParsedResource(p.resource)) throw badInput(`parameter[${i}].resource`, 'one resource');
      resource = p.resource;
      continue;
    }
    const value = primitiveValue(p);
    if (value === undefined) throw badInput(`parameter[${i}]`, `${p.name} needs a value[x] of a primitive type`);
    if (p.name === 'profile') profiles.push(value);
    else if (p.name === 'facility' || p.name === 'configuration' || isSettingName(p.name)) texts.set(p.name, [...(texts.get(p.name) ?? []), value]);
    else throw badInput(`parameter[${i}]`, `unknown parameter ${p.name} (known: resource, ${VALIDATE_QUERY_PARAMETERS.join(', ')}, ${SETTINGS.map((s) => s.name).join(', ')})`);
  }
  let given: ValidationSettings;
  try {
    // The texts of each setting read as repeated query parameters are (the other names are not settings).
    given = settingsFromQuery(Object.fromEntries(texts));
  } catch (error) {
    throw asInvalidInput(error);
  }
  const settings: ValidationSettings = { ...fromQuery.settings, ...given };
  const one = (name: string) => {
    const given = texts.get(name);
    if (given && given.length > 1) throw badInput(name, 'given once');
    return given?.[0];
  };
  const facilityId = one('facility') ?? fromQuery.facilityId;
  const configuration = one('configuration') ?? fromQuery.configuration;
  if (facilityId !== undefined && configuration !== undefined) throw badInput('configuration', 'give a facility or a configuration, not both');
  if (!resource) throw badInput('parameter', 'one resource');
  return {
    resource, profiles: [...fromQuery.profiles, ...profiles], settings,
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

function isParsedResource(v: unknown): v is ParsedResource {
  return isObject(v) && typeof v.resourceType === 'string';
}

function badInput(field: string, message: string): InvalidInputError {
  return new InvalidInputError(`${field}: ${message}`, [{ field, message }]);
}

function asInvalidInput(error: unknown): unknown {
  return error instanceof SettingsInputError ? badInput(error.field, error.message.slice(error.field.length + 2) || error.message) : error;
}

/** What the engine says of input that is no JSON resource at all (parsed where validated). */
const UNREADABLE = new Map([
  [canonicalMessageId(messageIdOf('JSON_PARSE_ERROR', [])), 'The body is not valid JSON'],
  [canonicalMessageId(messageIdOf('RESOURCE_NOT_OBJECT', [])), 'The body must be a FHIR resource in JSON (an object with resourceType) or XML'],
  [canonicalMessageId(messageIdOf('RESOURCETYPE_MISSING', [])), 'The body must be a FHIR resource in JSON (an object with resourceType) or XML'],
]);

/**
 * For JSON handed on unread (bytes): the 400 the caller would have got had it been read here, when
 * the engine found no JSON resource in it; undefined when it did (its outcome is the answer). A body
 * too deeply nested is a resource the engine could not read: its fatal issue is the answer, as the CLI's.
 */
export function unreadableInput(resource: ResourceInput, outcome: ValidationOutcome): InvalidInputError | undefined {
  if (!isFhirJsonText(resource) || typeof resource.json === 'string' || outcome.issue.length !== 1) return undefined;
  const [issue] = outcome.issue;
  if (issue === undefined) return undefined;
  const id = issue.severity === 'fatal' ? issueMessageId(issue) : undefined;
  const message = id === undefined ? undefined : UNREADABLE.get(canonicalMessageId(id));
  if (message === undefined) return undefined;
  return new InvalidInputError(`${message}: ${issue.details.text}`, [{ field: '(body)', message: issue.details.text }]);
}
