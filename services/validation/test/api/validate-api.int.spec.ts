import { expect } from 'chai';
import request from 'supertest';
import type { Database } from '#adapters/persistence/database.js';
import { buildTestApi, ScriptedValidator, type TestApi } from './support/app.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from './support/database.js';

const MESSAGE_ID = 'http://hl7.org/fhir/StructureDefinition/operationoutcome-message-id';

/** A Bundle whose "engine findings" are scripted: one acceptable, one unacceptable, one uncategorized error. */
const bundle = {
  resourceType: 'Bundle', type: 'collection', entry: [],
  _issues: [
    { severity: 'information', code: 'informational', details: { text: 'Unknown extension http://open.epic.com/FHIR/x' }, expression: ['Bundle.entry[0].resource.extension[0]'] },
    { severity: 'error', code: 'structure', details: { text: 'Encounter.class: minimum required = 1, but only found 0 (from http://x|1)' }, expression: ['Bundle.entry[1].resource'],
      extension: [{ url: MESSAGE_ID, valueCode: 'CARDINALITY_MIN' }] },
    { severity: 'error', code: 'processing', diagnostics: 'Something no category knows', location: ['Bundle.entry[2]'] },
    { severity: 'information', code: 'informational', details: { text: 'Unknown extension http://open.epic.com/FHIR/y' } },
  ],
};

describe('validation API: $validate, $validate-and-categorize, $categorize (HTTP)', () => {
  const dbName = uniqueDbName('val');
  let db: Database;
  let api: TestApi;
  const validator = new ScriptedValidator();

  before(async () => {
    db = await openValidationTestDatabase(dbName);
    api = buildTestApi(db, { validator });
    await api.module.categories.initialize();
  });
  after(async () => {
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  it('answers the OperationOutcome by default and passes the caller\'s Authorization on', async () => {
    const res = await request(api.app).post('/api/$validate').set('Authorization', 'Bearer abc').type('application/fhir+json').send(JSON.stringify(bundle)).expect(200);
    expect(res.headers['content-type']).to.match(/application\/fhir\+json/);
    expect(JSON.parse(res.text)).to.deep.equal({ resourceType: 'OperationOutcome', issue: bundle._issues });
    expect(validator.calls.at(-1)!.options).to.deep.equal({ authorization: 'Bearer abc' });
    expect(validator.calls.at(-1)!.resource.resourceType).to.equal('Bundle');
  });

  it('adds categories with categorize=true (uncategorized when none matches)', async () => {
    const res = await request(api.app).post('/api/$validate?categorize=true').send(bundle).expect(200);
    expect(res.body.map((i: { categories: { id: string }[] }) => i.categories.map((c) => c.id))).to.deep.equal([
      ['unknown_extension'], ['missing_required_element'], ['uncategorized'], ['unknown_extension'],
    ]);
    expect(res.body[1]).to.include({ severity: 'error', code: 'structure', expression: 'Bundle.entry[1].resource', messageId: 'CARDINALITY_MIN' });
    expect(res.body[2]).to.include({ message: 'Something no category knows', expression: 'Bundle.entry[2]' });
  });

  it('summarizes by message, or by category when categorized', async () => {
    const byMessage = await request(api.app).post('/api/$validate?summarize=true').send(bundle).expect(200);
    expect(byMessage.body).to.have.length(4);
    expect(byMessage.body[0]).to.have.all.keys('value', 'count');
    const byCategory = await request(api.app).post('/api/$validate?categorize=true&summarize=true').send(bundle).expect(200);
    expect(byCategory.body.map((c: { categoryId: string; count: number }) => [c.categoryId, c.count])).to.deep.equal([
      ['unknown_extension', 2], ['missing_required_element', 1], ['uncategorized', 1],
    ]);
  });

  it('answers outcome, categorized issues, summaries and the verdict at once', async () => {
    const res = await request(api.app).post('/api/$validate-and-categorize').send(bundle).expect(200);
    expect(res.body.outcome.resourceType).to.equal('OperationOutcome');
    expect(res.body.issues).to.have.length(4);
    expect(res.body.summary.byCategory).to.have.length(3);
    expect(res.body.summary.byMessage).to.have.length(4);
    expect(res.body.validity).to.deep.equal({ valid: false, unacceptableIssueCount: 1, uncategorizedErrorCount: 1, uncategorizedIssueCount: 1 });
    const clean = { resourceType: 'Patient', _issues: [bundle._issues[0]] };
    expect((await request(api.app).post('/api/$validate-and-categorize').send(clean).expect(200)).body.validity.valid).to.equal(true);
  });

  it('refuses what is not a FHIR resource and malformed flags with 400', async () => {
    await request(api.app).post('/api/$validate').send({ hello: 1 }).expect(400);
    await request(api.app).post('/api/$validate').send([1, 2]).expect(400);
    await request(api.app).post('/api/$validate').type('application/json').send('{"resourceType": ').expect(400);
    const flag = await request(api.app).post('/api/$validate?categorize=maybe').send(bundle).expect(400);
    expect(flag.body.errors[0].field).to.equal('categorize');
    await request(api.app).post('/api/$validate-and-categorize').send({}).expect(400);
  });

  it('categorizes given results with the stored rules or with rules from the request', async () => {
    const results = [{ id: 7, severity: 'ERROR', code: 'STRUCTURE', message: 'Patient.gender: minimum required = 1, but only found 0 (from x)' }];
    const stored = await request(api.app).post('/api/$categorize').send(results).expect(200);
    expect(stored.body[0]).to.include({ id: 7, severity: 'error', code: 'structure' });
    expect(stored.body[0].categories.map((c: { id: string }) => c.id)).to.deep.equal(['missing_required_element']);

    const trial = [{ id: 'trial', title: 'Trial', severity: 'ERROR', acceptable: true, guidance: 'g', matcher: { field: 'MESSAGE', regex: 'gender' } }];
    const tried = await request(api.app).post('/api/$categorize?summarize=true').send({ results, categories: trial }).expect(200);
    expect(tried.body).to.deep.equal([{ categoryId: 'trial', title: 'Trial', severity: 'ERROR', acceptable: true, count: 1 }]);
    await request(api.app).get('/api/category/trial').expect(404);

    const badRules = await request(api.app).post('/api/$categorize').send({ results, categories: [{ ...trial[0], matcher: { field: 'MESSAGE', regex: '(' } }] }).expect(400);
    expect(badRules.body.errors[0].field).to.equal('[0].matcher.regex');
    await request(api.app).post('/api/$categorize').send({ foo: 1 }).expect(400);
    await request(api.app).post('/api/$categorize').send([{ message: 42 }]).expect(400);
  });
});
