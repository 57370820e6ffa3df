import { expect } from 'chai';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalog } from '#contracts/catalog.js';
import { silentLogger } from '../../observability/logger.js';
import { connectNats } from '../connection.js';
import { provisionStream } from '../provisioning.js';
import { NATS_URL } from './support.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The dead-letter CLI as an operator runs it in a service pod, with only the given NATS variables. */
function runCli(env: Record<string, string>, args: string[]): Promise<{ code: number | null; out: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('NATS_')));
  return new Promise((resolve) => {
    const child = spawn(path.join(root, 'node_modules/.bin/tsx'), [path.join(root, 'adapters/messaging/dead-letter-cli.ts'), ...args], {
      cwd: root, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('exit', (code) => resolve({ code, out }));
  });
}

// The CLI as a process against the local NATS (dead-letter-cli-env.spec.ts reads its variables in-process).
describe('messaging: the dead-letter CLI reads the services\' NATS variables', () => {
  describe('as a process', function () {
    this.timeout(30_000);
    before(async () => {
      // `list` reads the dead-letter stream; make sure it exists, as any service start does.
      const nats = await connectNats({ servers: NATS_URL, name: 'dead-letter-cli-test', logger: silentLogger() });
      try { await provisionStream(nats.jsm, catalog.deadLetterStream); } finally { await nats.close(); }
    });
    // From past the end of the stream: nothing is read, only the connection and the stream info are needed.
    const list = ['list', '--from', String(Number.MAX_SAFE_INTEGER), '--limit', '1'];

    it('connects with NATS_SERVERS (what `kubectl exec deploy/validation -- node dist/…/dead-letter-cli.js` has)', async () => {
      const result = await runCli({ NATS_SERVERS: NATS_URL }, list);
      expect(result.code, result.out).to.equal(0);
      expect(result.out).to.contain('0 dead letter(s)');
    });

    it('connects with the earlier NATS_URL', async () => {
      const result = await runCli({ NATS_URL }, list);
      expect(result.code, result.out).to.equal(0);
    });

    it('stops with exit code 78 on a bad NATS_SERVERS', async () => {
      const result = await runCli({ NATS_SERVERS: 'http://nats:4222' }, list);
      expect(result.code).to.equal(78);
      expect(result.out).to.contain('nats.servers (NATS_SERVERS)');
    });
  });
});
