/** The report-service adapter against a real HTTP server: URL template, token, 404, 5xx, timeouts. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { silentLogger } from '#adapters/observability/logger.js';
import { HttpReportService, submissionPath, DEFAULT_REPORT_SERVICE_PATH } from '#validation/adapters/report-service/http-report-service.js';
import { SubmissionUnavailableError } from '#validation/domain/flow/index.js';

describe('validation flow: report-service adapter (HTTP)', () => {
  let server: http.Server;
  let base: string;
  const seen: { url: string; authorization?: string }[] = [];
  let answer: (res: http.ServerResponse) => void = (res) => res.end();

  before(async () => {
    server = http.createServer((req, res) => {
      seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
      answer(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const key = { facilityId: 'fac 1', reportId: 'r/2', patientId: 'p&3' };
  const service = (extra: Partial<ConstructorParameters<typeof HttpReportService>[0]> = {}) =>
    new HttpReportService({ baseUrl: base, serviceToken: 'svc-token', retries: 0, timeoutMs: 2_000, logger: silentLogger(), ...extra });

  it('substitutes and encodes the path template (default: the original system route)', () => {
    expect(submissionPath(DEFAULT_REPORT_SERVICE_PATH, key)).to.equal('/api/Report/Bundle/Patient?facilityId=fac%201&patientId=p%263&reportScheduleId=r%2F2');
    expect(submissionPath('/api/submissions/{reportId}/{patientId}', key)).to.equal('/api/submissions/r%2F2/p%263');
  });

  it('200: the body as received (bytes, not parsed here), with the service token; a caller token wins', async () => {
    answer = (res) => res.writeHead(200, { 'content-type': 'application/fhir+json' }).end('{"resourceType":"MeasureReport"}');
    expect(await service().fetch(key)).to.deep.equal({ kind: 'found', body: Buffer.from('{"resourceType":"MeasureReport"}') });
    expect(seen.at(-1)).to.deep.equal({ url: '/api/Report/Bundle/Patient?facilityId=fac%201&patientId=p%263&reportScheduleId=r%2F2', authorization: 'Bearer svc-token' });
    await service().fetch(key, { authorization: 'Bearer caller' });
    expect(seen.at(-1)!.authorization).to.equal('Bearer caller');
  });

  it('a body without a JSON media type, or with none, is passed on as its bytes too', async () => {
    answer = (res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end('{"resourceType":"Bundle"}');
    expect(await service().fetch(key)).to.deep.equal({ kind: 'found', body: Buffer.from('{"resourceType":"Bundle"}') });
    answer = (res) => res.writeHead(200).end();
    expect(await service().fetch(key)).to.deep.equal({ kind: 'found', body: Buffer.alloc(0) });
  });

  it('404 is a definite NotFound', async () => {
    answer = (res) => res.writeHead(404).end();
    const result = await service().fetch(key);
    expect(result.kind).to.equal('not-found');
  });

  it('5xx, 401 and timeouts are retryable SubmissionUnavailableErrors', async () => {
    answer = (res) => res.writeHead(503).end();
    let error = await service({ retries: 1, retryBaseDelayMs: 10 }).fetch(key).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(SubmissionUnavailableError).and.to.have.property('message').that.matches(/answered 503 after 2 attempt/);
    answer = (res) => res.writeHead(401).end();
    error = await service().fetch(key).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(SubmissionUnavailableError).and.to.have.property('message').that.matches(/answered 401/);
    answer = () => undefined; // never answers
    error = await service({ timeoutMs: 100 }).fetch(key).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(SubmissionUnavailableError).and.to.have.property('message').that.matches(/timed out/);
  });

  it('an unreachable report service is retryable too', async () => {
    const error = await new HttpReportService({ baseUrl: 'http://127.0.0.1:9', retries: 0, logger: silentLogger() }).fetch(key).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(SubmissionUnavailableError).and.to.have.property('message').that.matches(/could not be reached/);
  });
});
