/**
 * ReadyForValidation's payloadUri: read only when it lies within the configured report service
 * (same scheme, host and port, under its base path), against real HTTP servers: the report service
 * and a second server standing for any other address, which must never be called.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { silentLogger } from '#adapters/observability/logger.js';
import { HttpReportService } from '#validation/adapters/report-service/http-report-service.js';
import { payloadBytes, payloadLocation } from '#validation/adapters/report-service/payload-uri.js';
import { submissionFromBytes } from '#validation/domain/flow/index.js';

const patient = { resourceType: 'Patient', id: 'p1' };
const report = { resourceType: 'MeasureReport', id: 'mr1', status: 'complete' };

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; origin: string; hits: string[] }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

describe('validation flow: payloadUri, restricted to the report service', () => {
  describe('which addresses are allowed', () => {
    const base = 'http://report.example:5110/report-service';
    const refused = (uri: string) => {
      const location = payloadLocation(base, uri);
      return location.allowed ? 'allowed' : location.reason;
    };

    it('allows a path under the base path of the same scheme, host and port (host case and default port normalized)', () => {
      expect(refused('http://report.example:5110/report-service/payloads/p1.ndjson')).to.equal('allowed');
      expect(refused('http://REPORT.example:5110/report-service/a/../payloads/p1?x=1#frag')).to.equal('allowed');
      expect(payloadLocation('https://rs.example/', 'https://rs.example:443/p1').allowed).to.equal(true);
    });

    it('refuses another scheme, host or port, credentials, a path outside the base and encoded dots or slashes', () => {
      expect(refused('https://report.example:5110/report-service/p1')).to.match(/scheme https/);
      expect(refused('http://169.254.169.254:5110/report-service/latest/meta-data')).to.match(/another host/);
      expect(refused('http://report.example.attacker.net:5110/report-service/p1')).to.match(/another host/);
      expect(refused('http://report.example:5111/report-service/p1')).to.match(/another host or port/);
      expect(refused('http://report.example/report-service/p1')).to.match(/another host or port/);
      expect(refused('http://user:pw@report.example:5110/report-service/p1')).to.match(/credentials/);
      expect(refused('http://report.example:5110/report-service/../admin')).to.match(/outside the report service's base path/);
      expect(refused('http://report.example:5110/report-service-other/p1')).to.match(/outside/);
      expect(refused('http://report.example:5110/report-service/%2e%2e/admin')).to.match(/outside/); // URL decodes %2e%2e as a dot segment
      expect(refused('http://report.example:5110/report-service/x/%2e%2e%2f..%2fadmin')).to.match(/encoded/);
      expect(refused('http://report.example:5110/report-service/a%2Fb')).to.match(/encoded/);
      expect(refused('file:///etc/passwd')).to.match(/scheme file/);
      expect(refused('not a uri')).to.match(/not an absolute URL/);
    });

    it('reads JSON as it came, or NDJSON as the bytes of a collection Bundle the flow accepts', () => {
      const json = ` ${JSON.stringify(report, null, 1)}`;
      expect(Buffer.from(payloadBytes(json) ?? []).toString('utf8')).to.equal(json);
      const bundle = payloadBytes(`${JSON.stringify(report)}\n\n${JSON.stringify(patient)}\r\n`);
      expect(bundle && submissionFromBytes(bundle).entry.map((e) => e.resource.resourceType)).to.deep.equal(['MeasureReport', 'Patient']);
      expect(payloadBytes('{"a":1}\nnot json')).to.equal(undefined);
      expect(payloadBytes('   ')).to.equal(undefined);
    });
  });

  describe('the report-service adapter', () => {
    let reportService: Awaited<ReturnType<typeof listen>>;
    let elsewhere: Awaited<ReturnType<typeof listen>>;
    const key = { facilityId: 'f1', reportId: 'r1', patientId: 'p1' };
    const ROUTE_BODY = { resourceType: 'Bundle', type: 'collection', entry: [{ resource: { resourceType: 'Patient', id: 'from-route' } }] };

    before(async () => {
      reportService = await listen((req, res) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (path === '/rs/payloads/p1.ndjson') res.writeHead(200, { 'content-type': 'application/fhir+ndjson' }).end(`${JSON.stringify(report)}\n${JSON.stringify(patient)}\n`);
        else if (path === '/rs/payloads/p1.json') res.writeHead(200, { 'content-type': 'application/fhir+json' }).end(JSON.stringify(report));
        else if (path === '/rs/payloads/redirect') res.writeHead(302, { location: `${elsewhere.origin}/stolen` }).end();
        else if (path === '/rs/api/Report/Bundle/Patient') res.writeHead(200, { 'content-type': 'application/fhir+json' }).end(JSON.stringify(ROUTE_BODY));
        else res.writeHead(404).end();
      });
      elsewhere = await listen((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(patient)));
    });
    after(async () => {
      for (const { server } of [reportService, elsewhere]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
    const adapter = () => new HttpReportService({ baseUrl: `${reportService.origin}/rs`, retries: 0, timeoutMs: 2_000, logger: silentLogger() });

    it('reads the submission at an allowed payloadUri (NDJSON or JSON) instead of the submission route', async () => {
      reportService.hits.length = 0;
      const ndjson = await adapter().fetch(key, { payloadUri: `${reportService.origin}/rs/payloads/p1.ndjson` });
      expect(ndjson.kind === 'found' && submissionFromBytes(ndjson.body).entry.map((e) => e.resource.id)).to.deep.equal(['mr1', 'p1']);
      const json = await adapter().fetch(key, { payloadUri: `${reportService.origin}/rs/payloads/p1.json` });
      expect(json.kind === 'found' && Buffer.from(json.body).toString('utf8')).to.equal(JSON.stringify(report));
      expect(reportService.hits).to.deep.equal(['/rs/payloads/p1.ndjson', '/rs/payloads/p1.json']);
    });

    it('never calls an address outside the report service: the submission route is used instead', async () => {
      reportService.hits.length = 0;
      for (const uri of [`${elsewhere.origin}/rs/payloads/p1.json`, `${reportService.origin}/rs/../elsewhere`, `${reportService.origin}/other/p1.json`]) {
        expect(await adapter().fetch(key, { payloadUri: uri })).to.deep.equal({ kind: 'found', body: Buffer.from(JSON.stringify(ROUTE_BODY)) });
      }
      expect(elsewhere.hits).to.deep.equal([]);
      expect(reportService.hits.every((hit) => hit.startsWith('/rs/api/Report/Bundle/Patient?'))).to.equal(true);
      expect(reportService.hits).to.have.length(3);
    });

    it('falls back to the submission route when the payloadUri is missing, redirects or is unreadable (a redirect is not followed)', async () => {
      reportService.hits.length = 0;
      for (const path of ['missing.json', 'redirect']) {
        expect(await adapter().fetch(key, { payloadUri: `${reportService.origin}/rs/payloads/${path}` })).to.deep.equal({ kind: 'found', body: Buffer.from(JSON.stringify(ROUTE_BODY)) });
      }
      expect(elsewhere.hits).to.deep.equal([]);
      expect(reportService.hits.map((hit) => hit.split('?')[0])).to.deep.equal([
        '/rs/payloads/missing.json', '/rs/api/Report/Bundle/Patient', '/rs/payloads/redirect', '/rs/api/Report/Bundle/Patient',
      ]);
    });
  });
});
