import { expect } from 'chai';
import { builtinModules } from 'node:module';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describeConfig, type ConfigSchema } from '#adapters/config/index.js';
import { checkDockerfile, effective, parseDockerfile, stageChain, type Stage } from '#scripts/deploy/dockerfile.js';
import { specOf, type WorkloadSpec } from '#scripts/deploy/k8s-model.js';
import { renderKustomization } from '#scripts/deploy/kustomize.js';
import { PLATFORM_SERVICES } from '#scripts/deploy/platform-services.js';
import { embeddedPackagesDirectory, readEmbeddedManifest } from '#validation/adapters/artifacts/embedded-packages.js';

/**
 * Static checks of the Dockerfile (no Docker engine on the CI machine): Node 24 matching the pinned
 * `node` devDependency, the same `npm ci` + `npm run build` as the tests, production dependencies only
 * in the runtime, a non-root user, and each target's CMD pointing at a file the build produces.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const dockerfile = parseDockerfile(read('Dockerfile'));
const packageJson = JSON.parse(read('package.json')) as { scripts: Record<string, string>; devDependencies: Record<string, string>; imports: Record<string, string> };

/** A `#alias/...` specifier (package.json `imports`) as the source file it names, or undefined. */
function aliasTarget(specifier: string): string | undefined {
  for (const [alias, target] of Object.entries(packageJson.imports)) {
    const prefix = alias.replace(/\*$/, '');
    if (specifier.startsWith(prefix)) return path.join(root, target.replace(/\*$/, '') + specifier.slice(prefix.length));
  }
  return undefined;
}
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
      if (specifier.startsWith('.') || specifier.startsWith('#')) {
        const named = specifier.startsWith('#') ? aliasTarget(specifier) : path.resolve(path.dirname(file), specifier);
        if (named === undefined) throw new Error(`${file}: ${specifier} is not an alias of package.json imports`);
        const target = named.replace(/\.js$/, '.ts');
        if (existsSync(target) && target.endsWith('.ts')) queue.push(target);
      } else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier)) {
        packages.set(packageOf(specifier), path.relative(root, file));
      }
    }
  }
  return packages;
}

/** Docker's .dockerignore pattern (Go filepath.Match plus `**`) as a regular expression over a relative path. */
function dockerPatternRegExp(pattern: string): RegExp {
  let body = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      body += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') body += '[^/]*';
    else if (c === '?') body += '[^/]';
    else body += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${body}$`);
}

/**
 * What a .dockerignore lets into the build context, as Docker decides it: rules in order, the last
 * rule that matches the path or one of its parent directories wins, `!` re-includes.
 */
function buildContext(ignoreText: string): (relative: string) => boolean {
  const rules = ignoreText.split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#')).map((line) => {
    const include = line.startsWith('!');
    return { include, pattern: dockerPatternRegExp(path.posix.normalize((include ? line.slice(1) : line).replace(/^\/+|\/+$/g, ''))) };
  });
  return (relative) => {
    const parts = relative.split('/');
    let included = true;
    for (const rule of rules) {
      if (parts.some((_, i) => rule.pattern.test(parts.slice(0, i + 1).join('/')))) included = rule.include;
    }
    return included;
  };
}

/**
 * What `npm run build` (tsc -p tsconfig.build.json) meets in the image's build stage: the files the
 * tsconfig selects among those in the build context, and every relative import they make
 * (transitively, type-only imports included: tsc needs them too) resolved the way tsc resolves it.
 * Returns one problem per import whose target is not in the context, which fails the image build
 * with TS2307 although the build passes in the repository.
 */
function buildContextImportProblems(ignoreText: string): string[] {
  const inContext = buildContext(ignoreText);
  const relative = (file: string) => path.relative(root, file).split(path.sep).join('/');
  const visible = (file: string) => !relative(file).startsWith('..') && !relative(file).split('/').includes('node_modules') ? inContext(relative(file)) : true;
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.build.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('tsconfig.build.json does not parse');
  const host: ts.ModuleResolutionHost = {
    fileExists: (file) => visible(file) && ts.sys.fileExists(file),
    readFile: (file) => (visible(file) ? ts.sys.readFile(file) : undefined),
    directoryExists: (dir) => ts.sys.directoryExists!(dir),
    realpath: ts.sys.realpath,
  };
  const problems: string[] = [];
  const seen = new Set<string>();
  const queue = config.fileNames.filter((file) => inContext(relative(file)));
  expect(queue.length, 'compiled files in the build context').to.be.greaterThan(50);
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      // Packages are installed by npm ci in the build stage; relative and `#alias` imports (package.json
      // `imports`, resolved by TypeScript as the build resolves them) must be in the context.
      if (!fileName.startsWith('.') && !fileName.startsWith('#')) continue;
      const resolved = ts.resolveModuleName(fileName, file, config.options, host).resolvedModule?.resolvedFileName;
      if (!resolved) problems.push(`${relative(file)} imports ${fileName}, which is not in the build context (.dockerignore)`);
      else if (/\.[cm]?ts$/.test(resolved) && !resolved.endsWith('.d.ts')) queue.push(resolved);
    }
  }
  return problems.sort();
}

const sourceFiles = (dir: string): string[] => readdirSync(dir).flatMap((entry) => {
  const full = path.join(dir, entry);
  if (statSync(full).isDirectory()) return entry === 'test' || entry === 'cli' ? [] : sourceFiles(full);
  return entry.endsWith('.ts') && !entry.endsWith('.spec.ts') ? [full] : [];
});

describe('deploy: Dockerfile (static checks)', () => {
  const dockerfileText = read('Dockerfile');
  const expectations = () => ({
    nodeVersion: packageJson.devDependencies.node!,
    targets: TARGETS.map((name) => ({
      name, port: describeConfig(PLATFORM_SERVICES.find((s) => s.deployment === name)!.schema as ConfigSchema).find((row) => row.property === 'http.port')!.default,
    })),
  });

  it('passes the Dockerfile policy (checkDockerfile), with the uid the Deployments run as', () => {
    expect(checkDockerfile(dockerfileText, expectations())).to.deep.equal([]);
    const deployments = renderKustomization(path.join(root, 'deploy/base')).filter((o) => o.kind === 'Deployment');
    for (const target of TARGETS) {
      const uid = effective(stageChain(dockerfile.stages, target), 'USER')!.args.split(':')[0];
      const deployment = deployments.find((d) => d.metadata.name === target) as { spec: { template: { spec: { securityContext: { runAsUser: number } } } } } | undefined;
      expect(String(deployment?.spec.template.spec.securityContext.runAsUser), target).to.equal(uid);
    }
  });

  describe('a deliberately broken Dockerfile fails the policy', () => {
    const broken = (from: string | RegExp, to: string) => {
      const text = dockerfileText.replace(from, to);
      expect(text, `mutation ${String(from)} applied`).to.not.equal(dockerfileText);
      return checkDockerfile(text, expectations());
    };
    const expectProblem = (problems: string[], ...parts: string[]) =>
      expect(problems.some((p) => parts.every((part) => p.includes(part))), `no problem with ${parts.join(' & ')} in:\n${problems.join('\n')}`).to.equal(true);

    it('another Node major or an image that is not node', () => {
      expectProblem(broken(/ARG NODE_VERSION=.*/, 'ARG NODE_VERSION=22.12.0'), 'is not Node 24');
      expectProblem(broken('FROM node:${NODE_VERSION}-bookworm-slim AS runtime', 'FROM gcr.io/distroless/nodejs24 AS runtime'), 'stage runtime', 'not an official node');
    });

    it('root or a missing USER', () => {
      expectProblem(broken('USER 10001:10001', 'USER root'), 'target validation: USER must be a non-root numeric uid, got root');
      expectProblem(broken('USER 10001:10001', 'USER 0'), 'target tenant: USER must be a non-root');
      expectProblem(broken(/USER 10001:10001\n/, ''), 'target admin-gateway', 'none (root)');
    });

    it('dev dependencies in the runtime', () => {
      expectProblem(broken('RUN npm ci --omit=dev --ignore-scripts', 'RUN npm ci --ignore-scripts'), 'node_modules come from stage prod-deps');
      expectProblem(broken('COPY --from=prod-deps /app/node_modules', 'COPY --from=build /app/node_modules'), 'node_modules come from stage build');
      expectProblem(broken('COPY package.json ./\nUSER', 'RUN npm install typescript\nCOPY package.json ./\nUSER'), 'stage runtime installs dev dependencies');
    });

    it('a CMD that does not run node on the service entry point, a wrong port, no build', () => {
      expectProblem(broken('CMD ["node", "dist/services/tenant/src/main.js"]', 'CMD ["npm", "run", "start:tenant"]'), 'target tenant: CMD must be');
      expectProblem(broken('CMD ["node", "dist/services/validation/src/main.js"]', 'CMD node dist/services/validation/src/main.js'), 'target validation: CMD must be');
      expectProblem(broken('EXPOSE 8080', 'EXPOSE 80'), 'target admin-gateway: EXPOSE 80 differs from the service port 8080');
      expectProblem(broken('RUN npm run build', 'RUN npx tsc'), 'does not run npm run build');
      expectProblem(broken(/FROM runtime AS tenant[\s\S]*?main\.js"\]\n/, ''), 'no target tenant');
    });
  });

  it('the build stage runs the same `npm ci` and `npm run build` as the tests, and the build script is tsc over tsconfig.build.json', () => {
    const build = stage('build');
    expect(runs(build).some((r) => /^npm ci(\s|$)/.test(r) && !r.includes('--omit'))).to.equal(true);
    expect(runs(build)).to.include('npm run build');
    // tsc, then dist/ gets the package.json that maps the import aliases to the compiled files.
    expect(packageJson.scripts.build).to.equal('tsc -p tsconfig.build.json && node scripts/build/write-dist-package.mjs');
    expect(buildContext(read('.dockerignore'))('scripts/build/write-dist-package.mjs'), 'the dist package.json writer is in the build context').to.equal(true);
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

  it('every file the image build compiles finds its relative imports in the build context (.dockerignore), so `npm run build` works there too', () => {
    expect(buildContextImportProblems(read('.dockerignore'))).to.deep.equal([]);
  });

  it('a .dockerignore that leaves out an imported file fails the build-context check, like the image build would', () => {
    const problems = buildContextImportProblems(`${read('.dockerignore')}\ncontracts/schemas\n`);
    expect(problems.some((p) => p.startsWith('contracts/catalog.ts imports ./schemas/') && p.endsWith('not in the build context (.dockerignore)')), problems.join('\n')).to.equal(true);
    const context = buildContext(read('.dockerignore'));
    expect(['package.json', 'adapters/http/app.ts', 'scripts/start-all.ts'].filter((f) => !context(f))).to.deep.equal([]);
    expect(['test/readme.spec.ts', 'services/tenant/test/x.spec.ts', 'scripts/bench/x.ts', 'node_modules/x/index.js', 'dist/x.js', '.env'].filter(context)).to.deep.equal([]);
  });

  it('the validation image holds the embedded IG packages where the compiled service finds them', async () => {
    const folder = 'services/validation/artifacts';
    const manifest = await readEmbeddedManifest(path.join(root, folder, 'packages'));
    const context = buildContext(read('.dockerignore'));
    const shipped = ['packages/manifest.json', ...manifest.packages.map((p) => `packages/${p.file}`), 'licenses/Apache-2.0.txt', 'licenses/CC0-1.0.txt'];
    expect(shipped.filter((file) => !context(`${folder}/${file}`)), 'left out of the build context').to.deep.equal([]);
    // Copied from the build stage (which copies services/ from the context) into the validation target, under WORKDIR /app.
    const validation = stageChain(dockerfile.stages, 'validation');
    expect(copies(stage('build')).some((args) => !fromStage(args) && args[0] === 'services' && args.at(-1) === './services')).to.equal(true);
    expect(effective(validation, 'WORKDIR')?.args).to.equal('/app');
    const copied = validation.flatMap(copies).find((args) => fromStage(args) === 'build' && args.includes(`/app/${folder}`));
    expect(copied?.at(-1), 'COPY --from=build /app/services/validation/artifacts <destination>').to.equal(`./${folder}`);
    // From /app/dist/... (the image's compiled service) the lookup walks up to /app/services/validation/artifacts/packages.
    const image = await mkdtemp(path.join(tmpdir(), 'image-app-'));
    try {
      await mkdir(path.join(image, folder, 'packages'), { recursive: true });
      await writeFile(path.join(image, folder, 'packages', 'manifest.json'), '{"packages": []}');
      expect(embeddedPackagesDirectory(path.join(image, 'dist', 'services', 'validation', 'src', 'adapters', 'artifacts'))).to.equal(path.join(image, folder, 'packages'));
    } finally {
      await rm(image, { recursive: true, force: true });
    }
    for (const other of ['tenant', 'admin-gateway']) {
      expect(stageChain(dockerfile.stages, other).flatMap(copies).some((args) => args.includes(`/app/${folder}`)), other).to.equal(false);
    }
  });

  for (const target of TARGETS) {
    describe(`target ${target}`, () => {
      const chain = stageChain(dockerfile.stages, target);

      it('its CMD entry dist/services/<service>/src/main.js is what tsconfig.build.json emits from an existing source file', function () {
        const cmd = JSON.parse(effective(chain, 'CMD')!.args) as string[];
        expect(cmd).to.deep.equal(['node', `dist/services/${target}/src/main.js`]);

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

  /** `node dist/<x>.js` commands of the Jobs in the production manifests (they run a service image with another entry point). */
  const jobCommands = () => renderKustomization(path.join(root, 'deploy/overlays/production'))
    .filter((object) => object.kind === 'Job')
    .flatMap((job) => (specOf<WorkloadSpec>(job).template?.spec?.containers ?? []).map((c) => ({ job: job.metadata.name, image: c.image ?? '', command: c.command ?? [] })));

  it('every Job runs `node dist/<x>.js` of a service image: a file tsconfig.build.json compiles from an existing source in the build context', () => {
    const jobs = jobCommands();
    expect(jobs.map((j) => j.job)).to.include('jetstream-provisioning');
    const build = JSON.parse(read('tsconfig.build.json')) as { exclude: string[] };
    const inContext = buildContext(read('.dockerignore'));
    for (const { job, image, command } of jobs) {
      expect(TARGETS.some((target) => image.includes(`/${target}:`)), `${job} image ${image}`).to.equal(true);
      expect(command[0], job).to.equal('node');
      expect(command[1], job).to.match(/^dist\/.+\.js$/);
      const source = command[1]!.replace(/^dist\//, '').replace(/\.js$/, '.ts');
      expect(existsSync(path.join(root, source)), `${source} exists`).to.equal(true);
      expect(build.exclude.filter((glob) => globToRegExp(glob).test(source)), `${source} excluded by`).to.deep.equal([]);
      expect(inContext(source), `${source} in the build context`).to.equal(true);
    }
  });

  it('the code the images run imports only production dependencies (the runtime stage has no dev dependencies)', () => {
    const dependencies = new Set(Object.keys((JSON.parse(read('package.json')) as { dependencies: Record<string, string> }).dependencies));
    // From each service's entry point (a service whose main.ts is not written yet contributes all its
    // src/ files) and each Job's script.
    const entries = [...TARGETS.flatMap((target) => {
      const main = path.join(root, 'services', target, 'src', 'main.ts');
      return existsSync(main) ? [main] : sourceFiles(path.join(root, 'services', target, 'src'));
    }), ...jobCommands().map(({ command }) => path.join(root, command[1]!.replace(/^dist\//, '').replace(/\.js$/, '.ts')))];
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
