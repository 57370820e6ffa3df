import { expect } from 'chai';
import type { AuditableEventOccurred } from '#contracts/types.js';
import { validateMessage } from '#contracts/validate.js';
import { MasterKeyring } from '#tenant/signing-keys/domain/master-keyring.js';
import { call, openSigningKeyHarness, required, TEST_MASTER_KEY, TEST_MASTER_KEY_ID, type SigningKeyHarness } from './support.js';

const HOUR = 3_600_000;

describe('signing keys: registry over real HTTP and PostgreSQL', function () {
  this.timeout(20_000);
  let h: SigningKeyHarness;
  const api = (path: string) => `${h.url}/api${path}`;
  const createKey = async (body: Record<string, unknown>) => {
    const response = await call('POST', api('/signing-keys'), body);
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    return response.body as { kid: string; [member: string]: unknown };
  };
  const putKey = (kid: string, body: Record<string, unknown>) => call('PUT', api(`/signing-keys/${kid}`), { kid, ...body });
  const assign = (facilityId: string, kid: string | null) => call('PUT', api(`/facilities/${facilityId}/signing-key`), { facilityId, kid });

  before(async () => {
    h = await openSigningKeyHarness('registry');
  });
  after(async () => {
    await h?.close();
  });
  beforeEach(async () => {
    h.clock.offsetMs = 0;
    await h.sql('truncate "signing_key", "facility" cascade');
  });

  it('creates a key (201 + Location), gets and lists it, and never shows private material', async () => {
    const created = await call('POST', api('/signing-keys'), { algorithm: 'ES384', primary: true });
    expect(created.status).to.equal(201);
    expect(created.headers.get('location')).to.equal(`/api/signing-keys/${created.body.kid}`);
    expect(created.body).to.include({ algorithm: 'ES384', status: 'active', primary: true, expiresAt: null });
    expect(created.body.publicJwk).to.have.all.keys('kty', 'kid', 'alg', 'use', 'crv', 'x', 'y');
    expect(created.body.publicJwk).to.include({ kty: 'EC', crv: 'P-384', alg: 'ES384', use: 'sig', kid: created.body.kid });

    const fetched = await call('GET', api(`/signing-keys/${created.body.kid}`));
    expect(fetched.status).to.equal(200);
    expect(fetched.body).to.deep.equal(created.body);
    expect(JSON.stringify(fetched.body)).not.to.match(/"d"|private|envelope/i);

    expect((await call('GET', api('/signing-keys/00000000-0000-4000-8000-000000000000'))).status).to.equal(404);
  });

  it('lists keys in the paged model, with filters and a sort whitelist; 204 when nothing matches', async () => {
    for (const algorithm of ['RS384', 'ES256', 'EdDSA']) await createKey({ algorithm });
    const page = await call('GET', api('/signing-keys?pageSize=2&pageNumber=2&sortBy=CreatedAt&sortOrder=Descending'));
    expect(page.status).to.equal(200);
    expect(page.body.metadata).to.deep.equal({ pageSize: 2, pageNumber: 2, totalCount: 3, totalPages: 2 });
    expect(page.body.records?.map((key) => key.algorithm)).to.deep.equal(['RS384']);
    const filtered = await call('GET', api('/signing-keys?algorithm=rs384'));
    expect(filtered.body.records?.map((key) => key.algorithm)).to.deep.equal(['RS384']);
    expect((await call('GET', api('/signing-keys?status=disabled'))).status).to.equal(204);
    expect((await call('GET', api('/signing-keys?sortBy=privateKey'))).status).to.equal(400);
    expect((await call('GET', api('/signing-keys?status=revoked'))).status).to.equal(400);
  });

  it('refuses bad input: unknown algorithm, past expiry, PUT without matching kid, non-UUID kid', async () => {
    const badAlg = await call('POST', api('/signing-keys'), { algorithm: 'HS256' });
    expect(badAlg.status).to.equal(400);
    expect(badAlg.body.errors?.[0]?.field).to.equal('algorithm');
    expect((await call('POST', api('/signing-keys'), { algorithm: 'RS256', expiresAt: new Date(Date.now() - 1000).toISOString() })).status).to.equal(400);
    const key = await createKey({ algorithm: 'ES256' });
    const mismatch = await call('PUT', api(`/signing-keys/${key.kid}`), { kid: '11111111-1111-4111-8111-111111111111', status: 'disabled', primary: false });
    expect(mismatch.status).to.equal(400);
    const invalidId = await call('PUT', api('/signing-keys/not-a-uuid'), { kid: 'not-a-uuid', status: 'disabled', primary: false });
    expect(invalidId.status).to.equal(400);
    expect(invalidId.body.detail).to.equal('Invalid Id format');
    for (const method of ['GET', 'DELETE']) {
      const refused = await call(method, api('/signing-keys/not-a-uuid'));
      expect(refused.status, method).to.equal(400);
      expect(refused.body.detail, method).to.equal('Invalid Id format');
    }
    expect((await putKey('22222222-2222-4222-8222-222222222222', { status: 'disabled', primary: false })).status).to.equal(404);
    expect((await putKey(key.kid, { status: 'expired', primary: false })).status).to.equal(400);
    expect((await putKey(key.kid, { status: 'disabled', primary: true })).status).to.equal(400);
  });

  it('disables and re-enables a key (202), then deletes it (204, gone)', async () => {
    const key = await createKey({ algorithm: 'PS384' });
    const disabled = await putKey(key.kid, { status: 'disabled', primary: false });
    expect(disabled.status).to.equal(202);
    expect(disabled.body.status).to.equal('disabled');
    expect(new Date(required(disabled.body.statusChangedAt, 'statusChangedAt')).getTime()).to.be.at.least(new Date(key.statusChangedAt as string).getTime());
    expect((await putKey(key.kid, { status: 'active', primary: false })).body.status).to.equal('active');
    expect((await call('DELETE', api(`/signing-keys/${key.kid}`))).status).to.equal(204);
    expect((await call('GET', api(`/signing-keys/${key.kid}`))).status).to.equal(404);
    expect((await call('DELETE', api(`/signing-keys/${key.kid}`))).status).to.equal(404);
  });

  it('keeps one primary key at a time: a new primary takes the flag, concurrent claims end with exactly one, the index refuses a second', async () => {
    const a = await createKey({ algorithm: 'ES384', primary: true });
    const b = await createKey({ algorithm: 'RS384', primary: true });
    expect((await call('GET', api(`/signing-keys/${a.kid}`))).body.primary).to.equal(false);
    expect((await call('GET', api(`/signing-keys/${b.kid}`))).body.primary).to.equal(true);
    expect((await putKey(a.kid, { status: 'active', primary: true })).status).to.equal(202);
    expect((await call('GET', api(`/signing-keys/${b.kid}`))).body.primary).to.equal(false);

    const others = [await createKey({ algorithm: 'ES256' }), await createKey({ algorithm: 'EdDSA' }), await createKey({ algorithm: 'ES256' })];
    const results = await Promise.all(others.map((key) => putKey(key.kid, { status: 'active', primary: true })));
    for (const result of results) expect(result.status, JSON.stringify(result.body)).to.be.oneOf([202, 409]);
    const primaries = await h.sql('select "kid" from "signing_key" where "is_primary"');
    expect(primaries).to.have.length(1);

    let refused: unknown;
    try {
      await h.sql('update "signing_key" set "is_primary" = true');
    } catch (error) {
      refused = error;
    }
    expect(String(refused)).to.match(/signing_key_single_primary_uq/);
  });

  it('refuses to disable or delete a key an active facility uses (409 listing the facilities); soft-deleted facilities do not count', async () => {
    const oldKey = await createKey({ algorithm: 'RS384' });
    const newKey = await createKey({ algorithm: 'ES384' });
    await h.addFacility('F-2');
    await h.addFacility('F-1');
    await h.addFacility('F-gone', { kid: oldKey.kid, deleted: true });
    expect((await assign('F-1', oldKey.kid)).status).to.equal(202);
    expect((await assign('F-2', oldKey.kid)).body).to.deep.equal({ facilityId: 'F-2', kid: oldKey.kid });

    const disable = await putKey(oldKey.kid, { status: 'disabled', primary: false });
    expect(disable.status).to.equal(409);
    expect(disable.headers.get('content-type')).to.match(/application\/problem\+json/);
    expect(disable.body.facilities).to.deep.equal(['F-1', 'F-2']);
    expect(disable.body.detail).to.contain('F-1, F-2');
    const remove = await call('DELETE', api(`/signing-keys/${oldKey.kid}`));
    expect(remove.status).to.equal(409);
    expect(remove.body.facilities).to.deep.equal(['F-1', 'F-2']);
    expect((await call('GET', api(`/signing-keys/${oldKey.kid}`))).body.status).to.equal('active');

    await h.sql('update "facility" set "is_deleted" = true where "facility_id" = ?', ['F-2']);
    expect((await call('DELETE', api(`/signing-keys/${oldKey.kid}`))).body.facilities).to.deep.equal(['F-1']);

    expect((await assign('F-1', newKey.kid)).status).to.equal(202);
    expect((await call('GET', api('/facilities/F-1/signing-key'))).body).to.deep.equal({ facilityId: 'F-1', kid: newKey.kid });
    expect((await putKey(oldKey.kid, { status: 'disabled', primary: false })).status).to.equal(202);
    expect((await call('DELETE', api(`/signing-keys/${oldKey.kid}`))).status).to.equal(204);
    // Changing the reference changed no key.
    const unchanged = await call('GET', api(`/signing-keys/${newKey.kid}`));
    expect(unchanged.body).to.deep.equal(newKey);
  });

  it('association: only an active key; unknown facility 404, unknown kid 400, body facilityId must match; null removes the reference', async () => {
    const key = await createKey({ algorithm: 'ES256' });
    const spare = await createKey({ algorithm: 'ES256' });
    await h.addFacility('F-1');
    expect((await putKey(spare.kid, { status: 'disabled', primary: false })).status).to.equal(202);
    const toDisabled = await assign('F-1', spare.kid);
    expect(toDisabled.status).to.equal(409);
    expect(toDisabled.body.detail).to.contain('disabled');
    expect((await assign('F-404', key.kid)).status).to.equal(404);
    expect((await assign('F-1', '33333333-3333-4333-8333-333333333333')).status).to.equal(400);
    expect((await call('PUT', api('/facilities/F-1/signing-key'), { facilityId: 'F-2', kid: key.kid })).status).to.equal(400);
    expect((await assign('F-1', key.kid)).status).to.equal(202);
    expect((await h.sql('select "key_id" from "facility" where "facility_id" = ?', ['F-1']))[0]?.key_id).to.equal(key.kid);
    expect((await assign('F-1', null)).body).to.deep.equal({ facilityId: 'F-1', kid: null });
    expect((await call('DELETE', api(`/signing-keys/${key.kid}`))).status).to.equal(204);
  });

  it('a key past its expiry is expired at once when read, recorded by the job, final, and dropped from the JWKS', async () => {
    const key = await createKey({ algorithm: 'ES384', primary: true, expiresAt: new Date(Date.now() + HOUR).toISOString() });
    expect((await call('GET', `${h.url}/.well-known/jwks.json`)).body.keys?.map((jwk) => jwk.kid)).to.include(key.kid);
    h.clock.advance(2 * HOUR);

    const read = await call('GET', api(`/signing-keys/${key.kid}`));
    expect(read.body).to.include({ status: 'expired', primary: false });
    expect((await h.sql('select "status" from "signing_key" where "kid" = ?', [key.kid]))[0]?.status).to.equal('active');
    expect((await call('GET', api('/signing-keys?status=expired'))).body.records?.map((k) => k.kid)).to.deep.equal([key.kid]);
    expect((await call('GET', api('/signing-keys?status=active'))).status).to.equal(204);

    expect(await h.keys.service.expireDue()).to.deep.equal([key.kid]);
    const [row] = await h.sql('select "status", "is_primary" from "signing_key" where "kid" = ?', [key.kid]);
    expect(row).to.deep.equal({ status: 'expired', is_primary: false });
    expect(await h.keys.service.expireDue()).to.deep.equal([]);
    expect((await call('GET', `${h.url}/.well-known/jwks.json`)).body.keys).to.deep.equal([]);
    const revive = await putKey(key.kid, { status: 'active', primary: false });
    expect(revive.status).to.equal(409);
    expect(revive.body.detail).to.contain('expired');
  });

  it('the expiry job records expiry on start and stop waits for its pass', async () => {
    const key = await createKey({ algorithm: 'ES256', expiresAt: new Date(Date.now() + HOUR).toISOString() });
    h.clock.advance(2 * HOUR);
    h.keys.start();
    await h.keys.stop();
    expect((await h.sql('select "status" from "signing_key" where "kid" = ?', [key.kid]))[0]?.status).to.equal('expired');
  });

  it('documents every route in OpenAPI and answers 405 for a method a route does not have', async () => {
    const doc = (await call('GET', `${h.url}/api-docs`)).body as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths)).to.include.members([
      '/api/signing-keys', '/api/signing-keys/{kid}', '/api/facilities/{facilityId}/signing-key',
      '/api/facilities/{facilityId}/$client-assertion', '/.well-known/jwks.json',
    ]);
    expect(Object.keys(doc.paths['/api/signing-keys/{kid}'] ?? {})).to.include.members(['get', 'put', 'delete']);
    const patch = await call('PATCH', api('/signing-keys/22222222-2222-4222-8222-222222222222'), {});
    expect(patch.status).to.equal(405);
    expect(patch.headers.get('allow')).to.contain('PUT');
  });

  it('stores the private key encrypted: the column is an AES-GCM envelope under the current master key, not JSON, without the JWK\'s d; it opens only with that master key and its own kid', async () => {
    const algorithms = ['RS384', 'ES384', 'EdDSA'];
    for (const algorithm of algorithms) await createKey({ algorithm });
    const rows = await h.sql<{ kid: string; private_key_envelope: string; master_key_id: string; public_jwk: unknown }>('select * from "signing_key"');
    const master = new MasterKeyring([{ id: TEST_MASTER_KEY_ID, base64: TEST_MASTER_KEY }], TEST_MASTER_KEY_ID);
    const impostor = new MasterKeyring([{ id: TEST_MASTER_KEY_ID, base64: Buffer.alloc(32, 7).toString('base64') }], TEST_MASTER_KEY_ID);
    const other = new MasterKeyring([{ id: 'other', base64: TEST_MASTER_KEY }], 'other');
    expect(rows).to.have.length(3);
    for (const row of rows) {
      const stored = row.private_key_envelope;
      expect(row.master_key_id).to.equal(TEST_MASTER_KEY_ID);
      expect(() => JSON.parse(stored)).to.throw();
      expect(stored).to.match(new RegExp(`^enc:v1:${TEST_MASTER_KEY_ID}:[\\w-]{16}:[\\w-]{22}:[\\w-]+$`));
      const privateJwk = JSON.parse(master.open(stored, row.kid)) as { d: string };
      expect(privateJwk.d).to.be.a('string').with.length.greaterThan(20);
      expect(JSON.stringify(row)).not.to.contain(privateJwk.d);
      expect(() => master.open(stored, rows.find((candidate) => candidate.kid !== row.kid)!.kid)).to.throw(/does not decrypt/);
      expect(() => impostor.open(stored, row.kid)).to.throw(/does not decrypt with the configured master key "test-1"/);
      expect(() => other.open(stored, row.kid)).to.throw(/master key "test-1", which is not configured \(configured: other\)/);
    }
  });

  it('without a master key: creation and signing are refused with 503 naming the setting; listing still works', async () => {
    const bare = await h.withModule({ signingKeysMasterKeys: undefined });
    try {
      const refused = await call('POST', `${bare.url}/api/signing-keys`, { algorithm: 'ES384' });
      expect(refused.status).to.equal(503);
      expect(refused.body.detail).to.contain('signing-keys.master-keys').and.contain('SIGNING_KEYS_MASTER_KEYS');
      expect((await h.sql('select count(*)::int as n from "signing_key"'))[0]?.n).to.equal(0);
      const key = await createKey({ algorithm: 'ES384' });
      await h.addFacility('F-1', { kid: key.kid, ehrConnections: [{ name: 'ehr', clientId: 'c', tokenUrl: 'https://ehr.example/token' }] });
      const sign = await call('POST', `${bare.url}/api/facilities/F-1/$client-assertion`, {});
      expect(sign.status).to.equal(503);
      expect(sign.body.detail).to.contain('signing-keys.master-keys');
      expect((await call('GET', `${bare.url}/api/signing-keys`)).body.records).to.have.length(1);
    } finally {
      await bare.close();
    }
  });

  it('writes an AuditableEventOccurred (valid against its contract) for key and association changes, in the same transaction', async () => {
    const key = await createKey({ algorithm: 'ES256' });
    await h.addFacility('F-1');
    await assign('F-1', key.kid);
    await assign('F-1', null);
    await putKey(key.kid, { status: 'disabled', primary: false });
    await call('DELETE', api(`/signing-keys/${key.kid}`));
    const rows = await h.sql<{ payload: AuditableEventOccurred }>('select "payload" from "outbox_message" where "subject" = ? order by "created_at", "id"', [h.catalog.byName('AuditableEventOccurred').subject]);
    const recent = rows.map((row) => row.payload).filter((payload) => JSON.stringify(payload).includes(key.kid));
    expect(recent.map((payload) => [payload.action, payload.resource, payload.facilityId])).to.deep.equal([
      ['Create', 'SigningKey', '*'], ['Update', 'FacilitySigningKey', 'F-1'], ['Update', 'FacilitySigningKey', 'F-1'], ['Update', 'SigningKey', '*'], ['Delete', 'SigningKey', '*'],
    ]);
    for (const payload of recent) expect(validateMessage('AuditableEventOccurred', payload)).to.deep.equal({ ok: true });
    expect(JSON.stringify(recent)).not.to.contain('enc:v1');
  });
});
