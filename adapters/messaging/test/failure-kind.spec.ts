import { expect } from 'chai';
import net from 'node:net';
import { ClosedConnectionError, NoRespondersError, TimeoutError } from '@nats-io/transport-node';
import { ContractViolationError, PermanentError, RetryableError } from '../errors.js';
import { classifyFailure } from '../failure-kind.js';
import { NotFoundError, UnavailableError } from '#shared-kernel/domain/errors.js';

/** PostgreSQL's error as the pg driver raises it: the SQLSTATE in `code`. */
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'FATAL' });

describe('messaging: failure kinds (data, unavailable dependency, unknown)', () => {
  it('a PermanentError is a data error, even when it wraps a connection failure', () => {
    expect(classifyFailure(new PermanentError('no such facility'))).to.equal('data');
    expect(classifyFailure(new PermanentError('gave up', { cause: pgError('57P01', 'shutdown') }))).to.equal('data');
  });

  it('the shared vocabulary\'s UnavailableError, as adapters and domain code raise it (the report service down), is unavailable, also when wrapped; its other errors are not', () => {
    expect(classifyFailure(new UnavailableError('The report service answered 503 after 2 attempt(s)', { dependency: 'report service' }))).to.equal('unavailable');
    expect(classifyFailure(new Error('flow failed', { cause: new UnavailableError('timed out', { dependency: 'report service' }) }))).to.equal('unavailable');
    expect(classifyFailure(new Error('flow failed', { cause: new UnavailableError('timed out') }))).to.equal('unavailable');
    expect(classifyFailure(new NotFoundError('Facility "F1" was not found'))).to.equal('unknown');
  });

  it('recognises PostgreSQL restarts, failovers and connection exceptions by SQLSTATE', () => {
    for (const [code, message] of [
      ['57P01', 'terminating connection due to administrator command'],
      ['57P02', 'terminating connection due to crash of another server process'],
      ['57P03', 'the database system is starting up'],
      ['08006', 'connection failure'],
      ['08001', 'could not connect'],
      ['53300', 'sorry, too many clients already'],
      ['25006', 'cannot execute INSERT in a read-only transaction'],
    ]) {
      expect(classifyFailure(pgError(code!, message!)), code).to.equal('unavailable');
    }
    // SQL errors about the statement or the data are not outages.
    for (const code of ['23505', '22P02', '42P01', '40001', '0800']) expect(classifyFailure(pgError(code, 'x')), code).to.equal('unknown');
  });

  it('recognises the pg driver\'s connection losses, which carry no code, by their message', () => {
    expect(classifyFailure(new Error('Connection terminated unexpectedly'))).to.equal('unavailable');
    expect(classifyFailure(new Error('timeout exceeded when trying to connect'))).to.equal('unavailable');
    expect(classifyFailure(new Error('Connection terminated unexpectedly while reading the report'))).to.equal('unknown');
  });

  it('recognises a refused connection from a real socket', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const error = await new Promise<Error>((resolve) => net.connect(port, '127.0.0.1').once('error', resolve));
    expect((error as NodeJS.ErrnoException).code).to.equal('ECONNREFUSED');
    expect(classifyFailure(error)).to.equal('unavailable');
  });

  it('recognises NATS timeouts, missing responders and closed connections', () => {
    expect(classifyFailure(new TimeoutError())).to.equal('unavailable');
    expect(classifyFailure(new NoRespondersError('nhsn.compliance.event.validation-complete.v1'))).to.equal('unavailable');
    expect(classifyFailure(new ClosedConnectionError())).to.equal('unavailable');
  });

  it('anything else is unknown: retried with backoff and dead-lettered after the maximum deliveries', () => {
    expect(classifyFailure(new TypeError("Cannot read properties of undefined (reading 'entry')"))).to.equal('unknown');
    expect(classifyFailure(new RetryableError('lock held'))).to.equal('unknown');
    expect(classifyFailure(new ContractViolationError('ValidationComplete', 's', '(root) must have required property'))).to.equal('unknown');
    expect(classifyFailure('a string')).to.equal('unknown');
    expect(classifyFailure(undefined)).to.equal('unknown');
  });
});
