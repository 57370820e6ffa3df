/**
 * `npm run bench:all [-- --only tenant,gateway] [--record] [--fail-on-drop]`: every benchmark, briefly,
 * one after another, and each ratio it prints (`ratio <name>: <value>`, ratio-line.ts) compared with
 * the figure recorded in docs/performance.md. A ratio more than 15 % below its record is a warning
 * (the run still exits 0 unless `--fail-on-drop`); a benchmark that fails or runs out of time makes
 * the run exit 1 after the others ran. `--record` writes this run's ratios into the table with
 * today's date, the machine and its load (do it on a quiet machine, after a change that moved a
 * figure on purpose, and say why in the commit). See docs/performance.md for when to run it.
 *
 * Ratios, not absolute rates: every ratio is measured within one run against a reference sharing
 * the same machine at the same moment (bare handler, direct call, in-thread engine ...), so it
 * drifts far less with the host's load than requests/s or resources/s do. Brief runs are noisier
 * than full ones, and the recorded figures are brief runs too, so like is compared with like.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseRatioLines } from './ratio-line.js';
import { ownChild } from '../owned-children.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');
const PERFORMANCE_DOC = path.join(root, 'docs/performance.md');
/** A ratio this much below its record is reported. */
const DROP_WARNING = 0.15;

interface Bench {
  readonly name: string;
  readonly script: string;
  /** The brief run: enough to measure each ratio, not the full benchmark. */
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutSeconds: number;
}

/** Every benchmark of package.json's bench:* scripts, in the order they run. */
export const BENCHES: readonly Bench[] = [
  { name: 'categorize', script: 'scripts/bench/categorize-bench.ts', args: ['--rounds', '30'], timeoutSeconds: 120 },
  { name: 'terminology', script: 'scripts/bench/terminology-bench.ts', args: ['--skip-nhsn', '--lookups=200000'], timeoutSeconds: 120 },
  { name: 'results', script: 'scripts/bench/results-bench.ts', args: ['--results', '10000', '--patients', '100', '--queries', '50'], timeoutSeconds: 180 },
  {
    name: 'engine', script: 'scripts/bench/engine-bench.ts',
    args: ['--min-resources', '2000', '--warm-up', '20000', '--rounds', '3', '--medplum-resources', '300'], timeoutSeconds: 300,
  },
  { name: 'flow', script: 'scripts/bench/flow-bench.ts', args: ['--submissions', '60', '--rounds', '3', '--warm-up', '60'], timeoutSeconds: 300 },
  { name: 'gateway', script: 'scripts/bench/gateway-bench.ts', args: [], env: { BENCH_SECONDS: '4' }, timeoutSeconds: 120 },
  {
    name: 'tenant', script: 'services/tenant/bench/tenant-bench.ts',
    args: ['--duration', '4', '--rounds', '3', '--warm-up', '2', '--facilities', '10000', '--skip-scheduler'], timeoutSeconds: 180,
  },
];

interface BenchRun {
  readonly bench: Bench;
  readonly ratios: Map<string, number>;
  /** Why it failed, when it did. */
  readonly failure?: string;
  readonly seconds: number;
}

/** Runs one benchmark with its output passed through, and collects its ratio lines. */
function run(bench: Bench): Promise<BenchRun> {
  const started = Date.now();
  console.log(`\n── bench:${bench.name} (${[...Object.entries(bench.env ?? {}).map(([k, v]) => `${k}=${v}`), bench.script, ...bench.args].join(' ')})`);
  return new Promise((resolve) => {
    const child = ownChild(spawn(tsx, [bench.script, ...bench.args], { cwd: root, env: { ...process.env, ...bench.env }, stdio: ['ignore', 'pipe', 'inherit'] }));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      process.stdout.write(chunk);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    }, bench.timeoutSeconds * 1000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const failure = timedOut ? `ran out of its ${bench.timeoutSeconds} s` : code !== 0 ? `exited with ${code ?? signal}` : undefined;
      resolve({ bench, ratios: parseRatioLines(output), seconds: (Date.now() - started) / 1000, ...(failure ? { failure } : {}) });
    });
  });
}

export interface RecordedRatio {
  readonly name: string;
  readonly value: number;
  readonly date: string;
  readonly machine: string;
  readonly load: string;
}

const TABLE_START = '<!-- bench:all ratios: written by `npm run bench:all -- --record` -->';
const TABLE_END = '<!-- /bench:all ratios -->';
const TABLE_HEADER = ['| ratio | recorded | date | machine | load (1 min) |', '|---|---|---|---|---|'];

/** The recorded ratios of docs/performance.md: the rows between its table markers. */
export function readRecorded(document: string): Map<string, RecordedRatio> {
  const recorded = new Map<string, RecordedRatio>();
  const start = document.indexOf(TABLE_START);
  const end = document.indexOf(TABLE_END);
  if (start < 0 || end < start) return recorded;
  for (const line of document.slice(start, end).split('\n')) {
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
    if (cells.length < 5 || !cells[0]!.startsWith('`')) continue;
    const name = cells[0]!.replaceAll('`', '');
    const value = Number(cells[1]);
    if (Number.isFinite(value)) recorded.set(name, { name, value, date: cells[2]!, machine: cells[3]!, load: cells[4]! });
  }
  return recorded;
}

/** The document with its table rewritten from `recorded` (rows by name). */
export function writeRecorded(document: string, recorded: ReadonlyMap<string, RecordedRatio>): string {
  const start = document.indexOf(TABLE_START);
  const end = document.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`docs/performance.md has no table between ${TABLE_START} and ${TABLE_END}`);
  const rows = [...recorded.values()].sort((a, b) => a.name.localeCompare(b.name))
    .map((r) => `| \`${r.name}\` | ${r.value.toFixed(2)} | ${r.date} | ${r.machine} | ${r.load} |`);
  return `${document.slice(0, start + TABLE_START.length)}\n${[...TABLE_HEADER, ...rows].join('\n')}\n${document.slice(end)}`;
}

export interface Comparison {
  readonly name: string;
  readonly now?: number;
  readonly recorded?: RecordedRatio;
  /** now / recorded - 1, when both exist. */
  readonly change?: number;
  readonly dropped: boolean;
}

export function compare(measured: ReadonlyMap<string, number>, recorded: ReadonlyMap<string, RecordedRatio>): Comparison[] {
  const names = [...new Set([...measured.keys(), ...recorded.keys()])].sort();
  return names.map((name) => {
    const now = measured.get(name);
    const record = recorded.get(name);
    const change = now !== undefined && record !== undefined && record.value > 0 ? now / record.value - 1 : undefined;
    return { name, now, recorded: record, change, dropped: change !== undefined && change < -DROP_WARNING };
  });
}

function machineDescription(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string' }, record: { type: 'boolean', default: false }, 'fail-on-drop': { type: 'boolean', default: false } } });
  const only = values.only?.split(',').map((name) => name.trim());
  const unknown = only?.filter((name) => !BENCHES.some((bench) => bench.name === name)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown bench ${unknown.join(', ')}; known: ${BENCHES.map((bench) => bench.name).join(', ')}`);
  const started = Date.now();
  const loadAtStart = os.loadavg()[0]!;
  const runs: BenchRun[] = [];
  for (const bench of BENCHES.filter((b) => only === undefined || only.includes(b.name))) runs.push(await run(bench));

  const measured = new Map(runs.flatMap((r) => [...r.ratios]));
  const document = readFileSync(PERFORMANCE_DOC, 'utf8');
  const recorded = readRecorded(document);
  const ranBenches = new Set(runs.map((r) => r.bench.name));
  // A subset run says nothing about the ratios of benches it did not run.
  const relevant = new Map([...recorded].filter(([name]) => only === undefined || ranBenches.has(name.split('.')[0]!)));
  const comparisons = compare(measured, relevant);
  const load = `${loadAtStart.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)}`;

  console.log(`\n── bench:all: ${runs.length} bench(es) in ${((Date.now() - started) / 1000).toFixed(0)} s on ${machineDescription()}, load average ${load}`);
  for (const r of runs) console.log(`bench:${r.bench.name}: ${r.failure ? `FAILED (${r.failure})` : 'ok'} in ${r.seconds.toFixed(0)} s, ${r.ratios.size} ratio(s)`);
  console.log('| ratio | now | recorded | change |\n|---|---|---|---|');
  for (const c of comparisons) {
    const recordedText = c.recorded ? `${c.recorded.value.toFixed(2)} (${c.recorded.date})` : 'not recorded';
    const changeText = c.change === undefined ? '' : `${c.change >= 0 ? '+' : ''}${(c.change * 100).toFixed(0)} %${c.dropped ? ' DROP' : ''}`;
    console.log(`| ${c.name} | ${c.now?.toFixed(2) ?? 'not printed'} | ${recordedText} | ${changeText} |`);
  }
  const drops = comparisons.filter((c) => c.dropped);
  for (const c of drops) {
    console.log(`WARNING: ${c.name} is ${c.now!.toFixed(2)}, ${(-c.change! * 100).toFixed(0)} % below its recorded ${c.recorded!.value.toFixed(2)} (${c.recorded!.date}): `
      + 'rerun that bench in full (npm run bench:<name>) on a quiet machine before concluding; if it holds, find the change that caused it');
  }
  for (const c of comparisons.filter((x) => x.now === undefined)) console.log(`WARNING: ${c.name} is recorded but was not printed (did its bench fail or rename it?)`);

  if (values.record) {
    const date = new Date().toISOString().slice(0, 10);
    const updated = new Map(recorded);
    for (const [name, value] of measured) updated.set(name, { name, value, date, machine: machineDescription(), load });
    writeFileSync(PERFORMANCE_DOC, writeRecorded(document, updated));
    console.log(`recorded ${measured.size} ratio(s) in docs/performance.md`);
  }
  const failed = runs.filter((r) => r.failure);
  if (failed.length > 0 || (values['fail-on-drop'] && drops.length > 0)) process.exitCode = 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
