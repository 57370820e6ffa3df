/**
 * `npm run test:unit` leaves out *.int.spec.ts and *.slow.spec.ts by name, so the name must tell the
 * truth. Read from the sources (nothing is run, a few milliseconds): a spec file that reaches the
 * infrastructure is named *.int.spec.ts, and one that starts worker threads is *.int.spec.ts or
 * *.slow.spec.ts; a file named *.int.spec.ts reaches the infrastructure.
 *
 * A file reaches the infrastructure when it reads the address of the local PostgreSQL, NATS or Redis
 * (PGHOST, NATS_URL, NATS_SERVERS, REDIS_HOST ...), imports node:child_process or playwright-core,
 * opens a connection itself (connect, connectNats, openDatabase, MikroORM, createClient), or imports
 * a value from a test helper that does (test-database.ts, flow-harness.ts, platform.ts ...), found
 * through the helpers' own imports. A few helpers that open connections also export plain functions
 * (PURE_EXPORTS); importing only those is not reaching anything.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '#test-support/shared-dir.js';

/** Where the spec files and their helpers live (package.json's test globs). */
const TEST_ROOTS = ['adapters', 'contracts', 'services', 'test'];

const ADDRESS_VARIABLES = /\bprocess\.env\.(PGHOST|PGPORT|PGUSER|PGDATABASE|NATS_URL|NATS_SERVERS|REDIS_HOST|REDIS_PORT|REDIS_URL)\b/;

/** Imported values that reach the infrastructure wherever they are imported from: module → names ('*': any value). */
const REACHING_IMPORTS: Record<string, readonly string[]> = {
  'node:child_process': ['*'],
  'playwright-core': ['*'],
  '@nats-io/transport-node': ['connect'],
  'redis': ['createClient'],
  '@mikro-orm/postgresql': ['MikroORM'],
  'adapters/messaging/connection.ts': ['connectNats'],
  'adapters/messaging/index.ts': ['connectNats'],
  'adapters/persistence/database.ts': ['openDatabase'],
  'adapters/persistence/index.ts': ['openDatabase'],
  // The tools that run the platform as processes, and their runs the tests repeat.
  'scripts/supervisor.ts': ['superviseServices'],
  'scripts/fault/cluster.ts': ['runClusterFault'],
  'scripts/fault/outage.ts': ['runOutage'],
  'scripts/scale-out/scale-out.ts': ['runScaleOut'],
};

/** Imported values that start worker threads. */
const THREAD_IMPORTS: Record<string, readonly string[]> = {
  'node:worker_threads': ['Worker'],
  'services/validation/src/adapters/worker-pool/validation-pool.ts': ['ValidationPool'],
  'services/validation/src/adapters/engine/index.ts': ['EngineHost'],
  'services/validation/src/adapters/engine/engine-host.ts': ['EngineHost'],
};

/** Exports of infrastructure helpers that touch nothing themselves. */
const PURE_EXPORTS: Record<string, readonly string[]> = {
  'adapters/messaging/test/support.ts': ['testCatalog', 'waitFor', 'deferred'],
  'services/validation/test/flow/support/flow-harness.ts': ['folderArtifacts', 'eventually', 'uniqueSuffix'],
  'services/tenant/test/signing-keys/support.ts': ['ShiftedClock', 'required', 'call', 'TEST_MASTER_KEY', 'TEST_MASTER_KEY_ID'],
};

interface Import { readonly module: string; readonly names: readonly string[] }
interface SourceFile { readonly path: string; readonly text: string }

const packageImports = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { imports: Record<string, string> }).imports;

/** A specifier as a path from the project root (relative and #aliases, .js as .ts), or the package name. */
function resolveSpecifier(from: string, specifier: string): string {
  let target: string | undefined;
  if (specifier.startsWith('.')) target = path.posix.join(path.posix.dirname(from), specifier);
  for (const [alias, replacement] of Object.entries(packageImports)) {
    const prefix = alias.replace(/\*$/, '');
    if (specifier.startsWith(prefix)) target = path.posix.normalize(replacement.replace(/\*$/, '') + specifier.slice(prefix.length));
  }
  if (target === undefined) return specifier.startsWith('child_process') ? `node:${specifier}` : specifier;
  return target.replace(/\.js$/, '.ts');
}

/** The values a file imports or re-exports (type-only ones left out), by resolved module. */
function valueImports(file: SourceFile): Import[] {
  const out: Import[] = [];
  const imports = /^\s*import\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/gm;
  const reExports = /^\s*export\s+(type\s+)?(\*(?:\s+as\s+\w+)?|\{[^}]*\})\s*from\s*['"]([^'"]+)['"]/gm;
  for (const match of [...file.text.matchAll(imports), ...file.text.matchAll(reExports)]) {
    if (match[1]) continue;
    const clause = match[2]!;
    const names: string[] = [];
    const braces = /\{([^}]*)\}/.exec(clause);
    for (const part of braces?.[1]?.split(',') ?? []) {
      const name = part.trim();
      if (name === '' || name.startsWith('type ')) continue;
      names.push(name.split(/\s+as\s+/)[0]!.trim());
    }
    const outside = clause.replace(/\{[^}]*\}/, '').split(',').map((s) => s.trim()).filter((s) => s !== '');
    for (const part of outside) names.push(part.startsWith('*') ? '*' : 'default');
    if (names.length > 0) out.push({ module: resolveSpecifier(file.path, match[3]!), names });
  }
  for (const match of file.text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push({ module: resolveSpecifier(file.path, match[1]!), names: ['*'] });
  return out;
}

const matches = (table: Record<string, readonly string[]>, imported: Import): boolean => {
  const listed = table[imported.module];
  return listed !== undefined && (listed.includes('*') || imported.names.some((name) => name === '*' || listed.includes(name)));
};

interface Classified { readonly reaches: ReadonlySet<string>; readonly threads: ReadonlySet<string> }

/** Which files reach the infrastructure (directly or through helpers) and which start worker threads. */
function classify(files: readonly SourceFile[]): Classified {
  const imports = new Map(files.map((file) => [file.path, valueImports(file)]));
  const reaches = new Set(files.filter((file) => ADDRESS_VARIABLES.test(file.text) || imports.get(file.path)!.some((i) => matches(REACHING_IMPORTS, i))).map((f) => f.path));
  const throughHelper = (imported: Import): boolean => reaches.has(imported.module)
    && imported.names.some((name) => !(PURE_EXPORTS[imported.module] ?? []).includes(name));
  for (let grew = true; grew;) {
    grew = false;
    for (const file of files) {
      if (!reaches.has(file.path) && imports.get(file.path)!.some(throughHelper)) {
        reaches.add(file.path);
        grew = true;
      }
    }
  }
  const threads = new Set(files.filter((file) => imports.get(file.path)!.some((i) => matches(THREAD_IMPORTS, i))).map((f) => f.path));
  return { reaches, threads };
}

/** The names that do not tell the truth. */
function misnamed(files: readonly SourceFile[]): string[] {
  const { reaches, threads } = classify(files);
  const problems: string[] = [];
  for (const { path: file } of files) {
    if (!file.endsWith('.spec.ts')) continue;
    const int = file.endsWith('.int.spec.ts');
    const slow = file.endsWith('.slow.spec.ts');
    if (reaches.has(file) && !int) problems.push(`${file} reaches the infrastructure: name it *.int.spec.ts`);
    else if (threads.has(file) && !int && !slow) problems.push(`${file} starts worker threads: name it *.slow.spec.ts`);
    if (int && !reaches.has(file)) problems.push(`${file} reaches no infrastructure: name it *.spec.ts (or *.slow.spec.ts)`);
  }
  return problems;
}

function testSources(): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (dir: string, inTests: boolean): void => {
    for (const entry of readdirSync(path.join(projectRoot, dir), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const relative = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(relative, inTests || entry.name === 'test');
      else if (inTests && entry.name.endsWith('.ts')) out.push({ path: relative, text: readFileSync(path.join(projectRoot, relative), 'utf8') });
    }
  };
  for (const root of TEST_ROOTS) walk(root, root === 'test');
  return out;
}

describe('test file names: the unit loop leaves out what reaches the infrastructure or starts threads', () => {
  const files = testSources();

  it('every spec file that reaches PostgreSQL, NATS, Redis, Chromium or a child process is *.int.spec.ts, and only those', () => {
    expect(files.filter((f) => f.path.endsWith('.spec.ts')).length, 'spec files found').to.be.greaterThan(150);
    expect(misnamed(files)).to.deep.equal([]);
  });

  it('the helpers it follows still exist, so a moved helper cannot leave the check blind', () => {
    const paths = new Set(files.map((f) => f.path));
    const { reaches } = classify(files);
    for (const helper of Object.keys(PURE_EXPORTS)) {
      expect(paths.has(helper), helper).to.equal(true);
      expect(reaches.has(helper), `${helper} reaches the infrastructure`).to.equal(true);
    }
    for (const helper of ['adapters/persistence/test/test-database.ts', 'services/validation/test/flow/support/flow-harness.ts', 'test/contract/support/platform.ts']) {
      expect(reaches.has(helper), helper).to.equal(true);
    }
  });

  it('catches a unit-named spec that reaches the infrastructure through a helper, directly or by a variable, and a thread starter', () => {
    const probe = (name: string, text: string): SourceFile => ({ path: `services/validation/test/probe/${name}`, text });
    const address = ['process', 'env', 'PGHOST'].join('.'); // not written out: this file would read it
    const helper = probe('support/db.ts', `export const PG = { host: ${address} ?? '127.0.0.1' };\n`);
    const problems = misnamed([
      helper,
      probe('via-helper.spec.ts', "import { PG } from './support/db.js';\n"),
      probe('by-variable.spec.ts', `const host = ${address};\n`),
      probe('support/again.ts', "export { PG as Database } from './db.js';\n"),
      probe('via-re-export.spec.ts', "import { Database } from './support/again.js';\n"),
      probe('pure-only.spec.ts', "import { type PG } from './support/db.js';\nimport type { X } from 'node:child_process';\n"),
      probe('spawns.spec.ts', "import { spawn } from 'node:child_process';\n"),
      probe('threads.spec.ts', "import { ValidationPool } from '#validation/adapters/worker-pool/validation-pool.js';\n"),
      probe('fine.int.spec.ts', "import { PG } from './support/db.js';\n"),
      probe('nothing.int.spec.ts', "import { expect } from 'chai';\n"),
    ]);
    expect(problems).to.deep.equal([
      'services/validation/test/probe/via-helper.spec.ts reaches the infrastructure: name it *.int.spec.ts',
      'services/validation/test/probe/by-variable.spec.ts reaches the infrastructure: name it *.int.spec.ts',
      'services/validation/test/probe/via-re-export.spec.ts reaches the infrastructure: name it *.int.spec.ts',
      'services/validation/test/probe/spawns.spec.ts reaches the infrastructure: name it *.int.spec.ts',
      'services/validation/test/probe/threads.spec.ts starts worker threads: name it *.slow.spec.ts',
      'services/validation/test/probe/nothing.int.spec.ts reaches no infrastructure: name it *.spec.ts (or *.slow.spec.ts)',
    ]);
  });
});
