/**
 * The validation service's container (composition.ts) with the real default configuration, the real
 * PostgreSQL (a unique database, dropped after) and NATS; the rest of the runtime frame is minimal.
 * The engine is never started here (that is the engine tests' job): rebinding the ResourceValidator
 * port is the point being tested.
 */
import 'reflect-metadata';
import { expect } from 'chai';
import type { Container } from 'inversify';
import { loadConfig } from '#adapters/config/index.js';
import { OpenApiBuilder } from '#adapters/http/index.js';
import { connectNats, type NatsHandle } from '#adapters/messaging/connection.js';
import { createMetrics } from '#adapters/observability/metrics.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { openDatabase, OutboxMessageEntity, outboxMigration, type Database } from '#adapters/persistence/index.js';
import type { RuntimeParts } from '#adapters/runtime/container.js';
import { ArtifactChangeNotifier, EngineHost } from '#validation/adapters/engine/index.js';
import { validationApiEntities, validationApiMigrations } from '#validation/adapters/http/validation-api-module.js';
import { PgArtifactRepository } from '#validation/adapters/persistence/artifact-repository.js';
import { reportJobEntities, reportJobMigrations } from '#validation/adapters/report-jobs/index.js';
import { HttpReportMetadata } from '#validation/adapters/report-service/http-report-metadata.js';
import { HttpReportService } from '#validation/adapters/report-service/http-report-service.js';
import { ReportJobService } from '#validation/application/report-jobs/index.js';
import { ValidationFlow } from '#validation/application/validation-flow/index.js';
import { PgFacilityScopes } from '#validation/adapters/persistence/pg-facility-scopes.js';
import { PgFlowStore } from '#validation/adapters/persistence/pg-flow-store.js';
import { validationFlowEntities, validationFlowMigrations } from '#validation/adapters/persistence/validation-flow-tables.js';
import { buildValidationContainer, TOKENS, type ValidationConfig } from '#validation/composition.js';
import { validationSchema } from '#validation/config.js';
import type { SubmissionKey, SubmissionSource } from '#validation/domain/flow/index.js';
import type { ValidationOutcome } from '#validation/domain/ports/resource-validator.js';
import { catalog as productionCatalog, catalogForNamespace } from '#contracts/catalog.js';
import { dropDatabase, PG, uniqueSuffix } from './flow/support/flow-harness.js';
import { inThreadSubmissionValidator, recordOf } from './flow/support/in-thread-submission-validator.js';

const FACILITY = 'facility-di';
const REPORT = 'report-di';

describe('validation composition root (inversify)', function () {
  this.timeout(20_000);
  const dbName = `test_flow_di_${uniqueSuffix()}`;
  let config: ValidationConfig;
  let db: Database;
  let nats: NatsHandle;
  let notified = 0;
  const containers: Container[] = [];

  /** A fresh frame per container: the engine host registers its histogram in the metrics registry. */
  const build = (parts: Partial<RuntimeParts> = {}) => {
    const runtime: RuntimeParts = {
      logger: silentLogger(), metrics: createMetrics('validation-di-test'), db, nats,
      outbox: { notify: () => { notified += 1; } }, openApi: new OpenApiBuilder({ title: 'Validation', version: 'test' }), ...parts,
    };
    const container = buildValidationContainer(config, runtime);
    containers.push(container);
    return container;
  };

  before(async () => {
    config = loadConfig(validationSchema, { AUTH_MODE: 'none' });
    db = await openDatabase({
      ...PG, dbName, poolMax: 4, logger: silentLogger(),
      entities: [OutboxMessageEntity, ...validationApiEntities, ...validationFlowEntities, ...reportJobEntities],
      migrations: [outboxMigration, ...validationApiMigrations, ...validationFlowMigrations, ...reportJobMigrations],
    });
    nats = await connectNats({ servers: [process.env.NATS_URL ?? '127.0.0.1:4222'], name: 'validation-di-test', logger: silentLogger() });
  });

  after(async () => {
    for (const container of containers) {
      if (container.isBound(TOKENS.reportJobService)) await container.get(TOKENS.reportJobService).idle();
    }
    await nats?.close();
    await db?.close();
    await dropDatabase(dbName);
  });

  it('resolves every token, each port to its production adapter, once per container', () => {
    const container = build();
    for (const [name, id] of Object.entries(TOKENS)) {
      if (name === 'cache') expect(container.get(id), 'no cache in this frame').to.equal(undefined);
      else expect(container.get(id), name).to.not.equal(undefined);
    }
    expect(container.get(TOKENS.config)).to.equal(config);
    expect(container.get(TOKENS.orm)).to.equal(db.orm);
    expect(container.get(TOKENS.artifactRepository)).to.be.instanceOf(PgArtifactRepository);
    expect(container.get(TOKENS.engineHost)).to.be.instanceOf(EngineHost);
    expect(container.get(TOKENS.artifactChangeNotifier)).to.be.instanceOf(ArtifactChangeNotifier);
    expect(container.get(TOKENS.submissionSource)).to.be.instanceOf(HttpReportService);
    expect(container.get(TOKENS.reportMetadata)).to.be.instanceOf(HttpReportMetadata);
    expect(container.get(TOKENS.facilityScopes)).to.be.instanceOf(PgFacilityScopes);
    // The configuration routes write through the instance the flow reads (its cache is cleared on write).
    expect(container.get(TOKENS.validationConfigurations)).to.equal(container.get(TOKENS.facilityScopes));
    expect(container.get(TOKENS.flowStore)).to.be.instanceOf(PgFlowStore);
    expect(container.get(TOKENS.validationFlow)).to.be.instanceOf(ValidationFlow);
    expect(container.get(TOKENS.reportJobService)).to.be.instanceOf(ReportJobService);
    // One engine: the port the API and the flow use is the host main.ts starts and closes.
    expect(container.get(TOKENS.resourceValidator)).to.equal(container.get(TOKENS.engineHost));
    expect(container.get(TOKENS.categoryService)).to.equal(container.get(TOKENS.validationApi).categories);
    for (const id of [TOKENS.engineHost, TOKENS.validationApi, TOKENS.validationFlow, TOKENS.reportJobService]) {
      expect(container.get(id)).to.equal(container.get(id));
    }
    // Containers do not share instances (each service process, or test, gets its own).
    expect(build().get(TOKENS.engineHost)).to.not.equal(container.get(TOKENS.engineHost));
  });

  it('takes subjects from the runtime\'s catalog (nats.namespace): the artifact-change subject and ValidationComplete', () => {
    expect(build().get(TOKENS.catalog)).to.equal(productionCatalog);
    expect(build().get(TOKENS.artifactChangeNotifier).subject).to.equal('nhsn.validation.internal.artifacts-changed');
    const namespaced = build({ catalog: catalogForNamespace('di-test') });
    expect(namespaced.get(TOKENS.artifactChangeNotifier).subject).to.equal('di-test.nhsn.validation.internal.artifacts-changed');
    const flow = namespaced.get(TOKENS.validationFlow) as unknown as { deps: { completion: { subject: string } } };
    expect(flow.deps.completion.subject).to.equal('di-test.nhsn.compliance.event.validation-complete.v1');
  });

  it('the API, the flow and the report jobs use the rebound ResourceValidator and SubmissionSource', async () => {
    const container = build();
    const fetched: SubmissionKey[] = [];
    const source: SubmissionSource = {
      fetch: async (key) => {
        fetched.push(key);
        return { kind: 'found', body: Buffer.from(JSON.stringify({ resourceType: 'MeasureReport', id: `mr-${key.patientId}`, contained: [{ resourceType: 'Patient', id: key.patientId }] })) };
      },
    };
    const validated: string[] = [];
    const validate = async (resource: Record<string, unknown>): Promise<ValidationOutcome> => {
      validated.push(`${String(resource.resourceType)}/${String(resource.id)}`);
      return { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'invalid', details: { text: `bad ${String(resource.id)}` } }] };
    };
    const validator = {
      validate,
      // The flow's path (the submission task and the engine host's wrap) around `validate`.
      ...inThreadSubmissionValidator({ validateSettled: (resource) => validate(recordOf(resource)) }),
    };
    container.rebind(TOKENS.submissionSource).toConstantValue(source);
    container.rebind(TOKENS.resourceValidator).toConstantValue(validator);

    // The API's $validate.
    const api = container.get(TOKENS.validationApi);
    const answer = await api.validation.validate({ resourceType: 'Patient', id: 'api-1' }, { categorize: false, summarize: false });
    expect(JSON.stringify(answer)).to.contain('bad api-1');
    expect(validated).to.deep.equal(['Patient/api-1']);

    // The flow: fetched from the bound source, validated per entry, committed, and the outbox told.
    const flow = container.get(TOKENS.validationFlow);
    const notifiedBefore = notified;
    const result = await flow.handle({ schemaVersion: '1', facilityId: FACILITY, reportTrackingId: REPORT, patientId: 'Patient/p1', reportTypes: [] });
    expect(fetched).to.deep.equal([{ facilityId: FACILITY, reportId: REPORT, patientId: 'p1' }]);
    expect(validated.slice(1).sort()).to.deep.equal(['MeasureReport/mr-p1', 'Patient/p1']);
    expect(result).to.include({ valid: false, resourceCount: 2 });
    expect(notified).to.equal(notifiedBefore + 1);
    const stored = container.get(TOKENS.flowStore);
    expect(stored).to.be.instanceOf(PgFlowStore);
    expect(await (stored as PgFlowStore).find({ facilityId: FACILITY, reportId: REPORT, patientId: 'p1' })).to.include({ valid: false });

    // Re-validation runs the same flow, so it fetches and validates through the same bound ports.
    const jobs = container.get(TOKENS.reportJobService);
    const job = await jobs.submit('revalidate', FACILITY, REPORT);
    await jobs.idle();
    expect(await jobs.get(job.id)).to.include({ status: 'succeeded', total: 1, done: 1, errors: 0 });
    expect(fetched).to.have.length(2);
    expect(validated).to.have.length(5);
  });
});
