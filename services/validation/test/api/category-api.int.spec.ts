import { expect } from 'chai';
import request from 'supertest';
import type { Database } from '#adapters/persistence/database.js';
import { defaultCategories } from '#validation/application/default-categories.js';
import { MAX_MATCHED_CHARACTERS, MAX_RULE_PROGRAM_SIZE } from '#validation/domain/categorization/matcher.js';
import { buildTestApi, type TestApi } from './support/app.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from './support/database.js';

/** Categories in the original system's export shape (§1.8 of the reference), with its Java regex habits. */
const LINK_CLOUD_SHAPED = [
  {
    id: 'epic_code_system', title: 'Epic code system', severity: 'INFORMATION', acceptable: true, guidance: 'Internal: local system.',
    matcher: { children: [
      { field: 'MESSAGE', regex: "^Code System URI \\'urn\\:oid\\:1\\.2\\.840\\.114350.*' is unknown", inverted: false },
      { field: 'MESSAGE', regex: "^Code System URI 'https?://.*epic\\.com/.*' is unknown" },
    ], requiresAllChildren: false, inverted: false },
  },
  {
    id: 'required_code_invalid', title: 'Invalid code in required value set', severity: 'ERROR', acceptable: false, guidance: 'External: fix the code.',
    matcher: { children: [{ field: 'SEVERITY', regex: '^error$' }, { field: 'CODE', regex: '^code-invalid$' }], requiresAllChildren: true },
  },
  {
    id: 'Rxnorm_group_quirk', title: 'Group quirk', severity: 'WARNING', acceptable: true, guidance: 'External: kept as written.',
    matcher: { field: 'message', regex: "Codes (RxNorm)'\\." },
  },
  {
    id: 'non_patient_whitespace', title: 'Whitespace outside Patient', severity: 'WARNING', acceptable: true, guidance: 'External: fine.',
    matcher: { children: [
      { field: 'MESSAGE', regex: "^value should not start or finish with whitespace '.*'" },
      { field: 'EXPRESSION', regex: 'resource\\.ofType\\(Patient\\)', inverted: true },
    ], requiresAllChildren: true },
  },
];

describe('validation API: categories and rules (HTTP)', () => {
  const dbName = uniqueDbName('cat');
  let db: Database;
  let api: TestApi;

  before(async () => {
    db = await openValidationTestDatabase(dbName);
    api = buildTestApi(db);
  });
  after(async () => {
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  it('answers 204 before anything exists, then initializes the bundled categories idempotently', async () => {
    await request(api.app).get('/api/category').expect(204);
    const first = await request(api.app).post('/api/category/$initialize').expect(200);
    expect(first.body).to.deep.equal({ created: defaultCategories().length, updated: 0, rulesAdded: defaultCategories().length, deleted: 0 });
    const again = await request(api.app).post('/api/category/$initialize').expect(200);
    expect(again.body).to.deep.equal({ created: 0, updated: defaultCategories().length, rulesAdded: 0, deleted: 0 });
    const list = await request(api.app).get('/api/category').expect(200);
    expect(list.body).to.have.length(defaultCategories().length);
    expect(list.body[0]).to.have.all.keys('id', 'title', 'severity', 'acceptable', 'guidance', 'matcher');
  });

  it('spec lines 97-99, 408 (PUT): creates (201 + Location) and updates (202) a category, refusing mismatched, reserved and invalid ones', async () => {
    const body = { id: 'my_category', title: 'Mine', severity: 'warning', acceptable: false, guidance: 'Do this.' };
    const created = await request(api.app).put('/api/category/my_category').send(body).expect(201);
    expect(created.headers.location).to.equal('/api/category/my_category');
    expect(created.body.severity).to.equal('WARNING');
    expect(created.body.matcher, 'no rule yet').to.equal(null);
    const updated = await request(api.app).put('/api/category/my_category').send({ ...body, acceptable: true }).expect(202);
    expect(updated.body.acceptable).to.equal(true);
    expect((await request(api.app).get('/api/category/my_category').expect(200)).body.acceptable).to.equal(true);

    const mismatch = await request(api.app).put('/api/category/other').send(body).expect(400);
    expect(mismatch.body.errors[0].field).to.equal('id');
    await request(api.app).put('/api/category/uncategorized').send({ ...body, id: 'uncategorized' }).expect(400);
    const invalid = await request(api.app).put('/api/category/my_category').send({ ...body, guidance: 'x'.repeat(1001) }).expect(400);
    expect(invalid.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['guidance']);
    expect(invalid.headers['content-type']).to.match(/application\/problem\+json/);
    await request(api.app).get('/api/category/nope').expect(404);
  });

  it('spec lines 161, 189, 314 (Category JSON shape: id, title, severity, acceptable, guidance, matcher): GET shows the matcher, PUT keeps the one it carries', async () => {
    const body = { id: 'with_matcher', title: 'With', severity: 'ERROR', acceptable: false, guidance: 'g', matcher: { field: 'MESSAGE', regex: 'first' } };
    const created = await request(api.app).put('/api/category/with_matcher').send(body).expect(201);
    expect(created.body).to.deep.equal(body);
    expect((await request(api.app).get('/api/category/with_matcher').expect(200)).body).to.deep.equal(body);
    const rule = (await request(api.app).get('/api/category/with_matcher/rule').expect(200)).body;
    // The same matcher again adds no rule; another becomes the latest; none leaves the rules alone.
    await request(api.app).put('/api/category/with_matcher').send({ ...body, title: 'Renamed' }).expect(202);
    expect((await request(api.app).get('/api/category/with_matcher/rule').expect(200)).body.id).to.equal(rule.id);
    const changed = { field: 'CODE', regex: 'second', inverted: true };
    expect((await request(api.app).put('/api/category/with_matcher').send({ ...body, matcher: changed }).expect(202)).body.matcher).to.deep.equal(changed);
    const { matcher: _dropped, ...withoutMatcher } = body;
    expect((await request(api.app).put('/api/category/with_matcher').send(withoutMatcher).expect(202)).body.matcher).to.deep.equal(changed);
    expect((await request(api.app).get('/api/category/with_matcher/rule/history').expect(200)).body).to.have.length(2);
    const list = (await request(api.app).get('/api/category').expect(200)).body as { id: string; matcher: unknown }[];
    expect(list.find((c) => c.id === 'with_matcher')!.matcher).to.deep.equal(changed);
    const refused = await request(api.app).put('/api/category/with_matcher').send({ ...body, title: 'Refused', matcher: { field: 'MESSAGE' } }).expect(400);
    expect(refused.body.errors[0].field).to.equal('matcher.regex');
    expect((await request(api.app).get('/api/category/with_matcher').expect(200)).body.title, 'nothing stored from a refused PUT').to.equal('With');
  });

  it('keeps rule history, answers the latest, deletes a rule by id, refuses a regex RE2 cannot compile', async () => {
    await request(api.app).get('/api/category/my_category/rule').expect(404);
    const bad = await request(api.app).post('/api/category/my_category/rule').send({ field: 'MESSAGE', regex: '(?<=x)y' }).expect(400);
    expect(bad.body.errors[0].field).to.equal('matcher.regex');
    const r1 = await request(api.app).post('/api/category/my_category/rule').send({ field: 'MESSAGE', regex: 'one' }).expect(201);
    const r2 = await request(api.app).put('/api/category/my_category/rule').send({ field: 'MESSAGE', regex: 'two' }).expect(201);
    expect((await request(api.app).get('/api/category/my_category/rule').expect(200)).body).to.include({ id: r2.body.id });
    const history = await request(api.app).get('/api/category/my_category/rule/history').expect(200);
    expect(history.body.map((r: { id: number }) => r.id)).to.deep.equal([r2.body.id, r1.body.id]);
    await request(api.app).delete(`/api/category/rule/${r2.body.id}`).expect(204);
    await request(api.app).delete(`/api/category/rule/${r2.body.id}`).expect(404);
    await request(api.app).delete('/api/category/rule/abc').expect(400);
    expect((await request(api.app).get('/api/category/my_category/rule').expect(200)).body.matcher).to.deep.equal({ field: 'MESSAGE', regex: 'one' });
    await request(api.app).post('/api/category/missing/rule').send({ field: 'MESSAGE', regex: 'x' }).expect(404);
    await request(api.app).get('/api/category/missing/rule/history').expect(404);
  });

  it('refuses a rule whose RE2 program is over the size limit (PUT, rule POST, import), naming the category, the leaf and the limit', async () => {
    // RE2 repeats at most 1000 times: two runs make a program just over the limit
    const costly = { field: 'MESSAGE', regex: `[a-z]{${MAX_RULE_PROGRAM_SIZE / 2}}[0-9]{${MAX_RULE_PROGRAM_SIZE / 2}}` };
    const body = { id: 'costly_rule', title: 'Costly', severity: 'ERROR', acceptable: false, guidance: 'g', matcher: { children: [{ field: 'CODE', regex: 'x' }, costly], requiresAllChildren: false } };
    const put = await request(api.app).put('/api/category/costly_rule').send(body).expect(400);
    expect(put.body).to.include({ status: 400 }).and.to.have.property('type');
    expect(put.body.detail).to.contain('Category "costly_rule"').and.contain('matcher.children[1].regex').and.contain(`at most ${MAX_RULE_PROGRAM_SIZE}`);
    expect(put.body.errors[0].field).to.equal('matcher.children[1].regex');
    await request(api.app).get('/api/category/costly_rule').expect(404);
    const rule = await request(api.app).post('/api/category/my_category/rule').send(costly).expect(400);
    expect(rule.body.detail).to.contain('Category "my_category"').and.contain(`at most ${MAX_RULE_PROGRAM_SIZE}`);
    const imported = await request(api.app).post('/api/category/$import').send([{ ...body, matcher: costly }]).expect(400);
    expect(imported.body.detail).to.contain('index 0 (category "costly_rule")').and.contain('[0].matcher.regex').and.contain(`at most ${MAX_RULE_PROGRAM_SIZE}`);
  });

  it('round-trips export and import', async () => {
    const exported = (await request(api.app).get('/api/category/$export').expect(200)).body;
    expect(exported.find((c: { id: string }) => c.id === 'my_category').matcher).to.deep.equal({ field: 'MESSAGE', regex: 'one' });
    const outcome = await request(api.app).post('/api/category/$import?replaceAll=true').send(exported).expect(200);
    expect(outcome.body).to.deep.equal({ created: 0, updated: exported.length, rulesAdded: 0, deleted: 0 });
    expect((await request(api.app).get('/api/category/$export').expect(200)).body).to.deep.equal(exported);
  });

  it('imports all or nothing, naming the index and field of the first invalid item, refusing duplicates', async () => {
    const good = { id: 'fresh_one', title: 'Fresh', severity: 'ERROR', acceptable: false, guidance: 'g', matcher: { field: 'CODE', regex: 'x' } };
    const badItem = { ...good, id: 'fresh_two', matcher: { children: [{ field: 'MESSAGE' }], requiresAllChildren: true } };
    const refused = await request(api.app).post('/api/category/$import').send([good, badItem]).expect(400);
    expect(refused.body.detail).to.match(/index 1/);
    expect(refused.body.errors[0].field).to.equal('[1].matcher.children[0].regex');
    await request(api.app).get('/api/category/fresh_one').expect(404);
    const duplicate = await request(api.app).post('/api/category/$import').send([good, { ...good }]).expect(400);
    expect(duplicate.body.errors[0].field).to.equal('[1].id');
    await request(api.app).post('/api/category/$import').send({ not: 'an array' }).expect(400);
  });

  it('imports link-cloud-shaped categories unchanged and categorizes original-shaped results with them', async () => {
    await request(api.app).post('/api/category/$import').send(LINK_CLOUD_SHAPED).expect(200);
    const results = [
      { id: 1, severity: 'INFORMATION', code: 'CODEINVALID', message: "Code System URI 'urn:oid:1.2.840.114350.1.13' is unknown so the code cannot be validated" },
      { id: 2, severity: 'ERROR', code: 'CODEINVALID', message: 'The code is not in the value set' },
      { id: 3, severity: 'WARNING', code: 'VALUE', message: "value should not start or finish with whitespace 'x '", expression: "Bundle.entry[1].resource.ofType(Location).where(id = 'l').name" },
      { id: 4, severity: 'ERROR', code: 'REQUIRED', message: "value set 'US Core Medication Codes RxNorm'." },
    ];
    const answer = await request(api.app).post('/api/$categorize').send({ results, categories: LINK_CLOUD_SHAPED }).expect(200);
    expect(answer.body.map((r: { id: number; categories: { id: string }[] }) => [r.id, r.categories.map((c) => c.id)])).to.deep.equal([
      [1, ['epic_code_system']], [2, ['required_code_invalid']], [3, ['non_patient_whitespace']], [4, ['Rxnorm_group_quirk']],
    ]);
    // With the stored rules (defaults plus the import), the same Epic issue also lands in the default category.
    const stored = await request(api.app).post('/api/$categorize').send([results[0]]).expect(200);
    expect(stored.body[0].categories.map((c: { id: string }) => c.id)).to.include.members(['epic_code_system', 'ehr_local_code_system']);
  });

  it('answers a hostile regex rule on a long message (linear-time matching)', async () => {
    await request(api.app).post('/api/category/my_category/rule').send({ field: 'MESSAGE', regex: '(a+)+$' }).expect(201);
    const answer = await request(api.app).post('/api/$categorize?summarize=true').send([{ severity: 'error', code: 'processing', message: `${'a'.repeat(MAX_MATCHED_CHARACTERS - 1)}!` }]).expect(200);
    expect(answer.body.find((c: { categoryId: string }) => c.categoryId === 'my_category')).to.equal(undefined);
  });

  it('deletes a category with its rules (204, then 404)', async () => {
    await request(api.app).delete('/api/category/my_category').expect(204);
    await request(api.app).delete('/api/category/my_category').expect(404);
    await request(api.app).get('/api/category/my_category/rule/history').expect(404);
  });
});
