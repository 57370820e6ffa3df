/**
 * `npm start`: runs the validation service, the tenant service and the admin gateway as three child
 * processes (each can also run alone: `npm run start:validation` etc.). SIGTERM/SIGINT are passed on
 * so every service drains; if one service dies, the others are stopped too and the exit code says so,
 * because a half-running platform is worse than a stopped one for an operator to notice.
 *
 * It is the local trial (README: `AUTH_MODE=none npm start`), so the services listen on 127.0.0.1
 * unless HTTP_HOST says otherwise: with authentication off every caller is an administrator, and the
 * services refuse to start with auth.mode none on anything but loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const distRoot = path.resolve(here, '..');

const services = [
  { name: 'validation', entry: 'services/validation/src/main.js' },
  { name: 'tenant', entry: 'services/tenant/src/main.js' },
  { name: 'admin-gateway', entry: 'services/admin-gateway/src/main.js' },
];

/** The services' environment: the operator's, listening on loopback unless HTTP_HOST names an interface. */
export function serviceEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, HTTP_HOST: env.HTTP_HOST?.trim() || '127.0.0.1' };
}

function startAll(): void {
  const env = serviceEnvironment(process.env);
  process.stderr.write(`[start-all] the services listen on ${env.HTTP_HOST} (gateway :8080, validation :8081, tenant :8082)\n`);
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
    const child = spawn(process.execPath, [path.join(distRoot, service.entry)], { stdio: 'inherit', env });
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
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) startAll();
