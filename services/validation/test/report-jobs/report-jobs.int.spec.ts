/**
 * Re-categorize and re-validate jobs against the real PostgreSQL (a unique database, dropped after),
 * through their HTTP routes, with the real ValidationFlow fetching from a real HTTP report service
 * stub; only the FHIR engine is a fake (it reports one error per resource whose message names the
 * patient, so rules can be aimed at them).
 */
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { buildCatalog } from '#contracts/catalog.js';
import { createHttpApp, OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { openDatabase, OutboxMessageEntity, outboxMigration, type Database } from '#adapters/persistence/index.js';
import { validationApiEntities, validationApiMigrations } from '#validation/adapters/http/validation-api-module.js';
import { createValidationApiModule, type ValidationApiModule } from '#validation/composition.js';
import { pgValidationApiRepositories } from '#validation/adapters/persistence/validation-api-repositories.js';
import { PgResultRepository } from '#validation/adapters/persistence/result-repository.js';
import { HttpReportService } from '#validation/adapters/report-service/http-report-service.js';
import { PgReportJobStore, PgReportSubmissions, reportJobEntities, reportJobMigrations, reportJobRoutes } from '#validation/adapters/report-jobs/index.js';
import { INTERRUPTED_BY_RESTART, ReportJobService, type ReportJob } from '#validation/application/report-jobs/index.js';
import { ValidationFlow, type ReadyForValidationEvent } from '#validation/application/validation-flow/index.js';
import { PgFlowStore } from '#validation/adapters/persistence/pg-flow-store.js';
import { validationFlowEntities, validationFlowMigrations } from '#validation/adapters/persistence/validation-flow-tables.js';
import { dropDatabase, PG, uniqueSuffix } from '../flow/support/flow-harness.js';
import { ReportServiceStub } from '../flow/support/report-service-stub.js';
import { inThreadSubmissionValidator, recordOf } from '../flow/support/in-thread-submission-validator.js';

const COMPLETION = { subject: buildCatalog({ subjectRoot: 'jobstest' }).byName('ValidationComplete').subject, schemaVersion: '1.0.0' };
const FACILITY = 'facility-jobs';
const REPORT = 'report-jobs-1';
const PATIENTS = ['p1', 'p2', 'p3'];

function submission(patientId: string) {
  return { resourceType: 'MeasureReport', id: `mr-${patientId}`, contained: [{ resourceType: 'Patient', id: patientId }] };
}

/** One error per resource: "Zebra code unknown for <patient or resource id>". */
const fakeOutcome = (resource: Record<string, unknown>) => ({
  resourceType: 'OperationOutcome' as const,
  issue: [{ severity: 'error' as const, code: 'invalid', details: { text: `Zebra code unknown for ${String(resource.id)}` } }],
});
const fakeEngine = {
  validate: async (resource: Record<string, unknown>) => fakeOutcome(resource),
  // The flow's path (the submission task and the engine host's wrap) around the same outcomes.
  ...inThreadSubmissionValidator({ validateSettled: (resource) => fakeOutcome(recordOf(resource)) }),
};

describe('report jobs: re-categorize and re-validate', function () {
  this.timeout(20_000);
  const dbName = `test_flow_jobs_${uniqueSuffix()}`;
  let db: Database;
  let api: ValidationApiModule;
  let flow: ValidationFlow;
  let jobs: ReportJobService;
  let app: Express;
  let openApi: OpenApiBuilder;
  const reportService = new ReportServiceStub();
  const handled: ReadyForValidationEvent[] = [];
  let failPatient: string | undefined;

  const outboxCount = async () => Number((await db.orm.em.fork().execute<{ n: string }[]>('select count(*)::int as n from outbox_message'))[0]!.n);
  /** The categories of the patient's stored results, one entry per (result, category), sorted. */
  const linksOf = async (patientId: string) => (await new PgResultRepository(db.orm).findResults({ facilityId: FACILITY, reportId: REPORT, patientId }, undefined, { offset: 0, limit: 1000 }))
    .records.flatMap((r) => r.categoryIds).sort();
  const verdictOf = async (patientId: string) => (await new PgFlowStore(db.orm).find({ facilityId: FACILITY, reportId: REPORT, patientId }))?.valid;
  const job = async (id: string): Promise<ReportJob> => (await request(app).get(`/api/jobs/${id}`).expect(200)).body as ReportJob;

  before(async () => {
    db = await openDatabase({
      ...PG, dbName, poolMax: 6, logger: silentLogger(),
      entities: [OutboxMessageEntity, ...validationApiEntities, ...validationFlowEntities, ...reportJobEntities],
      migrations: [outboxMigration, ...validationApiMigrations, ...validationFlowMigrations, ...reportJobMigrations],
    });
    await reportService.start();
    for (const patientId of PATIENTS) reportService.put(FACILITY, REPORT, patientId, submission(patientId));
    openApi = new OpenApiBuilder({ title: 'Validation', version: 'test' });
    api = createValidationApiModule({ repositories: pgValidationApiRepositories(db.orm), openApi, validator: fakeEngine as never });
    flow = new ValidationFlow({
      source: new HttpReportService({ baseUrl: reportService.url, serviceToken: 'jobs-token', retries: 0, timeoutMs: 5_000, logger: silentLogger() }),
      validator: fakeEngine, categories: api.categories, store: new PgFlowStore(db.orm),
      completion: COMPLETION,
    });
    jobs = new ReportJobService({
      store: new PgReportJobStore(db.orm), submissions: new PgReportSubmissions(db.orm, { completion: COMPLETION }), categories: api.categories, schemaVersion: '1',
      flow: {
        handle: async (event) => {
          handled.push(event);
          if (event.patientId === failPatient) throw new Error('report service unavailable');
          return flow.handle(event);
        },
      },
    });
    const http = createHttpApp({ serviceName: 'validation-jobs-test', logger: silentLogger(), openApi });
    http.app.use(reportJobRoutes(openApi, jobs));
    http.app.use(api.router);
    app = http.finish();
    // The report's first validation: no categories yet, so every error is uncategorized (invalid).
    for (const patientId of PATIENTS) await flow.handle({ schemaVersion: '1', facilityId: FACILITY, reportTrackingId: REPORT, patientId, reportTypes: [] });
  });

  after(async () => {
    jobs?.stop();
    await jobs?.idle();
    await reportService.stop();
    await db?.close();
    await dropDatabase(dbName);
  });

  it('re-categorize applies a newly added rule to the stored results, updates the verdicts, and ends succeeded with done = total', async () => {
    expect(await linksOf('p1')).to.deep.equal([]);
    expect(await verdictOf('p1')).to.equal(false);
    const announcedBefore = await outboxCount();

    await api.categories.save('zebra-p1', { id: 'zebra-p1', title: 'Zebra codes of p1', severity: 'WARNING', acceptable: true, guidance: 'Known.' });
    await api.categories.addRule('zebra-p1', { field: 'MESSAGE', regex: 'Zebra code unknown for p1$' });

    // Spec lines 95, 97 (POST creating a resource: 201, Location, the representation): the job is the resource created.
    const res = await request(app).post(`/api/result/${FACILITY}/${REPORT}/$recategorize`).expect(201);
    expect(res.body).to.include({ status: 'queued', kind: 'recategorize', facilityId: FACILITY, reportId: REPORT, total: 3, done: 0 });
    expect(res.body.id).to.equal(res.body.jobId);
    expect(res.headers.location).to.equal(`/api/jobs/${res.body.jobId}`);
    await jobs.idle();

    const finished = await job(res.body.jobId);
    expect(finished).to.include({ kind: 'recategorize', facilityId: FACILITY, reportId: REPORT, status: 'succeeded', total: 3, done: 3, errors: 0, lastError: null });
    // p1 has two results (MeasureReport and Patient); only the Patient's message names p1.
    expect(await linksOf('p1')).to.deep.equal(['zebra-p1']);
    expect(await linksOf('p2')).to.deep.equal([]);
    expect(await verdictOf('p2')).to.equal(false);
    const categories = (await request(app).get(`/api/result/${FACILITY}/${REPORT}/$categories`).expect(200)).body as { id: string; count: number }[];
    expect(categories.find((c) => c.id === 'zebra-p1')?.count).to.equal(1);
    expect(await outboxCount(), 'no verdict changed: no ValidationComplete').to.equal(announcedBefore);

    // A rule covering every error, acceptable: the stored verdicts flip to valid.
    await api.categories.save('zebra-all', { id: 'zebra-all', title: 'All zebra codes', severity: 'WARNING', acceptable: true, guidance: 'Known.' });
    await api.categories.addRule('zebra-all', { field: 'MESSAGE', regex: '^Zebra' });
    const second = await request(app).post(`/api/result/${FACILITY}/${REPORT}/$recategorize`).expect(201);
    await jobs.idle();
    expect(await job(second.body.jobId)).to.include({ status: 'succeeded', done: 3 });
    expect(await linksOf('p1'), 'both results of p1 in zebra-all, the Patient\'s also in zebra-p1').to.deep.equal(['zebra-all', 'zebra-all', 'zebra-p1']);
    expect(await verdictOf('p1')).to.equal(true);
    expect(await verdictOf('p3')).to.equal(true);
    expect(await outboxCount(), 'every verdict changed: one ValidationComplete each').to.equal(announcedBefore + 3);
  });

  it('re-validate runs the flow for every stored patient, fetching each again, and reports progress with the failures', async () => {
    handled.length = 0;
    failPatient = 'p2';
    const fetchesBefore = PATIENTS.map((p) => reportService.requestsFor(FACILITY, REPORT, p));
    await api.categories.addRule('zebra-all', { field: 'MESSAGE', regex: 'nothing matches this' }); // p3 becomes invalid again

    const res = await request(app).post(`/api/result/${FACILITY}/${REPORT}/$revalidate`).expect(201);
    await jobs.idle();

    const finished = await job(res.body.jobId);
    expect(finished).to.include({ kind: 'revalidate', status: 'succeeded', total: 3, done: 3, errors: 1 });
    expect(finished.lastError).to.equal('patient p2: report service unavailable');
    expect(handled.map((e) => e.patientId).sort()).to.deep.equal(PATIENTS);
    expect(handled.every((e) => e.facilityId === FACILITY && e.reportTrackingId === REPORT)).to.equal(true);
    expect(PATIENTS.map((p) => reportService.requestsFor(FACILITY, REPORT, p) - fetchesBefore[PATIENTS.indexOf(p)]!)).to.deep.equal([1, 0, 1]);
    expect(await verdictOf('p3')).to.equal(false);
    expect(await verdictOf('p2'), 'the failed patient keeps its stored verdict').to.equal(true);
  });

  it('shows progress while running, and queues jobs beyond the concurrency bound', async () => {
    const gates: (() => void)[] = [];
    const started: string[] = [];
    const gated = new ReportJobService({
      store: new PgReportJobStore(db.orm), submissions: new PgReportSubmissions(db.orm, { completion: COMPLETION }), categories: api.categories, schemaVersion: '1',
      maxConcurrentJobs: 1, patientConcurrency: 1,
      flow: { handle: (event) => new Promise<void>((resolve) => { started.push(event.patientId); gates.push(resolve); }) },
    });
    const store = new PgReportJobStore(db.orm);
    const first = await gated.submit('revalidate', FACILITY, REPORT);
    const second = await gated.submit('recategorize', FACILITY, REPORT);
    const waitFor = async (what: () => boolean) => { while (!what()) await new Promise((resolve) => setTimeout(resolve, 5)); };
    await waitFor(() => gates.length === 1);
    gates.shift()!();
    await waitFor(() => gates.length === 1);
    expect(await store.get(first.id)).to.include({ status: 'running', total: 3, done: 1 });
    expect(await store.get(second.id), 'waits for the only job slot').to.include({ status: 'queued', done: 0 });
    gates.shift()!();
    await waitFor(() => gates.length === 1);
    gates.shift()!();
    await gated.idle();
    expect(started).to.deep.equal(PATIENTS);
    expect(await store.get(first.id)).to.include({ status: 'succeeded', done: 3, errors: 0 });
    expect(await store.get(second.id)).to.include({ status: 'succeeded', done: 3 });
  });

  it('registers the three routes in the OpenAPI document', () => {
    const paths = openApi.document().paths ?? {};
    const recategorize = paths['/api/result/{facilityId}/{reportId}/$recategorize']?.post;
    expect(recategorize?.responses).to.have.keys('201', '400', '404', '500');
    // The re-categorization announces a verdict it changes (and says so).
    expect(recategorize?.description).to.contain('gets a ValidationComplete with the new verdict').and.not.contain('emits no ValidationComplete');
    expect(paths['/api/result/{facilityId}/{reportId}/$revalidate']?.post).to.be.an('object');
    expect(paths['/api/jobs/{jobId}']?.get?.responses).to.include.keys('200', '404');
    expect(paths['/api/job/{jobId}']?.get?.deprecated, 'the earlier path, deprecated').to.equal(true);
  });

  it('a job fails when every patient fails', async () => {
    const lonely = 'report-jobs-2';
    reportService.put(FACILITY, lonely, 'p9', submission('p9'));
    await flow.handle({ schemaVersion: '1', facilityId: FACILITY, reportTrackingId: lonely, patientId: 'p9', reportTypes: [] });
    failPatient = 'p9';
    const res = await request(app).post(`/api/result/${FACILITY}/${lonely}/$revalidate`).expect(201);
    await jobs.idle();
    expect(await job(res.body.jobId)).to.include({ status: 'failed', total: 1, done: 1, errors: 1 });
  });

  it('answers 404 Problems for an unknown job and for a report with nothing stored, 400 Invalid Id format for a job id that is no UUID', async () => {
    const unknown = await request(app).get('/api/jobs/9b2f1d0e-4c61-4a53-8f57-1f1c8f1d2a11').expect(404);
    expect(unknown.headers['content-type']).to.match(/application\/problem\+json/);
    expect((await request(app).get('/api/jobs/not-a-uuid').expect(400)).body.detail).to.equal('Invalid Id format');
    for (const operation of ['$recategorize', '$revalidate']) {
      const res = await request(app).post(`/api/result/${FACILITY}/no-such-report/${operation}`).expect(404);
      expect(res.body.detail).to.contain('no-such-report');
    }
  });

  it('keeps the earlier job path for one release, deprecated, naming its successor', async () => {
    const res = await request(app).post(`/api/result/${FACILITY}/${REPORT}/$recategorize`).expect(201);
    await jobs.idle();
    const old = await request(app).get(`/api/job/${res.body.jobId}`).expect(200);
    expect(old.body).to.include({ id: res.body.jobId, status: 'succeeded' });
    expect(old.headers.deprecation).to.match(/^@\d+$/);
    const successor = /^<([^>]+)>; rel="successor-version"$/.exec(old.headers.link ?? '')?.[1];
    expect(new URL(successor!, `http://gateway/api/validation/job/${res.body.jobId}`).pathname).to.equal(`/api/validation/jobs/${res.body.jobId}`);
    expect((await request(app).get('/api/job/not-a-uuid').expect(400)).body.detail).to.equal('Invalid Id format');
  });

  it('a job cut off by a restart is resumed from its checkpoint by the instance that takes it over, not failed; live jobs are spared', async () => {
    const store = new PgReportJobStore(db.orm);
    // The first instance: p1 done, p2 hangs (the instance then "dies": it is never released).
    const firstHandled: string[] = [];
    const dying = new ReportJobService({
      store, submissions: new PgReportSubmissions(db.orm, { completion: COMPLETION }), categories: api.categories, schemaVersion: '1', patientConcurrency: 1,
      flow: {
        handle: async (event) => {
          firstHandled.push(event.patientId);
          if (event.patientId === 'p2') return new Promise<never>(() => undefined);
          return flow.handle(event);
        },
      },
    });
    const cut = await dying.submit('revalidate', FACILITY, REPORT);
    const waitFor = async (what: () => Promise<boolean>) => { while (!(await what())) await new Promise((resolve) => setTimeout(resolve, 10)); };
    await waitFor(async () => (await store.get(cut.id))?.done === 1);
    expect(firstHandled).to.deep.equal(['p1', 'p2']);
    // Its heartbeat stops with it: the job looks abandoned after staleAfterMs.
    await db.orm.em.fork().execute(`update report_job set updated_at = now() - interval '10 minutes' where id = ?`, [cut.id]);
    const live = await store.create({ kind: 'recategorize', facilityId: FACILITY, reportId: REPORT, total: 3 });

    const resumedHandled: string[] = [];
    const restarted = new ReportJobService({
      store, submissions: new PgReportSubmissions(db.orm, { completion: COMPLETION }), categories: api.categories, schemaVersion: '1', staleAfterMs: 60_000,
      flow: { handle: async (event) => { resumedHandled.push(event.patientId); return flow.handle(event); } },
    });
    expect(await restarted.start()).to.deep.equal({ resumed: 1, failed: 0 });
    await restarted.idle();
    restarted.stop();
    expect(resumedHandled, 'from the checkpoint on: p1 is not done again').to.deep.equal(['p2', 'p3']);
    expect(await store.get(cut.id)).to.include({ status: 'succeeded', total: 3, done: 3, errors: 0 });
    expect(await store.get(live.id)).to.include({ status: 'queued' });
    await store.update(live.id, { status: 'failed' }); // tidy: nothing runs it
  });

  it('a job cut off by restarts three times is failed (interrupted by a restart), not resumed a fourth time', async () => {
    const store = new PgReportJobStore(db.orm);
    const poison = await store.create({ kind: 'revalidate', facilityId: FACILITY, reportId: REPORT, total: 3 });
    await store.update(poison.id, { status: 'running', done: 1 });
    await db.orm.em.fork().execute(`update report_job set restarts = 3, updated_at = now() - interval '10 minutes' where id = ?`, [poison.id]);
    const restarted = new ReportJobService({
      store, submissions: new PgReportSubmissions(db.orm, { completion: COMPLETION }), categories: api.categories, schemaVersion: '1', flow, staleAfterMs: 60_000,
    });
    expect(await restarted.start()).to.deep.equal({ resumed: 0, failed: 1 });
    restarted.stop();
    expect(await store.get(poison.id)).to.include({ status: 'failed', done: 1, lastError: INTERRUPTED_BY_RESTART });
  });

  it('two instances sweeping at once: one of them takes the job over', async () => {
    const store = new PgReportJobStore(db.orm);
    const orphan = await store.create({ kind: 'recategorize', facilityId: FACILITY, reportId: REPORT, total: 3 });
    await db.orm.em.fork().execute(`update report_job set updated_at = now() - interval '10 minutes' where id = ?`, [orphan.id]);
    const sweeps = await Promise.all([1, 2, 3].map(() => store.claimStale(60_000, 3, INTERRUPTED_BY_RESTART)));
    expect(sweeps.flatMap((sweep) => sweep.claimed.map((c) => c.job.id))).to.deep.equal([orphan.id]);
    await store.update(orphan.id, { status: 'failed' }); // tidy: nothing runs it
  });
});
