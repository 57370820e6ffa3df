/**
 * The engine host keeps the engine in step with the stored artifacts: a package stored through
 * the validation API is used by the next validation (in the worker pool), validations already
 * running when a rebuild starts finish on the previous definitions, and other instances rebuild
 * when told over NATS.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { OpenApiBuilder } from '#adapters/http/index.js';
import { connectNats, type NatsHandle } from '#adapters/messaging/connection.js';
import { silentLogger } from '#adapters/observability/logger.js';
import type { Database } from '#adapters/persistence/index.js';
import { sharedDir } from '#test-support/shared-dir.js';
import { ArtifactChangeNotifier, EngineHost } from '#validation/adapters/engine/index.js';
import { createValidationApiModule, type ValidationApiModule } from '#validation/composition.js';
import { pgValidationApiRepositories } from '#validation/adapters/persistence/validation-api-repositories.js';
import { PgArtifactRepository } from '#validation/adapters/persistence/artifact-repository.js';
import type { ValidationOutcome } from '#validation/domain/ports/resource-validator.js';
import { dropDatabase, eventually, openFlowDatabase, uniqueSuffix } from '../flow/support/flow-harness.js';

const US_CORE_PATIENT = 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient';
const patient = { resourceType: 'Patient', id: 'p1', meta: { profile: [US_CORE_PATIENT] } };
const texts = (outcome: ValidationOutcome) => outcome.issue.map((i) => i.details.text);
const usesUsCore = (outcome: ValidationOutcome) => texts(outcome).some((t) => /Patient\.identifier: minimum required = 1/.test(t));

describe('engine host: rebuild on artifact change, in every worker and every instance', function () {
  this.timeout(120_000);
  const logger = silentLogger();
  const suffix = uniqueSuffix();
  const dbName = `test_flow_host_${suffix}`;
  let db: Database;
  let nats: NatsHandle;
  let host: EngineHost;
  let other: EngineHost;
  let notifier: ArtifactChangeNotifier;
  let otherNotifier: ArtifactChangeNotifier;
  let api: ValidationApiModule;

  before(async () => {
    db = await openFlowDatabase(dbName);
    nats = await connectNats({ servers: [process.env.NATS_URL ?? '127.0.0.1:4222'], name: 'engine-host-test', logger });
    const subject = `hosttest${suffix}.validation.internal.artifacts-changed`;
    host = new EngineHost({ artifacts: new PgArtifactRepository(db.orm), workers: 2, terminology: {}, logger });
    other = new EngineHost({ artifacts: new PgArtifactRepository(db.orm), workers: 1, terminology: {}, logger });
    await Promise.all([host.start(), other.start()]);
    notifier = new ArtifactChangeNotifier({ nc: nats.nc, reload: (r) => host.reload(r), logger, subject, instanceId: 'instance-a' });
    otherNotifier = new ArtifactChangeNotifier({ nc: nats.nc, reload: (r) => other.reload(r), logger, subject, instanceId: 'instance-b' });
    notifier.start();
    otherNotifier.start();
    await nats.nc.flush();
    api = createValidationApiModule({ repositories: pgValidationApiRepositories(db.orm), openApi: new OpenApiBuilder({ title: 't', version: '1' }), validator: host, artifactListener: notifier.listener() });
  });
  after(async () => {
    notifier?.stop();
    otherNotifier?.stop();
    await host?.close();
    await other?.close();
    await nats?.close();
    await db?.close();
    await dropDatabase(dbName);
  });

  it('starts with R4 core only and validates in the worker pool', async () => {
    expect(host.workerThreads).to.equal(2);
    expect(host.generation?.pool?.threads).to.equal(2);
    expect(host.generation?.packages).to.equal(0);
    expect(usesUsCore(await host.validate(patient))).to.equal(false);
  });

  it('a package stored through the API is used by the next validation; validations already running finish on the old definitions', async () => {
    const before = host.generation!;
    // Queued on the current pool before the rebuild starts: they must complete, on the old definitions.
    const inFlight = Array.from({ length: 20 }, () => host.validate(patient));
    const otherGenerationBefore = other.generation!.number;

    const saved = await api.artifacts.save('PACKAGE', 'hl7.fhir.us.core', readFileSync(sharedDir('fhir-packages', 'hl7.fhir.us.core.tgz')));
    expect(saved.created).to.equal(true);

    const finished = await Promise.all(inFlight);
    expect(finished.every((o) => !usesUsCore(o)), 'in-flight validations used the old definitions').to.equal(true);
    expect(host.generation!.number).to.equal(before.number + 1);
    expect(host.generation!.packages).to.equal(1);
    expect(usesUsCore(await host.validate(patient)), 'the next validation uses the new package').to.equal(true);
    // The retired pool was closed once its tasks were done; validating again still works.
    expect(usesUsCore(await host.validate({ ...patient, id: 'p2' }))).to.equal(true);

    // The other instance was told over NATS and rebuilt from the database.
    await eventually(() => other.generation!.number > otherGenerationBefore, 'the other instance to rebuild');
    expect(usesUsCore(await other.validate(patient))).to.equal(true);
  });

  it('deleting the package rebuilds again; an instance ignores its own notification', async () => {
    const mine = host.generation!.number;
    const theirs = other.generation!.number;
    await api.artifacts.delete('PACKAGE', 'hl7.fhir.us.core');
    expect(host.generation!.number, 'one rebuild for the change, none for its own echo').to.equal(mine + 1);
    expect(usesUsCore(await host.validate(patient))).to.equal(false);
    await eventually(() => other.generation!.number > theirs, 'the other instance to rebuild');
    expect(usesUsCore(await other.validate(patient))).to.equal(false);
    await new Promise((resolve) => setTimeout(resolve, 200)); // let a (wrong) echo arrive, if any
    expect(host.generation!.number).to.equal(mine + 1);
  });

  it('spec lines 142, 312: a Questionnaire stored as a RESOURCE artifact is what a QuestionnaireResponse naming it is validated against', async () => {
    const url = 'http://example.org/Questionnaire/artifact-q';
    const response = { resourceType: 'QuestionnaireResponse', id: 'qr1', status: 'completed', questionnaire: url, item: [{ linkId: 'not-in-q', answer: [{ valueBoolean: true }] }] };
    const notFound = texts(await host.validate(response));
    expect(notFound.some((t) => t.includes(`The questionnaire '${url}' could not be resolved`)), notFound.join(' | ')).to.equal(true);
    await api.artifacts.save('RESOURCE', 'artifact-q', Buffer.from(JSON.stringify({
      resourceType: 'Questionnaire', id: 'artifact-q', url, status: 'active', item: [{ linkId: 'asked', type: 'boolean', text: 'Asked?' }],
    })));
    const found = texts(await host.validate(response));
    expect(found.some((t) => t.includes('could not be resolved')), found.join(' | ')).to.equal(false);
    expect(found.some((t) => t.includes('not-in-q')), 'the answer to an item the Questionnaire does not have is reported').to.equal(true);
    await api.artifacts.delete('RESOURCE', 'artifact-q');
  });

  it('rebuild requests share a rebuild that has not started; one that arrives during a rebuild gets its own', async () => {
    const start = host.generation!.number;
    const first = host.reload('first');
    expect(host.reload('second'), 'not started yet: shared').to.equal(first);
    await new Promise((resolve) => setImmediate(resolve)); // the first rebuild is now reading the artifacts
    const later = host.reload('third');
    expect(later).to.not.equal(first);
    expect(host.reload('fourth')).to.equal(later);
    await Promise.all([first, later]);
    expect(host.generation!.number).to.equal(start + 2);
  });
});
