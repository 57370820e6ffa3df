/**
 * `npm start`: runs the validation service, the tenant service and the admin gateway as three child
 * processes (each can also run alone: `npm run start:validation` etc.) under the supervisor of
 * scripts/supervisor.ts: SIGTERM/SIGINT/SIGHUP stop them all, one dying stops the others, and so does
 * the end of the process that started them.
 *
 * It is the local trial (README: `AUTH_MODE=none npm start`), so the services listen on 127.0.0.1
 * unless HTTP_HOST says otherwise: with authentication off every caller is an administrator, and the
 * services refuse to start with auth.mode none on anything but loopback. Without a master key of the
 * operator's, it generates a local-only one (scripts/local-master-key.ts) so signing keys and the JWKS
 * work in the trial.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { localTrialRoot, withLocalMasterKey } from './local-master-key.js';
import { superviseServices } from './supervisor.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const distRoot = path.resolve(here, '..');

const services = [
  { name: 'validation', entry: 'services/validation/src/main.js' },
  { name: 'tenant', entry: 'services/tenant/src/main.js' },
  { name: 'admin-gateway', entry: 'services/admin-gateway/src/main.js' },
];

/** The services' environment: the operator's, listening on loopback unless HTTP_HOST names an interface. */
export function serviceEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, HTTP_HOST: env.HTTP_HOST?.trim() || '127.0.0.1', NATS_STREAM_LIMITS: env.NATS_STREAM_LIMITS?.trim() || 'local' };
}

function startAll(): void {
  const { env, note } = withLocalMasterKey(serviceEnvironment(process.env), localTrialRoot(process.cwd(), process.env));
  if (note) process.stderr.write(`[start-all] ${note}\n`);
  process.stderr.write(`[start-all] the services listen on ${env.HTTP_HOST} (gateway :8080, validation :8081, tenant :8082)\n`);
  superviseServices(services.map((service) => ({ name: service.name, args: [path.join(distRoot, service.entry)] })), { env });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) startAll();
