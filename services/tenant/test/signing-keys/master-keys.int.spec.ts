import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { decodeJwt } from 'jose';
import { ConfigError } from '#adapters/config/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { openDatabase } from '#adapters/persistence/index.js';
import { projectRoot } from '#test-support/shared-dir.js';
import { main as reencryptCommand } from '#tenant/cli/reencrypt-signing-keys.js';
import { tenantDatabaseEntities, tenantServiceMigrations } from '#tenant/database-schema.js';
import { keyringFromConfig } from '#tenant/signing-keys/adapters/config.js';
import { masterKeyFingerprint } from '#tenant/signing-keys/domain/master-keyring.js';
import { dropDatabase, openSigningKeyHarness, PG, TEST_MASTER_KEY, TEST_MASTER_KEY_ID, type SigningKeyHarness } from './support.js';
import type { AuditableEventOccurred } from '#contracts/types.js';

const TOKEN_URL = 'https://ehr.example.org/oauth2/token';
const connections = [{ name: 'ehr', clientId: 'link-mk', tokenUrl: TOKEN_URL }];
const newKey = randomBytes(32).toString('base64');
const NEW_ID = '2026-07';
const ring = (...entries: Array<[string, string]>) => entries.map(([id, base64]) => ({ id, base64 }));

/** The command's last line, as the tests read it. */
interface ReencryptSummary {
  failed: { kid: string; masterKeyId: string; reason: string }[];
  [member: string]: unknown;
}

/** Captures what the command prints. */
async function runCommand(args: string[], env: Record<string, string>): Promise<{ code: number; lines: string[]; summary: ReencryptSummary }> {
  const written: string[] = [];
  const original = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  let code: number;
  try {
    code = await reencryptCommand(args, { LOG_LEVEL: 'silent', ...env });
  } finally {
    process.stdout.write = original;
  }
  const lines = written.join('').trim().split('\n');
  return { code, lines, summary: JSON.parse(lines.at(-1)!) as ReencryptSummary };
}

describe('signing keys: master keyring, start-up check and re-encryption (real PostgreSQL)', function () {
  this.timeout(60_000);
  let h: SigningKeyHarness;
  const dbUrl = () => `postgres://${PG.user}@${PG.host}:${PG.port}/${h.dbName}`;
  const masterKeyIds = async () => (await h.sql<{ kid: string; master_key_id: string }>('select "kid", "master_key_id" from "signing_key" order by "created_at", "kid"'));

  before(async () => {
    h = await openSigningKeyHarness('master_keys');
  });
  after(async () => {
    await h?.close();
  });
  beforeEach(async () => {
    await h.sql('truncate "signing_key", "facility", "outbox_message" cascade');
  });

  it('the start-up check opens every stored key and names the master keys that are missing or wrong', async () => {
    const a = await h.keys.service.create({ algorithm: 'ES256' });
    const b = await h.keys.service.create({ algorithm: 'EdDSA' });
    expect(await h.keys.checkMasterKeys()).to.deep.equal({ checked: 2, byMasterKey: { [TEST_MASTER_KEY_ID]: 2 } });

    const check = async (config: Parameters<SigningKeyHarness['withModule']>[0]) => {
      const other = await h.withModule(config);
      try {
        await other.keys.checkMasterKeys();
        return undefined;
      } catch (error) {
        return error as ConfigError;
      } finally {
        await other.close();
      }
    };
    const missing = await check({ signingKeysMasterKeys: ring([NEW_ID, newKey]) });
    expect(missing).to.be.instanceOf(ConfigError);
    expect(missing!.message).to.contain('signing-keys.master-keys (SIGNING_KEYS_MASTER_KEYS) cannot decrypt 2 stored signing key(s) (configured: 2026-07)')
      .and.contain(`missing master key "${TEST_MASTER_KEY_ID}": "${TEST_MASTER_KEY_ID}" (2 keys: ${a.kid}, ${b.kid})`)
      .and.not.contain(newKey).and.not.contain(TEST_MASTER_KEY);
    const none = await check({ signingKeysMasterKeys: undefined });
    expect(none!.message).to.contain('no master key is configured').and.contain(`missing master key "${TEST_MASTER_KEY_ID}"`);
    const wrong = await check({ signingKeysMasterKeys: ring([TEST_MASTER_KEY_ID, newKey]) });
    expect(wrong!.message).to.contain(`configured master key "${TEST_MASTER_KEY_ID}" does not decrypt what`);
    expect(await check({ signingKeysMasterKeys: ring([TEST_MASTER_KEY_ID, TEST_MASTER_KEY], [NEW_ID, newKey]), signingKeysCurrentMasterKey: NEW_ID })).to.equal(undefined);
  });

  it('the service process refuses to start (exit code 78) when a stored key\'s master key is not configured, naming it', async () => {
    await h.keys.service.create({ algorithm: 'ES256' });
    const dir = await mkdtemp(path.join(tmpdir(), 'tenant-mk-'));
    try {
      const child = spawn(path.join(projectRoot, 'node_modules/.bin/tsx'), ['services/tenant/src/main.ts'], {
        cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env, AUTH_MODE: 'none', HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', DB_URL: dbUrl(), SCHEDULER_ENABLED: 'false', LOG_LEVEL: 'warn',
          SIGNING_KEYS_MASTER_KEYS: `${NEW_ID}:${newKey}`, SIGNING_KEYS_JWKS_PATH: path.join(dir, 'jwks.json'),
        },
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
      child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
      const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      clearTimeout(timer);
      expect(code, output).to.equal(78);
      expect(output).to.contain(`missing master key "${TEST_MASTER_KEY_ID}"`).and.not.contain(newKey);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('re-encrypts every key under the current master key: counts, idempotent, resumable after a key it could not open, old master key then removable', async () => {
    for (const algorithm of ['ES256', 'RS384', 'EdDSA'] as const) await h.keys.service.create({ algorithm });
    const signer = await h.keys.service.create({ algorithm: 'ES384' });
    await h.addFacility('F-mk', { kid: signer.kid, ehrConnections: connections });
    // One key under a master key nobody configured yet (e.g. written by an instance with a newer keyring).
    const orphanKey = randomBytes(32).toString('base64');
    const orphanModule = await h.withModule({ signingKeysMasterKeys: ring(['orphan', orphanKey]) });
    const orphan = await orphanModule.keys.service.create({ algorithm: 'ES256' });
    await orphanModule.close();

    const env = {
      DB_URL: dbUrl(), SIGNING_KEYS_MASTER_KEYS: `${TEST_MASTER_KEY_ID}:${TEST_MASTER_KEY},${NEW_ID}:${newKey}`, SIGNING_KEYS_CURRENT_MASTER_KEY: NEW_ID,
    };
    const dry = await runCommand(['--dry-run'], env);
    expect(dry.summary).to.include({ total: 5, reencrypted: 0, alreadyCurrent: 0, vanished: 0, dryRun: true });
    expect(dry.lines.filter((line) => line.endsWith(`would-reencrypt (from ${TEST_MASTER_KEY_ID})`))).to.have.length(4);
    expect((await masterKeyIds()).every((row) => row.master_key_id !== NEW_ID)).to.equal(true);

    const first = await runCommand([], env);
    expect(first.code).to.equal(1);
    expect(first.summary).to.include({ currentMasterKey: NEW_ID, total: 5, reencrypted: 4, alreadyCurrent: 0, vanished: 0 });
    expect(first.summary.failed).to.deep.equal([{ kid: orphan.kid, masterKeyId: 'orphan', reason: first.summary.failed[0]?.reason }]);
    expect(first.summary.failed[0]?.reason).to.contain('"orphan", which is not configured');
    expect((await masterKeyIds()).filter((row) => row.master_key_id === NEW_ID)).to.have.length(4);
    const audits = await h.sql<{ payload: AuditableEventOccurred }>(`select "payload" from "outbox_message" where "payload"->>'notes' like 'Re-encrypted%'`);
    expect(audits).to.have.length(4);
    expect(audits[0]!.payload.propertyChanges).to.deep.equal([{ propertyName: 'masterKeyId', initialPropertyValue: TEST_MASTER_KEY_ID, newPropertyValue: NEW_ID }]);

    // Resumed with the missing master key added: only that key is left to do.
    const resumed = await runCommand([], { ...env, SIGNING_KEYS_MASTER_KEYS: `${env.SIGNING_KEYS_MASTER_KEYS},orphan:${orphanKey}` });
    expect(resumed.code).to.equal(0);
    expect(resumed.summary).to.include({ total: 5, reencrypted: 1, alreadyCurrent: 4, vanished: 0 });
    expect(resumed.lines[0]).to.equal(`${orphan.kid}: reencrypted (from orphan)`);
    const again = await runCommand([], env);
    expect(again.summary).to.include({ total: 5, reencrypted: 0, alreadyCurrent: 5 });
    expect(again.summary.failed).to.deep.equal([]);

    // The old master keys can go: an instance with only the new one starts and signs.
    const onlyNew = await h.withModule({ signingKeysMasterKeys: ring([NEW_ID, newKey]) });
    try {
      expect(await onlyNew.keys.checkMasterKeys()).to.deep.equal({ checked: 5, byMasterKey: { [NEW_ID]: 5 } });
      const signed = await onlyNew.keys.service.clientAssertion('F-mk');
      expect(signed.kid).to.equal(signer.kid);
      expect(decodeJwt(signed.assertion).aud).to.equal(TOKEN_URL);
    } finally {
      await onlyNew.close();
    }
  });

  it('concurrent runs re-encrypt each key once', async () => {
    for (let i = 0; i < 6; i++) await h.keys.service.create({ algorithm: 'ES256' });
    const masterKeys = keyringFromConfig({ signingKeysMasterKeys: ring([TEST_MASTER_KEY_ID, TEST_MASTER_KEY], [NEW_ID, newKey]), signingKeysCurrentMasterKey: NEW_ID })!;
    const { reencryptPrivateKeys } = await import('#tenant/signing-keys/application/reencryption.js');
    const { MikroSigningKeyStore } = await import('#tenant/signing-keys/adapters/persistence.js');
    const store = new MikroSigningKeyStore({ orm: h.db.orm, catalog: h.catalog });
    const reports = await Promise.all([reencryptPrivateKeys(store, masterKeys), reencryptPrivateKeys(store, masterKeys)]);
    expect(reports.map((report) => report.reencrypted).reduce((sum, n) => sum + n, 0)).to.equal(6);
    expect(reports.map((report) => report.alreadyCurrent + report.reencrypted)).to.deep.equal([6, 6]);
    expect((await masterKeyIds()).every((row) => row.master_key_id === NEW_ID)).to.equal(true);
  });
});

describe('signing keys: rows written before the keyring', function () {
  this.timeout(30_000);

  it('the migration records the legacy master key\'s fingerprint, so that key keeps opening them under any id, and re-encryption moves them', async () => {
    const dbName = `test_signing_keys_legacy_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
    const beforeKeyring = tenantServiceMigrations.filter((migration) => migration.name !== 'Migration20261201020000_signing_key_master_key_id');
    const legacyKey = randomBytes(32).toString('base64');
    const legacy = keyringFromConfig({ signingKeysMasterKey: legacyKey })!;
    const kid = '0b9e8f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
    const sealed = legacy.seal(JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'x', d: 'd' }), kid);
    try {
      const old = await openDatabase({ ...PG, dbName, poolMax: 2, entities: tenantDatabaseEntities, migrations: beforeKeyring, logger: silentLogger() });
      await old.orm.em.fork().execute(
        `insert into "signing_key" ("kid", "algorithm", "status", "is_primary", "created_at", "status_changed_at", "public_jwk", "private_key_envelope")
         values (?, 'EdDSA', 'active', false, now(), now(), '{}'::jsonb, ?)`, [kid, sealed.envelope]);
      await old.close();

      const current = await openDatabase({ ...PG, dbName, poolMax: 2, entities: tenantDatabaseEntities, migrations: tenantServiceMigrations, logger: silentLogger() });
      try {
        const [row] = await current.orm.em.fork().execute('select "master_key_id" from "signing_key" where "kid" = ?', [kid]);
        expect(row?.master_key_id).to.equal(masterKeyFingerprint(Buffer.from(legacyKey, 'base64')));
      } finally {
        await current.close();
      }
      const moved = await runCommand([], {
        DB_URL: `postgres://${PG.user}@${PG.host}:${PG.port}/${dbName}`, SIGNING_KEYS_MASTER_KEYS: `initial:${legacyKey},${NEW_ID}:${newKey}`, SIGNING_KEYS_CURRENT_MASTER_KEY: NEW_ID,
      });
      expect(moved.summary).to.include({ total: 1, reencrypted: 1 });
      expect(moved.lines[0]).to.equal(`${kid}: reencrypted (from ${masterKeyFingerprint(Buffer.from(legacyKey, 'base64'))})`);
    } finally {
      await dropDatabase(dbName);
    }
  });
});
