/**
 * Replicas converge on the stored artifacts even when the "artifacts changed" notice (core NATS,
 * fire and forget) is lost: the database counts generations of the stored artifacts, and every
 * instance compares the one its engine was built from with the stored one every check interval.
 * Three engine hosts on one real PostgreSQL database; the notice reaches none of the other two.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { OpenApiBuilder } from '#adapters/http/index.js';
import { connectNats, type NatsHandle } from '#adapters/messaging/connection.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { createMetrics, type ServiceMetrics } from '#adapters/observability/metrics.js';
import type { Database } from '#adapters/persistence/index.js';
import { sharedDir } from '#test-support/shared-dir.js';
import { ArtifactChangeNotifier, EngineHost } from '#validation/adapters/engine/index.js';
import { createValidationApiModule, type ValidationApiModule } from '#validation/composition.js';
import { pgValidationApiRepositories } from '#validation/adapters/persistence/validation-api-repositories.js';
import { PgArtifactRepository } from '#validation/adapters/persistence/artifact-repository.js';
import { dropDatabase, eventually, openFlowDatabase, uniqueSuffix } from '../flow/support/flow-harness.js';

const CHECK_INTERVAL_MS = 1_000;

describe('engine host: a periodic generation check makes replicas converge when the change notice is lost', function () {
  this.timeout(180_000);
  const logger = silentLogger();
  const suffix = uniqueSuffix();
  const dbName = `test_flow_gen_${suffix}`;
  let db: Database;
  let nats: NatsHandle;
  let repository: PgArtifactRepository;
  let api: ValidationApiModule;
  const hosts: EngineHost[] = [];
  const notifiers: ArtifactChangeNotifier[] = [];
  let checked: EngineHost;
  let unchecked: EngineHost;
  let metrics: ServiceMetrics;

  /** An engine host with a notifier of its own; `subject` decides which notices it hears. */
  async function instance(id: string, subject: string, checkIntervalMs?: number, serviceMetrics?: ServiceMetrics) {
    const host = new EngineHost({ artifacts: new PgArtifactRepository(db.orm), workers: 1, terminology: {}, logger });
    await host.start();
    const notifier = new ArtifactChangeNotifier({
      nc: nats.nc, reload: (reason) => host.reload(reason), logger, subject, instanceId: id, metrics: serviceMetrics,
      generation: checkIntervalMs === undefined ? undefined : {
        stored: () => repository.generation(), running: () => host.generation?.artifactsGeneration, checkIntervalMs,
      },
    });
    notifier.start();
    hosts.push(host);
    notifiers.push(notifier);
    return { host, notifier };
  }

  before(async () => {
    db = await openFlowDatabase(dbName);
    repository = new PgArtifactRepository(db.orm);
    nats = await connectNats({ servers: [process.env.NATS_URL ?? '127.0.0.1:4222'], name: 'engine-generation-test', logger });
    metrics = createMetrics('generation-test', { defaultMetrics: false });
    // The instance that changes the artifacts notifies on one subject; the others listen on subjects
    // nobody publishes to: every notice is lost for them.
    const changer = await instance('instance-a', `gen${suffix}.a.artifacts-changed`);
    checked = (await instance('instance-b', `gen${suffix}.b.artifacts-changed`, CHECK_INTERVAL_MS, metrics)).host;
    unchecked = (await instance('instance-c', `gen${suffix}.c.artifacts-changed`)).host;
    api = createValidationApiModule({
      repositories: pgValidationApiRepositories(db.orm), openApi: new OpenApiBuilder({ title: 't', version: '1' }), validator: changer.host, artifactListener: changer.notifier.listener(),
    });
  });
  after(async () => {
    for (const notifier of notifiers) notifier.stop();
    for (const host of hosts) await host.close();
    await nats?.close();
    await db?.close();
    await dropDatabase(dbName);
  });

  const gauge = async (source: string) => (await metrics.registry.getSingleMetric('validation_artifact_generation')!.get()).values.find((v) => v.labels.source === source)?.value;

  it('every engine starts from the stored generation, and the gauge says which', async () => {
    const stored = await repository.generation();
    expect(hosts.map((h) => h.generation!.artifactsGeneration)).to.deep.equal([stored, stored, stored]);
    await eventually(async () => (await gauge('database')) === stored, 'the first check');
    expect(await gauge('engine')).to.equal(stored);
  });

  it('a stored package reaches the instance that missed the notice within the check interval; without the check it would not', async () => {
    const before = await repository.generation();
    await api.artifacts.save('PACKAGE', 'hl7.fhir.us.core', readFileSync(sharedDir('fhir-packages', 'hl7.fhir.us.core.tgz')));
    const stored = await repository.generation();
    expect(stored, 'the save incremented the stored generation').to.be.greaterThan(before);
    expect(hosts[0]!.generation!.packages, 'the changing instance rebuilt at once').to.equal(1);

    // Check interval, then one rebuild with the package (generous: the machine is shared).
    await eventually(() => checked.generation!.packages === 1, 'the checked instance to rebuild', 90_000);
    expect(checked.generation!.artifactsGeneration).to.equal(stored);
    expect(await gauge('engine')).to.equal(stored);
    expect(await gauge('database')).to.equal(stored);
    // The instance without the check heard nothing and still runs the old definitions.
    expect(unchecked.generation!.packages).to.equal(0);
    expect(unchecked.generation!.artifactsGeneration).to.equal(before);
  });

  it('a deletion counts too, and an unchanged generation rebuilds nothing', async () => {
    const built = checked.generation!;
    await new Promise((resolve) => setTimeout(resolve, 3 * CHECK_INTERVAL_MS));
    expect(checked.generation, 'no change, no rebuild').to.equal(built);

    await api.artifacts.delete('PACKAGE', 'hl7.fhir.us.core');
    const stored = await repository.generation();
    expect(stored).to.be.greaterThan(built.artifactsGeneration!);
    await eventually(() => checked.generation!.packages === 0 && checked.generation!.artifactsGeneration === stored, 'the rebuild without the package', 90_000);
  });
});
