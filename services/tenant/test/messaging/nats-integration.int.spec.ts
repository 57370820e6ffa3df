import { expect } from 'chai';
import { connectNats, type NatsHandle } from '#adapters/messaging/connection.js';
import { provisionCatalog } from '#adapters/messaging/provisioning.js';
import { JetStreamPublisher } from '#adapters/messaging/publisher.js';
import type { QueryServer } from '#adapters/messaging/request-reply.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { enqueueOutboxMessage, OutboxRelay } from '#adapters/persistence/index.js';
import { FacilityService } from '#tenant/application/facility-service.js';
import { ReportScheduler } from '#tenant/application/report-scheduler.js';
import { serveTenantQueries } from '#tenant/adapters/messaging/query-handlers.js';
import { TenantQueryClient } from '#tenant/adapters/messaging/tenant-query-client.js';
import { SYSTEM_ACTOR } from '#tenant/domain/audit.js';
import { openTenantTestDatabase, type TenantTestDatabase } from '../support/tenant-database.js';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

describe('tenant over NATS: queries, and events from the outbox to JetStream (real PostgreSQL and NATS)', function () {
  this.timeout(30_000);
  let db: TenantTestDatabase;
  let nats: NatsHandle;
  let servers: QueryServer[];
  let client: TenantQueryClient;
  let facilities: FacilityService;

  before(async () => {
    db = await openTenantTestDatabase('nats', '2026-03-31T12:00:00Z');
    nats = await connectNats({ servers: NATS_URL, name: `tenant-test-${db.catalog.subjectRoot}`, logger: silentLogger() });
    await provisionCatalog(nats.jsm, db.catalog);
    facilities = new FacilityService(db.context);
    servers = serveTenantQueries(nats.nc, {
      facilities, catalog: db.catalog, logger: silentLogger(),
      info: { name: 'Link Tenant Service', version: '1.2.3', instanceId: 'i-1', startedAt: '2026-03-31T00:00:00.000Z' },
    });
    client = new TenantQueryClient(nats.nc, { catalog: db.catalog, timeoutMs: 2000 });
    await facilities.create({
      facilityId: 'Q-1', facilityName: 'Query Hospital', timeZone: 'America/New_York', scheduledReports: { daily: ['D'], monthly: ['M'] },
      ehrConnections: [{ name: 'epic', clientId: 'link-q-1', tokenUrl: 'https://ehr.example.org/token' }],
    }, SYSTEM_ACTOR);
    await facilities.create({ facilityId: 'Q-2', timeZone: 'UTC', scheduledReports: {} }, SYSTEM_ACTOR);
    await facilities.softDelete('Q-2', SYSTEM_ACTOR);
  });

  after(async () => {
    await Promise.all((servers ?? []).map((server) => server.stop()));
    if (nats) {
      for (const stream of [...db.catalog.streams, db.catalog.deadLetterStream]) await nats.jsm.streams.delete(stream.name).catch(() => undefined);
      await nats.close();
    }
    await db?.close();
  });

  it('answers GetFacilityConfig, with a typed NOT_FOUND for unknown and soft-deleted facilities', async () => {
    const config = await client.getFacilityConfig('Q-1');
    expect(config).to.deep.include({ facilityId: 'Q-1', facilityName: 'Query Hospital', timeZone: 'America/New_York', isDeleted: false });
    expect(config!.scheduledReports).to.deep.equal({ daily: ['D'], weekly: [], monthly: ['M'] });
    expect(config!.ehrConnections).to.deep.equal([{ name: 'epic', clientId: 'link-q-1', tokenUrl: 'https://ehr.example.org/token' }]);
    expect(await client.getFacilityConfig('nobody')).to.equal(null);
    expect(await client.getFacilityConfig('Q-2')).to.equal(null);
    expect((await client.getFacilityConfig('Q-2', { includeDeleted: true }))!.isDeleted).to.equal(true);
  });

  it('answers GetFacilitiesList and GetServiceInfo', async () => {
    expect(await client.getFacilitiesList()).to.deep.equal([{ facilityId: 'Q-1', facilityName: 'Query Hospital' }]);
    expect(await client.getFacilitiesList({ includeDeleted: true })).to.have.length(2);
    expect(await client.getFacilitiesList({ search: 'nothing like it' })).to.deep.equal([]);
    expect(await client.getServiceInfo()).to.deep.equal({ name: 'Link Tenant Service', version: '1.2.3', instanceId: 'i-1', startedAt: '2026-03-31T00:00:00.000Z' });
  });

  it('publishes scheduled, audit and command messages within their contracts, and JetStream drops a double fire', async () => {
    const scheduler = new ReportScheduler({ store: db.context.store, clock: db.clock, logger: silentLogger(), instanceId: 'n-1' });
    db.clock.set('2026-04-01T04:00:00Z'); // New York midnight of April 1: daily and monthly periods start
    await scheduler.tick();
    await facilities.generateReport('Q-1', { startDate: new Date('2026-03-01T05:00:00Z'), endDate: new Date('2026-04-01T04:00:00Z') }, SYSTEM_ACTOR);
    // A second firing of the same period (e.g. after a crash between publish and commit) carries the same msg id.
    const [monthly] = (await db.outbox('ReportScheduled')).filter((row) => row.msg_id.includes('-Monthly-'));
    await db.orm.em.fork().transactional((em) => enqueueOutboxMessage(em, { subject: monthly!.subject, payload: monthly!.payload, msgId: monthly!.msg_id }));

    const failures: string[] = [];
    const relay = new OutboxRelay({
      orm: db.orm, publisher: new JetStreamPublisher(nats.js, { catalog: db.catalog }), logger: silentLogger(),
      onEvent: (event) => { if (event.kind === 'failed') failures.push(event.error); },
    });
    let result;
    do result = await relay.relayOnce(); while (result.claimed > 0);
    expect(failures).to.deep.equal([]);

    const reportStream = db.catalog.byName('ReportScheduled').stream!;
    const subject = db.catalog.byName('ReportScheduled').subject;
    const info = await nats.jsm.streams.info(reportStream, { subjects_filter: subject });
    expect(info.state.subjects?.[subject]).to.equal(2); // Daily + Monthly; the duplicate monthly was dropped
    const message = await nats.jsm.streams.getMessage(reportStream, { last_by_subj: subject });
    const payload = message!.json<Record<string, unknown>>();
    expect(payload).to.include({ facilityId: 'Q-1', timeZone: 'America/New_York' });
    const commandSubject = db.catalog.byName('GenerateReportRequested').subject;
    expect((await nats.jsm.streams.info(db.catalog.byName('GenerateReportRequested').stream!, { subjects_filter: commandSubject })).state.subjects?.[commandSubject]).to.equal(1);
  });
});
