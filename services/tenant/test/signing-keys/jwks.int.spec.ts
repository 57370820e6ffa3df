import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { expect } from 'chai';
import { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import { publicJwkOf, type JwksDocument } from '#tenant/signing-keys/domain/jwks.js';
import { SIGNING_ALGORITHMS } from '#tenant/signing-keys/domain/model.js';
import { JWKS_CACHE_CONTROL } from '#tenant/signing-keys/index.js';
import { MasterKeyring } from '#tenant/signing-keys/domain/master-keyring.js';
import { call, openSigningKeyHarness, TEST_MASTER_KEY, TEST_MASTER_KEY_ID, type ResponseBody, type SigningKeyHarness } from './support.js';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const ALLOWED: Record<string, string[]> = {
  RSA: ['kty', 'kid', 'alg', 'use', 'n', 'e'],
  EC: ['kty', 'kid', 'alg', 'use', 'crv', 'x', 'y'],
  OKP: ['kty', 'kid', 'alg', 'use', 'crv', 'x'],
};
const KEYS_PER_ALGORITHM = 3;

describe('signing keys: the JWKS never exposes private members', function () {
  this.timeout(30_000);
  let h: SigningKeyHarness;

  before(async () => {
    h = await openSigningKeyHarness('jwks');
  });
  after(async () => {
    await h?.close();
  });

  it('publicJwkOf keeps only the public members of a private JWK of every algorithm, even with unknown extra members', async () => {
    for (const alg of SIGNING_ALGORITHMS) {
      for (let i = 0; i < 2; i++) {
        const { privateKey } = await generateKeyPair(alg, { extractable: true });
        const privateJwk = { ...(await exportJWK(privateKey)), [`x-${randomBytes(2).toString('hex')}`]: 'secret', k: 'symmetric', oth: [{ d: 'x' }] } as unknown as JWK;
        expect(privateJwk.d, alg).to.be.a('string');
        const published = publicJwkOf(privateJwk, 'kid-1', alg);
        expect(Object.keys(published).sort(), alg).to.deep.equal([...ALLOWED[privateJwk.kty!]!].sort());
        expect(JSON.stringify(published)).not.to.contain(privateJwk.d);
      }
    }
  });

  it(`over HTTP: ${KEYS_PER_ALGORITHM} keys of every algorithm, each published with kid/kty/alg/use and public members only, usable to verify`, async () => {
    const created: ResponseBody[] = [];
    for (const algorithm of SIGNING_ALGORITHMS) {
      for (let i = 0; i < KEYS_PER_ALGORITHM; i++) {
        const response = await call('POST', `${h.url}/api/signing-keys`, { algorithm });
        expect(response.status).to.equal(201);
        created.push(response.body);
      }
    }
    const jwks = await call('GET', `${h.url}/.well-known/jwks.json`);
    expect(jwks.status).to.equal(200);
    expect(jwks.headers.get('cache-control')).to.equal(JWKS_CACHE_CONTROL);
    expect(jwks.headers.get('content-type')).to.match(/^application\/json/);
    const keys = jwks.body.keys as Array<Record<string, string>>;
    expect(keys.map((jwk) => jwk.kid).sort()).to.deep.equal(created.map((key) => key.kid).sort());

    const privateValues: string[] = [];
    for (const jwk of keys) {
      const expectedAlg = created.find((key) => key.kid === jwk.kid)!.algorithm;
      expect(jwk).to.include({ alg: expectedAlg, use: 'sig' });
      expect(Object.keys(jwk).sort(), jwk.kid).to.deep.equal([...ALLOWED[jwk.kty!]!].sort());
      for (const member of PRIVATE_MEMBERS) expect(jwk, `${jwk.alg} ${member}`).not.to.have.property(member);
    }
    // Private values of the stored keys appear nowhere in the document or the file, and each
    // published key verifies what its private key signs.
    const master = new MasterKeyring([{ id: TEST_MASTER_KEY_ID, base64: TEST_MASTER_KEY }], TEST_MASTER_KEY_ID);
    for (const row of await h.sql<{ kid: string; private_key_envelope: string }>('select "kid", "private_key_envelope" from "signing_key"')) {
      const privateJwk = JSON.parse(master.open(row.private_key_envelope, row.kid)) as Record<string, string>;
      for (const member of PRIVATE_MEMBERS) if (privateJwk[member]) privateValues.push(privateJwk[member]);
      const publicJwk = keys.find((jwk) => jwk.kid === row.kid)!;
      const token = await new SignJWT({}).setProtectedHeader({ alg: publicJwk.alg! }).sign(await importJWK(privateJwk, publicJwk.alg));
      await jwtVerify(token, await importJWK(publicJwk, publicJwk.alg));
    }
    expect(privateValues.length).to.be.at.least(SIGNING_ALGORITHMS.length * KEYS_PER_ALGORITHM);
    const file = await readFile(h.jwksPath, 'utf8');
    for (const value of privateValues) {
      expect(JSON.stringify(jwks.body)).not.to.contain(value);
      expect(file).not.to.contain(value);
    }
  });

  it('writes the file atomically at the configured path (same document, no temp files left) and serves the file', async () => {
    const served = await call('GET', `${h.url}/.well-known/jwks.json`);
    const file = JSON.parse(await readFile(h.jwksPath, 'utf8'));
    expect(file).to.deep.equal(served.body);
    expect(await readdir(dirname(h.jwksPath))).to.deep.equal(['jwks.json']);
    // The route serves the file as written (what the proxy exposes), not a document of its own.
    await writeFile(h.jwksPath, JSON.stringify({ keys: [] }));
    expect((await call('GET', `${h.url}/.well-known/jwks.json`)).body).to.deep.equal({ keys: [] });
    // Any key change regenerates it.
    const created = await call('POST', `${h.url}/api/signing-keys`, { algorithm: 'ES256' });
    const after = JSON.parse(await readFile(h.jwksPath, 'utf8')) as JwksDocument;
    expect(after.keys.map((jwk) => jwk.kid)).to.include(created.body.kid);
    expect(after.keys).to.have.length(SIGNING_ALGORITHMS.length * KEYS_PER_ALGORITHM + 1);
  });

  it('publishes disabled keys for the retention period only, and the primary key first', async () => {
    await h.sql('truncate "signing_key", "facility" cascade');
    const a = (await call('POST', `${h.url}/api/signing-keys`, { algorithm: 'ES384' })).body;
    const b = (await call('POST', `${h.url}/api/signing-keys`, { algorithm: 'RS384', primary: true })).body;
    const kids = async () => (await call('GET', `${h.url}/.well-known/jwks.json`)).body.keys?.map((jwk) => jwk.kid);
    expect(await kids()).to.deep.equal([b.kid, a.kid]);
    expect((await call('PUT', `${h.url}/api/signing-keys/${a.kid}`, { kid: a.kid, status: 'disabled', primary: false })).status).to.equal(202);
    expect(await kids()).to.deep.equal([b.kid, a.kid]);
    h.clock.advance(23 * 3_600_000);
    await h.keys.service.expireDue();
    expect(await kids()).to.deep.equal([b.kid, a.kid]);
    h.clock.advance(2 * 3_600_000);
    await h.keys.service.expireDue();
    expect(await kids()).to.deep.equal([b.kid]);
    h.clock.offsetMs = 0;
  });
});
