import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { projectRoot } from '#test-support/shared-dir.js';

const FIXTURE = path.join(projectRoot, 'test/support/owned-children-fixture.ts');
const TSX_LOADER = createRequire(path.join(projectRoot, 'package.json')).resolve('tsx');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Long-running scripts stop the processes they started when told to stop (scripts/owned-children.ts). */
describe('long-running scripts: SIGTERM, SIGINT stop the children they own', function () {
  this.timeout(30_000);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: every owned child stops, then the script exits with 128 + the signal number`, async () => {
      const script = spawn(process.execPath, ['--import', TSX_LOADER, FIXTURE], { stdio: ['ignore', 'pipe', 'inherit'] });
      const pids = await new Promise<number[]>((resolve) => script.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim().split(' ').map(Number))));
      try {
        expect(pids).to.have.length(2);
        expect(pids.every(alive)).to.equal(true);
        script.kill(signal);
        const code = await new Promise<number | null>((resolve) => script.once('exit', (c) => resolve(c)));
        expect(code).to.equal(signal === 'SIGTERM' ? 143 : 130);
        // The children were waited for before the script exited (reaped, so gone at once).
        expect(pids.filter(alive)).to.deep.equal([]);
      } finally {
        for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
      }
    });
  }
});
