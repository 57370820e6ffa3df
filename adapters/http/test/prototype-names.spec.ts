/**
 * Query values that name members of every JavaScript object (`constructor`, `__proto__`,
 * `toString` …) are refused like any other unknown value: 400 naming the parameter, never a 500.
 */
import { expect } from 'chai';
import request from 'supertest';
import { buildTestApp } from './support.js';

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__lookupGetter__'];

describe('HTTP adapter: sort parameters that are Object.prototype member names', () => {
  const { app } = buildTestApp();

  it('sortOrder and sortBy: 400 naming the parameter', async () => {
    for (const name of PROTOTYPE_NAMES) {
      const order = await request(app).get(`/api/facilities?sortOrder=${name}`);
      expect(order.status, `sortOrder=${name}`).to.equal(400);
      expect(order.body.errors, name).to.deep.equal([{ field: 'sortOrder', message: 'must be Ascending or Descending' }]);
      const by = await request(app).get(`/api/facilities?sortBy=${name}`);
      expect(by.status, `sortBy=${name}`).to.equal(400);
      expect(by.body.errors[0].field, name).to.equal('sortBy');
    }
  });

  it('the real words still sort', async () => {
    const res = await request(app).get('/api/facilities?sortOrder=Ascending&sortBy=facilityname').expect(200);
    expect(res.headers['x-sort']).to.equal('FacilityName asc');
  });
});
