/**
 * $categorize matches in a validation worker (the engine host's pool), never on the thread that
 * serves HTTP: rules sent with the request are priced first (400 naming the limit), and any
 * matching, the stored rules' included, is stopped at the per-resource deadline (422; the worker is
 * replaced). Meanwhile `/health` answers: the assertions are on order and status, not on timings.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { Database } from '#adapters/persistence/database.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { EngineHost } from '#validation/adapters/engine/engine-host.js';
import { PgArtifactRepository } from '#validation/adapters/persistence/artifact-repository.js';
import { MAX_TRIAL_COST } from '#validation/domain/categorization/bounded-categorization.js';
import { buildTestApi, type TestApi } from './support/app.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from './support/database.js';

/**
 * Well above the compile time of the hostile trial's 40 patterns (~0.3 s, more on a loaded machine), far below the
 * stored rules' matching of `everyLiteral` messages (every leaf scans every message in full: tens of seconds).
 */
const RESOURCE_TIMEOUT_MS = 4_000;

const category = (id: string, regex: string) => ({ id, title: id, severity: 'ERROR', acceptable: false, guidance: 'g', matcher: { field: 'MESSAGE', regex } });
/** Leaves like `[\p{L}\d]{900}`, distinct so that none is shared. */
const costly = (leaves: number) => Array.from({ length: leaves }, (_, i) => category(`costly_${i}`, `[\\p{L}\\d]{900}${i}`));
/** Distinct 2 KB messages of letters and digits (what those leaves must scan in full). */
const results = (count: number) => Array.from({ length: count }, (_, i) => ({ id: i, severity: 'error', code: 'processing', message: `${i}é`.repeat(2048).slice(0, 2048) }));
/**
 * Distinct 4,000-character messages that hold every leaf's literal tail (0 to 39), so no literal prefilter spares a
 * leaf: each of the 40 leaves scans each message in full (rules see at most 4,096 characters of a field).
 */
const everyLiteral = (count: number) => {
  const digits = `${Array.from({ length: 40 }, (_, k) => k).join('é')}é`;
  return Array.from({ length: count }, (_, i) => ({ id: i, severity: 'error', code: 'processing', message: `m${i}-${digits.repeat(40)}`.slice(0, 4_000) }));
};

/** Sends the request, then asks /health while it runs; says which answer came first. */
async function healthWhile(api: TestApi, send: () => request.Test): Promise<{ answer: request.Response; health: request.Response; order: string[] }> {
  const order: string[] = [];
  const answer = send().then((res) => { order.push('request'); return res; });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const health = await request(api.app).get('/health').then((res) => { order.push('health'); return res; });
  return { answer: await answer, health, order };
}

describe('validation API: $categorize matches in a worker, priced and under the deadline (engine host)', function () {
  this.timeout(120_000);
  const dbName = uniqueDbName('catwork');
  let db: Database;
  let engine: EngineHost;
  let api: TestApi;
  let replaced = 0;

  before(async () => {
    db = await openValidationTestDatabase(dbName);
    engine = new EngineHost({ artifacts: new PgArtifactRepository(db.orm), workers: 1, terminology: {}, logger: silentLogger(), resourceTimeoutMs: RESOURCE_TIMEOUT_MS });
    await engine.start();
    const pool = engine.generation!.pool;
    const original = pool.categorize.bind(pool);
    pool.categorize = async (task) => {
      const answer = await original(task);
      if (answer.kind === 'deadline') replaced += 1;
      return answer;
    };
    api = buildTestApi(db, { validator: engine, categorization: engine });
  });
  after(async () => {
    await engine?.close();
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  it('the hostile trial (40 leaves of [\\p{L}\\d]{900} over 20 messages of 2 KB): 400 naming the limit; /health answers meanwhile', async () => {
    const { answer, health } = await healthWhile(api, () => request(api.app).post('/api/$categorize').send({ results: results(20), categories: costly(40) }));
    expect(answer.status).to.equal(400);
    expect(answer.headers['content-type']).to.contain('application/problem+json');
    expect(answer.body.detail).to.contain(`at most ${MAX_TRIAL_COST} are allowed`);
    expect(answer.body.errors[0].field).to.equal('categories');
    expect(health.status).to.equal(200);
  });

  it('stored rules that are too costly for the results sent: 422 at the deadline, /health answered first, the worker replaced and serving', async () => {
    // an administrator's rules (stored rules are not priced)
    await request(api.app).post('/api/category/$import').send(costly(40)).expect(200);
    const { answer, health, order } = await healthWhile(api, () => request(api.app).post('/api/$categorize').send(everyLiteral(20)));
    expect(answer.status, answer.text).to.equal(422);
    expect(answer.body.detail).to.equal(`Categorization did not finish within ${RESOURCE_TIMEOUT_MS} ms`);
    expect(health.status).to.equal(200);
    expect(order).to.deep.equal(['health', 'request']);
    expect(replaced).to.equal(1);

    // the replacement worker categorizes and validates
    const small = await request(api.app).post('/api/$categorize').send({ results: [{ message: 'a gender issue' }], categories: [category('gender', 'gender')] }).expect(200);
    expect(small.body[0].categories.map((c: { id: string }) => c.id)).to.deep.equal(['gender']);
    const validated = await request(api.app).post('/api/$validate').type('application/fhir+json').send('{"resourceType":"Basic","code":{"text":"x"}}').expect(200);
    expect(JSON.parse(validated.text).resourceType).to.equal('OperationOutcome');
  });

  it('a result nested 100,000 levels deep (what is answered back must be writable as JSON): 400 naming it, never a 500', async () => {
    const deep = `[{"message":"x"},{"message":"y","extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}]`;
    const res = await request(api.app).post('/api/$categorize').type('application/json').send(deep).expect(400);
    expect(res.body.errors[0]).to.deep.equal({ field: '[1]', message: 'nested more than 32 levels deep' });
  });

  it('rules within the price are matched in the worker: the same answer as before, summaries included', async () => {
    const trial = [category('gender', 'gender'), category('cardinality', '^[A-Za-z.]+: minimum required = \\d+')];
    const sent = [{ id: 'a', severity: 'ERROR', code: 'STRUCTURE', message: 'Patient.gender: minimum required = 1, but only found 0' }, { id: 'b', message: 'nothing known' }];
    const res = await request(api.app).post('/api/$categorize').send({ results: sent, categories: trial }).expect(200);
    expect(res.body.map((r: { id: string; categories: { id: string }[] }) => [r.id, r.categories.map((c) => c.id)])).to.deep.equal([['a', ['gender', 'cardinality']], ['b', ['uncategorized']]]);
    expect(res.body[0]).to.include({ severity: 'error', code: 'structure' });
    const summary = await request(api.app).post('/api/$categorize?summarize=true').send({ results: sent, categories: trial }).expect(200);
    expect(summary.body.map((c: { categoryId: string; count: number }) => [c.categoryId, c.count])).to.deep.equal([['cardinality', 1], ['gender', 1], ['uncategorized', 1]]);
  });
});
