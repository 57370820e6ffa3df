import { expect } from 'chai';
import { isErrorReply } from '#contracts/types.js';
import { InvalidInputError, NotFoundError, UnavailableError } from '#shared-kernel/domain/errors.js';
import { silentLogger } from '../../observability/logger.js';
import { ContractViolationError, QueryFailedError } from '../errors.js';
import { QueryError, requestQuery, serveQuery, type QueryServer } from '../request-reply.js';
import { testBroker, type TestBroker } from './support.js';

describe('messaging: request-reply queries', () => {
  let broker: TestBroker;
  const servers: QueryServer[] = [];
  const facility = {
    id: '9b2f3c4e-0000-4000-8000-000000000001', facilityId: 'Hospital1', facilityName: 'Hospital One', timeZone: 'America/Chicago',
    scheduledReports: { daily: [], weekly: [], monthly: ['ACH'] }, isDeleted: false,
  };

  before(async () => { broker = await testBroker({ provision: false }); });
  afterEach(async () => { await Promise.all(servers.splice(0).map((s) => s.stop())); });
  after(async () => { await broker.cleanup(); });

  const opts = () => ({ logger: silentLogger(), catalog: broker.catalog });

  it('answers a valid request (happy path) and passes the traceparent to the handler', async () => {
    let seenTrace: string | undefined;
    servers.push(serveQuery(broker.nc, 'GetFacilityConfig', (req, ctx) => {
      seenTrace = ctx.traceparent;
      return { facility: { ...facility, facilityId: req.facilityId } };
    }, opts()));
    const reply = await requestQuery(broker.nc, 'GetFacilityConfig', { facilityId: 'Hospital1' }, { catalog: broker.catalog, headers: { traceparent: 'tp-9' } });
    expect(reply).to.deep.equal({ facility });
    expect(seenTrace).to.equal('tp-9');
  });

  it('returns a typed NOT_FOUND error reply (thrown QueryError or returned ErrorReply) instead of throwing', async () => {
    servers.push(serveQuery(broker.nc, 'GetFacilityConfig', (req) => {
      if (req.facilityId === 'thrown') throw new QueryError('NOT_FOUND', `Facility ${req.facilityId} not found`);
      return { error: { code: 'NOT_FOUND', message: 'returned' } };
    }, opts()));
    const thrown = await requestQuery(broker.nc, 'GetFacilityConfig', { facilityId: 'thrown' }, { catalog: broker.catalog });
    expect(thrown).to.deep.equal({ error: { code: 'NOT_FOUND', message: 'Facility thrown not found' } });
    expect(isErrorReply(thrown)).to.equal(true);
    const returned = await requestQuery(broker.nc, 'GetFacilityConfig', { facilityId: 'other' }, { catalog: broker.catalog });
    expect(returned).to.deep.equal({ error: { code: 'NOT_FOUND', message: 'returned' } });
  });

  it('answers an error of the shared failure vocabulary with its code, field problems as details', async () => {
    servers.push(serveQuery(broker.nc, 'GetFacilityConfig', (req) => {
      if (req.facilityId === 'missing') throw NotFoundError.named('Facility', req.facilityId);
      if (req.facilityId === 'down') throw new UnavailableError('The master key is not configured');
      throw new InvalidInputError('facilityId: must not be a placeholder', [{ field: 'facilityId', message: 'must not be a placeholder' }]);
    }, opts()));
    const ask = (facilityId: string) => requestQuery(broker.nc, 'GetFacilityConfig', { facilityId }, { catalog: broker.catalog });
    expect(await ask('missing')).to.deep.equal({ error: { code: 'NOT_FOUND', message: 'Facility "missing" was not found' } });
    expect(await ask('down')).to.deep.equal({ error: { code: 'UNAVAILABLE', message: 'The master key is not configured' } });
    expect(await ask('x')).to.deep.equal({ error: { code: 'BAD_REQUEST', message: 'facilityId: must not be a placeholder', details: ['facilityId: must not be a placeholder'] } });
  });

  it('answers BAD_REQUEST with the schema errors to a request that violates the contract; the client refuses to send one', async () => {
    let calls = 0;
    const server = serveQuery(broker.nc, 'GetFacilityConfig', () => { calls++; return { facility }; }, opts());
    servers.push(server);
    const raw = await broker.nc.request(server.subject, JSON.stringify({ facilityId: '', extra: 1 }), { timeout: 2_000 });
    expect(raw.json()).to.deep.equal({ error: { code: 'BAD_REQUEST', message: 'GetFacilityConfig request violates its contract',
      details: ["(root) must NOT have additional property 'extra'", '/facilityId must NOT have fewer than 1 characters'] } });
    const notJson = await broker.nc.request(server.subject, 'nope', { timeout: 2_000 });
    expect((notJson.json() as { error: { code: string } }).error.code).to.equal('BAD_REQUEST');
    expect(calls).to.equal(0);

    let refused: unknown;
    try { await requestQuery(broker.nc, 'GetFacilityConfig', {} as never, { catalog: broker.catalog }); } catch (err) { refused = err; }
    expect(refused).to.be.instanceOf(ContractViolationError);
  });

  it('answers INTERNAL when the handler throws or returns an off-contract reply', async () => {
    servers.push(serveQuery(broker.nc, 'GetServiceInfo', () => { throw new Error('db connection lost: password=secret'); }, opts()));
    const reply = await requestQuery(broker.nc, 'GetServiceInfo', {}, { catalog: broker.catalog });
    expect(reply).to.deep.equal({ error: { code: 'INTERNAL', message: "GetServiceInfo failed; see the responder's logs" } });
    await servers.pop()!.stop();
    servers.push(serveQuery(broker.nc, 'GetServiceInfo', () => ({ name: 'x' }) as never, opts()));
    const bad = await requestQuery(broker.nc, 'GetServiceInfo', {}, { catalog: broker.catalog });
    expect(bad).to.deep.equal({ error: { code: 'INTERNAL', message: "GetServiceInfo produced an invalid reply; see the responder's logs" } });
  });

  it('throws QueryFailedError on timeout and when nobody serves the query', async () => {
    const subject = broker.catalog.byName('GetFacilitiesList').subject;
    const silent = broker.nc.subscribe(subject); // receives, never answers
    let timeout: unknown;
    try { await requestQuery(broker.nc, 'GetFacilitiesList', {}, { catalog: broker.catalog, timeoutMs: 300 }); } catch (err) { timeout = err; }
    silent.unsubscribe();
    expect(timeout).to.be.instanceOf(QueryFailedError);
    expect((timeout as QueryFailedError).reason).to.equal('timeout');

    let none: unknown;
    try { await requestQuery(broker.nc, 'ValidateCodeSystemCode', { url: 'http://loinc.org', code: '1' }, { catalog: broker.catalog, timeoutMs: 2_000 }); } catch (err) { none = err; }
    expect(none).to.be.instanceOf(QueryFailedError);
    expect((none as QueryFailedError).reason).to.equal('no-responders');
  });

  it('instances in the same queue group share requests: each request is answered once', async () => {
    const answeredBy: string[] = [];
    for (const instance of ['a', 'b']) {
      servers.push(serveQuery(broker.nc, 'ValidateValueSetCode', () => { answeredBy.push(instance); return { result: true }; }, opts()));
    }
    const replies = await Promise.all(Array.from({ length: 20 }, () =>
      requestQuery(broker.nc, 'ValidateValueSetCode', { url: 'http://vs', code: 'c', system: 's' }, { catalog: broker.catalog })));
    expect(replies.every((r) => !isErrorReply(r) && r.result === true)).to.equal(true);
    expect(answeredBy).to.have.length(20);
  });
});
