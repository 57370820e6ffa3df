/**
 * `npm start`'s supervisor with three stand-in services instead of the real ones (test/start-all.int.spec.ts):
 * each writes its pid to a file in SUPERVISOR_PID_DIR and runs until it is signalled.
 */
import { superviseServices } from '#scripts/supervisor.js';

const pidDir = process.env.SUPERVISOR_PID_DIR;
if (!pidDir) throw new Error('SUPERVISOR_PID_DIR is not set');

const standIn = (name: string) => [
  '-e',
  `require('node:fs').writeFileSync(require('node:path').join(${JSON.stringify(pidDir)}, ${JSON.stringify(name)}), String(process.pid));`
  + 'setInterval(() => {}, 1000);',
];

superviseServices(['validation', 'tenant', 'admin-gateway'].map((name) => ({ name, args: standIn(name) })), {
  env: process.env, parentCheckMs: 200, log: () => {},
});
