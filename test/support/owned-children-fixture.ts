/**
 * For test/owned-children.int.spec.ts: a script that starts two long-running children through ownChild
 * and writes their pids to stdout, then waits to be stopped.
 */
import { spawn } from 'node:child_process';
import { ownChild } from '#scripts/owned-children.js';

const sleeper = () => ownChild(spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }));
const children = [sleeper(), sleeper()];
process.stdout.write(`${children.map((c) => c.pid).join(' ')}\n`);
setInterval(() => undefined, 1000);
