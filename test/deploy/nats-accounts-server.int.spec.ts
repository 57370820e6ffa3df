import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { AckPolicy } from '@nats-io/jetstream';
import { connect, type Subscription } from '@nats-io/transport-node';
import { parse } from 'yaml';
import { connectNats, type NatsHandle } from '#adapters/messaging/connection.js';
import { provisionCatalog } from '#adapters/messaging/provisioning.js';
import { requestQuery, serveQuery } from '#adapters/messaging/request-reply.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { catalog } from '#contracts/catalog.js';
import { VALID, VALID_REPLIES } from '#contracts/test/fixtures.js';
import { isErrorReply } from '#contracts/types.js';
import { natsUsers, passwordVariable } from '#scripts/deploy/nats-accounts.js';
import { freePort } from '#scripts/scale-out/service-process.js';
import { startReadyForValidationConsumer } from '#validation/adapters/messaging/ready-for-validation-consumer.js';
import { provisionJetStream } from '#validation/cli/provision-jetstream.js';

/**
 * The NATS users of deploy/nats-accounts on a real nats-server of the test's own (a free port, a
 * temporary store; never the shared server): the services do their work with their users, and the
 * permissions refuse what they must. The server includes the manifest's accounts.conf exactly as
 * the runbook says (`include ../nats-accounts/accounts.conf`). The production subjects are safe here:
 * nothing else uses this server.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const binary = process.env.NATS_SERVER_BIN ?? (existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server');

async function settle(sub: Subscription): Promise<Error | undefined> {
  const closed = await Promise.race([sub.closed, new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), 500))]);
  return closed instanceof Error ? closed : undefined;
}

describe('deploy: NATS users on a real nats-server', function () {
  this.timeout(60_000);
  let dir: string;
  let server: ChildProcess;
  let url: string;
  let log = '';
  const passwords = Object.fromEntries(natsUsers(catalog).map((user) => [user.user, randomBytes(12).toString('hex')]));
  const handles: NatsHandle[] = [];
  const as = async (user: string) => {
    const handle = await connectNats({ servers: url, name: `accounts-test-${user}`, logger: silentLogger(), user, pass: passwords[user] });
    handles.push(handle);
    return handle;
  };

  before(async function () {
    if (!existsSync(binary) && binary !== 'nats-server') this.skip();
    dir = await mkdtemp(path.join(tmpdir(), 'nats-accounts-'));
    const manifest = parse(await readFile(path.join(root, 'deploy/nats-accounts/accounts.yaml'), 'utf8')) as { data: Record<string, string> };
    await mkdir(path.join(dir, 'nats-accounts'));
    await mkdir(path.join(dir, 'nats-config'));
    await writeFile(path.join(dir, 'nats-accounts', 'accounts.conf'), manifest.data['accounts.conf']!);
    const port = await freePort();
    url = `nats://127.0.0.1:${port}`;
    await writeFile(path.join(dir, 'nats-config', 'nats.conf'),
      `listen: 127.0.0.1:${port}\njetstream { store_dir: "${path.join(dir, 'store')}" }\ninclude ../nats-accounts/accounts.conf\n`);
    // The server parses a variable's value as configuration: a password goes in double quotes (or as a
    // bcrypt hash), or one like `12e45…` is read as a number and the server does not start (runbook).
    const env = { ...process.env, ...Object.fromEntries(Object.entries(passwords).map(([user, password]) => [passwordVariable(user), `"${password}"`])) };
    server = spawn(binary, ['-c', path.join(dir, 'nats-config', 'nats.conf')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (chunk: Buffer) => { log = (log + chunk.toString()).slice(-20_000); });
    server.stderr!.on('data', (chunk: Buffer) => { log = (log + chunk.toString()).slice(-20_000); });
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        const probe = await connect({ servers: url, user: 'operator', pass: passwords.operator, timeout: 1_000 });
        await probe.close();
        break;
      } catch (error) {
        if (Date.now() > deadline || server.exitCode !== null) throw new Error(`nats-server did not start: ${(error as Error).message}\n${log}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });

  after(async () => {
    await Promise.all(handles.map((handle) => handle.close().catch(() => undefined)));
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('refuses a wrong password and a client without credentials', async () => {
    for (const options of [{ user: 'tenant', pass: 'wrong' }, {}]) {
      let refused: unknown;
      try {
        await (await connect({ servers: url, timeout: 2_000, reconnect: false, ...options })).close();
      } catch (error) {
        refused = error;
      }
      expect(String(refused), JSON.stringify(options)).to.match(/Authorization Violation/i);
    }
  });

  it('SignClientAssertion: the tenant answers data acquisition; no other user can answer in its place, ask it, or read the reply', async () => {
    const [tenant, acquisition, validation, report] = [await as('tenant'), await as('data-acquisition'), await as('validation'), await as('report-service')];
    let handled = 0;
    const responder = serveQuery(tenant.nc, 'SignClientAssertion', () => {
      handled += 1;
      return VALID_REPLIES.SignClientAssertion[0] as never;
    }, { logger: silentLogger() });
    try {
      await tenant.nc.flush();
      // Subscribing in the tenant's place (to answer, or just to read requests) is refused.
      const impostors = [validation, report].map((handle) => handle.nc.subscribe(catalog.byName('SignClientAssertion').subject, { queue: 'SignClientAssertion', callback: () => undefined }));
      // As is listening to the requester's inbox, or to the shared one.
      const snoopers = [validation.nc.subscribe('_INBOX_data-acquisition.>', { callback: () => undefined }), report.nc.subscribe('_INBOX.>', { callback: () => undefined })];
      for (const sub of [...impostors, ...snoopers]) expect(String(await settle(sub)), sub.getSubject()).to.match(/Permissions Violation for Subscription/);

      const reply = await requestQuery(acquisition.nc, 'SignClientAssertion', VALID.SignClientAssertion, { timeoutMs: 5_000 });
      expect(isErrorReply(reply)).to.equal(false);
      expect(reply).to.deep.equal(VALID_REPLIES.SignClientAssertion[0]);
      let asked: unknown;
      try {
        await requestQuery(report.nc, 'SignClientAssertion', VALID.SignClientAssertion, { timeoutMs: 2_000 });
      } catch (error) {
        asked = error;
      }
      expect(String(asked)).to.match(/Permissions Violation for Publish/);
      expect(handled).to.equal(1);
    } finally {
      await responder.stop();
    }
  });

  it('JetStream with the services\' users: the provisioning Job\'s user provisions; tenant publishes its events; the report service publishes ReadyForValidation; validation consumes, acks, dead-letters and publishes ValidationComplete', async () => {
    const [provisioner, tenant, validation, report, operator] = [await as('provisioner'), await as('tenant'), await as('validation'), await as('report-service'), await as('operator')];
    // Neither service may manage a stream (they run with nats.provision=false); the Job's user may.
    for (const [name, handle] of [['tenant', tenant], ['validation', validation]] as const) {
      let refused: unknown;
      try {
        await provisionCatalog(handle.jsm, catalog);
      } catch (error) {
        refused = error;
      }
      expect(String(refused), name).to.match(/Permissions Violation/);
    }
    const provisioned = await provisionJetStream(provisioner.jsm, catalog, 2);
    expect(Object.keys(provisioned.streams)).to.have.members([...catalog.streams, catalog.deadLetterStream].map((stream) => stream.name));
    expect(provisioned.consumers).to.deep.equal({ 'COMPLIANCE/validation-ready-for-validation': 'created' });
    await tenant.js.publish(catalog.byName('ReportScheduled').subject, JSON.stringify(VALID.ReportScheduled));

    const handled: unknown[] = [];
    const runner = await startReadyForValidationConsumer({
      js: validation.js, catalog, logger: silentLogger(), concurrency: 1, maxDeliver: 2, fetchExpiresMs: 1_000, provision: false,
      flow: {
        handle: async (event) => {
          handled.push(event);
          return { key: { facilityId: event.facilityId, reportId: 'r' }, valid: true, counts: { total: 0 }, resourceCount: 0, announced: true } as never;
        },
      },
    });
    try {
      const readyForValidation = catalog.byName('ReadyForValidation').subject;
      await report.js.publish(readyForValidation, JSON.stringify(VALID.ReadyForValidation));
      await report.js.publish(readyForValidation, JSON.stringify({ schemaVersion: '1.0.0', facilityId: 42 }));
      const deadline = Date.now() + 20_000;
      const consumerInfo = () => operator.jsm.consumers.info('COMPLIANCE', 'validation-ready-for-validation');
      while (handled.length < 1 || (await operator.jsm.streams.info('DEAD_LETTER')).state.messages < 1 || (await consumerInfo()).num_ack_pending > 0) {
        if (Date.now() > deadline) throw new Error(`not consumed: handled ${handled.length}\n${log.slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect((await consumerInfo()).config.ack_policy).to.equal(AckPolicy.Explicit);
      expect((await consumerInfo()).num_pending).to.equal(0);
    } finally {
      await runner.stop(5_000);
    }
    await validation.js.publish(catalog.byName('ValidationComplete').subject, JSON.stringify(VALID.ValidationComplete));

    // Publishing another service's event, deleting streams, or reaching another's consumer is refused.
    const refusals: Array<[string, () => Promise<unknown>]> = [
      ['report service publishes ValidationComplete', () => report.js.publish(catalog.byName('ValidationComplete').subject, JSON.stringify(VALID.ValidationComplete))],
      ['validation publishes ReadyForValidation', () => validation.js.publish(catalog.byName('ReadyForValidation').subject, JSON.stringify(VALID.ReadyForValidation))],
      ['tenant deletes a stream', () => tenant.jsm.streams.delete('COMPLIANCE')],
      ['validation purges a stream', () => validation.jsm.streams.purge('COMPLIANCE')],
      ['validation creates a consumer of another name', () => validation.jsm.consumers.add('COMPLIANCE', { durable_name: 'not-mine', ack_policy: AckPolicy.Explicit })],
      ['validation updates its own consumer', () => validation.jsm.consumers.update('COMPLIANCE', 'validation-ready-for-validation', { max_deliver: 9 })],
      ['tenant updates a stream', () => tenant.jsm.streams.update('REPORT', { max_age: 1_000_000_000 })],
      ['the provisioning user deletes a stream', () => provisioner.jsm.streams.delete('COMPLIANCE')],
      ['the provisioning user publishes an event', () => provisioner.js.publish(catalog.byName('ReadyForValidation').subject, JSON.stringify(VALID.ReadyForValidation))],
      ['report service deletes the validation consumer', () => report.jsm.consumers.delete('COMPLIANCE', 'validation-ready-for-validation')],
      ['tenant reads a dead letter', () => tenant.jsm.streams.getMessage('DEAD_LETTER', { seq: 1 })],
    ];
    for (const [what, attempt] of refusals) {
      let refused: unknown;
      try {
        await attempt();
      } catch (error) {
        refused = error;
      }
      expect(String(refused), what).to.match(/Permissions Violation/);
    }
    expect((await operator.jsm.streams.info('COMPLIANCE')).state.messages).to.equal(3);
    expect((await operator.jsm.consumers.info('COMPLIANCE', 'validation-ready-for-validation')).name).to.equal('validation-ready-for-validation');
  });
});
