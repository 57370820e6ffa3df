/**
 * Ids in paths longer than their columns (255 for facility, report, patient and category ids and
 * artifact names; 128 for validation-configuration names): 400 naming the parameter, never a 500
 * from the database, and nothing stored.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { Express } from 'express';
import { createHttpApp, OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { openDatabase, type Database } from '#adapters/persistence/index.js';
import { validationApiEntities, validationApiMigrations } from '#validation/adapters/http/validation-api-module.js';
import { createValidationApiModule } from '#validation/composition.js';
import { pgValidationApiRepositories } from '#validation/adapters/persistence/validation-api-repositories.js';
import { validationConfigurationRoutes } from '#validation/adapters/http/validation-configuration-routes.js';
import { ValidationConfigurationService } from '#validation/application/validation-configuration-service.js';
import { PgFacilityScopes } from '#validation/adapters/persistence/pg-facility-scopes.js';
import { validationFlowEntities, validationFlowMigrations } from '#validation/adapters/persistence/validation-flow-tables.js';
import { dropDatabase, PG, uniqueSuffix } from '../flow/support/flow-harness.js';
import { ScriptedValidator } from './support/app.js';

const long = (n: number) => 'f'.repeat(n);

describe('validation API: path ids longer than their columns (HTTP)', function () {
  this.timeout(30_000);
  const dbName = `test_flow_lengths_${uniqueSuffix()}`;
  let db: Database;
  let app: Express;

  before(async () => {
    db = await openDatabase({
      ...PG, dbName, poolMax: 4, logger: silentLogger(),
      entities: [...validationApiEntities, ...validationFlowEntities], migrations: [...validationApiMigrations, ...validationFlowMigrations],
    });
    const openApi = new OpenApiBuilder({ title: 'test', version: '1' });
    const http = createHttpApp({ serviceName: 'validation-lengths-test', logger: silentLogger(), openApi });
    http.app.use(createValidationApiModule({ repositories: pgValidationApiRepositories(db.orm), openApi, validator: new ScriptedValidator() }).router);
    http.app.use(validationConfigurationRoutes(openApi, new ValidationConfigurationService(new PgFacilityScopes(db.orm))));
    app = http.finish();
    await request(app).post('/api/validation-configurations').send({ name: 'cfg', packages: [] }).expect(201);
  });
  after(async () => {
    await db?.close();
    await dropDatabase(dbName);
  });

  async function refused(method: 'get' | 'put' | 'post' | 'delete', path: string, field: string, max: number, body?: object): Promise<void> {
    const call = request(app)[method](path);
    const res = await (body === undefined ? call : call.send(body));
    expect(res.status, `${method.toUpperCase()} ${path.slice(0, 60)}…`).to.equal(400);
    expect(res.body.errors, path).to.deep.equal([{ field, message: `must be at most ${max} characters` }]);
    expect(res.body.detail).to.match(new RegExp(`^Path parameter ${field} must be at most ${max} characters`));
  }

  it('assigning a configuration to a 256-character facility id (it used to fail in the database with 500)', async () => {
    await refused('put', `/api/facilities/${long(256)}/validation-configuration`, 'facilityId', 255, { name: 'cfg' });
    await refused('get', `/api/facilities/${long(256)}/validation-configuration`, 'facilityId', 255);
    await refused('delete', `/api/facilities/${long(256)}/validation-configuration`, 'facilityId', 255);
    // At the column's length it works.
    await request(app).put(`/api/facilities/${long(255)}/validation-configuration`).send({ name: 'cfg' }).expect(202);
    expect((await request(app).get(`/api/facilities/${long(255)}/validation-configuration`).expect(200)).body.name).to.equal('cfg');
  });

  it('validation-configuration names over 128 characters, in the path and in an assignment body', async () => {
    await refused('get', `/api/validation-configurations/${long(129)}`, 'name', 128);
    await refused('delete', `/api/validation-configurations/${long(129)}`, 'name', 128);
    await refused('put', `/api/validation-configurations/${long(129)}`, 'name', 128, { name: long(129), packages: [] });
    const res = await request(app).put('/api/facility/f1/validation-configuration').send({ name: long(129) }).expect(400);
    expect(res.body.errors[0].field).to.equal('name');
  });

  it('result routes: facility, report, patient and category ids over 255 characters', async () => {
    await refused('get', `/api/result/${long(300)}/r`, 'facilityId', 255);
    await refused('get', `/api/result/f/${long(300)}`, 'reportId', 255);
    await refused('get', `/api/result/f/r/${long(300)}`, 'patientId', 255);
    await refused('get', `/api/result/f/r/${long(300)}/$validity`, 'patientId', 255);
    await refused('get', `/api/result/${long(300)}/r/validity`, 'facilityId', 255);
    await refused('get', `/api/result/f/r/$categories/${long(300)}`, 'categoryId', 255);
    await request(app).get(`/api/result/${long(255)}/r`).expect(204);
  });

  it('category ids and artifact names over 255 characters', async () => {
    await refused('get', `/api/category/${long(256)}`, 'id', 255);
    await refused('delete', `/api/category/${long(256)}`, 'id', 255);
    await refused('post', `/api/category/${long(256)}/rule`, 'id', 255, { field: 'MESSAGE', regex: 'x' });
    await refused('get', `/api/artifact/RESOURCE/${long(256)}`, 'name', 255);
    await refused('get', `/api/artifact/package/${long(256)}/terminology-dependencies`, 'packageId', 255);
    await request(app).get(`/api/category/${long(255)}`).expect(404);
  });
});
