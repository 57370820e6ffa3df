/**
 * The process supervisor behind `npm start` (scripts/start-all.ts): runs each service as a child
 * process and stops them all together.
 *
 * - SIGTERM, SIGINT or SIGHUP to the supervisor is passed on to every service, so each drains; a
 *   service still running 15 s later is killed.
 * - If one service dies, the others are stopped too and the exit code says so: a half-running
 *   platform is worse than a stopped one for an operator to notice.
 * - If the supervisor's parent goes away (npm killed, the shell between npm and the supervisor ended
 *   by SIGTERM), the services are stopped as well: an orphaned supervisor would otherwise keep every
 *   service running with no one to stop them. The `start` script also `exec`s the supervisor, so
 *   npm's forwarded SIGTERM reaches it instead of ending a `sh -c` that does not pass signals on.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface SupervisedService {
  readonly name: string;
  /** Arguments of the Node runtime running the supervisor (`process.execPath`). */
  readonly args: readonly string[];
}

export interface SupervisorOptions {
  readonly env: NodeJS.ProcessEnv;
  /** Time a service has to drain after the signal before it is killed; default 15 s. */
  readonly killAfterMs?: number;
  /** How often the parent process is checked; default 1 s. */
  readonly parentCheckMs?: number;
  readonly log?: (line: string) => void;
}

export function superviseServices(services: readonly SupervisedService[], options: SupervisorOptions): void {
  const log = options.log ?? ((line: string) => process.stderr.write(`[start-all] ${line}\n`));
  const children = new Map<string, ChildProcess>();
  let stopping = false;
  let exitCode = 0;

  function stopAll(signal: NodeJS.Signals): void {
    if (stopping) return;
    stopping = true;
    for (const child of children.values()) child.kill(signal);
    // A service that ignores the signal past its grace time is killed.
    setTimeout(() => { for (const child of children.values()) child.kill('SIGKILL'); }, options.killAfterMs ?? 15_000).unref();
  }

  for (const service of services) {
    const child = spawn(process.execPath, [...service.args], { stdio: 'inherit', env: options.env });
    children.set(service.name, child);
    child.on('exit', (code, signal) => {
      children.delete(service.name);
      if (!stopping) {
        log(`${service.name} exited (${signal ?? code}); stopping the others`);
        exitCode = code || 1;
        stopAll('SIGTERM');
      }
      if (children.size === 0) process.exit(exitCode);
    });
  }

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => stopAll(signal === 'SIGHUP' ? 'SIGTERM' : signal));

  // process.ppid is read anew each time: it changes when the parent dies and the supervisor is re-parented.
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    log('the process that started the services is gone; stopping them');
    stopAll('SIGTERM');
  }, options.parentCheckMs ?? 1_000);
  watch.unref();
}
