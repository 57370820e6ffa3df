import { expect } from 'chai';
import type { PeerCertificate } from 'node:tls';
import { databaseSettings, loadConfig } from '../../config/index.js';
import { silentLogger } from '../../observability/logger.js';
import { databaseConnection, openDatabase, pgSslOptions, type Database } from '../database.js';
import { createTestPki, postgresTlsProxy, type TestPki, type TlsProxy } from '#test-support/test-tls.js';
import { PG, Widget, databaseExists, dropTestDatabase, uniqueDbName, widgetMigration } from './test-database.js';

/** The connection the services would open for these environment variables (what service-runtime.ts does). */
function connectionFor(env: Record<string, string>) {
  return databaseConnection(loadConfig(databaseSettings({ name: 'unused-default' }), env));
}

const open = (connection: ReturnType<typeof connectionFor>): Promise<Database> =>
  openDatabase({ ...connection, poolMax: 2, entities: [Widget], migrations: [widgetMigration], logger: silentLogger(), readinessTimeoutMs: 5_000 });

describe('persistence: db.url', () => {
  describe('pgSslOptions maps libpq sslmode onto node-postgres TLS options', () => {
    const cert = (altNames: string) => ({ subject: { CN: 'x' }, subjectaltname: altNames }) as unknown as PeerCertificate;

    it('disable: no TLS', () => {
      expect(pgSslOptions('disable', 'db.example.org')).to.equal(false);
    });

    it('require: encrypted without authenticating the server; with a CA it verifies the chain (libpq)', () => {
      expect(pgSslOptions('require', 'db.example.org')).to.deep.equal({ rejectUnauthorized: false });
      const withCa = pgSslOptions('require', 'db.example.org', 'PEM') as Exclude<ReturnType<typeof pgSslOptions>, false>;
      expect(withCa).to.include({ rejectUnauthorized: true, ca: 'PEM' });
      expect(withCa.checkServerIdentity!('db.example.org', cert('DNS:other.example.org'))).to.equal(undefined);
    });

    it('verify-ca: the chain is verified, the host name is not', () => {
      const options = pgSslOptions('verify-ca', 'db.example.org') as Exclude<ReturnType<typeof pgSslOptions>, false>;
      expect(options.rejectUnauthorized).to.equal(true);
      expect(options).not.to.have.property('ca');
      expect(options.checkServerIdentity!('db.example.org', cert('DNS:other.example.org'))).to.equal(undefined);
    });

    it('verify-full: the chain and the configured host name (SNI for DNS names only)', () => {
      const options = pgSslOptions('verify-full', 'db.example.org', 'PEM') as Exclude<ReturnType<typeof pgSslOptions>, false>;
      expect(options).to.include({ rejectUnauthorized: true, ca: 'PEM', servername: 'db.example.org' });
      expect(options.checkServerIdentity!('db.example.org', cert('DNS:db.example.org'))).to.equal(undefined);
      expect(options.checkServerIdentity!('db.example.org', cert('DNS:other.example.org'))).to.be.instanceOf(Error);
      // Whatever name the driver passes, the check is against the configured host.
      expect(options.checkServerIdentity!('other.example.org', cert('DNS:other.example.org'))).to.be.instanceOf(Error);
      const byIp = pgSslOptions('verify-full', '10.1.2.3') as Exclude<ReturnType<typeof pgSslOptions>, false>;
      expect(byIp).not.to.have.property('servername');
      expect(byIp.checkServerIdentity!('10.1.2.3', cert('IP Address:10.1.2.3'))).to.equal(undefined);
      expect(byIp.checkServerIdentity!('10.1.2.3', cert('IP Address:10.9.9.9'))).to.be.instanceOf(Error);
    });
  });

  describe('against the local PostgreSQL @infra', () => {
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
