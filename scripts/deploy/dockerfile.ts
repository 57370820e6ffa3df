/**
 * A small Dockerfile reader for the static checks in test/deploy (there is no Docker engine on the
 * CI machine): instructions with line continuations joined and comments dropped, grouped into
 * stages, with `ARG` defaults declared before the first FROM substituted into FROM lines.
 */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

export interface Stage {
  /** `AS` name, or the index as a string when unnamed. */
  readonly name: string;
  /** The image or earlier stage it starts from, ARGs substituted. */
  readonly from: string;
  readonly instructions: readonly Instruction[];
}

export function parseInstructions(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i]!;
    if (/^\s*(#|$)/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      line = line.replace(/\\\s*$/, ' ');
      i++;
      if (!/^\s*#/.test(lines[i]!)) line += lines[i]!.trim();
    }
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!match) throw new Error(`Dockerfile line ${start + 1}: cannot read "${line}"`);
    instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim(), line: start + 1 });
  }
  return instructions;
}

export function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const args: Record<string, string> = {};
  const stages: { name: string; from: string; instructions: Instruction[] }[] = [];
  for (const instruction of parseInstructions(text)) {
    if (instruction.keyword === 'ARG' && stages.length === 0) {
      const [name, value] = instruction.args.split('=', 2);
      args[name!.trim()] = (value ?? '').trim();
      continue;
    }
    if (instruction.keyword === 'FROM') {
      const parts = instruction.args.split(/\s+/).filter((part) => !part.startsWith('--'));
      const image = parts[0]!.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name: string) => args[name] ?? '');
      const as = parts.findIndex((part) => part.toUpperCase() === 'AS');
      stages.push({ name: as >= 0 ? parts[as + 1]! : String(stages.length), from: image, instructions: [] });
      continue;
    }
    if (stages.length === 0) throw new Error(`Dockerfile line ${instruction.line}: ${instruction.keyword} before FROM`);
    stages[stages.length - 1]!.instructions.push(instruction);
  }
  return { args, stages };
}

/** The stage and the stages it is built on, nearest first (`validation` → `runtime`). */
export function stageChain(stages: readonly Stage[], name: string): Stage[] {
  const chain: Stage[] = [];
  let current = stages.find((stage) => stage.name === name);
  while (current && !chain.includes(current)) {
    chain.push(current);
    const parent: string = current.from;
    current = stages.find((stage) => stage.name === parent);
  }
  return chain;
}

/** The last value of an instruction along a stage chain (USER, CMD ...), or undefined. */
export function effective(chain: readonly Stage[], keyword: string): Instruction | undefined {
  for (const stage of chain) {
    const found = [...stage.instructions].reverse().find((instruction) => instruction.keyword === keyword);
    if (found) return found;
  }
  return undefined;
}

export interface DockerfileExpectations {
  /** Exact Node version of the base images (the `node` devDependency). */
  readonly nodeVersion: string;
  /** Targets and the port each service listens on. */
  readonly targets: ReadonlyArray<{ readonly name: string; readonly port: string }>;
  /** Name of the stage that compiles (default `build`). */
  readonly buildStage?: string;
}

const runsOf = (stage: Stage) => stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
const copiesOf = (stage: Stage) => stage.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args.split(/\s+/));
const copySource = (args: readonly string[]) => args.find((a) => a.startsWith('--from='))?.slice('--from='.length);
const installsDev = (run: string) => /\bnpm\s+(install|i|add)\b/.test(run) || (/\bnpm\s+ci\b/.test(run) && !/--omit[= ]dev\b/.test(run));

/**
 * The policy of our Dockerfile: official node images at the pinned Node 24 version; a build stage
 * running `npm ci` and `npm run build`; each target running as a non-root numeric user with only
 * production dependencies (`npm ci --omit=dev`), dist/ from the build stage, package.json (ESM), and
 * `CMD ["node", "dist/services/<target>/src/main.js"]` exposing the service port. Returns problems.
 */
export function checkDockerfile(text: string, expected: DockerfileExpectations): string[] {
  const problems: string[] = [];
  const { stages } = parseDockerfile(text);
  const stageNamed = (name: string | undefined) => stages.find((s) => s.name === name);
  for (const stage of stages.filter((s) => !stageNamed(s.from))) {
    const match = /^node:(\d+)\.(\d+)\.(\d+)(-[a-z0-9.-]+)?$/.exec(stage.from);
    if (!match) problems.push(`stage ${stage.name}: base image ${stage.from} is not an official node:<major.minor.patch> image`);
    else if (match[1] !== '24') problems.push(`stage ${stage.name}: base image ${stage.from} is not Node 24`);
    else if (`${match[1]}.${match[2]}.${match[3]}` !== expected.nodeVersion) problems.push(`stage ${stage.name}: base image ${stage.from} differs from the pinned node ${expected.nodeVersion}`);
  }
  const build = stageNamed(expected.buildStage ?? 'build');
  if (!build) problems.push(`no stage ${expected.buildStage ?? 'build'}`);
  else {
    if (!runsOf(build).some((r) => /^npm ci\b/.test(r) && !r.includes('--omit'))) problems.push(`stage ${build.name}: does not run npm ci (with dev dependencies, as the tests do)`);
    if (!runsOf(build).includes('npm run build')) problems.push(`stage ${build.name}: does not run npm run build`);
  }
  for (const target of expected.targets) {
    const chain = stageChain(stages, target.name);
    if (chain[0]?.name !== target.name) {
      problems.push(`no target ${target.name}`);
      continue;
    }
    const where = `target ${target.name}`;
    const user = effective(chain, 'USER')?.args;
    if (!user || !/^\d+(:\d+)?$/.test(user) || Number(user.split(':')[0]) === 0) problems.push(`${where}: USER must be a non-root numeric uid, got ${user ?? 'none (root)'}`);
    for (const stage of chain) {
      for (const run of runsOf(stage)) if (installsDev(run)) problems.push(`${where}: stage ${stage.name} installs dev dependencies: RUN ${run}`);
    }
    const copies = chain.flatMap(copiesOf);
    const modules = copies.find((args) => args.some((a) => /(^|\/)node_modules\/?$/.test(a)));
    const modulesFrom = stageNamed(copySource(modules ?? []));
    if (!modules) problems.push(`${where}: no node_modules copied in`);
    else if (!modulesFrom) problems.push(`${where}: node_modules copied from the build context, not from a production-dependency stage`);
    else if (!runsOf(modulesFrom).some((r) => /\bnpm ci\b.*--omit[= ]dev\b/.test(r)) || runsOf(modulesFrom).some(installsDev)) {
      problems.push(`${where}: node_modules come from stage ${modulesFrom.name}, which does not install with npm ci --omit=dev only`);
    }
    const dist = copies.find((args) => args.some((a) => /(^|\/)dist\/?$/.test(a)));
    if (!dist || copySource(dist) !== (expected.buildStage ?? 'build')) problems.push(`${where}: dist/ must be copied from the build stage`);
    if (!copies.some((args) => !copySource(args) && args.includes('package.json'))) problems.push(`${where}: package.json (type module) is not copied next to dist/`);
    const cmdText = effective(chain, 'CMD')?.args;
    let cmd: unknown;
    try { cmd = cmdText ? JSON.parse(cmdText) : undefined; } catch { cmd = undefined; }
    const wanted = ['node', `dist/services/${target.name}/src/main.js`];
    if (JSON.stringify(cmd) !== JSON.stringify(wanted)) problems.push(`${where}: CMD must be ${JSON.stringify(wanted)} (exec form, node directly), got ${cmdText ?? 'none'}`);
    const exposed = effective(chain, 'EXPOSE')?.args;
    if (exposed !== target.port) problems.push(`${where}: EXPOSE ${exposed ?? 'none'} differs from the service port ${target.port}`);
  }
  return problems;
}
