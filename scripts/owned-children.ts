/**
 * Child processes a long-running script starts (benchmarks, scale-out, the outage run) end with it:
 * SIGINT, SIGTERM or SIGHUP to the script sends SIGTERM to each child it still owns, waits for them
 * (SIGKILL after the grace time), then exits as the signal says (128 + its number). Without this, a
 * Ctrl-C or a SIGTERM to `npm run bench:flow` left service processes, NATS servers and load
 * generators running.
 *
 *   const child = ownChild(spawn(...));
 */
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

const owned = new Set<ChildProcess>();
const GRACE_MS = 10_000;
let installed = false;

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

async function stopOwnedChildren(signal: NodeJS.Signals): Promise<never> {
  const children = [...owned].filter(running);
  for (const child of children) child.kill('SIGTERM');
  const kill = setTimeout(() => { for (const child of children) if (running(child)) child.kill('SIGKILL'); }, GRACE_MS);
  await Promise.all(children.map((child) => (running(child) ? new Promise((resolve) => child.once('exit', resolve)) : undefined)));
  clearTimeout(kill);
  process.exit(128 + (constants.signals[signal] ?? 15));
}

/** Registers `child` to be stopped when this process is told to stop; returns it. */
export function ownChild<T extends ChildProcess>(child: T): T {
  owned.add(child);
  child.once('exit', () => owned.delete(child));
  if (!installed) {
    installed = true;
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => void stopOwnedChildren(signal));
  }
  return child;
}
