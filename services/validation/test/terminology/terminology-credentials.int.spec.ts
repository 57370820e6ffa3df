/**
 * Whose credentials reach a terminology server, end to end through `POST /api/$validate`: a
 * DiagnosticReport with a LOINC code (local terminology cannot check LOINC, so the engine asks the
 * server) sent with the caller's bearer token.
 * - An external FHIR terminology server (svc.fhir-terminology-service-url) never sees the caller's
 *   token; it sees the credential configured for it (a bearer token; an OAuth2 client-credentials token
 *   from a real token endpoint, obtained in the worker threads too).
 * - The platform terminology service (svc.terminology-service-url + /api/terminology/fhir) receives the
 *   caller's token (header propagation between platform services).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import request from 'supertest';
import { silentLogger } from '#adapters/observability/logger.js';
import type { OutboundCredentials } from '#adapters/outbound-http/index.js';
import { TokenEndpoint } from '#adapters/outbound-http/test/support/token-endpoint.js';
import type { Database } from '#adapters/persistence/database.js';
import { EngineHost } from '#validation/adapters/engine/index.js';
import type { TerminologySettings } from '#validation/adapters/terminology/index.js';
import type { ArtifactRepository } from '#validation/domain/ports/artifact-repository.js';
import { buildTestApi } from '../api/support/app.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from '../api/support/database.js';

const CALLER = 'Bearer caller-token-X';
const diagnosticReport = { resourceType: 'DiagnosticReport', status: 'final', code: { coding: [{ system: 'http://loinc.org', code: '24325-3' }] } };
const noArtifacts = { forEachContent: async () => undefined } as unknown as ArtifactRepository;

/** A FHIR terminology server that answers every $validate-code with result=true and records who asked. */
class RecordingTerminologyServer {
  readonly calls: { path: string; authorization?: string }[] = [];
  private server!: http.Server;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.calls.push({ path: req.url ?? '', authorization: req.headers.authorization });
        res.writeHead(200, { 'content-type': 'application/fhir+json' }).end(JSON.stringify({ resourceType: 'Parameters', parameter: [{ name: 'result', valueBoolean: true }] }));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe('terminology credentials: the caller\'s token reaches platform services only', function () {
  this.timeout(120_000);
  const dbName = uniqueDbName('txcred');
  let db: Database;
  let server: RecordingTerminologyServer;
  let tokens: TokenEndpoint;

  before(async () => {
    db = await openValidationTestDatabase(dbName);
    server = await new RecordingTerminologyServer().start();
    tokens = await new TokenEndpoint('validation', 'client-secret-value').start();
  });
  after(async () => {
    await server?.stop();
    await tokens?.stop();
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });
  beforeEach(() => {
    server.calls.length = 0;
    tokens.reset();
  });

  /** POST /api/$validate with the caller's token through an engine with these terminology settings; the server's calls. */
  async function validateThroughApi(terminology: TerminologySettings, workers: number) {
    const host = new EngineHost({ artifacts: noArtifacts, workers, logger: silentLogger(), terminology: { timeoutMs: 2_000, retries: 0, ...terminology } });
    await host.start();
    try {
      const api = buildTestApi(db, { validator: host });
      await request(api.app).post('/api/$validate').set('Authorization', CALLER).type('application/fhir+json').send(JSON.stringify(diagnosticReport)).expect(200);
      expect(server.calls.length, 'the engine asked the terminology server').to.be.greaterThan(0);
      return server.calls;
    } finally {
      await host.close();
    }
  }

  it('an external server gets the configured bearer token, never the caller\'s (validation in the request\'s own thread)', async () => {
    const credentials: OutboundCredentials = { kind: 'bearer', token: 'terminology-service-token' };
    const calls = await validateThroughApi({ fhirTerminologyServiceUrl: server.url, credentials }, 1);
    expect(calls.map((c) => c.authorization)).to.satisfy((seen: unknown[]) => seen.every((a) => a === 'Bearer terminology-service-token'));
  });

  it('an external server without configured credentials gets no Authorization at all', async () => {
    const calls = await validateThroughApi({ fhirTerminologyServiceUrl: server.url }, 1);
    expect(calls.map((c) => c.authorization ?? 'none')).to.satisfy((seen: string[]) => seen.every((a) => a === 'none'));
  });

  it('worker threads get an OAuth2 client-credentials token of their own for the external server, never the caller\'s', async () => {
    const credentials: OutboundCredentials = { kind: 'client-credentials', tokenUrl: tokens.url, clientId: 'validation', clientSecret: 'client-secret-value', scope: 'tx' };
    const calls = await validateThroughApi({ fhirTerminologyServiceUrl: server.url, credentials }, 2);
    expect(calls.every((c) => /^Bearer tok-\d+$/.test(c.authorization ?? ''))).to.equal(true);
    expect(calls.some((c) => c.authorization === CALLER)).to.equal(false);
    // One token per worker thread at most (each thread keeps its own), each asked with the client's Basic credentials.
    expect(tokens.requests.length).to.be.within(1, 2);
    expect(tokens.requests.every((r) => r.clientAuthentication === 'basic' && r.clientId === 'validation' && r.grantType === 'client_credentials')).to.equal(true);
  });

  for (const workers of [1, 2]) {
    it(`the platform terminology service receives the caller's token (${workers === 1 ? 'request thread' : 'worker threads'})`, async () => {
      // Configured credentials are for an external server only: the platform service must not get them.
      const calls = await validateThroughApi({ terminologyServiceUrl: server.url, credentials: { kind: 'bearer', token: 'terminology-service-token' } }, workers);
      expect(calls.every((c) => c.path.startsWith('/api/terminology/fhir/'))).to.equal(true);
      expect(calls.every((c) => c.authorization === CALLER)).to.equal(true);
    });
  }
});
