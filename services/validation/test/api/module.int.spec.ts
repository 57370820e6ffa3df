import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import type { Database } from '#adapters/persistence/database.js';
import { defaultCategories } from '#validation/application/default-categories.js';
import { buildTestApi } from './support/app.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from './support/database.js';

const EXPECTED_OPERATIONS = [
  'get /api/artifact', 'post /api/aritfact/$initialize', 'post /api/artifact/$initialize', 'get /api/artifact/$terminology-dependencies',
  'get /api/artifact/package/{packageId}', 'get /api/artifact/package/{packageId}/terminology-dependencies',
  'get /api/artifact/{type}/{name}', 'put /api/artifact/{type}/{name}', 'delete /api/artifact/{type}/{name}', 'get /api/artifact/{type}/{name}/content',
  'get /api/category', 'post /api/category/$initialize', 'get /api/category/$export', 'post /api/category/$import',
  'get /api/category/{id}', 'put /api/category/{id}', 'delete /api/category/{id}', 'get /api/category/{id}/rule', 'post /api/category/{id}/rule',
  'put /api/category/{id}/rule', 'get /api/category/{id}/rule/history', 'delete /api/category/rule/{ruleId}',
  'post /api/$validate', 'post /api/$validate-and-categorize', 'post /api/$categorize',
  'get /api/result/{facilityId}/{reportId}', 'get /api/result/{facilityId}/{reportId}/{patientId}',
  'get /api/result/{facilityId}/{reportId}/$categories', 'get /api/result/{facilityId}/{reportId}/$categories/{categoryId}',
  'get /api/result/{facilityId}/{reportId}/$validity', 'get /api/result/{facilityId}/{reportId}/{patientId}/$validity',
  'get /api/result/{facilityId}/{reportId}/{patientId}/validity',
];

describe('validation API module: OpenAPI and start-up initialization', () => {
  const dbName = uniqueDbName('mod');
  let db: Database;
  let initDir: string;

  before(async () => {
    db = await openValidationTestDatabase(dbName);
    initDir = await mkdtemp(join(tmpdir(), 'valapi-mod-'));
    await writeFile(join(initDir, 'CodeSystem-local.json'), JSON.stringify({ resourceType: 'CodeSystem', id: 'local', url: 'http://example.org/cs', status: 'active', content: 'not-present' }));
  });
  after(async () => {
    await db?.close();
    await dropValidationTestDatabase(dbName);
    if (initDir) await rm(initDir, { recursive: true, force: true });
  });

  it('documents every route in the OpenAPI 3.1 document, with Problem Details for errors', async () => {
    const api = buildTestApi(db);
    const document = (await request(api.app).get('/api-docs').expect(200)).body;
    expect(document.openapi).to.equal('3.1.0');
    const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
    expect(operations).to.include.members(EXPECTED_OPERATIONS);
    expect(document.paths['/api/category/{id}'].put.responses['400'].content).to.have.property('application/problem+json');
    expect(document.components.schemas).to.include.keys('CategorySnapshot', 'Matcher', 'CompositeValidation', 'PagedValidationResults');
  });

  it('answers 405 with Allow for a known path and 404 for an unknown one', async () => {
    const api = buildTestApi(db);
    const wrongMethod = await request(api.app).delete('/api/category').expect(405);
    expect(wrongMethod.headers.allow).to.equal('GET, HEAD');
    await request(api.app).get('/api/nothing-here').expect(404);
  });

  it('initializes artifacts (when enabled) and categories only while their tables are empty (then only newer package versions)', async () => {
    const disabled = buildTestApi(db, { artifactInitDir: initDir });
    const first = await disabled.module.initializeIfEmpty({ artifactInit: false });
    expect(first.artifacts).to.equal(undefined);
    expect(first.categories?.created).to.equal(defaultCategories().length);

    const enabled = buildTestApi(db, { artifactInitDir: initDir });
    const second = await enabled.module.initializeIfEmpty({ artifactInit: true });
    expect(second.categories).to.equal(undefined);
    expect(second.artifacts?.stored.map((s) => s.name)).to.deep.equal(['local']);
    // Stored already: only newer versions of stored packages would be loaded (none here); the categories are left alone.
    expect(await enabled.module.initializeIfEmpty({ artifactInit: true })).to.deep.equal({ artifacts: { stored: [], failed: [] } });
  });
});
