import { expect } from 'chai';
import { databaseSettings, loadConfig } from '../../config/index.js';
import { silentLogger } from '../../observability/logger.js';
import { databaseConnection, openDatabase, type Database } from '../database.js';
import { createTestPki, postgresTlsProxy, type TestPki, type TlsProxy } from '#test-support/test-tls.js';
import { PG, Widget, databaseExists, dropTestDatabase, uniqueDbName, widgetMigration } from './test-database.js';

/** The connection the services would open for these environment variables (what service-runtime.ts does). */
function connectionFor(env: Record<string, string>) {
  return databaseConnection(loadConfig(databaseSettings({ name: 'unused-default' }), env));
}

const open = (connection: ReturnType<typeof connectionFor>): Promise<Database> =>
  openDatabase({ ...connection, poolMax: 2, entities: [Widget], migrations: [widgetMigration], logger: silentLogger(), readinessTimeoutMs: 5_000 });

// db.url against the local PostgreSQL, directly and over TLS (database-url.spec.ts has the TLS option mapping).
describe('persistence: db.url', () => {
  describe('against the local PostgreSQL', () => {
    const created: string[] = [];
    after(async () => {
      for (const name of created) await dropTestDatabase(name);
    });

    it('db.url without TLS wins over db.host/db.port/db.user/db.name and connects', async () => {
      const dbName = uniqueDbName('url');
      created.push(dbName);
      const connection = connectionFor({
        DB_URL: `postgres://${PG.user}@${PG.host}:${PG.port}/${dbName}`,
        DB_HOST: 'nowhere.invalid', DB_PORT: '1', DB_USER: 'nobody', DB_NAME: 'other',
      });
      expect(connection).to.include({ host: PG.host, port: PG.port, user: PG.user, dbName, sslMode: 'disable' });
      const db = await open(connection);
      try {
        await db.readinessCheck();
        expect(await databaseExists(dbName)).to.equal(true);
      } finally {
        await db.close();
      }
    });

    describe('over TLS (a TLS-terminating proxy in front of the local server)', function () {
      this.timeout(20_000);
      let pki: TestPki;
      let proxy: TlsProxy;
      let wrongNameProxy: TlsProxy;

      before(async () => {
        pki = createTestPki();
        proxy = await postgresTlsProxy(PG, pki.server('localhost', 'DNS:localhost,IP:127.0.0.1'));
        wrongNameProxy = await postgresTlsProxy(PG, pki.server('wrong', 'DNS:wrong.example.org'));
      });
      after(async () => {
        await proxy?.close();
        await wrongNameProxy?.close();
        pki?.remove();
      });

      it('verify-full with sslrootcert: creates the database, migrates and answers over TLS', async () => {
        const dbName = uniqueDbName('tls');
        created.push(dbName);
        const before = proxy.handshakes;
        const db = await open(connectionFor({ DB_URL: `postgres://${PG.user}@localhost:${proxy.port}/${dbName}?sslmode=verify-full&sslrootcert=${pki.caFile}` }));
        try {
          await db.readinessCheck();
          const rows = await db.orm.em.fork().execute('select count(*)::int as n from widget');
          expect(rows[0]?.n).to.equal(0);
        } finally {
          await db.close();
        }
        expect(proxy.handshakes).to.be.greaterThan(before);
      });

      it('verify-full refuses a certificate for another host name', async () => {
        const url = `postgres://${PG.user}@localhost:${wrongNameProxy.port}/${uniqueDbName('tls')}?sslmode=verify-full&sslrootcert=${pki.caFile}`;
        const error = await open(connectionFor({ DB_URL: url })).then(() => undefined, (e: unknown) => e as Error);
        expect(error?.message).to.match(/altnames|does not match/i);
      });

      it('verify-ca accepts that certificate (chain only); verify-full without the CA refuses the unknown issuer', async () => {
        const dbName = uniqueDbName('tls');
        created.push(dbName);
        const db = await open(connectionFor({ DB_URL: `postgres://${PG.user}@localhost:${wrongNameProxy.port}/${dbName}?sslmode=verify-ca&sslrootcert=${pki.caFile}` }));
        await db.close();
        const error = await open(connectionFor({ DB_URL: `postgres://${PG.user}@localhost:${proxy.port}/${dbName}?sslmode=verify-full` }))
          .then(() => undefined, (e: unknown) => e as Error);
        expect(error?.message).to.match(/certificate/i);
      });

      it('require encrypts without verifying the server', async () => {
        const dbName = uniqueDbName('tls');
        created.push(dbName);
        const before = wrongNameProxy.handshakes;
        const db = await open(connectionFor({ DB_URL: `postgres://${PG.user}@localhost:${wrongNameProxy.port}/${dbName}?sslmode=require` }));
        await db.close();
        expect(wrongNameProxy.handshakes).to.be.greaterThan(before);
      });

      it('a missing sslrootcert file is reported with its path', async () => {
        const error = await open(connectionFor({ DB_URL: `postgres://${PG.user}@localhost:${proxy.port}/x?sslmode=verify-full&sslrootcert=/nonexistent/ca.crt` }))
          .then(() => undefined, (e: unknown) => e as Error);
        expect(error?.message).to.contain('/nonexistent/ca.crt').and.to.contain('sslrootcert');
      });
    });
  });
});
