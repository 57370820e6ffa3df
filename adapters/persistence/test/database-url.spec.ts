import { expect } from 'chai';
import type { PeerCertificate } from 'node:tls';
import { pgSslOptions } from '../database.js';

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
});
