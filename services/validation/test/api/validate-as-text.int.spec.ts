/**
 * $validate and $validate-and-categorize hand the engine the body as received (JSON text), as the CLI
 * hands it a file: the worker reads it with the engine's located reader. So JSON nested deeper than
 * the engine reads is the CLI's fatal issue (it used to be a 500: a parsed object that deep cannot
 * be copied to a worker), and issues carry line and column in the posted body. Through the service's
 * own engine host (a real worker pool), FHIR R4 core only.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { Database } from '#adapters/persistence/database.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { EngineHost } from '#validation/adapters/engine/engine-host.js';
import { PgArtifactRepository } from '#validation/adapters/persistence/artifact-repository.js';
import { EXT_COL, EXT_LINE, type Issue } from '#validation/domain/engine/outcome/issue.js';
import { buildTestApi, type TestApi } from './support/app.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from './support/database.js';

/** A Basic whose extensions nest `depth` levels deep (about 33 bytes a level). */
function deeplyNested(depth: number): string {
  return `{"resourceType":"Basic","code":{"text":"deep"},"extension":[${'{"url":"http://example.org/x","extension":['.repeat(depth)}${']}'.repeat(depth)}]}`;
}

const fatalTexts = (issues: Issue[]) => issues.filter((i) => i.severity === 'fatal').map((i) => i.details.text);
const position = (issue: Issue) => ({
  line: issue.extension?.find((e) => e.url === EXT_LINE)?.valueInteger,
  col: issue.extension?.find((e) => e.url === EXT_COL)?.valueInteger,
});

describe('validation API: FHIR JSON validated as the text received (engine host, worker pool)', function () {
  this.timeout(120_000);
  const dbName = uniqueDbName('text');
  let db: Database;
  let engine: EngineHost;
  let api: TestApi;

  before(async () => {
    db = await openValidationTestDatabase(dbName);
    engine = new EngineHost({ artifacts: new PgArtifactRepository(db.orm), workers: 1, terminology: {}, logger: silentLogger() });
    await engine.start();
    api = buildTestApi(db, { validator: engine });
    await api.module.categories.initialize();
  });
  after(async () => {
    await engine?.close();
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  it('JSON nested 2,000 levels deep: 200 with the fatal "nested too deeply" issue the CLI gives, never a 500', async () => {
    const body = deeplyNested(2_000);
    const validated = await request(api.app).post('/api/$validate').type('application/fhir+json').send(body);
    expect(validated.status, validated.text).to.equal(200);
    const issues = JSON.parse(validated.text).issue as Issue[];
    expect(fatalTexts(issues)).to.have.length(1);
    expect(fatalTexts(issues)[0]).to.match(/^The JSON is nested too deeply \(more than \d+ levels\)$/);
    expect(issues.find((i) => i.severity === 'fatal')).to.include({ code: 'too-costly' });

    const composite = await request(api.app).post('/api/$validate-and-categorize').type('application/fhir+json').send(body);
    expect(composite.status, composite.text).to.equal(200);
    expect(fatalTexts(composite.body.outcome.issue)).to.deep.equal(fatalTexts(issues));
    expect(composite.body.validity.valid).to.equal(false);
  });

  it('a Bundle one of whose entries nests 2,000 levels deep: the same fatal issue', async () => {
    const body = `{"resourceType":"Bundle","type":"collection","entry":[{"fullUrl":"urn:uuid:0c3151bd-1cbf-4d64-b04d-cd9187a4c6e0","resource":${deeplyNested(2_000)}}]}`;
    const res = await request(api.app).post('/api/$validate').type('application/fhir+json').send(body);
    expect(res.status, res.text).to.equal(200);
    expect(fatalTexts(JSON.parse(res.text).issue)).to.satisfy((texts: string[]) => texts.length === 1 && /nested too deeply/.test(texts[0]!));
  });

  it('the Parameters form with a resource nested 2,000 levels deep: a fatal issue, never a 500', async () => {
    const body = `{"resourceType":"Parameters","parameter":[{"name":"resource","resource":${deeplyNested(2_000)}}]}`;
    const res = await request(api.app).post('/api/$validate').type('application/fhir+json').send(body);
    expect(res.status, res.text).to.equal(200);
    expect(fatalTexts(JSON.parse(res.text).issue)).to.satisfy((texts: string[]) => texts.length === 1 && /nested too deeply/.test(texts[0]!));
  });

  it('200,000 levels deep (2.4 MB): the plain form is the same fatal issue, the Parameters form a 400 (its resource cannot be written again); never a 500', async () => {
    const plain = await request(api.app).post('/api/$validate').type('application/fhir+json').send(deeplyNested(200_000));
    expect(plain.status).to.equal(200);
    expect(fatalTexts(JSON.parse(plain.text).issue)[0]).to.match(/^The JSON is nested too deeply/);
    const wrapped = await request(api.app).post('/api/$validate').type('application/fhir+json')
      .send(`{"resourceType":"Parameters","parameter":[{"name":"resource","resource":${deeplyNested(200_000)}}]}`);
    expect(wrapped.status).to.equal(400);
    expect(wrapped.body.errors[0].field).to.equal('parameter.resource');
  });

  it('an unknown property of a single resource: the issue carries its line and column in the posted body', async () => {
    const body = JSON.stringify({ resourceType: 'Patient', id: 'p1', gender: 'female', favouriteColour: 'blue' }, null, 2);
    const res = await request(api.app).post('/api/$validate').type('application/fhir+json').send(body).expect(200);
    const unknown = (JSON.parse(res.text).issue as Issue[]).find((i) => /favouriteColour/.test(i.details.text));
    expect(unknown, res.text).to.not.equal(undefined);
    // line 5 of the pretty-printed body, where its value starts (`  "favouriteColour": ` is 21 characters), as the CLI says
    expect(position(unknown!)).to.deep.equal({ line: 5, col: 22 });

    const composite = await request(api.app).post('/api/$validate-and-categorize').type('application/fhir+json').send(body).expect(200);
    const categorized = (composite.body.outcome.issue as Issue[]).find((i) => /favouriteColour/.test(i.details.text));
    expect(position(categorized!)).to.deep.equal({ line: 5, col: 22 });
  });

  it('the Parameters form still validates the resource it carries, with the parameters applied', async () => {
    const parameters = { resourceType: 'Parameters', parameter: [{ name: 'resource', resource: { resourceType: 'Patient', favouriteColour: 'blue' } }] };
    const res = await request(api.app).post('/api/$validate').type('application/fhir+json').send(JSON.stringify(parameters)).expect(200);
    const issues = JSON.parse(res.text).issue as Issue[];
    expect(issues.some((i) => /favouriteColour/.test(i.details.text) && i.expression?.[0]?.startsWith('Patient'))).to.equal(true);
  });

  it('what is not JSON, or not a resource, is still a 400 Problem Details', async () => {
    const broken = await request(api.app).post('/api/$validate').type('application/fhir+json').send('{"resourceType": "Patient",').expect(400);
    expect(broken.body).to.include({ status: 400 });
    expect(broken.body.detail).to.match(/^The body is not valid JSON/);
    expect(broken.body.detail).to.not.contain('Patient');
    await request(api.app).post('/api/$validate').type('application/fhir+json').send('[1, 2]').expect(400);
    await request(api.app).post('/api/$validate-and-categorize').type('application/json').send('{"hello": 1}').expect(400);
  });
});
