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
