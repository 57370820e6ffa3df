/**
 * Contract validation: one ajv (draft-07 + ajv-formats) instance, one compiled validator per
 * schema, compiled on first use and cached by the schema's $id (so a test catalog with other
 * subjects reuses the same validators).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { catalog as defaultCatalog, type Catalog, type JsonSchema } from './catalog.js';
import type { MessageName, MessagePayloads, ReplyOf, RequestReplyName } from './types.js';

// ajv-formats is CommonJS; under NodeNext its default import is typed as the module namespace.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export type ValidationResult = { ok: true } | { ok: false; errors: string };

// strict catches typos in schema keywords; strictRequired would forbid the anyOf/if-then
// "required" branches the schemas use on purpose.
const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
addFormats(ajv);

const compiled = new Map<string, ValidateFunction>();

/** Compiles (once) and returns the validator of a schema. Throws if the schema itself is invalid. */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  let fn = compiled.get(schema.$id);
  if (!fn) {
    fn = ajv.getSchema(schema.$id) ?? ajv.compile(schema);
    compiled.set(schema.$id, fn);
  }
  return fn;
}

/** Validates a value against a schema; errors are one readable line per problem, joined by '; '. */
export function validateAgainst(schema: JsonSchema, value: unknown): ValidationResult {
  const fn = compileSchema(schema);
  if (fn(value)) return { ok: true };
  return { ok: false, errors: formatErrors(fn.errors ?? []) };
}

/** A value checked against its contract: typed when valid, the readable errors when not. */
export type Checked<T> = { ok: true; value: T } | { ok: false; errors: string };

/**
 * The payload (the request, for request-reply messages) of message `name` checked against its schema
 * in `catalog`; valid, it is a MessagePayloads[N] (contracts/types.ts mirrors the schemas, and the
 * fixture tests hold the two together).
 */
export function checkPayload<N extends MessageName>(name: N, value: unknown, catalog: Catalog = defaultCatalog): Checked<MessagePayloads[N]> {
  const fn = compileSchema(catalog.byName(name).payload.schema);
  const isPayload = (v: unknown): v is MessagePayloads[N] => fn(v);
  return isPayload(value) ? { ok: true, value } : { ok: false, errors: formatErrors(fn.errors ?? []) };
}

/** The reply of request-reply message `name` checked against its schema in `catalog` (as checkPayload). */
export function checkReply<N extends RequestReplyName>(name: N, value: unknown, catalog: Catalog = defaultCatalog): Checked<ReplyOf<N>> {
  const contract = catalog.byName(name);
  if (!contract.reply) throw new Error(`Message "${name}" has no reply (it is not request-reply)`);
  const fn = compileSchema(contract.reply.schema);
  const isReply = (v: unknown): v is ReplyOf<N> => fn(v);
  return isReply(value) ? { ok: true, value } : { ok: false, errors: formatErrors(fn.errors ?? []) };
}

/** Validates the payload (the request, for request-reply messages) of the named message. */
export function validateMessage(name: string, payload: unknown, catalog: Catalog = defaultCatalog): ValidationResult {
  return validateAgainst(catalog.byName(name).payload.schema, payload);
}

/** Validates the reply of a request-reply message (query or terminology command). */
export function validateReply(name: string, reply: unknown, catalog: Catalog = defaultCatalog): ValidationResult {
  const contract = catalog.byName(name);
  if (!contract.reply) throw new Error(`Message "${name}" has no reply (it is not request-reply)`);
  return validateAgainst(contract.reply.schema, reply);
}

/**
 * "/reportTypes/0 must be string; (root) must NOT have additional property 'foo'".
 * oneOf failures on replies produce one error per branch; they are kept because the branch errors
 * are what tells the author which field is wrong.
 */
export function formatErrors(errors: readonly ErrorObject[]): string {
  const lines = errors.map((e) => {
    const where = e.instancePath === '' ? '(root)' : e.instancePath;
    if (e.keyword === 'additionalProperties') return `${where} must NOT have additional property '${String(e.params.additionalProperty)}'`;
    const allowed: unknown = e.params.allowedValues;
    if (e.keyword === 'enum' && Array.isArray(allowed)) return `${where} ${e.message}: ${allowed.map((v: unknown) => JSON.stringify(v)).join(', ')}`;
    return `${where} ${e.message ?? e.keyword}`;
  });
  return [...new Set(lines)].join('; ');
}
