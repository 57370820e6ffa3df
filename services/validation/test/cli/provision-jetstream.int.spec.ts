import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { connectNats, type NatsHandle } from '#adapters/messaging/connection.js';
import { toStreamConfig } from '#adapters/messaging/provisioning.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { buildCatalog } from '#contracts/catalog.js';
import { projectRoot } from '#test-support/shared-dir.js';
import { READY_FOR_VALIDATION_DURABLE, startReadyForValidationConsumer } from '#validation/adapters/messaging/ready-for-validation-consumer.js';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const tsx = path.join(projectRoot, 'node_modules/.bin/tsx');
const cli = path.join(projectRoot, 'services/validation/src/cli/provision-jetstream.ts');

/** The provisioning CLI as the Job runs it (a process with the validation ConfigMap's variables), on an isolated catalog. */
function runCli(env: Record<string, string>, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(tsx, [cli, ...args], { cwd: projectRoot, env: { ...process.env, LOG_LEVEL: 'warn', NATS_SERVERS: NATS_URL, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const lastJsonLine = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as { streams: Record<string, string>; consumers: Record<string, string> };

describe('validation: JetStream provisioning CLI (the provisioning Job)', function () {
  this.timeout(90_000);
  const id = randomBytes(4).toString('hex');
  const catalog = buildCatalog({ subjectRoot: `prov-${id}`, streamSuffix: `_P${id.toUpperCase()}`, streamLimits: 'test' });
  const isolated = ['--subject-root', catalog.subjectRoot, '--stream-suffix', `_P${id.toUpperCase()}`];
  const streamNames = [...catalog.streams, catalog.deadLetterStream].map((s) => s.name);
  const compliance = catalog.byName('ReadyForValidation').stream!;
  const consumerKey = `${compliance}/${READY_FOR_VALIDATION_DURABLE}`;
  let nats: NatsHandle;

  before(async () => { nats = await connectNats({ servers: NATS_URL, name: `provision-test-${id}`, logger: silentLogger() }); });
  after(async () => {
    for (const name of streamNames) await nats.jsm.streams.delete(name).catch(() => undefined);
    await nats.close();
  });

  const consumerConfig = async () => (await nats.jsm.consumers.info(compliance, READY_FOR_VALIDATION_DURABLE)).config;

  it('a bad configuration value stops it with exit code 78 naming the property, before touching NATS', async () => {
    const result = await runCli({ VALIDATION_MAX_DELIVERIES: '0' }, isolated);
    expect(result.code).to.equal(78);
    expect(result.stderr).to.contain('validation.max-deliveries (VALIDATION_MAX_DELIVERIES) must be an integer 1..100');
    const names: string[] = [];
    for await (const info of nats.jsm.streams.list()) names.push(info.config.name);
    expect(names).not.to.include(compliance);
  });

  it('creates every stream of the catalog and the durable consumer with the configured max deliveries', async () => {
    const result = await runCli({ VALIDATION_MAX_DELIVERIES: '7' }, isolated);
    expect(result.code, result.stderr).to.equal(0);
    const report = lastJsonLine(result.stdout);
    expect(report.streams).to.deep.equal(Object.fromEntries(streamNames.map((name) => [name, 'created'])));
    expect(report.consumers).to.deep.equal({ [consumerKey]: 'created' });

    for (const def of [...catalog.streams, catalog.deadLetterStream]) {
      const info = await nats.jsm.streams.info(def.name);
      expect(info.config.subjects, def.name).to.deep.equal(toStreamConfig(def).subjects);
      expect(info.config.max_age, def.name).to.equal(def.maxAgeMs * 1_000_000);
    }
    const config = await consumerConfig();
    expect(config.durable_name).to.equal(READY_FOR_VALIDATION_DURABLE);
    expect(config.filter_subject).to.equal(catalog.byName('ReadyForValidation').subject);
    // validation.max-deliveries attempts, plus the one delivery that dead-letters a crashed last attempt.
    expect(config.max_deliver).to.equal(8);
    expect(config.ack_policy).to.equal('explicit');
    expect(config.ack_wait).to.equal(60_000 * 1_000_000);
  });

  it('a second run changes nothing', async () => {
    const before = await consumerConfig();
    const result = await runCli({ VALIDATION_MAX_DELIVERIES: '7' }, isolated);
    expect(result.code, result.stderr).to.equal(0);
    const report = lastJsonLine(result.stdout);
    expect(Object.values(report.streams)).to.deep.equal(streamNames.map(() => 'unchanged'));
    expect(report.consumers).to.deep.equal({ [consumerKey]: 'unchanged' });
    expect(await consumerConfig()).to.deep.equal(before);
  });

  it('reads NATS_STREAM_REPLICAS: 1 keeps the streams as they are; 3 on this single server fails (exit 1) saying what to set', async () => {
    const one = await runCli({ VALIDATION_MAX_DELIVERIES: '7', NATS_STREAM_REPLICAS: '1' }, isolated);
    expect(one.code, one.stderr).to.equal(0);
    expect(Object.values(lastJsonLine(one.stdout).streams)).to.deep.equal(streamNames.map(() => 'unchanged'));

    const three = await runCli({ VALIDATION_MAX_DELIVERIES: '7', NATS_STREAM_REPLICAS: '3' }, isolated);
    expect(three.code).to.equal(1);
    expect(three.stderr).to.contain(`JetStream provisioning failed: Stream ${streamNames[0]}: 3 replicas requested (nats.stream-replicas) but the NATS server is not clustered; set nats.stream-replicas to 1`);
    for (const name of streamNames) expect((await nats.jsm.streams.info(name)).config.num_replicas, name).to.equal(1);
  });

  it('follows a changed VALIDATION_MAX_DELIVERIES, and the service starting with it agrees (changes nothing)', async () => {
    const result = await runCli({ VALIDATION_MAX_DELIVERIES: '3' }, isolated);
    expect(result.code, result.stderr).to.equal(0);
    expect(lastJsonLine(result.stdout).consumers).to.deep.equal({ [consumerKey]: 'updated' });
    const provisioned = await consumerConfig();
    expect(provisioned.max_deliver).to.equal(4);

    // What the validation service does at start-up (main.ts), with the same setting: the consumer the
    // Job made must already be what the service wants, or the two would rewrite it on every start.
    const runner = await startReadyForValidationConsumer({
      js: nats.js, catalog, logger: silentLogger(), maxDeliver: 3, concurrency: 1, fetchExpiresMs: 1_000,
      flow: { handle: () => Promise.reject(new Error('no message is published in this test')) },
    });
    await runner.stop(5_000);
    expect(await consumerConfig()).to.deep.equal(provisioned);

    const again = await runCli({ VALIDATION_MAX_DELIVERIES: '3' }, isolated);
    expect(lastJsonLine(again.stdout).consumers).to.deep.equal({ [consumerKey]: 'unchanged' });
  });
});
