import { expect } from 'chai';
import { builtinModules } from 'node:module';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeConfig, type ConfigSchema } from '../../adapters/config/index.js';
import { effective, parseDockerfile, stageChain, type Stage } from '../../scripts/deploy/dockerfile.js';
import { PLATFORM_SERVICES } from '../../scripts/deploy/platform-services.js';

/**
 * Static checks of the Dockerfile (no Docker engine on the CI machine): Node 24 matching the pinned
 * `node` devDependency, the same `npm ci` + `npm run build` as the tests, production dependencies only
 * in the runtime, a non-root user, and each target's CMD pointing at a file the build produces.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const dockerfile = parseDockerfile(read('Dockerfile'));
const packageJson = JSON.parse(read('package.json')) as { scripts: Record<string, string>; devDependencies: Record<string, string> };
const TARGETS = ['validation', 'tenant', 'admin-gateway'];

const stage = (name: string): Stage => {
  const found = dockerfile.stages.find((s) => s.name === name);
  if (!found) throw new Error(`no stage ${name}`);
  return found;
};
const runs = (s: Stage) => s.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
const copies = (s: Stage) => s.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args.split(/\s+/));
const fromStage = (args: string[]) => args.find((a) => a.startsWith('--from='))?.slice('--from='.length);

/** Glob of tsconfig include/exclude to a regular expression over repository-relative paths. */
function globToRegExp(glob: string): RegExp {
  const body = glob.split('/').map((part) => (part === '**' ? '(?:.+/)?' : `${part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}/`)).join('');
  return new RegExp(`^${body.replace(/\(\?:\.\+\/\)\?$/, '').replace(/\/$/, '')}(?:/.*)?$`);
}

/** Package name of a bare specifier: `@scope/name/x` → `@scope/name`, `fhirpath/x.js` → `fhirpath`. */
const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/**
 * Bare module specifiers reachable from `entries` through relative imports (type-only imports are
 * erased by tsc and skipped), including `require('x')` / `require.resolve('x')` / `createRequire(...)('x')`.
 */
function reachablePackages(entries: readonly string[]): Map<string, string> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const specifiers = [
      ...[...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?'([^']+)'/gm)].map((m) => m[1]!),
      ...[...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!),
      ...[...text.matchAll(/(?:\brequire(?:\.resolve)?|\))\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!),
    ];
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts'));
        if (existsSync(target) && target.endsWith('.ts')) queue.push(target);
      } else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier)) {
        packages.set(packageOf(specifier), path.relative(root, file));
      }
    }
  }
  return packages;
}

const sourceFiles = (dir: string): string[] => readdirSync(dir).flatMap((entry) => {
  const full = path.join(dir, entry);
  if (statSync(full).isDirectory()) return entry === 'test' || entry === 'cli' ? [] : sourceFiles(full);
  return entry.endsWith('.ts') && !entry.endsWith('.spec.ts') ? [full] : [];
});

describe('deploy: Dockerfile (static checks)', () => {
  it('every image stage uses the official node image at the version the `node` devDependency pins (major 24)', () => {
    const images = dockerfile.stages.map((s) => s.from).filter((from) => !dockerfile.stages.some((s) => s.name === from));
    expect(images.length).to.be.greaterThan(0);
    const pinned = packageJson.devDependencies.node!;
    for (const image of images) {
      const match = /^node:(\d+)\.(\d+)\.(\d+)-[a-z0-9-]+$/.exec(image);
      expect(match, image).to.not.equal(null);
      expect(match![1], image).to.equal('24');
      expect(`${match![1]}.${match![2]}.${match![3]}`, `${image} vs node devDependency`).to.equal(pinned);
    }
  });

  it('the build stage runs the same `npm ci` and `npm run build` as the tests, and the build script is tsc over tsconfig.build.json', () => {
    const build = stage('build');
    expect(runs(build).some((r) => /^npm ci(\s|$)/.test(r) && !r.includes('--omit'))).to.equal(true);
    expect(runs(build)).to.include('npm run build');
    expect(packageJson.scripts.build).to.equal('tsc -p tsconfig.build.json');
    // What the build copies from the context exists and is let through by .dockerignore.
    const ignore = read('.dockerignore').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    expect(ignore[0]).to.equal('*');
    for (const args of copies(build).filter((a) => !fromStage(a))) {
      for (const source of args.slice(0, -1).filter((a) => !a.startsWith('--'))) {
        expect(existsSync(path.join(root, source)), source).to.equal(true);
        expect(ignore, `.dockerignore lets ${source} through`).to.include(`!${source.replace(/^\.\//, '')}`);
      }
    }
    for (const never of ['node_modules', 'dist', '.env', '.cache']) expect(ignore).to.not.include(`!${never}`);
  });

  for (const target of TARGETS) {
    describe(`target ${target}`, () => {
      const chain = stageChain(dockerfile.stages, target);

      it('exists and runs as a non-root numeric user', () => {
        expect(chain.map((s) => s.name)[0]).to.equal(target);
        const user = effective(chain, 'USER')?.args;
        expect(user, 'USER').to.match(/^\d+(:\d+)?$/);
        expect(Number(user!.split(':')[0])).to.be.greaterThan(0);
        // The Deployments run as 10001 too; keep them in step.
        expect(user!.split(':')[0]).to.equal('10001');
      });

      it('contains production dependencies only (npm ci --omit=dev) and the compiled dist/', () => {
        for (const s of chain) {
          for (const run of runs(s)) {
            expect(run, `${s.name}: RUN ${run}`).to.not.match(/npm (install|i)\b/);
            if (/npm ci\b/.test(run)) expect(run).to.include('--omit=dev');
          }
        }
        const allCopies = chain.flatMap(copies);
        const modules = allCopies.find((a) => a.some((x) => x.endsWith('/node_modules')));
        expect(modules, 'COPY of node_modules').to.not.equal(undefined);
        const depsStage = stage(fromStage(modules!)!);
        expect(runs(depsStage).some((r) => /npm ci\b.*--omit=dev/.test(r)), `${depsStage.name} installs with --omit=dev`).to.equal(true);
        expect(runs(depsStage).some((r) => /npm ci(?!.*--omit=dev)/.test(r))).to.equal(false);
        const dist = allCopies.find((a) => a.some((x) => /\/dist$/.test(x)));
        expect(dist && fromStage(dist)).to.equal('build');
        // dist/ is ESM: without package.json ("type": "module") next to it node would read it as CommonJS.
        expect(allCopies.some((a) => !fromStage(a) && a[0] === 'package.json'), 'COPY package.json').to.equal(true);
        expect((JSON.parse(read('package.json')) as { type?: string }).type).to.equal('module');
      });

      it('CMD runs node directly on dist/services/<service>/src/main.js, exposing the service port', function () {
        const cmd = JSON.parse(effective(chain, 'CMD')!.args) as string[];
        expect(cmd).to.deep.equal(['node', `dist/services/${target}/src/main.js`]);
        const schema = PLATFORM_SERVICES.find((s) => s.deployment === target)!.schema as ConfigSchema;
        const port = describeConfig(schema).find((row) => row.property === 'http.port')!.default;
        expect(effective(chain, 'EXPOSE')?.args).to.equal(port);

        // tsc -p tsconfig.build.json (rootDir ".", outDir "dist") emits dist/<x>.js from <x>.ts.
        const build = JSON.parse(read('tsconfig.build.json')) as { extends: string; compilerOptions?: { outDir?: string; rootDir?: string }; exclude: string[] };
        const base = JSON.parse(read(build.extends)) as { compilerOptions: { outDir: string; rootDir: string }; include: string[] };
        const outDir = build.compilerOptions?.outDir ?? base.compilerOptions.outDir;
        const rootDir = build.compilerOptions?.rootDir ?? base.compilerOptions.rootDir;
        expect([outDir, rootDir]).to.deep.equal(['dist', '.']);
        const source = cmd[1]!.replace(/^dist\//, '').replace(/\.js$/, '.ts');
        expect(base.include.some((glob) => globToRegExp(glob).test(source)), `${source} included`).to.equal(true);
        expect(build.exclude.filter((glob) => globToRegExp(glob).test(source)), `${source} excluded by`).to.deep.equal([]);
        if (!existsSync(path.join(root, source))) {
          // The service's entry point is written in another module; the check applies as soon as it lands.
          this.skip();
        }
      });
    });
  }

  it('the code the images run imports only production dependencies (the runtime stage has no dev dependencies)', () => {
    const dependencies = new Set(Object.keys((JSON.parse(read('package.json')) as { dependencies: Record<string, string> }).dependencies));
    // From each service's entry point; a service whose main.ts is not written yet contributes all its src/ files.
    const entries = TARGETS.flatMap((target) => {
      const main = path.join(root, 'services', target, 'src', 'main.ts');
      return existsSync(main) ? [main] : sourceFiles(path.join(root, 'services', target, 'src'));
    });
    const packages = reachablePackages(entries);
    expect(packages.size).to.be.greaterThan(5);
    const devOnly = [...packages].filter(([name]) => !dependencies.has(name)).map(([name, file]) => `${name} (imported by ${file})`);
    expect(devOnly).to.deep.equal([]);
    expect([...packages.keys()]).to.include.members(['express', '@nats-io/jetstream', '@mikro-orm/postgresql']);
  });

  it('the tsconfig glob reader used above matches like tsc does for the patterns in use', () => {
    expect(globToRegExp('**/test/**').test('services/tenant/test/x.spec.ts')).to.equal(true);
    expect(globToRegExp('**/*.spec.ts').test('adapters/http/test/app.spec.ts')).to.equal(true);
    expect(globToRegExp('scripts/bench').test('scripts/bench/x.ts')).to.equal(true);
    expect(globToRegExp('test').test('services/validation/src/main.ts')).to.equal(false);
    expect(globToRegExp('services').test('services/validation/src/main.ts')).to.equal(true);
  });
});
