/**
 * `npm start`: runs the validation service, the tenant service and the admin gateway as three child
 * processes (each can also run alone: `npm run start:validation` etc.). SIGTERM/SIGINT are passed on
 * so every service drains; if one service dies, the others are stopped too and the exit code says so,
 * because a half-running platform is worse than a stopped one for an operator to notice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const distRoot = path.resolve(here, '..');

const services = [
  { name: 'validation', entry: 'services/validation/src/main.js' },
  { name: 'tenant', entry: 'services/tenant/src/main.js' },
  { name: 'admin-gateway', entry: 'services/admin-gateway/src/main.js' },
];

const children = new Map<string, ChildProcess>();
let stopping = false;
let exitCode = 0;

function stopAll(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  for (const child of children.values()) child.kill(signal);
  // A service that ignores the signal past its grace time is killed.
  setTimeout(() => { for (const child of children.values()) child.kill('SIGKILL'); }, 15_000).unref();
}

for (const service of services) {
  const child = spawn(process.execPath, [path.join(distRoot, service.entry)], { stdio: 'inherit', env: process.env });
  children.set(service.name, child);
  child.on('exit', (code, signal) => {
    children.delete(service.name);
    if (!stopping) {
      process.stderr.write(`[start-all] ${service.name} exited (${signal ?? code}); stopping the others\n`);
      exitCode = code || 1;
      stopAll('SIGTERM');
    }
    if (children.size === 0) process.exit(exitCode);
  });
}

process.on('SIGTERM', () => stopAll('SIGTERM'));
process.on('SIGINT', () => stopAll('SIGINT'));
