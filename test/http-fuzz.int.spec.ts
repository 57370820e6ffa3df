/**
 * The hostile fuzz inputs through HTTP (fast-check): the generators of the engine's fuzz suites
 * (services/validation/test/engine/support/hostile-arbitraries.ts) sent to the real services as
 * processes (test/contract/support/platform.ts: validation, tenant, admin gateway; real PostgreSQL and
 * NATS JetStream), directly and through the gateway, together with what only HTTP can carry: broken
 * UTF-8, deep nesting before any parser, wrong and odd content types, malformed Parameters bodies,
 * hostile path segments and query strings (SQL, Unicode, overflowing numbers, repeated and nested
 * keys, broken percent-encoding), and the documented body of every route with its values replaced.
 *
 * Every answer: never a 5xx (the platform's services answer 502/503 only for an upstream or
 * overload, which a quiet test never causes), every 4xx Problem Details (type, title, status,
 * detail, traceId) with the matching status, and every service still answers /health afterwards.
 * The routes come from the services' own OpenAPI documents, so a new route is fuzzed as it lands;
 * only the $initialize operations (no input; they load every embedded package) are left out.
 *
 * Brief by default (FUZZ_RUNS, 40, per property); `npm run fuzz` runs FUZZ_RUNS=500. Prints its seed
 * (FUZZ_SEED replays). A failure names the request (method, path, content type, body's start).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { withLocalMasterKey } from '#scripts/local-master-key.js';
import { projectRoot } from '#test-support/shared-dir.js';
import { PlanRegistry } from '#validation/domain/engine/plan/plan-registry.js';
import { composeXml } from '#validation/domain/engine/xml/compose-xml.js';
import { coreSource } from '../services/validation/test/engine/support/core-definitions.js';
import {
  damaged, FUZZ_RUNS, FUZZ_SEED, hostileResource, hostileText, hostileXmlResource, TEXT_UNITS, xmlDamage,
} from '../services/validation/test/engine/support/hostile-arbitraries.js';
import { throwIfFuzzFailed } from '../services/validation/test/engine/support/fuzz-outcome.js';
import { hostileProfile, patientForHostileProfile } from '../services/validation/test/engine/support/hostile-resources.js';
import { startPlatform, type Platform } from './contract/support/platform.js';

const REQUEST_TIMEOUT_MS = 60_000;

interface FuzzRequest {
  readonly service: 'validation' | 'tenant';
  readonly viaGateway: boolean;
  /** Through the gateway: the component segment instead of the service's name (a hostile one). */
  readonly component?: string;
  readonly method: string;
  /** The path after the service's prefix, already encoded (it may hold broken percent-encoding on purpose). */
  readonly path: string;
  readonly query: string;
  readonly contentType: string | undefined;
  readonly body: Uint8Array | undefined;
}

interface Answer { readonly status: number; readonly contentType: string; readonly text: string }

const describeRequest = (r: FuzzRequest) => {
  const body = r.body === undefined ? '' : ` body(${r.body.length} bytes) ${JSON.stringify(Buffer.from(r.body.subarray(0, 200)).toString('latin1'))}`;
  return `${r.method} ${r.viaGateway ? `gateway ${r.component ?? r.service}` : r.service} ${r.path.slice(0, 300)}${r.query ? `?${r.query.slice(0, 300)}` : ''} [${r.contentType ?? 'no content type'}]${body}`;
};

// ---------------------------------------------------------------- pieces of a request

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

/** Percent-encodes every byte but the unreserved ones (a lone surrogate becomes U+FFFD's bytes, as UTF-8 has no other). */
const encode = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

const SQL = ["' OR '1'='1", "1; DROP TABLE facilities;--", "1' UNION SELECT NULL--", '"; SELECT pg_sleep(10);--', "Id); DELETE FROM x;--", '\\', "'", '%', '_'];
const NUMBERS = ['99999999999999999999', '-1', '0', '-0', '1e308', '1e-7', 'NaN', 'Infinity', '-Infinity', '0x10', '1.5', '2147483648', '9007199254740993', ' 1', '1 ', '', '+1', '١', '１'];
const UNICODE = ['é', '😀', '\u202e', '\u200b', '\ufeff', '\u0000', 'İ', 'ß', '\ud800', '𝔘𝔫𝔦', 'ä'.repeat(300)];
const NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '..', '.', '$validate', 'null', 'undefined', 'true'];

/** A hostile scalar as text: SQL, numbers, Unicode, names of prototype members, or generated hostile text (sometimes huge). */
function hostileWord(maxLength: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...SQL, ...NUMBERS, ...UNICODE, ...NAMES),
    hostileText(TEXT_UNITS).map((t) => t.slice(0, maxLength)),
    fc.string({ maxLength: 30 }),
  );
}

/** Raw (already encoded) pieces a decoder chokes on. */
const BROKEN_ENCODINGS = ['%', '%zz', '%C3%28', '%FF', '%ED%A0%80', '%00', '%25', '%2F', '%2e%2e', '%E2%80'];

/** A path segment: a hostile word encoded, a broken encoding, or a short plain one. */
const segment = fc.oneof(
  { weight: 4, arbitrary: hostileWord(2_000).map(encode) },
  { weight: 2, arbitrary: fc.constantFrom(...BROKEN_ENCODINGS) },
  { weight: 1, arbitrary: fc.uuid() },
  { weight: 2, arbitrary: fc.constantFrom('riverside-general', 'RESOURCE', 'PACKAGE', 'hostile-patient', 'group_quirk', 'ig-v2', 'ACH', '1') },
);

/** Query strings: the documented parameters and the common ones with hostile values, repeated keys, bracket nesting, broken encoding. */
function queryOf(documented: readonly string[]): fc.Arbitrary<string> {
  const names = [...new Set([...documented, 'pageNumber', 'pageSize', 'sortBy', 'sortOrder', 'severity', 'format', 'search', 'includeDeleted', 'profile', 'summarize', 'categorize', 'facility'])];
  const pair = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...names), hostileWord(3_000)).map(([k, v]) => `${k}=${encode(v)}`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...names), fc.constantFrom(...BROKEN_ENCODINGS)).map(([k, v]) => `${k}=${v}`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...names), fc.constantFrom('[a]', '[__proto__][x]', '[]', '[0][1][2][3][4][5][6][7]', '[constructor][prototype]')).map(([k, n]) => `${k}${encode(n)}=1`) },
    { weight: 1, arbitrary: fc.constantFrom(...names).map((k) => k) },
    { weight: 1, arbitrary: hostileWord(100).map((k) => `${encode(k)}=1`) },
  );
  return fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join('&'));
}

/** A Patient whose extensions nest `depth` levels, as JSON text (JSON.stringify of thousands of levels overflows this process's stack). */
const deepPatientJson = (depth: number) => '{"resourceType":"Patient","id":"deep","extension":['
  + '{"url":"http://example.org/x","extension":['.repeat(depth) + '{"url":"http://example.org/x","valueString":"a"}' + ']}'.repeat(depth) + ']}';

/** Deep nesting no parser has seen yet: arrays, objects, a Patient's extensions (alone, in a Bundle entry, in Parameters). */
const deepJson = fc.oneof(
  fc.integer({ min: 1_000, max: 100_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 1_000, max: 50_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
  fc.integer({ min: 1_000, max: 5_000 }).map(deepPatientJson),
  fc.integer({ min: 1_000, max: 5_000 }).map((n) => `{"resourceType":"Bundle","type":"collection","entry":[{"fullUrl":"urn:uuid:1","resource":${deepPatientJson(n)}}]}`),
  fc.integer({ min: 1_000, max: 5_000 }).map((n) => `{"resourceType":"Parameters","parameter":[{"name":"resource","resource":${deepPatientJson(n)}}]}`),
);

/** Bytes that are no UTF-8, alone or inside a JSON string or an XML text. */
const brokenUtf8 = fc.tuple(fc.constantFrom([0xc3, 0x28], [0xff], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf]), fc.constantFrom('json', 'xml', 'alone'))
  .map(([bad, where]) => {
    const [before, after] = where === 'json' ? ['{"resourceType":"Patient","id":"p","name":[{"family":"', '"}]}']
      : where === 'xml' ? ['<Patient xmlns="http://hl7.org/fhir"><id value="', '"/></Patient>'] : ['', ''];
    return new Uint8Array([...Buffer.from(before), ...bad, ...Buffer.from(after)]);
  });

/** Parameters bodies $validate reads a resource from, broken in the ways a client breaks them. */
function malformedParameters(resource: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<string> {
  return fc.oneof(
    resource.map((r) => JSON.stringify({ resourceType: 'Parameters', parameter: [{ name: 'resource', resource: r }] })),
    resource.map((r) => JSON.stringify({ resourceType: 'Parameters', parameter: [{ name: 'resource', resource: r }, { name: 'resource', resource: r }, { name: 'profile', valueUri: 42 }] })),
    fc.constantFrom(
      { resourceType: 'Parameters' }, { resourceType: 'Parameters', parameter: {} }, { resourceType: 'Parameters', parameter: 'resource' },
      { resourceType: 'Parameters', parameter: [null, 1, 'x', []] }, { resourceType: 'Parameters', parameter: [{ name: 'resource' }] },
      { resourceType: 'Parameters', parameter: [{ name: 'resource', resource: 'Patient' }] }, { resourceType: 'Parameters', parameter: [{ name: 'resource', resource: [] }] },
      { resourceType: 'Parameters', parameter: [{ name: 'resource', resource: { resourceType: 'Parameters', parameter: [{ name: 'resource', resource: { resourceType: 'Patient' } }] } }] },
      { resourceType: 'Parameters', parameter: [{ name: 'mode', valueCode: 'delete' }, { name: 'profile', valueCanonical: '\u0000' }] },
      { resourceType: 'Parameters', parameter: [{ name: 'resource', resource: { resourceType: '__proto__' } }] },
    ).map((p) => JSON.stringify(p)),
    fc.constantFrom('{"resourceType":"Parameters","__proto__":{"parameter":[]}}', '{"resourceType":"Parameters","parameter":[{"name":"resource","resource":{"resourceType":"Patient"}}]', '{"resourceType":"Parameters","resourceType":"Patient"}'),
  );
}

/** Request media types: the right ones, near misses and nonsense. */
const CONTENT_TYPES = [
  'application/fhir+json', 'application/json', 'application/fhir+xml', 'application/xml', 'text/xml', 'application/gzip', 'application/octet-stream',
  'text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/fhir+json; charset=utf-16', 'application/json; charset=latin1',
  'application/fhir+json; fhirVersion=9.9', 'application/json; charset="', 'application/*', '*/*', ';;;', 'application/fhir+json, application/fhir+xml',
  'application/\u00e9', 'x'.repeat(5_000), undefined,
] as const;

const rightOrWrong = (right: readonly (string | undefined)[]) => fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...right) }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) });

// ---------------------------------------------------------------- the routes, from the services' documents

interface DocOperation { readonly service: 'validation' | 'tenant'; readonly method: string; readonly template: string; readonly query: string[]; readonly bodyTypes: string[]; readonly sample: unknown; readonly validBody: boolean }

interface OpenApiDoc { paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: { content?: Record<string, { schema?: Schema }> }; responses?: unknown }>>; components?: { schemas?: Record<string, Schema> } }
interface Schema { $ref?: string; type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; enum?: unknown[]; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[] }

/** A plausible value of a schema (the first choice of every union, three levels deep): the body the fuzzer then breaks. */
function sampleOf(schema: Schema | undefined, doc: OpenApiDoc, depth = 0): unknown {
  if (!schema || depth > 4) return null;
  if (schema.$ref) return sampleOf(doc.components?.schemas?.[schema.$ref.split('/').pop()!], doc, depth + 1);
  if (schema.enum?.length) return schema.enum[0];
  const union = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (union?.length) return sampleOf(union[0], doc, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object' || schema.properties) return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, sampleOf(s, doc, depth + 1)]));
  if (type === 'array') return [sampleOf(schema.items, doc, depth + 1)];
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  return 'x';
}

const example = (name: string) => JSON.parse(readFileSync(path.join(projectRoot, 'examples/tenant', name), 'utf8')) as unknown;

/** Bodies that pass a route's checks (the README's examples where there are some): their values replaced, the body reaches the store. */
const VALID_BODIES: Readonly<Record<string, () => unknown>> = {
  'POST /api/measure-mappings': () => example('1-measure-mapping.json'),
  'POST /api/facilities': () => example('2-facility.json'),
  'POST /api/signing-keys': () => example('4-signing-key.json'),
  'POST /api/vendors': () => ({ name: 'Vendor', authentication: 'basic' }),
  'POST /api/validation-configurations': () => ({ name: 'ig-v2', packages: [{ name: 'example.ig', version: '2.0.0' }], resources: ['http://example.org/ValueSet/x'], exclusive: false }),
  'POST /api/category/$import': () => [{ id: 'group_quirk', title: 'Group quirk', severity: 'WARNING', acceptable: true, guidance: 'External: kept as written.', matcher: { field: 'MESSAGE', regex: "Codes (RxNorm)'\\." } }],
};

function operationsOf(service: 'validation' | 'tenant', doc: OpenApiDoc): DocOperation[] {
  const operations: DocOperation[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    if (template.includes('$initialize') || !template.startsWith('/api/')) continue;
    for (const [method, op] of Object.entries(methods)) {
      if (typeof op !== 'object' || op === null || !('responses' in op)) continue;
      const content = op.requestBody?.content ?? {};
      const json = Object.entries(content).find(([type]) => type.includes('json'));
      operations.push({
        service, method: method.toUpperCase(), template,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        bodyTypes: Object.keys(content), sample: VALID_BODIES[`${method.toUpperCase()} ${template}`]?.() ?? (json ? sampleOf(json[1].schema, doc) : undefined),
        validBody: `${method.toUpperCase()} ${template}` in VALID_BODIES,
      });
    }
  }
  return operations;
}

/** A value that replaces a leaf of a documented body. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileWord(20_000), fc.constantFrom(null, -1, 0, 1e308, -1e308, 2 ** 53 + 2, 1.5, true, [], {}, [null], { $ref: '#' }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** The documented body with some of its values (at any depth) replaced, a key added, or a different JSON altogether. */
function brokenBody(sample: unknown): fc.Arbitrary<string> {
  const leaves: string[][] = [];
  const walk = (value: unknown, at: string[]) => {
    if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, [...at, k]);
      if (at.length > 0) leaves.push(at);
    } else leaves.push(at);
  };
  walk(sample, []);
  const replace = (replacements: [number, unknown][], extra: [string, unknown] | null) => {
    const copy = structuredClone(sample) as Record<string, unknown>;
    for (const [index, value] of replacements) {
      const at = leaves[index % leaves.length];
      if (!at || at.length === 0) continue;
      let target = copy as Record<string, unknown>;
      for (const key of at.slice(0, -1)) target = (target?.[key] ?? null) as Record<string, unknown>;
      if (target !== null && typeof target === 'object') target[at.at(-1)!] = value; // an earlier replacement may have taken the parent
    }
    const text = JSON.stringify(copy);
    return extra && text.startsWith('{') ? `{${JSON.stringify(extra[0])}:${JSON.stringify(extra[1])},${text.slice(1)}` : text;
  };
  // type-preserving: the documented body with hostile strings and extreme numbers, so it passes the schema and reaches the store
  const sameType = (value: unknown): fc.Arbitrary<unknown> => (typeof value === 'string' ? hostileWord(20_000)
    : typeof value === 'number' ? fc.constantFrom(0, -1, 1e308, 2 ** 31, 2 ** 53 + 2, 1.5, -0) : fc.constant(value));
  const leafValues = leaves.map((at) => at.reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], sample));
  return fc.oneof(
    { weight: 4, arbitrary: fc.tuple(fc.nat(), fc.nat()).chain(([a, b]) => fc.tuple(sameType(leafValues[a % leafValues.length]), sameType(leafValues[b % leafValues.length]))
      .map(([va, vb]) => replace([[a, va], [b, vb]], null))) },
    { weight: 4, arbitrary: fc.tuple(fc.array(fc.tuple(fc.nat(), hostileValue), { minLength: 1, maxLength: 3 }), fc.option(fc.tuple(fc.constantFrom(...NAMES, 'id', 'x'), hostileValue))).map(([r, e]) => replace(r, e)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: deepJson },
  );
}

// ---------------------------------------------------------------- the suite

describe('hostile and fuzz inputs through HTTP: the services and the gateway never answer 500 (fast-check)', function () {
  this.timeout(Math.max(240_000, FUZZ_RUNS * 4 * REQUEST_TIMEOUT_MS / 10));
  let platform: Platform;
  let localDir: string;
  let plans: PlanRegistry;
  let operations: DocOperation[];
  const statuses = new Map<number, number>();

  before(async () => {
    localDir = mkdtempSync(path.join(os.tmpdir(), 'http-fuzz-'));
    // signing keys work (the local trial's master key), so their routes are fuzzed past the 503 "no master key"
    const { env } = withLocalMasterKey({}, localDir);
    [platform, plans] = await Promise.all([
      startPlatform({ tenant: { SIGNING_KEYS_MASTER_KEYS_FILE: env.SIGNING_KEYS_MASTER_KEYS_FILE!, SIGNING_KEYS_CURRENT_MASTER_KEY: env.SIGNING_KEYS_CURRENT_MASTER_KEY! } }),
      coreSource().then((source) => new PlanRegistry(source)),
    ]);
    // the engine suite's hostile profile (an invariant and a regex extension with a catastrophic pattern), so the
    // generated Patients that claim it meet it here too: stored as an artifact, in use once the engine rebuilt
    const stored = await fetch(`${platform.services.validation}/api/artifact/RESOURCE/hostile-patient`, {
      method: 'PUT', headers: { 'content-type': 'application/fhir+json' }, body: JSON.stringify(hostileProfile()),
    });
    expect(stored.status, await stored.text()).to.equal(201);
    await untilProfileApplies();
    operations = [];
    for (const service of ['validation', 'tenant'] as const) {
      const doc = await (await fetch(`${platform.services[service]}/api-docs`)).json() as OpenApiDoc;
      operations.push(...operationsOf(service, doc));
    }
    console.log(`      fuzz seed ${FUZZ_SEED}, ${FUZZ_RUNS} runs a property over ${operations.length} documented operations (FUZZ_SEED=${FUZZ_SEED} to replay)`);
  });
  /** Polls $validate until the rebuilt engine applies the hostile profile (its rule fails on the catastrophic value). */
  async function untilProfileApplies(): Promise<void> {
    let last = '';
    for (let attempt = 0; attempt < 240; attempt++) {
      const res = await fetch(`${platform.services.validation}/api/$validate`, {
        method: 'POST', headers: { 'content-type': 'application/fhir+json' }, body: JSON.stringify(patientForHostileProfile()),
      });
      last = await res.text();
      if (last.includes('Rule hostile-1')) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`the hostile profile was not applied after its upload: ${last.slice(0, 500)}`);
  }

  after(async () => {
    if (statuses.size > 0) console.log(`      statuses: ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ')}`);
    await platform?.stop();
    if (localDir) rmSync(localDir, { recursive: true, force: true });
  });

  /**
   * One request on a connection of its own (node:http, an agent of its own), so no case meets the state
   * an earlier one left in a pool. Keep-alive, as browsers, curl and fetch ask: a service that answers
   * before reading a body it refuses (415, 413) then reads and drops the rest; with `Connection: close`
   * it would close on the unread body and the client, still writing, would lose the answer (EPIPE).
   */
  const send = (r: FuzzRequest): Promise<Answer> => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    return new Promise<Answer>((resolve, reject) => {
      const base = r.viaGateway ? `${platform.gateway}/api/${r.component ?? r.service}` : `${platform.services[r.service]}/api`;
      const url = new URL(base);
      const headers: Record<string, string | number> = {};
      if (r.contentType !== undefined) headers['content-type'] = r.contentType;
      const body = r.body !== undefined && r.method !== 'GET' && r.method !== 'HEAD' ? r.body : undefined;
      if (body) headers['content-length'] = body.length;
      const req = http.request({
        host: url.hostname, port: url.port, method: r.method, path: `${url.pathname}${r.path}${r.query ? `?${r.query}` : ''}`, headers, agent, timeout: REQUEST_TIMEOUT_MS,
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', reject);
      req.end(body);
    }).finally(() => agent.destroy());
  };

  const expectNoServerError = async (r: FuzzRequest) => {
    const answer = await send(r).catch((error: unknown) => { throw new Error(`${describeRequest(r)}: no answer (${String(error)})`); });
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    const what = `${describeRequest(r)} → ${answer.status} ${answer.text.slice(0, 300)}`;
    expect(answer.status, what).to.be.below(500);
    if (answer.status >= 400) {
      expect(answer.contentType, what).to.match(/^application\/problem\+json/);
      if (r.method === 'HEAD') return; // the headers of a GET's answer, without its body
      const problem = JSON.parse(answer.text) as Record<string, unknown>;
      expect(problem.type, what).to.be.a('string').and.match(/^https?:\/\//);
      expect(problem.title, what).to.be.a('string').and.not.equal('');
      expect(problem.status, what).to.equal(answer.status);
      expect(problem.detail, what).to.be.a('string').and.not.equal('');
      expect(problem.traceId, what).to.be.a('string').and.not.equal('');
    }
  };

  const check = async (property: fc.IAsyncProperty<[FuzzRequest]>) => {
    const details = await fc.check(property, { numRuns: FUZZ_RUNS, seed: FUZZ_SEED, endOnFailure: true });
    throwIfFuzzFailed(details, FUZZ_SEED);
  };

  it('$validate, $validate-and-categorize and $categorize: the engine suites\' resources and XML, deep nesting, broken UTF-8, Parameters, wrong media types', async () => {
    const json = hostileResource(FUZZ_RUNS);
    const xml = fc.tuple(hostileXmlResource(FUZZ_RUNS), xmlDamage(FUZZ_RUNS)).map(([r, d]) => damaged(composeXml(r, plans), d));
    const body = fc.oneof(
      { weight: 3, arbitrary: fc.tuple(json.map((r) => utf8(JSON.stringify(r))), rightOrWrong(['application/fhir+json', 'application/json'])) },
      { weight: 3, arbitrary: fc.tuple(xml.map(utf8), rightOrWrong(['application/fhir+xml', 'application/xml'])) },
      { weight: 2, arbitrary: fc.tuple(deepJson.map(utf8), rightOrWrong(['application/fhir+json'])) },
      { weight: 1, arbitrary: fc.tuple(brokenUtf8, rightOrWrong(['application/fhir+json', 'application/fhir+xml'])) },
      { weight: 2, arbitrary: fc.tuple(malformedParameters(json).map(utf8), rightOrWrong(['application/fhir+json'])) },
      { weight: 1, arbitrary: fc.tuple(fc.jsonValue().map((v) => utf8(JSON.stringify(v))), rightOrWrong(['application/fhir+json', 'application/json'])) },
      { weight: 1, arbitrary: fc.tuple(fc.uint8Array({ maxLength: 2_000 }), fc.constantFrom(...CONTENT_TYPES)) },
    );
    const validateQuery = operations.find((o) => o.template === '/api/$validate')?.query ?? [];
    await check(fc.asyncProperty(
      fc.record({ operation: fc.constantFrom('$validate', '$validate-and-categorize', '$categorize'), viaGateway: fc.boolean(), body, query: queryOf(validateQuery) })
        .map(({ operation, viaGateway, body: [bytes, contentType], query }): FuzzRequest => ({
          service: 'validation', viaGateway, method: 'POST', path: `/${operation}`, query, contentType, body: bytes,
        })),
      expectNoServerError,
    ));
  });

  it('every documented route of the validation and tenant services: hostile path segments and query strings, broken bodies, wrong media types', async () => {
    const artifactBody = fc.oneof(
      fc.uint8Array({ maxLength: 4_000 }), fc.uint8Array({ maxLength: 4_000 }).map((b) => new Uint8Array(gzipSync(b))),
      deepJson.map((t) => new Uint8Array(gzipSync(t))), hostileResource(FUZZ_RUNS).map((r) => utf8(JSON.stringify({ ...r, resourceType: 'StructureDefinition' }))),
    );
    // the operations whose bodies can reach the store come up more often
    const request = fc.constantFrom(...operations.flatMap((op) => (op.validBody ? [op, op, op, op, op] : [op]))).chain((op) => {
      const segments = op.template.split('/').filter(Boolean);
      const holes = segments.filter((s) => s.startsWith('{')).length;
      const bodyArbitrary: fc.Arbitrary<[Uint8Array | undefined, string | undefined]> = op.bodyTypes.length === 0
        ? fc.oneof(fc.constant<[undefined, undefined]>([undefined, undefined]), fc.tuple(fc.jsonValue().map((v) => utf8(JSON.stringify(v))), fc.constantFrom(...CONTENT_TYPES)))
        : op.bodyTypes.includes('application/gzip')
          ? fc.tuple(artifactBody, rightOrWrong(op.bodyTypes))
          : fc.tuple(fc.oneof({ weight: 5, arbitrary: brokenBody(op.sample).map(utf8) }, { weight: 1, arbitrary: brokenUtf8 }), rightOrWrong(op.bodyTypes));
      return fc.record({
        viaGateway: fc.boolean(), values: fc.array(segment, { minLength: holes, maxLength: holes }), query: queryOf(op.query), body: bodyArbitrary,
      }).map(({ viaGateway, values, query, body: [bytes, contentType] }): FuzzRequest => {
        let hole = 0;
        const filled = segments.slice(1).map((s) => (s.startsWith('{') ? values[hole++]! : s));
        return { service: op.service, viaGateway, method: op.method, path: `/${filled.join('/')}`, query, contentType, body: bytes };
      });
    });
    await check(fc.asyncProperty(request, expectNoServerError));
  });

  it('paths no route has: hostile segments under every server, and hostile components at the gateway', async () => {
    await check(fc.asyncProperty(
      fc.record({
        service: fc.constantFrom('validation' as const, 'tenant' as const), viaGateway: fc.boolean(), component: fc.option(segment, { nil: undefined }),
        method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'), segments: fc.array(segment, { minLength: 1, maxLength: 4 }), query: queryOf([]),
        body: fc.option(fc.tuple(fc.jsonValue().map((v) => utf8(JSON.stringify(v))), fc.constantFrom(...CONTENT_TYPES)), { nil: undefined }),
      }).map(({ service, viaGateway, component, method, segments, query, body }): FuzzRequest => ({
        service, viaGateway, ...(viaGateway && component !== undefined ? { component } : {}), method, path: `/${segments.join('/')}`, query,
        contentType: body?.[1], body: body?.[0],
      })),
      expectNoServerError,
    ));
  });

  it('the services and the gateway still answer /health afterwards', async () => {
    for (const base of [platform.services.validation, platform.services.tenant, platform.gateway]) {
      const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(30_000) });
      expect(res.status, `${base}/health`).to.equal(200);
    }
  });
});
