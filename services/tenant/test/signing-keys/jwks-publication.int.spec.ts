import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { ManualClock } from '#tenant/domain/clock.js';
import { ASSERTION_LIFETIME_SECONDS, VERIFICATION_GRACE_MS } from '#tenant/signing-keys/index.js';
import { writeJwksFile } from '#tenant/signing-keys/adapters/jwks-file.js';
import type { JwksDocument } from '#tenant/signing-keys/domain/jwks.js';
import { call, openSigningKeyHarness, type ResponseBody, type SigningKeyHarness } from './support.js';

const SECOND = 1000;
const CLIENT_ID = 'link-f-grace';
const TOKEN_URL = 'https://ehr.example.org/oauth2/token';

/** A promise with its resolve function, to hold one instance inside its JWKS write. */
function latch(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => { open = resolve; });
  return { promise, open };
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('signing keys: JWKS publication with several instances and over time (real PostgreSQL and files)', function () {
  this.timeout(30_000);
  let h: SigningKeyHarness;
  const fileKids = async () => (JSON.parse(await readFile(h.jwksPath, 'utf8')) as JwksDocument).keys.map((jwk) => jwk.kid);

  before(async () => {
    h = await openSigningKeyHarness('jwks_pub');
  });
  after(async () => {
    await h?.close();
  });
  beforeEach(async () => {
    h.clock.offsetMs = 0;
    await h.sql('truncate "signing_key", "facility" cascade');
  });

  /**
   * Instance B (stale) has read the registry and is slow to write its document; meanwhile instance A
   * changes a key and republishes. Whatever B wrote last must not undo A's change in the shared file.
   */
  async function raceAgainstStaleInstance(change: () => Promise<unknown>, changed: () => Promise<boolean>): Promise<void> {
    const entered = latch();
    const release = latch();
    const stale = await h.withModule({}, {
      writeJwks: async (document) => {
        entered.open();
        await release.promise;
        await writeJwksFile(h.jwksPath, document);
      },
    });
    try {
      const staleRun = stale.keys.service.regenerateJwks();
      await entered.promise;
      const changing = change();
      await until(changed, 'the change to commit');
      // Give A's republication every chance to overtake B's slow write.
      await new Promise((resolve) => setTimeout(resolve, 200));
      release.open();
      await Promise.all([staleRun, changing]);
    } finally {
      release.open();
      await stale.close();
    }
  }

  it('a stale instance cannot drop a key another instance has just created', async () => {
    const first = (await call('POST', `${h.url}/api/signing-keys`, { algorithm: 'ES256' })).body.kid as string;
    let created: { status: number; body: ResponseBody } | undefined;
    await raceAgainstStaleInstance(
      async () => { created = await call('POST', `${h.url}/api/signing-keys`, { algorithm: 'ES384' }); },
      async () => (await h.sql('select count(*)::int as n from "signing_key"'))[0]?.n === 2,
    );
    expect(created!.status).to.equal(201);
    expect(await fileKids()).to.have.members([first, created!.body.kid]);
    expect((await call('GET', `${h.url}/.well-known/jwks.json`)).body.keys?.map((jwk) => jwk.kid)).to.include(created!.body.kid);
  });

  it('a stale instance cannot republish a key another instance has just deleted', async () => {
    const kept = (await call('POST', `${h.url}/api/signing-keys`, { algorithm: 'ES256' })).body.kid as string;
    const retired = (await call('POST', `${h.url}/api/signing-keys`, { algorithm: 'ES256' })).body.kid as string;
    expect(await fileKids()).to.have.members([kept, retired]);
    await raceAgainstStaleInstance(
      () => call('DELETE', `${h.url}/api/signing-keys/${retired}`),
      async () => (await h.sql('select count(*)::int as n from "signing_key"'))[0]?.n === 1,
    );
    expect(await fileKids()).to.deep.equal([kept]);
  });

  it('concurrent assignments (more than the connection pool holds) each publish before they commit, without starving the pool', async () => {
    const kid = (await call('POST', `${h.url}/api/signing-keys`, { algorithm: 'ES256' })).body.kid as string;
    const facilities = Array.from({ length: 20 }, (_, i) => `F-many-${i}`);
    for (const facilityId of facilities) await h.addFacility(facilityId);
    const answers = await Promise.all(facilities.map((facilityId) => call('PUT', `${h.url}/api/facilities/${facilityId}/signing-key`, { facilityId, kid })));
    expect(answers.map((answer) => answer.status)).to.deep.equal(facilities.map(() => 202));
    expect(await fileKids()).to.deep.equal([kid]);
  });

  it('an expired key stays published for an assertion\'s lifetime plus clock skew after its expiry, then leaves (manual clock)', async () => {
    const clock = new ManualClock(new Date());
    const instance = await h.withModule({}, { now: () => clock.now() });
    try {
      const expiresAt = new Date(clock.now().getTime() + 10 * 60 * SECOND);
      const key = await instance.keys.service.create({ algorithm: 'ES384', expiresAt });
      await h.addFacility('F-grace', { kid: key.kid, ehrConnections: [{ name: 'ehr', clientId: CLIENT_ID, tokenUrl: TOKEN_URL }] });
      const kids = async () => (await call('GET', `${instance.url}/.well-known/jwks.json`)).body.keys?.map((jwk) => jwk.kid) as string[];

      // The last assertion the key can sign: one second before it expires.
      clock.set(new Date(expiresAt.getTime() - SECOND));
      const last = await instance.keys.service.clientAssertion('F-grace');
      expect(last.expiresAt.getTime()).to.equal(Math.floor((expiresAt.getTime() - SECOND) / SECOND) * SECOND + ASSERTION_LIFETIME_SECONDS * SECOND);

      clock.set(new Date(expiresAt.getTime() + SECOND));
      expect(await instance.keys.service.expireDue()).to.deep.equal([key.kid]);
      const refused = await call('POST', `${instance.url}/api/facilities/F-grace/$client-assertion`, {});
      expect(refused.status).to.equal(409);
      expect(refused.body.detail).to.contain('is expired');
      expect(await kids()).to.deep.equal([key.kid]);

      // An EHR verifying that last assertion just before its exp still finds the key.
      clock.set(new Date(last.expiresAt.getTime() - SECOND));
      await instance.keys.service.expireDue();
      const jwks = createLocalJWKSet((await call('GET', `${instance.url}/.well-known/jwks.json`)).body as JSONWebKeySet);
      await jwtVerify(last.assertion, jwks, { audience: TOKEN_URL, issuer: CLIENT_ID, currentDate: clock.now() });

      clock.set(new Date(expiresAt.getTime() + VERIFICATION_GRACE_MS - SECOND));
      await instance.keys.service.expireDue();
      expect(await kids()).to.deep.equal([key.kid]);
      clock.set(new Date(expiresAt.getTime() + VERIFICATION_GRACE_MS + SECOND));
      await instance.keys.service.expireDue();
      expect(await kids()).to.deep.equal([]);
    } finally {
      await instance.close();
    }
  });

  it('a disabled key signs no more at once, and stays published at least an assertion\'s lifetime plus skew even with no retention configured', async () => {
    const clock = new ManualClock(new Date());
    const instance = await h.withModule({ signingKeysDisabledRetentionMs: 0 }, { now: () => clock.now() });
    try {
      const key = await instance.keys.service.create({ algorithm: 'RS384' });
      await h.addFacility('F-disable', { ehrConnections: [{ name: 'ehr', clientId: CLIENT_ID, tokenUrl: TOKEN_URL }] });
      await instance.keys.service.assign('F-disable', key.kid);
      const signed = await instance.keys.service.clientAssertion('F-disable');
      await instance.keys.service.assign('F-disable', null);
      const disabledAt = clock.now().getTime();
      await instance.keys.service.update(key.kid, { status: 'disabled', primary: false, expiresAt: null });
      await h.sql('update "facility" set "key_id" = ? where "facility_id" = ?', [key.kid, 'F-disable']);
      const refused = await call('POST', `${instance.url}/api/facilities/F-disable/$client-assertion`, {});
      expect(refused.status).to.equal(409);
      expect(refused.body.detail).to.contain('is disabled');

      const kids = async () => (await call('GET', `${instance.url}/.well-known/jwks.json`)).body.keys?.map((jwk) => jwk.kid) as string[];
      clock.set(new Date(signed.expiresAt.getTime() - SECOND));
      await instance.keys.service.expireDue();
      const jwks = createLocalJWKSet((await call('GET', `${instance.url}/.well-known/jwks.json`)).body as JSONWebKeySet);
      await jwtVerify(signed.assertion, jwks, { audience: TOKEN_URL, issuer: CLIENT_ID, currentDate: clock.now() });
      clock.set(new Date(disabledAt + VERIFICATION_GRACE_MS - SECOND));
      await instance.keys.service.expireDue();
      expect(await kids()).to.deep.equal([key.kid]);
      clock.set(new Date(disabledAt + VERIFICATION_GRACE_MS + SECOND));
      await instance.keys.service.expireDue();
      expect(await kids()).to.deep.equal([]);
    } finally {
      await instance.close();
    }
  });
});
