/**
 * Per-facility validation configurations over HTTP and PostgreSQL: the configuration resource, its
 * assignment to facilities, and that an assignment reaches the scope the validation flow reads.
 */
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { createHttpApp, OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { openDatabase, type Database } from '#adapters/persistence/database.js';
import { validationApiEntities, validationApiMigrations } from '#validation/adapters/http/validation-api-module.js';
import { validationConfigurationRoutes } from '#validation/adapters/http/validation-configuration-routes.js';
import { ValidationConfigurationService } from '#validation/application/validation-configuration-service.js';
import { PgFacilityScopes } from '#validation/adapters/persistence/pg-facility-scopes.js';
import { validationFlowEntities, validationFlowMigrations } from '#validation/adapters/persistence/validation-flow-tables.js';
import { dropValidationTestDatabase, PG, uniqueDbName } from './support/database.js';

const V1 = { name: 'ig-v1', packages: [{ name: 'example.ig', version: '1.0.0' }] };
const V2 = { name: 'ig-v2', packages: [{ name: 'example.ig', version: '2.0.0' }], resources: ['http://example.org/ValueSet/x'], exclusive: false };

describe('validation API: per-facility validation configurations (HTTP)', () => {
  const dbName = uniqueDbName('vconf');
  let db: Database;
  let scopes: PgFacilityScopes;
  let app: Express;
  let openApi: OpenApiBuilder;

  before(async () => {
    db = await openDatabase({
      ...PG, dbName, poolMax: 6, logger: silentLogger(),
      entities: [...validationApiEntities, ...validationFlowEntities], migrations: [...validationApiMigrations, ...validationFlowMigrations],
    });
    // The default cache time (10 s): the routes must clear what the flow would read.
    scopes = new PgFacilityScopes(db.orm);
    openApi = new OpenApiBuilder({ title: 'Validation API (test)', version: 'test' });
    const http = createHttpApp({ serviceName: 'validation-configuration-test', logger: silentLogger(), openApi });
    http.app.use(validationConfigurationRoutes(openApi, new ValidationConfigurationService(scopes)));
    app = http.finish();
  });
  after(async () => {
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  it('lists 204 when empty, creates with 201 + Location, refuses a duplicate (409), lists the paged model', async () => {
    await request(app).get('/api/validation-configurations').expect(204);
    const created = await request(app).post('/api/validation-configurations').send(V1).expect(201);
    expect(created.headers.location).to.equal('/api/validation-configurations/ig-v1');
    expect(created.body).to.deep.equal(V1);
    const duplicate = await request(app).post('/api/validation-configurations').send({ ...V1, packages: [] }).expect(409);
    expect(duplicate.headers['content-type']).to.match(/application\/problem\+json/);
    expect(duplicate.body.detail).to.contain('ig-v1');
    expect((await request(app).get('/api/validation-configurations/ig-v1').expect(200)).body).to.deep.equal(V1);
    await request(app).post('/api/validation-configurations').send(V2).expect(201);

    const list = await request(app).get('/api/validation-configurations').expect(200);
    expect(list.body).to.deep.equal({ records: [V1, V2], metadata: { pageSize: 10, pageNumber: 1, totalCount: 2, totalPages: 1 } });
    const second = await request(app).get('/api/validation-configurations?pageSize=1&pageNumber=2').expect(200);
    expect(second.body.records).to.deep.equal([V2]);
    expect(second.body.metadata).to.deep.equal({ pageSize: 1, pageNumber: 2, totalCount: 2, totalPages: 2 });
    await request(app).get('/api/validation-configurations?pageSize=1&pageNumber=3').expect(204);
    const badPage = await request(app).get('/api/validation-configurations?pageSize=0').expect(400);
    expect(badPage.body.errors[0].field).to.equal('pageSize');
  });

  it('refuses invalid definitions with 400 naming the field, and writes nothing', async () => {
    const noVersion = await request(app).post('/api/validation-configurations').send({ name: 'bad', packages: [{ name: 'example.ig' }] }).expect(400);
    expect(noVersion.headers['content-type']).to.match(/application\/problem\+json/);
    expect(noVersion.body.errors).to.deep.equal([{ field: 'packages[0]', message: 'packages[0]: needs a name and a version' }]);
    const badName = await request(app).post('/api/validation-configurations').send({ name: '-x', packages: [] }).expect(400);
    expect(badName.body.errors[0].field).to.equal('name');
    const badExclusive = await request(app).post('/api/validation-configurations').send({ name: 'x', packages: [], exclusive: 'yes' }).expect(400);
    expect(badExclusive.body.errors[0].field).to.equal('exclusive');
    const badSetting = await request(app).post('/api/validation-configurations').send({ name: 'x', packages: [], settings: { bestPractice: 'loud' } }).expect(400);
    expect(badSetting.body.errors).to.deep.equal([{ field: 'settings.bestPractice', message: 'settings.bestPractice: one of ignore, hint, warning, error' }]);
    const unknownSetting = await request(app).post('/api/validation-configurations').send({ name: 'x', packages: [], settings: { loud: true } }).expect(400);
    expect(unknownSetting.body.errors[0].field).to.equal('settings.loud');
    await request(app).get('/api/validation-configurations/bad').expect(404);
    const badPut = await request(app).put('/api/validation-configurations/ig-v1').send({ name: 'ig-v1', packages: [{ version: '1' }] }).expect(400);
    expect(badPut.body.errors[0].field).to.equal('packages[0]');
    expect((await request(app).get('/api/validation-configurations/ig-v1').expect(200)).body).to.deep.equal(V1);
  });

  it('keeps a configuration\'s settings (the HL7 validator\'s, by our names) as given, checked', async () => {
    const withSettings = { name: 'ig-v1-strict', packages: V1.packages, settings: { bestPractice: 'error', extensionDomains: ['http://ext.test/'], referencePolicy: 'CHECK_EXISTS' } };
    await request(app).post('/api/validation-configurations').send(withSettings).expect(201);
    expect((await request(app).get('/api/validation-configurations/ig-v1-strict').expect(200)).body).to.deep.equal(withSettings);
    // HL7's spellings of the values are read as ours
    await request(app).put('/api/validation-configurations/ig-v1-strict').send({ ...withSettings, settings: { bestPractice: 'Hint' } }).expect(202);
    expect((await request(app).get('/api/validation-configurations/ig-v1-strict').expect(200)).body.settings).to.deep.equal({ bestPractice: 'hint' });
    await request(app).delete('/api/validation-configurations/ig-v1-strict').expect(204);
  });

  it('replaces only an existing configuration (202), with the body name equal to the URL name', async () => {
    const replacement = { ...V1, packages: [{ name: 'example.ig', version: '1.0.1' }] };
    const replaced = await request(app).put('/api/validation-configurations/ig-v1').send(replacement).expect(202);
    expect(replaced.body).to.deep.equal(replacement);
    expect((await request(app).get('/api/validation-configurations/ig-v1').expect(200)).body).to.deep.equal(replacement);

    const mismatch = await request(app).put('/api/validation-configurations/ig-v1').send({ ...V2 }).expect(400);
    expect(mismatch.body.errors).to.deep.equal([{ field: 'name', message: 'must equal the id in the URL' }]);
    const missingName = await request(app).put('/api/validation-configurations/ig-v1').send({ packages: [] }).expect(400);
    expect(missingName.body.errors[0].field).to.equal('name');
    const absent = await request(app).put('/api/validation-configurations/nope').send({ name: 'nope', packages: [] }).expect(404);
    expect(absent.headers['content-type']).to.match(/application\/problem\+json/);
    await request(app).get('/api/validation-configurations/nope').expect(404);
    await request(app).put('/api/validation-configurations/ig-v1').send(V1).expect(202);
  });

  it('assigns a configuration to a facility, which the flow\'s scope then answers, and unassigns it', async () => {
    expect(await scopes.scopeOf('fac-a')).to.equal(undefined); // now cached for 10 s
    await request(app).get('/api/facilities/fac-a/validation-configuration').expect(404);

    const unknown = await request(app).put('/api/facilities/fac-a/validation-configuration').send({ name: 'nope' }).expect(404);
    expect(unknown.body.detail).to.contain('nope');
    const noName = await request(app).put('/api/facilities/fac-a/validation-configuration').send({}).expect(400);
    expect(noName.body.errors[0].field).to.equal('name');
    expect(await scopes.scopeOf('fac-a')).to.equal(undefined);

    const assigned = await request(app).put('/api/facilities/fac-a/validation-configuration').send({ name: 'ig-v1' }).expect(202);
    expect(assigned.body).to.deep.equal(V1);
    expect((await request(app).get('/api/facilities/fac-a/validation-configuration').expect(200)).body).to.deep.equal(V1);
    expect(await scopes.scopeOf('fac-a')).to.deep.equal(V1);

    // Reassignment replaces; replacing the configuration's definition reaches the scope too.
    await request(app).put('/api/facilities/fac-a/validation-configuration').send({ name: 'ig-v2' }).expect(202);
    expect(await scopes.scopeOf('fac-a')).to.deep.equal(V2);
    const v2b = { ...V2, resources: ['http://example.org/ValueSet/y'] };
    await request(app).put('/api/validation-configurations/ig-v2').send(v2b).expect(202);
    expect(await scopes.scopeOf('fac-a')).to.deep.equal(v2b);
    await request(app).put('/api/validation-configurations/ig-v2').send(V2).expect(202);

    await request(app).delete('/api/facilities/fac-a/validation-configuration').expect(204);
    expect(await scopes.scopeOf('fac-a')).to.equal(undefined);
    await request(app).get('/api/facilities/fac-a/validation-configuration').expect(404);
    await request(app).delete('/api/facilities/fac-a/validation-configuration').expect(204);
  });

  it('refuses to delete a configuration still assigned (409 naming the facilities), deletes it once unassigned (204)', async () => {
    await request(app).put('/api/facilities/fac-b/validation-configuration').send({ name: 'ig-v2' }).expect(202);
    await request(app).put('/api/facilities/fac-c/validation-configuration').send({ name: 'ig-v2' }).expect(202);
    const refused = await request(app).delete('/api/validation-configurations/ig-v2').expect(409);
    expect(refused.headers['content-type']).to.match(/application\/problem\+json/);
    expect(refused.body.detail).to.contain('fac-b').and.to.contain('fac-c');
    expect(refused.body).to.deep.include({ type: 'https://nhsn-link.example/problems/validation-configuration-in-use', title: 'Validation configuration in use', facilities: ['fac-b', 'fac-c'] });
    expect(await scopes.scopeOf('fac-b')).to.deep.equal(V2);
    await request(app).get('/api/validation-configurations/ig-v2').expect(200);

    await request(app).delete('/api/facilities/fac-b/validation-configuration').expect(204);
    await request(app).delete('/api/facilities/fac-c/validation-configuration').expect(204);
    await request(app).delete('/api/validation-configurations/ig-v2').expect(204);
    await request(app).get('/api/validation-configurations/ig-v2').expect(404);
    await request(app).delete('/api/validation-configurations/ig-v2').expect(404);
    await request(app).put('/api/facilities/fac-b/validation-configuration').send({ name: 'ig-v2' }).expect(404);
    expect(await scopes.scopeOf('fac-b')).to.equal(undefined);

    await request(app).delete('/api/validation-configurations/ig-v1').expect(204);
    await request(app).get('/api/validation-configurations').expect(204);
  });

  it('documents every route in OpenAPI with the ValidationConfiguration schema', () => {
    const document = openApi.document() as { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
    expect(Object.keys(document.paths['/api/validation-configurations']!)).to.have.members(['get', 'post']);
    expect(Object.keys(document.paths['/api/validation-configurations/{name}']!)).to.have.members(['get', 'put', 'delete']);
    expect(Object.keys(document.paths['/api/facilities/{facilityId}/validation-configuration']!)).to.have.members(['get', 'put', 'delete']);
    expect(document.components.schemas).to.have.property('ValidationConfiguration');
    // The singular paths these routes had, deprecated copies.
    for (const old of ['/api/validation-configuration', '/api/validation-configuration/{name}', '/api/facility/{facilityId}/validation-configuration']) {
      expect(Object.values(document.paths[old]!).every((operation) => (operation as { deprecated?: boolean }).deprecated === true), old).to.equal(true);
    }
  });

  it('spec Routes 2-4 (plural nouns): the singular paths these routes had answer for one release, marked deprecated with their successor', async () => {
    const resolve = (answer: { headers: Record<string, string> }, from: string) => {
      expect(answer.headers.deprecation, from).to.match(/^@\d+$/);
      const successor = /^<([^>]+)>; rel="successor-version"$/.exec(answer.headers.link ?? '')?.[1];
      return new URL(successor!, `http://gateway/api/validation${from.slice('/api'.length)}`).pathname;
    };
    const created = await request(app).post('/api/validation-configuration').send({ name: 'old-path', packages: [] }).expect(201);
    expect(created.headers.location).to.equal('/api/validation-configurations/old-path');
    expect(resolve(created, '/api/validation-configuration')).to.equal('/api/validation/validation-configurations');
    const got = await request(app).get('/api/validation-configuration/old-path?x=1').expect(200);
    expect(got.body.name).to.equal('old-path');
    expect(resolve(got, '/api/validation-configuration/old-path')).to.equal('/api/validation/validation-configurations/old-path');
    const assigned = await request(app).put('/api/facility/fac-old/validation-configuration').send({ name: 'old-path' }).expect(202);
    expect(resolve(assigned, '/api/facility/fac-old/validation-configuration')).to.equal('/api/validation/facilities/fac-old/validation-configuration');
    expect((await request(app).get('/api/facilities/fac-old/validation-configuration').expect(200)).body.name).to.equal('old-path');
    const current = await request(app).get('/api/facilities/fac-old/validation-configuration').expect(200);
    expect(current.headers.deprecation, 'the new path is not deprecated').to.equal(undefined);
    await request(app).delete('/api/facility/fac-old/validation-configuration').expect(204);
    await request(app).delete('/api/validation-configuration/old-path').expect(204);
  });
});
