import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

// The configuration check of a real start-up, in child processes (config.spec.ts has the rest).
describe('adapters/config', () => {
  describe('start-up (child processes)', () => {
    const fixture = fileURLToPath(new URL('./fixtures/start-with-config.ts', import.meta.url));
    const run = (env: Record<string, string>) =>
      spawnSync('npx', ['tsx', fixture], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 15_000 });

    it('stops with exit code 78 and a message naming the property and its variable', () => {
      const result = run({ CACHE_TYPE: 'redis2', HTTP_PORT: 'eighty' });
      expect(result.status).to.equal(78);
      expect(result.stderr).to.contain('cache.type (CACHE_TYPE) must be one of none, memory, distributed; got "redis2"');
      expect(result.stderr).to.contain('http.port (HTTP_PORT)');
      expect(result.stdout).not.to.contain('started');
    });

    it('stops with exit code 78 when a connection URL carries a password, without printing it', () => {
      const result = run({ CACHE_TYPE: 'none', DB_URL: 'postgres://fixture:hunter2@db.example.org/fixture' });
      expect(result.status).to.equal(78);
      expect(result.stderr).to.contain('db.url (DB_URL) must not contain a password');
      expect(result.stderr + result.stdout).not.to.contain('hunter2');
    });

    it('starts when the configuration is valid', () => {
      const result = run({ CACHE_TYPE: 'none', HTTP_PORT: '1234' });
      expect(result.status).to.equal(0);
      expect(result.stdout).to.contain('started with cache none on port 1234');
    });
  });
});
