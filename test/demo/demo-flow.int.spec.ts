/**
 * The pieces of `npm run demo`, each against the real thing: the synthetic submissions are judged
 * as they say by the validation flow (engine with the embedded packages, default categories,
 * PostgreSQL) fetching from the report-service stand-in over HTTP (one through a payloadUri); the
 * stand-in's report summary is what the pre-qualification adapter reads; the publisher CLI puts a
 * contract-valid ReadyForValidation on a namespaced stream of the real NATS.
 */
import { expect } from 'chai';
import { OpenApiBuilder } from '#adapters/http/index.js';
import { connectNats, type NatsHandle } from '#adapters/messaging/connection.js';
import { provisionCatalog } from '#adapters/messaging/provisioning.js';
import { silentLogger } from '#adapters/observability/logger.js';
import type { Database } from '#adapters/persistence/index.js';
import { catalogForNamespace } from '#contracts/catalog.js';
import { ReportServiceStandIn } from '#scripts/demo/report-service-stand-in.js';
import { DEMO_FACILITY, DEMO_MEASURES, DEMO_PERIOD, demoSubmissions } from '#scripts/demo/synthetic-submissions.js';
import { embeddedPackagesDirectory } from '#validation/adapters/artifacts/embedded-packages.js';
import { EngineHost } from '#validation/adapters/engine/index.js';
import { createValidationApiModule } from '#validation/composition.js';
import { pgValidationApiRepositories } from '#validation/adapters/persistence/validation-api-repositories.js';
import { HttpReportMetadata } from '#validation/adapters/report-service/http-report-metadata.js';
import { HttpReportService } from '#validation/adapters/report-service/http-report-service.js';
import { ValidationFlow } from '#validation/application/validation-flow/index.js';
import { PgFlowStore } from '#validation/adapters/persistence/pg-flow-store.js';
import { parseRequests, publishReadyForValidation, UsageError } from '#validation/cli/publish-ready-for-validation.js';
import { dropDatabase, folderArtifacts, openFlowDatabase, uniqueSuffix } from '../../services/validation/test/flow/support/flow-harness.js';

const REPORT = 'demo-report-test';

describe('demo: synthetic submissions through the flow, the report-service stand-in, the publisher', function () {
  this.timeout(180_000);
  const logger = silentLogger();
  const suffix = uniqueSuffix();
  const dbName = `test_flow_demo_${suffix}`;
  const standIn = new ReportServiceStandIn();
  let db: Database;
  let engine: EngineHost;
  let flow: ValidationFlow;

  before(async () => {
    await standIn.start();
    standIn.addReport({ facilityId: DEMO_FACILITY, reportId: REPORT, measures: DEMO_MEASURES, period: DEMO_PERIOD });
    // Through JSON, as the report service sends them.
    for (const s of demoSubmissions()) standIn.addSubmission(DEMO_FACILITY, REPORT, s.patientId, JSON.parse(JSON.stringify(s.body)) as Record<string, unknown>);
    db = await openFlowDatabase(dbName);
    engine = new EngineHost({ artifacts: folderArtifacts(embeddedPackagesDirectory()!), workers: 1, terminology: {}, logger });
    await engine.start();
    const api = createValidationApiModule({ repositories: pgValidationApiRepositories(db.orm), openApi: new OpenApiBuilder({ title: 'demo test', version: '1' }), validator: engine });
    await api.categories.initialize();
    flow = new ValidationFlow({
      source: new HttpReportService({ baseUrl: standIn.url, retries: 0, timeoutMs: 5_000, logger }),
      validator: engine, categories: api.categories, store: new PgFlowStore(db.orm),
      completion: { subject: 'demo-test.nhsn.compliance.event.validation-complete.v1', schemaVersion: '1.0.0' },
    });
  });
  after(async () => {
    await engine?.close();
    await standIn.stop();
    await db?.close();
    await dropDatabase(dbName);
  });

  it('judges every synthetic submission as it says (the second one read through a payloadUri into the stand-in)', async () => {
    const verdicts: [string, boolean][] = [];
    for (const [index, submission] of demoSubmissions().entries()) {
      const payloadUri = index === 1 ? standIn.payloadUri(DEMO_FACILITY, REPORT, submission.patientId) : undefined;
      const result = await flow.handle({
        schemaVersion: '1.0.0', facilityId: DEMO_FACILITY, reportTrackingId: REPORT, patientId: submission.patientId, reportTypes: DEMO_MEASURES,
        ...(payloadUri ? { payloadUri } : {}),
      });
      expect(result.resourceCount, submission.patientId).to.equal(submission.resourceCount);
      verdicts.push([submission.description, result.valid]);
    }
    expect(verdicts).to.deep.equal(demoSubmissions().map((s) => [s.description, s.expectValid]));
    expect(demoSubmissions().some((s) => s.expectValid) && demoSubmissions().some((s) => !s.expectValid)).to.equal(true);
    expect(standIn.requests.filter((r) => r.startsWith('GET /payloads/'))).to.have.length(1);
  });

  it('serves the report summary the pre-qualification adapter reads', async () => {
    const metadata = new HttpReportMetadata({ baseUrl: standIn.url, logger });
    expect(await metadata.describe(DEMO_FACILITY, REPORT)).to.deep.include({ measures: DEMO_MEASURES, periodStart: DEMO_PERIOD.start, periodEnd: DEMO_PERIOD.end });
    expect(await metadata.describe(DEMO_FACILITY, 'no-such-report')).to.equal(undefined);
  });

  describe('publisher CLI', () => {
    let nats: NatsHandle;
    const catalog = catalogForNamespace(`demo-test-${suffix}`, 'test');

    before(async () => {
      nats = await connectNats({ servers: [process.env.NATS_URL ?? '127.0.0.1:4222'], name: 'demo-publisher-test', logger });
      await provisionCatalog(nats.jsm, catalog);
    });
    after(async () => {
      for (const stream of [...catalog.streams, catalog.deadLetterStream]) await nats.jsm.streams.delete(stream.name).catch(() => undefined);
      await nats?.close();
    });

    it('reads --facility --report --patient (several patients, measures, one payloadUri) and refuses what is missing', () => {
      expect(parseRequests(['--facility', 'f1', '--report', 'r1', '--patient', 'p1', '--patient', 'p2', '--report-type', 'M1'])).to.deep.equal([
        { facilityId: 'f1', reportId: 'r1', patientId: 'p1', reportTypes: ['M1'] },
        { facilityId: 'f1', reportId: 'r1', patientId: 'p2', reportTypes: ['M1'] },
      ]);
      expect(() => parseRequests(['--facility', 'f1', '--patient', 'p1'])).to.throw(UsageError, /missing --report/);
      expect(() => parseRequests(['--facility', 'f1', '--report', 'r', '--patient', 'a', '--patient', 'b', '--payload-uri', 'http://x/p'])).to.throw(UsageError, /one --patient/);
      expect(() => parseRequests(['--facility', 'f1', '--report', 'r', '--patient', 'a', '--tenant', 'x'])).to.throw(UsageError);
    });

    it('publishes a contract-valid ReadyForValidation to the namespace\'s stream, once per message id', async () => {
      const request = { facilityId: 'f1', reportId: 'r1', patientId: 'p1', reportTypes: ['M1'], payloadUri: 'http://127.0.0.1:5110/payloads/f1/r1/p1.ndjson', msgId: `m-${suffix}` };
      const first = await publishReadyForValidation(nats.js, catalog, request);
      expect(first).to.include({ subject: `demo-test-${suffix}.nhsn.compliance.event.ready-for-validation.v1`, stream: `COMPLIANCE_DEMO_TEST_${suffix.toUpperCase()}`, duplicate: false });
      expect((await publishReadyForValidation(nats.js, catalog, request)).duplicate).to.equal(true);
      const stored = await nats.jsm.streams.getMessage(first.stream, { seq: first.seq });
      expect(stored?.json()).to.deep.equal({
        schemaVersion: '1.0.0', facilityId: 'f1', patientId: 'p1', reportTrackingId: 'r1', reportTypes: ['M1'], payloadUri: request.payloadUri,
      });
      await publishReadyForValidation(nats.js, catalog, { ...request, patientId: '' }).then(
        () => expect.fail('an empty patient id was published'), (error: Error) => expect(error.name).to.equal('ContractViolationError'));
    });
  });
});
