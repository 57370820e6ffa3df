import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { buildTenantApp } from '../support/tenant-app.js';
import { openTenantTestDatabase, type TenantTestDatabase } from '../support/tenant-database.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function facilityBody(facilityId: string, overrides: Record<string, unknown> = {}) {
  return { facilityId, facilityName: `Name of ${facilityId}`, timeZone: 'America/Chicago', scheduledReports: { daily: [], weekly: [], monthly: ['ACH'] }, ...overrides };
}

describe('tenant HTTP: facilities (real PostgreSQL)', function () {
  this.timeout(30_000);
  let db: TenantTestDatabase;
  let app: Express;

  before(async () => {
    db = await openTenantTestDatabase('http_fac');
    app = buildTenantApp(db).app;
  });

  after(async () => {
    await db?.close();
  });

  beforeEach(async () => {
    await db.truncate();
    db.settings.checkIfMeasureExists = false;
  });

  const create = (facilityId: string, overrides: Record<string, unknown> = {}) =>
    request(app).post('/api/facilities').send(facilityBody(facilityId, overrides));

  describe('create', () => {
    it('answers 201 with Location and the representation, schedules it and audits it in the outbox', async () => {
      const response = await create('F-1').expect(201);
      expect(response.headers.location).to.equal('/api/facilities/F-1');
      expect(response.body).to.include({ facilityId: 'F-1', facilityName: 'Name of F-1', timeZone: 'America/Chicago', isDeleted: false, modifyDate: null });
      expect(response.body.id).to.match(UUID);
      expect(response.body.scheduledReports).to.deep.equal({ daily: [], weekly: [], monthly: ['ACH'] });
      const audits = await db.outbox('AuditableEventOccurred');
      expect(audits).to.have.length(1);
      expect(audits[0]!.payload).to.include({ facilityId: 'F-1', action: 'Create', user: 'SystemUser', userId: null, serviceName: 'Tenant', resource: 'Facility' });
      expect(audits[0]!.payload.propertyChanges).to.deep.include({ propertyName: 'timeZone', initialPropertyValue: null, newPropertyValue: 'America/Chicago' });
      const next = await request(app).get('/api/facilities/F-1/next-runs?count=2').expect(200);
      // UTC and the facility's wall clock side by side (Chicago leaves CST for CDT in March).
      expect(next.body).to.deep.equal([{
        frequency: 'Monthly', measures: ['ACH'], timeZone: 'America/Chicago',
        nextFireAt: '2026-02-01T06:00:00.000Z', nextFireAtLocal: '2026-02-01T00:00:00-06:00',
        periods: [
          { start: '2026-02-01T06:00:00.000Z', end: '2026-03-01T06:00:00.000Z', startLocal: '2026-02-01T00:00:00-06:00', endLocal: '2026-03-01T00:00:00-06:00' },
          { start: '2026-03-01T06:00:00.000Z', end: '2026-04-01T05:00:00.000Z', startLocal: '2026-03-01T00:00:00-06:00', endLocal: '2026-04-01T00:00:00-05:00' },
        ],
      }]);
    });

    it('refuses invalid configurations with 400 naming each field', async () => {
      const response = await create(' ', { timeZone: 'GMT+5', scheduledReports: { daily: ['A'], weekly: ['A'], monthly: [] } }).expect(400);
      expect(response.headers['content-type']).to.match(/application\/problem\+json/);
      expect(response.body.errors.map((error: { field: string }) => error.field)).to.have.members(['facilityId', 'timeZone', 'scheduledReports']);
      const missing = await request(app).post('/api/facilities').send({ facilityName: 'x' }).expect(400);
      expect(missing.body.errors.map((error: { field: string }) => error.field)).to.include.members(['facilityId', 'timeZone']);
      await request(app).post('/api/facilities').send([facilityBody('F-2')]).expect(400);
      await request(app).post('/api/facilities').set('content-type', 'application/json').send('{"facilityId":').expect(400);
      expect(await db.outbox('AuditableEventOccurred')).to.have.length(0);
    });

    it('answers 409 for an existing FacilityId, and exactly one of ten concurrent creations succeeds', async () => {
      await create('DUP').expect(201);
      const again = await create('DUP').expect(409);
      expect(again.body.detail).to.match(/DUP/);
      const statuses = await Promise.all(Array.from({ length: 10 }, () => create('RACE').then((response) => response.status)));
      expect(statuses.filter((status) => status === 201)).to.have.length(1);
      expect(statuses.filter((status) => status === 409)).to.have.length(9);
      const count = await db.orm.em.fork().execute(`select count(*)::int as n from facility where facility_id = 'RACE'`);
      expect(count[0]!.n).to.equal(1);
    });

    it('with MeasureConfig__CheckIfMeasureExists on, refuses unknown measures with 400 naming them', async () => {
      db.settings.checkIfMeasureExists = true;
      await request(app).post('/api/measure-mappings').send({ dqm: 'NHSNdQMAcuteCareHospitalInitialPopulation', measure: 'ACH', frequency: 'Monthly' }).expect(201);
      const refused = await create('M-1', { scheduledReports: { daily: ['HYPO'], monthly: ['ACH'] } }).expect(400);
      expect(refused.body.detail).to.match(/HYPO/).and.not.match(/ACH/);
      expect(refused.body.errors[0].field).to.equal('scheduledReports');
      // A mapping is known by its measure name and by its dQM id.
      await create('M-2', { scheduledReports: { monthly: ['ACH'], weekly: ['NHSNdQMAcuteCareHospitalInitialPopulation'] } }).expect(201);
    });
  });

  describe('read', () => {
    it('answers 405 with Allow for a method the path does not support', async () => {
      const response = await request(app).patch('/api/facilities/G-1').send({}).expect(405);
      expect(response.headers.allow).to.include('PUT');
    });

    it('gets one facility by facilityId or answers 404', async () => {
      await create('G-1').expect(201);
      const response = await request(app).get('/api/facilities/G-1').expect(200);
      expect(response.body.facilityId).to.equal('G-1');
      const missing = await request(app).get('/api/facilities/none').expect(404);
      expect(missing.body).to.include({ status: 404 });
    });

    it('searches with filters, a sortBy whitelist, sort orders and paging; 204 when nothing matches', async () => {
      for (const [id, zone] of [['B', 'UTC'], ['A', 'America/Chicago'], ['C', 'UTC'], ['D', 'Europe/London']] as const) {
        await create(id, { timeZone: zone, facilityName: `Hospital ${id}` }).expect(201);
      }
      const first = await request(app).get('/api/facilities?pageSize=2').expect(200);
      expect(first.body.records.map((record: { facilityId: string }) => record.facilityId)).to.deep.equal(['A', 'B']);
      expect(first.body.metadata).to.deep.equal({ pageSize: 2, pageNumber: 1, totalCount: 4, totalPages: 2 });
      const descending = await request(app).get('/api/facilities?sortBy=facilityName&sortOrder=Descending&pageSize=3&pageNumber=1').expect(200);
      expect(descending.body.records.map((record: { facilityId: string }) => record.facilityId)).to.deep.equal(['D', 'C', 'B']);
      const utc = await request(app).get('/api/facilities?timeZone=UTC').expect(200);
      expect(utc.body.metadata.totalCount).to.equal(2);
      const byName = await request(app).get('/api/facilities?facilityName=hospital%20c').expect(200);
      expect(byName.body.records.map((record: { facilityId: string }) => record.facilityId)).to.deep.equal(['C']);
      await request(app).get('/api/facilities?facilityId=A').expect(200);
      await request(app).get('/api/facilities?pageNumber=3&pageSize=2').expect(204);
      await request(app).get('/api/facilities?facilityId=nobody').expect(204);
    });

    it('refuses bad paging and sorting with 400 naming the parameter', async () => {
      await create('P-1').expect(201);
      for (const [query, field] of [
        ['pageSize=0', 'pageSize'], ['pageSize=101', 'pageSize'], ['pageNumber=0', 'pageNumber'], ['pageSize=abc', 'pageSize'],
        ['sortBy=Nope', 'sortBy'], ['sortOrder=Sideways', 'sortOrder'], ['includeDeleted=maybe', 'includeDeleted'], ['pageSize=1&pageSize=2', 'pageSize'],
      ]) {
        const response = await request(app).get(`/api/facilities?${query}`).expect(400);
        expect(response.body.errors[0].field, query).to.equal(field);
      }
    });

    it('refuses SQL in sortBy and treats SQL in filters as plain text', async () => {
      await create('S-1').expect(201);
      await request(app).get('/api/facilities').query({ sortBy: 'FacilityId; DROP TABLE facility; --' }).expect(400);
      await request(app).get('/api/facilities').query({ sortBy: 'facility_id desc, (select pg_sleep(1))' }).expect(400);
      await request(app).get('/api/facilities').query({ facilityName: "' OR '1'='1" }).expect(204);
      await request(app).get('/api/facilities').query({ facilityId: "S-1' OR 1=1 --" }).expect(204);
      await request(app).get('/api/facilities').query({ facilityName: '%' }).expect(204);
      await request(app).get('/api/facilities/list').query({ search: "_' ; DELETE FROM facility; --" }).expect(204);
      const still = await request(app).get('/api/facilities').expect(200);
      expect(still.body.metadata.totalCount).to.equal(1);
    });

    it('lists all facilities by search text, leaving soft-deleted ones out unless includeDeleted', async () => {
      await create('L-1', { facilityName: 'Alpha Clinic' }).expect(201);
      await create('L-2', { facilityName: 'Beta Hospital' }).expect(201);
      await request(app).delete('/api/Facility/softDelete/L-2').expect(200);
      const all = await request(app).get('/api/facilities/list').expect(200);
      expect(all.body).to.deep.equal([{ facilityId: 'L-1', facilityName: 'Alpha Clinic', isDeleted: false }]);
      const withDeleted = await request(app).get('/api/facilities/list?includeDeleted=true&search=HOSP').expect(200);
      expect(withDeleted.body).to.deep.equal([{ facilityId: 'L-2', facilityName: 'Beta Hospital', isDeleted: true }]);
      const paged = await request(app).get('/api/facilities?includeDeleted=true').expect(200);
      expect(paged.body.metadata.totalCount).to.equal(2);
    });
  });

  describe('update and delete', () => {
    it('updates an existing facility with 202, audits the changed properties and refuses a mismatched or unknown one', async () => {
      const created = await create('U-1').expect(201);
      const updated = await request(app).put('/api/facilities/U-1')
        .send({ ...facilityBody('U-1'), id: created.body.id, timeZone: 'Europe/London', facilityName: 'New name' }).expect(202);
      expect(updated.body).to.include({ timeZone: 'Europe/London', facilityName: 'New name' });
      expect(updated.body.modifyDate).to.be.a('string');
      const audits = await db.outbox('AuditableEventOccurred');
      expect(audits.at(-1)!.payload.action).to.equal('Update');
      expect(audits.at(-1)!.payload.propertyChanges).to.deep.equal([
        { propertyName: 'facilityName', initialPropertyValue: 'Name of U-1', newPropertyValue: 'New name' },
        { propertyName: 'timeZone', initialPropertyValue: 'America/Chicago', newPropertyValue: 'Europe/London' },
      ]);
      const runs = await request(app).get('/api/facilities/U-1/next-runs').expect(200);
      expect(runs.body[0].nextFireAt).to.equal('2026-02-01T00:00:00.000Z'); // rescheduled in London at once
      expect(runs.body[0]).to.include({ timeZone: 'Europe/London', nextFireAtLocal: '2026-02-01T00:00:00+00:00' });
      await db.orm.em.fork().execute(`update facility set key_id = 'kid-1' where facility_id = 'U-1'`); // as the key registry does
      const keyKept = await request(app).put('/api/facilities/U-1').send({ ...facilityBody('U-1'), timeZone: 'Europe/London', facilityName: 'New name' }).expect(202);
      expect(keyKept.body.keyId).to.equal('kid-1');
      const keyCleared = await request(app).put('/api/facilities/U-1').send({ ...facilityBody('U-1'), timeZone: 'Europe/London', facilityName: 'New name', keyId: null }).expect(202);
      expect(keyCleared.body.keyId).to.equal(null);
      await request(app).put('/api/facilities/U-1').send(facilityBody('U-2')).expect(400);
      await request(app).put('/api/facilities/U-1').send({ ...facilityBody('U-1'), id: '00000000-0000-4000-8000-000000000000' }).expect(400);
      await request(app).put('/api/facilities/NOPE').send(facilityBody('NOPE')).expect(404);
      await request(app).get('/api/facilities/NOPE').expect(404);
    });

    it('keeps the EHR connections of a facility: set on create, kept by an update that leaves them out, cleared by null; bad ones refused with 400', async () => {
      const epic = { name: 'epic', clientId: 'link-e-1', tokenUrl: 'https://EHR.example.org/oauth2/token' };
      const created = await create('E-1', { ehrConnections: [epic] }).expect(201);
      expect(created.body.ehrConnections).to.deep.equal([{ ...epic, tokenUrl: 'https://ehr.example.org/oauth2/token' }]);
      const kept = await request(app).put('/api/facilities/E-1').send(facilityBody('E-1', { facilityName: 'Renamed' })).expect(202);
      expect(kept.body.ehrConnections).to.have.length(1);
      expect((await request(app).get('/api/facilities/E-1').expect(200)).body.ehrConnections[0].clientId).to.equal('link-e-1');

      const refused = await request(app).put('/api/facilities/E-1').send(facilityBody('E-1', {
        ehrConnections: [epic, { name: 'EPIC', clientId: 'x', tokenUrl: 'http://ehr.example.org/token' }],
      })).expect(400);
      expect(refused.body.errors.map((error: { field: string }) => error.field)).to.deep.equal(['ehrConnections[1].name', 'ehrConnections[1].tokenUrl']);
      expect(refused.body.detail).to.contain('must use https');
      const unknownMember = await create('E-2', { ehrConnections: [{ ...epic, audience: 'x' }] }).expect(400);
      expect(JSON.stringify(unknownMember.body)).to.contain('audience');
      expect((await request(app).get('/api/facilities/E-1').expect(200)).body.ehrConnections).to.have.length(1);

      const cleared = await request(app).put('/api/facilities/E-1').send(facilityBody('E-1', { ehrConnections: null })).expect(202);
      expect(cleared.body.ehrConnections).to.deep.equal([]);
      const audits = await db.outbox('AuditableEventOccurred');
      expect(audits.at(-1)!.payload.propertyChanges).to.deep.include({
        propertyName: 'ehrConnections', initialPropertyValue: JSON.stringify([{ ...epic, tokenUrl: 'https://ehr.example.org/oauth2/token' }]), newPropertyValue: '[]',
      });
    });

    it('soft-deletes with 200 (case-insensitive path), refuses a second time with 400, 404 when unknown, and restores', async () => {
      await create('SD-1').expect(201);
      const deleted = await request(app).delete('/api/Facility/softDelete/SD-1').expect(200);
      expect(deleted.body).to.include({ facilityId: 'SD-1', isDeleted: true });
      await request(app).delete('/api/facility/softdelete/SD-1').expect(400);
      await request(app).delete('/api/facility/softDelete/UNKNOWN').expect(404);
      expect((await request(app).get('/api/facilities/SD-1/next-runs').expect(200)).body).to.deep.equal([]);
      await request(app).get('/api/facilities').expect(204);
      const restored = await request(app).post('/api/facilities/SD-1/$restore').expect(200);
      expect(restored.body.isDeleted).to.equal(false);
      await request(app).post('/api/facilities/SD-1/$restore').expect(400);
      await request(app).post('/api/facilities/UNKNOWN/$restore').expect(404);
      const actions = (await db.outbox('AuditableEventOccurred')).map((row) => row.payload.action);
      expect(actions).to.deep.equal(['Create', 'SoftDelete', 'Restore']);
    });

    it('deletes with 204 and then answers 404', async () => {
      await create('D-1').expect(201);
      await request(app).delete('/api/facilities/D-1').expect(204);
      await request(app).get('/api/facilities/D-1').expect(404);
      await request(app).delete('/api/facilities/D-1').expect(404);
      const schedules = await db.orm.em.fork().execute(`select count(*)::int as n from report_schedule where facility_id = 'D-1'`);
      expect(schedules[0]!.n).to.equal(0);
    });
  });

  describe('reports', () => {
    it('$generate-report sends GenerateReportRequested through the outbox and answers the report id', async () => {
      await create('R-1', { scheduledReports: { monthly: ['ACH', 'HYPO'] } }).expect(201);
      const response = await request(app).post('/api/facilities/R-1/$generate-report')
        .send({ startDate: '2026-01-01T00:00:00Z', endDate: '2026-01-31T23:59:59Z', patientIds: ['p1'] }).expect(200);
      expect(response.body.reportId).to.match(UUID);
      const commands = await db.outbox('GenerateReportRequested');
      expect(commands).to.have.length(1);
      expect(commands[0]!.payload).to.deep.equal({
        schemaVersion: '1.0.0', facilityId: 'R-1', reportId: response.body.reportId, startDate: '2026-01-01T00:00:00.000Z', endDate: '2026-01-31T23:59:59.000Z',
        reportTypes: ['ACH', 'HYPO'], patientIds: ['p1'], bypassSubmission: false, regenerate: false,
      });
      await request(app).post('/api/facilities/R-1/$generate-report').send({ startDate: '2026-02-01T00:00:00Z', endDate: '2026-01-01T00:00:00Z' }).expect(400);
      await request(app).post('/api/facilities/R-1/$generate-report').send({ startDate: 'yesterday', endDate: '2026-01-01T00:00:00Z' }).expect(400);
      await request(app).post('/api/facilities/NONE/$generate-report').send({ startDate: '2026-01-01T00:00:00Z', endDate: '2026-02-01T00:00:00Z' }).expect(404);
    });

    it('$regenerate-report sends a regeneration for the given report id', async () => {
      await create('R-2').expect(201);
      const response = await request(app).post('/api/facilities/R-2/$regenerate-report').send({ reportId: 'report-7', bypassSubmission: true }).expect(200);
      expect(response.body).to.deep.equal({ reportId: 'report-7' });
      const commands = await db.outbox('GenerateReportRequested');
      expect(commands[0]!.payload).to.deep.equal({ schemaVersion: '1.0.0', facilityId: 'R-2', reportId: 'report-7', bypassSubmission: true, regenerate: true });
      await request(app).post('/api/facilities/R-2/$regenerate-report').send({}).expect(400);
      await request(app).delete('/api/Facility/softDelete/R-2').expect(200);
      const refused = await request(app).post('/api/facilities/R-2/$regenerate-report').send({ reportId: 'report-8' }).expect(400);
      expect(refused.body.detail).to.match(/soft-deleted/);
      await request(app).get('/api/facilities/R-2/next-runs?count=0').expect(400);
    });
  });
});
