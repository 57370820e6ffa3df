/**
 * Ids in paths longer than their columns (facility ids 100, plan and measure-mapping ids 450,
 * vendor ids 36): 400 naming the parameter before anything reaches the database.
 */
import { expect } from 'chai';
import request from 'supertest';
import { buildTenantApp } from '../support/tenant-app.js';
import { openTenantTestDatabase, type TenantTestDatabase } from '../support/tenant-database.js';

const long = (n: number) => 'f'.repeat(n);

describe('tenant API: path ids longer than their columns (HTTP)', () => {
  let db: TenantTestDatabase;
  let app: ReturnType<typeof buildTenantApp>['app'];

  before(async () => {
    db = await openTenantTestDatabase('lengths');
    app = buildTenantApp(db).app;
  });
  after(async () => {
    await db?.close();
  });

  const cases: [string, string, string, number][] = [
    ['get', `/api/facilities/${long(101)}`, 'facilityId', 100],
    ['delete', `/api/Facility/softDelete/${long(101)}`, 'facilityId', 100],
    ['post', `/api/facilities/${long(101)}/$generate-report`, 'facilityId', 100],
    ['get', `/api/facilities/${long(101)}/reporting-plans`, 'facilityId', 100],
    ['get', `/api/facility-reporting-plans/${long(451)}`, 'id', 450],
    ['delete', `/api/measure-mappings/${long(451)}`, 'id', 450],
    ['get', `/api/vendors/${long(37)}`, 'id', 36],
    ['get', `/api/vendor-versions/${long(37)}`, 'id', 36],
  ];
  for (const [method, path, field, max] of cases) {
    it(`${method.toUpperCase()} ${path.replace(/f{20,}/, `<${max + 1} characters>`)}: 400 naming ${field}`, async () => {
      const res = await (request(app) as unknown as Record<string, (path: string) => request.Test>)[method]!(path).send({});
      expect(res.status).to.equal(400);
      expect(res.body.errors).to.deep.equal([{ field, message: `must be at most ${max} characters` }]);
    });
  }

  it('at the column\'s length the id is looked up as usual (404: no such facility)', async () => {
    await request(app).get(`/api/facilities/${long(100)}`).expect(404);
    await request(app).get(`/api/facilities/${long(100)}/reporting-plans`).expect(204);
  });
});
