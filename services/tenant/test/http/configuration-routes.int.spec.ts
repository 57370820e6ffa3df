import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import type { OpenApiBuilder } from '#adapters/http/index.js';
import { buildTenantApp } from '../support/tenant-app.js';
import { openTenantTestDatabase, type TenantTestDatabase } from '../support/tenant-database.js';

const MISSING_UUID = '00000000-0000-4000-8000-000000000000';

describe('tenant HTTP: reporting plans, measure mappings, vendors, service info (real PostgreSQL)', function () {
  this.timeout(30_000);
  let db: TenantTestDatabase;
  let app: Express;
  let openApi: OpenApiBuilder;

  before(async () => {
    db = await openTenantTestDatabase('http_cfg');
    ({ app, openApi } = buildTenantApp(db));
  });

  after(async () => {
    await db?.close();
  });

  beforeEach(async () => {
    await db.truncate();
    db.settings.checkIfMeasureExists = false;
  });

  async function facility(facilityId: string): Promise<void> {
    await request(app).post('/api/facilities').send({ facilityId, timeZone: 'UTC', scheduledReports: { monthly: ['ACH'] } }).expect(201);
  }

  async function mapping(measure: string, dqm = `dqm-${measure}`): Promise<string> {
    const response = await request(app).post('/api/measure-mappings').send({ measure, dqm, frequency: 'monthly' }).expect(201);
    return response.body.id as string;
  }

  const plan = (facilityId: string, measureMappingId: string, reportingMonth: number, isReporting = true, reportingYear = 2026) =>
    request(app).post('/api/facility-reporting-plans').send({ facilityId, measureMappingId, reportingMonth, reportingYear, isReporting });

  describe('facility reporting plans', () => {
    it('creates (201 + Location), gets, updates (202) and deletes (204) a plan', async () => {
      await facility('F');
      const mappingId = await mapping('ACH');
      const created = await plan('F', mappingId, 3).expect(201);
      expect(created.headers.location).to.equal(`/api/facility-reporting-plans/${created.body.id}`);
      expect(created.body).to.include({ facilityId: 'F', measureMappingId: mappingId, reportingMonth: 3, reportingYear: 2026, isReporting: true });
      await request(app).get(`/api/facility-reporting-plans/${created.body.id}`).expect(200);
      const updated = await request(app).put(`/api/facility-reporting-plans/${created.body.id}`)
        .send({ ...created.body, isReporting: false }).expect(202);
      expect(updated.body.isReporting).to.equal(false);
      await request(app).delete(`/api/facility-reporting-plans/${created.body.id}`).expect(204);
      await request(app).get(`/api/facility-reporting-plans/${created.body.id}`).expect(404);
      await request(app).delete(`/api/facility-reporting-plans/${created.body.id}`).expect(404);
    });

    it('applies the PUT rules: Invalid Id format, body id equal to the URL id, existing plans only', async () => {
      await facility('F');
      const created = await plan('F', 'm', 1).expect(201);
      const invalid = await request(app).put('/api/facility-reporting-plans/not-a-uuid').send({ ...created.body, id: 'not-a-uuid' }).expect(400);
      expect(invalid.body.detail).to.equal('Invalid Id format');
      for (const method of ['get', 'delete'] as const) {
        const refused = await request(app)[method]('/api/facility-reporting-plans/not-a-uuid').expect(400);
        expect(refused.body.detail, method).to.equal('Invalid Id format');
      }
      await request(app).put(`/api/facility-reporting-plans/${created.body.id}`).send({ ...created.body, id: MISSING_UUID }).expect(400);
      const { id: _id, ...withoutId } = created.body;
      await request(app).put(`/api/facility-reporting-plans/${created.body.id}`).send(withoutId).expect(400);
      await request(app).put(`/api/facility-reporting-plans/${MISSING_UUID}`).send({ ...created.body, id: MISSING_UUID }).expect(404);
      const count = await db.orm.em.fork().execute('select count(*)::int as n from facility_reporting_plan');
      expect(count[0]!.n).to.equal(1);
    });

    it('refuses invalid plans with 400 naming the field, unknown facilities, duplicates (409) and unknown mappings when checking', async () => {
      await facility('F');
      const bad = await request(app).post('/api/facility-reporting-plans')
        .send({ facilityId: 'F', measureMappingId: 'm', reportingMonth: 0, reportingYear: 2101, isReporting: true }).expect(400);
      expect(bad.body.errors.map((error: { field: string }) => error.field)).to.deep.equal(['reportingMonth', 'reportingYear']);
      const wrongType = await request(app).post('/api/facility-reporting-plans')
        .send({ facilityId: 'F', measureMappingId: 'm', reportingMonth: '3', reportingYear: 2026, isReporting: 'yes' }).expect(400);
      expect(wrongType.body.errors.map((error: { field: string }) => error.field)).to.have.members(['reportingMonth', 'isReporting']);
      const noFacility = await plan('ghost', 'm', 3).expect(400);
      expect(noFacility.body.errors[0].field).to.equal('facilityId');
      await plan('F', 'm', 3).expect(201);
      await plan('F', 'm', 3).expect(409);
      db.settings.checkIfMeasureExists = true;
      const unknown = await plan('F', 'unknown-mapping', 4).expect(400);
      expect(unknown.body.detail).to.match(/unknown-mapping/);
    });

    it('pages every plan with the specification defaults and refuses other parameters with 400', async () => {
      await request(app).get('/api/facility-reporting-plans').expect(204);
      await facility('F');
      const ids: string[] = [];
      for (let month = 1; month <= 12; month++) ids.push((await plan('F', `m-${month % 3}`, month, month % 2 === 0).expect(201)).body.id);
      const defaults = await request(app).get('/api/facility-reporting-plans').expect(200);
      expect(defaults.body.metadata).to.deep.equal({ pageSize: 10, pageNumber: 1, totalCount: 12, totalPages: 2 });
      expect(defaults.body.records.map((record: { id: string }) => record.id)).to.deep.equal([...ids].sort().reverse().slice(0, 10));
      const byMonth = await request(app).get('/api/facility-reporting-plans?sortBy=ReportingMonth&sortOrder=Ascending&pageSize=5&pageNumber=2').expect(200);
      expect(byMonth.body.records.map((record: { reportingMonth: number }) => record.reportingMonth)).to.deep.equal([6, 7, 8, 9, 10]);
      const lastPage = await request(app).get('/api/facility-reporting-plans?pageSize=100&sortBy=isreporting').expect(200);
      expect(lastPage.body.records[0].isReporting).to.equal(true);
      await request(app).get('/api/facility-reporting-plans?pageNumber=3').expect(204);
      for (const [query, field] of [
        ['sortBy=Measure', 'sortBy'], ['sortBy=Id;drop table facility', 'sortBy'], ['sortOrder=up', 'sortOrder'],
        ['pageSize=0', 'pageSize'], ['pageSize=101', 'pageSize'], ['pageNumber=0', 'pageNumber'], ['pageNumber=1.5', 'pageNumber'],
      ]) {
        const response = await request(app).get(`/api/facility-reporting-plans?${query}`).expect(400);
        expect(response.body.errors[0].field, query).to.equal(field);
      }
    });

    it('spec lines 101, 409 (GET search: the paged model, 204 when empty): lists and deletes the plans of a facility with month, year and isReporting filters', async () => {
      await facility('F');
      await facility('G');
      await plan('F', 'a', 1, true).expect(201);
      await plan('F', 'b', 1, false).expect(201);
      await plan('F', 'a', 2, true, 2027).expect(201);
      await plan('G', 'a', 1, true).expect(201);
      const all = await request(app).get('/api/facilities/F/reporting-plans').expect(200);
      expect(all.body.records).to.have.length(3);
      expect(all.body.metadata).to.deep.equal({ pageSize: 10, pageNumber: 1, totalCount: 3, totalPages: 1 });
      const paged = await request(app).get('/api/facilities/F/reporting-plans?pageSize=2&pageNumber=2').expect(200);
      expect(paged.body.records.map((item: { id: string }) => item.id)).to.deep.equal([all.body.records[2].id]);
      expect(paged.body.metadata).to.deep.equal({ pageSize: 2, pageNumber: 2, totalCount: 3, totalPages: 2 });
      const january = await request(app).get('/api/facilities/F/reporting-plans?month=1&year=2026&isReporting=true').expect(200);
      expect(january.body.records.map((item: { measureMappingId: string }) => item.measureMappingId)).to.deep.equal(['a']);
      const withdrawn = await request(app).get('/api/facilities/F/reporting-plans?isReporting=false').expect(200);
      expect(withdrawn.body.records.map((item: { measureMappingId: string }) => item.measureMappingId)).to.deep.equal(['b']);
      await request(app).get('/api/facilities/F/reporting-plans?year=2030').expect(204);
      for (const [query, field] of [['month=13', 'month'], ['month=0', 'month'], ['year=1999', 'year'], ['year=2101', 'year'], ['isReporting=1', 'isReporting'], ['month=x', 'month']]) {
        const response = await request(app).get(`/api/facilities/F/reporting-plans?${query}`).expect(400);
        expect(response.body.errors[0].field, query).to.equal(field);
      }
      await request(app).delete('/api/facilities/F/reporting-plans').expect(204);
      await request(app).get('/api/facilities/F/reporting-plans').expect(204);
      await request(app).get('/api/facilities/G/reporting-plans').expect(200);
      await request(app).delete('/api/facility-reporting-plans').expect(204);
      await request(app).get('/api/facility-reporting-plans').expect(204);
    });
  });

  describe('measure mappings', () => {
    it('creates, gets, lists, updates with the route id winning, and deletes', async () => {
      await request(app).get('/api/measure-mappings').expect(204);
      const id = await mapping('ACH');
      const got = await request(app).get(`/api/measure-mappings/${id}`).expect(200);
      expect(got.body).to.include({ id, measure: 'ACH', dqm: 'dqm-ACH', frequency: 'Monthly' });
      const updated = await request(app).put(`/api/measure-mappings/${id}`).send({ id: 'some-other-id', measure: 'ACH', dqm: 'dqm-2', frequency: 'Daily' }).expect(202);
      expect(updated.body).to.include({ id, dqm: 'dqm-2', frequency: 'Daily' });
      expect((await request(app).get('/api/measure-mappings').expect(200)).body).to.have.length(1);
      await request(app).put('/api/measure-mappings/00000000-0000-4000-8000-000000000000').send({ measure: 'X', dqm: 'Y', frequency: 'Daily' }).expect(404);
      await request(app).delete(`/api/measure-mappings/${id}`).expect(204);
      await request(app).delete(`/api/measure-mappings/${id}`).expect(404);
    });

    it('spec lines 99, 410 (PUT id format): a mapping id that is not a UUID is 400 Invalid Id format on GET, PUT and DELETE, not 404', async () => {
      for (const [method, send] of [['get', undefined], ['put', { measure: 'X', dqm: 'Y', frequency: 'Daily' }], ['delete', undefined]] as const) {
        const call = request(app)[method]('/api/measure-mappings/some-other-id');
        const answer = await (send ? call.send(send) : call).expect(400);
        expect(answer.body, method).to.include({ detail: 'Invalid Id format', status: 400 });
      }
    });

    it('refuses invalid and duplicate (measure, dqm) mappings; deletes all', async () => {
      const invalid = await request(app).post('/api/measure-mappings').send({ measure: '', dqm: 'x'.repeat(256), frequency: 'Hourly' }).expect(400);
      expect(invalid.body.errors.map((error: { field: string }) => error.field)).to.deep.equal(['dqm', 'measure', 'frequency']);
      await mapping('ACH', 'same');
      await request(app).post('/api/measure-mappings').send({ measure: 'ACH', dqm: 'same', frequency: 'Monthly' }).expect(409);
      await mapping('ACH', 'other');
      await request(app).delete('/api/measure-mappings').expect(204);
      await request(app).get('/api/measure-mappings').expect(204);
      const audits = (await db.outbox('AuditableEventOccurred')).map((row) => row.payload);
      expect(audits.at(-1)).to.include({ action: 'Delete', resource: 'MeasureMapping', facilityId: '*' });
    });
  });

  describe('vendors and vendor versions', () => {
    it('manages vendors and versions, filters versions by vendorId and lets a facility reference a version', async () => {
      const epic = await request(app).post('/api/vendors').send({ name: 'Epic', authentication: 'SMART backend services' }).expect(201);
      const cerner = await request(app).post('/api/vendors').send({ name: 'Cerner' }).expect(201);
      expect(epic.headers.location).to.equal(`/api/vendors/${epic.body.id}`);
      await request(app).post('/api/vendors').send({ name: 'Epic' }).expect(409);
      await request(app).post('/api/vendors').send({ name: 'x'.repeat(256) }).expect(400);
      expect((await request(app).get('/api/vendors').expect(200)).body.records.map((vendor: { name: string }) => vendor.name)).to.deep.equal(['Cerner', 'Epic']);
      const v1 = await request(app).post('/api/vendor-versions').send({ vendorId: epic.body.id, version: '2024' }).expect(201);
      await request(app).post('/api/vendor-versions').send({ vendorId: cerner.body.id, version: 'Millennium' }).expect(201);
      await request(app).post('/api/vendor-versions').send({ vendorId: MISSING_UUID, version: '1' }).expect(400);
      // Spec lines 101, 409 (GET search: 200 with the paged model, 204 when empty), filtered too.
      const epicVersions = await request(app).get(`/api/vendor-versions?vendorId=${epic.body.id}`).expect(200);
      expect(epicVersions.body).to.deep.equal({
        records: [{ id: v1.body.id, vendorId: epic.body.id, version: '2024' }], metadata: { pageSize: 10, pageNumber: 1, totalCount: 1, totalPages: 1 },
      });
      await request(app).get(`/api/vendor-versions?vendorId=${MISSING_UUID}`).expect(204);
      expect((await request(app).get('/api/vendor-versions').expect(200)).body.records).to.have.length(2);
      const second = await request(app).get('/api/vendor-versions?pageSize=1&pageNumber=2').expect(200);
      expect(second.body.metadata).to.deep.equal({ pageSize: 1, pageNumber: 2, totalCount: 2, totalPages: 2 });
      await request(app).get('/api/vendor-versions?pageSize=1&pageNumber=3').expect(204);
      await request(app).get('/api/vendors?pageSize=101').expect(400);

      await request(app).post('/api/facilities').send({ facilityId: 'V', timeZone: 'UTC', vendorVersionId: v1.body.id }).expect(201);
      await request(app).post('/api/facilities').send({ facilityId: 'W', timeZone: 'UTC', vendorVersionId: MISSING_UUID }).expect(400);
      await request(app).delete(`/api/vendor-versions/${v1.body.id}`).expect(409); // still used by facility V

      const renamed = await request(app).put(`/api/vendors/${epic.body.id}`).send({ id: epic.body.id, name: 'Epic Systems' }).expect(202);
      expect(renamed.body).to.deep.equal({ id: epic.body.id, name: 'Epic Systems', authentication: null });
      const invalid = await request(app).put('/api/vendors/epic').send({ id: 'epic', name: 'x' }).expect(400);
      expect(invalid.body.detail).to.equal('Invalid Id format');
      for (const path of ['/api/vendors/epic', '/api/vendor-versions/2024']) {
        expect((await request(app).get(path).expect(400)).body.detail, `GET ${path}`).to.equal('Invalid Id format');
        expect((await request(app).delete(path).expect(400)).body.detail, `DELETE ${path}`).to.equal('Invalid Id format');
      }
      await request(app).put(`/api/vendors/${MISSING_UUID}`).send({ id: MISSING_UUID, name: 'x' }).expect(404);
      await request(app).put(`/api/vendor-versions/${v1.body.id}`).send({ id: v1.body.id, vendorId: epic.body.id, version: '2025' }).expect(202);
      await request(app).get(`/api/vendor-versions/${v1.body.id}`).expect(200);
      await request(app).delete(`/api/vendors/${epic.body.id}`).expect(409); // has versions
      await request(app).delete('/api/facilities/V').expect(204);
      await request(app).delete(`/api/vendor-versions/${v1.body.id}`).expect(204);
      await request(app).delete(`/api/vendors/${epic.body.id}`).expect(204);
      await request(app).get(`/api/vendors/${epic.body.id}`).expect(404);
    });
  });

  describe('remaining error statuses', () => {
    it('answers 404 for unknown facilities, vendors and versions, 204 for empty vendor lists, 400 for invalid mapping updates', async () => {
      await request(app).post('/api/facilities/ghost/$regenerate-report').send({ reportId: 'r' }).expect(404);
      await request(app).get('/api/facilities/ghost/next-runs').expect(404);
      await request(app).get('/api/vendors').expect(204);
      await request(app).get('/api/vendor-versions').expect(204);
      await request(app).get(`/api/vendors/${MISSING_UUID}`).expect(404);
      await request(app).delete(`/api/vendors/${MISSING_UUID}`).expect(404);
      await request(app).get(`/api/vendor-versions/${MISSING_UUID}`).expect(404);
      await request(app).delete(`/api/vendor-versions/${MISSING_UUID}`).expect(404);
      await request(app).put(`/api/vendor-versions/${MISSING_UUID}`).send({ id: MISSING_UUID, vendorId: MISSING_UUID, version: '1' }).expect(404);
      const id = await mapping('ACH');
      const invalid = await request(app).put(`/api/measure-mappings/${id}`).send({ measure: 'ACH', dqm: 'x', frequency: 'Yearly' }).expect(400);
      expect(invalid.body.errors[0].field).to.equal('frequency');
      await request(app).get(`/api/facility-reporting-plans/${MISSING_UUID}`).expect(404);
      await request(app).get('/api/facility-reporting-plans/not-a-plan').expect(400); // Invalid Id format, as on PUT
    });
  });

  describe('service info and API document', () => {
    it('answers service info', async () => {
      const response = await request(app).get('/api/service-info').expect(200);
      expect(response.body).to.deep.equal({ name: 'Link Tenant Service', version: 'test', instanceId: 'test-instance', startedAt: '2026-01-01T00:00:00.000Z' });
    });

    it('registers every tenant route in the OpenAPI 3.1 document', async () => {
      const document = openApi.document();
      const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
        Object.keys(item ?? {}).filter((key) => ['get', 'post', 'put', 'delete'].includes(key)).map((method) => `${method.toUpperCase()} ${path}`));
      expect(operations).to.include.members([
        'GET /api/facilities', 'POST /api/facilities', 'GET /api/facilities/list', 'GET /api/facilities/{facilityId}', 'PUT /api/facilities/{facilityId}',
        'DELETE /api/facilities/{facilityId}', 'DELETE /api/Facility/softDelete/{facilityId}', 'POST /api/facilities/{facilityId}/$restore',
        'POST /api/facilities/{facilityId}/$generate-report', 'POST /api/facilities/{facilityId}/$regenerate-report', 'GET /api/facilities/{facilityId}/next-runs',
        'GET /api/facility-reporting-plans', 'POST /api/facility-reporting-plans', 'DELETE /api/facility-reporting-plans',
        'GET /api/facilities/{facilityId}/reporting-plans', 'DELETE /api/facilities/{facilityId}/reporting-plans',
        'GET /api/facility-reporting-plans/{id}', 'PUT /api/facility-reporting-plans/{id}', 'DELETE /api/facility-reporting-plans/{id}',
        'GET /api/measure-mappings', 'POST /api/measure-mappings', 'DELETE /api/measure-mappings', 'GET /api/measure-mappings/{id}',
        'PUT /api/measure-mappings/{id}', 'DELETE /api/measure-mappings/{id}', 'GET /api/vendors', 'POST /api/vendors', 'GET /api/vendors/{id}',
        'PUT /api/vendors/{id}', 'DELETE /api/vendors/{id}', 'GET /api/vendor-versions', 'POST /api/vendor-versions', 'GET /api/vendor-versions/{id}',
        'PUT /api/vendor-versions/{id}', 'DELETE /api/vendor-versions/{id}', 'GET /api/service-info',
      ]);
      const served = await request(app).get('/api-docs').expect(200);
      expect(served.body.openapi).to.equal('3.1.0');
    });

    it('documents every search the same way: the paged model, 204 when empty, page size 1 to 100 with default 10', () => {
      interface Parameter { name: string; description?: string; schema?: Record<string, unknown> }
      interface SearchOperation {
        parameters?: Parameter[];
        responses: Record<string, { content: Record<string, { schema: { properties: Record<string, unknown> } }> }>;
      }
      const document = openApi.document() as unknown as { paths: Record<string, { get?: SearchOperation }> };
      const searches = Object.entries(document.paths).flatMap(([path, item]) =>
        item.get?.parameters?.some((parameter) => parameter.name === 'pageSize') ? [[path, item.get] as const] : []);
      // The specification's searches: facilities (paged), every reporting plan, a facility's plans, vendor versions by vendor; the others follow suit.
      expect(searches.map(([path]) => path)).to.have.members(['/api/facilities', '/api/facility-reporting-plans', '/api/facilities/{facilityId}/reporting-plans',
        '/api/vendors', '/api/vendor-versions', '/api/signing-keys'].filter((path) => path in document.paths));
      for (const [path, search] of searches) {
        const schema = search.responses['200']?.content['application/json']?.schema;
        expect(Object.keys(schema?.properties ?? {}), path).to.have.members(['records', 'metadata']);
        expect(search.responses, path).to.have.property('204');
        const pageSize = search.parameters?.find((parameter) => parameter.name === 'pageSize');
        expect(pageSize?.schema, path).to.include({ minimum: 1, maximum: 100 });
        expect(pageSize?.description, path).to.contain('default 10');
      }
    });
  });
});
