import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { silentLogger } from '../../observability/logger.js';
import { runWithContext } from '../../observability/request-context.js';
import { authorizationSource, createHttpClient, describeCredentials, type AuthorizationSource, type OutboundCredentials } from '../index.js';
import { TokenEndpoint } from './support/token-endpoint.js';

/** An external API that accepts one bearer token at a time (`accept`) and records the Authorization it got. */
class ExternalApi {
  readonly seen: (string | undefined)[] = [];
  accept = new Set<string>();
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.seen.push(req.headers.authorization);
      const ok = this.accept.size === 0 || this.accept.has(req.headers.authorization ?? '');
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json', ...(ok ? {} : { 'www-authenticate': 'Bearer error="invalid_token"' }) })
        .end(JSON.stringify({ ok }));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('adapters/outbound-http: own credentials (basic, bearer, OAuth2 client credentials)', () => {
  // A client id and secret with characters that RFC 6749 2.3.1 form-encodes before Basic.
  const CLIENT_ID = 'validation:svc';
  const CLIENT_SECRET = 'p@ss wörd+/=';
  let tokens: TokenEndpoint;
  let api: ExternalApi;

  before(async () => {
    tokens = await new TokenEndpoint(CLIENT_ID, CLIENT_SECRET).start();
    api = await new ExternalApi().start();
  });
  after(async () => {
    await tokens.stop();
    await api.stop();
  });
  beforeEach(() => {
    tokens.reset();
    api.seen.length = 0;
    api.accept.clear();
  });

  const clientCredentials = (extra: Partial<Extract<OutboundCredentials, { kind: 'client-credentials' }>> = {}): OutboundCredentials =>
    ({ kind: 'client-credentials', tokenUrl: tokens.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scope: 'terminology.read', ...extra });
  const clientFor = (credentials: AuthorizationSource | undefined) =>
    createHttpClient({ baseUrl: api.url, retries: 0, timeoutMs: 2_000, logger: silentLogger(), credentials });

  it('basic and bearer send the configured credential, and never the caller\'s token', async () => {
    const basic = clientFor(authorizationSource({ kind: 'basic', username: 'tx-user', password: 'tx-pass' }, { logger: silentLogger() }));
    const bearer = clientFor(authorizationSource({ kind: 'bearer', token: 'tx-token' }, { logger: silentLogger() }));
    await runWithContext({ traceId: 'a'.repeat(32), authorization: 'Bearer caller' }, async () => {
      await basic.get('/x');
      await bearer.get('/x');
    });
    expect(api.seen).to.deep.equal([`Basic ${Buffer.from('tx-user:tx-pass').toString('base64')}`, 'Bearer tx-token']);
    expect(authorizationSource({ kind: 'none' }, { logger: silentLogger() })).to.equal(undefined);
  });

  it('gets a token from the token endpoint with HTTP Basic client authentication and the scope, then reuses it', async () => {
    const client = clientFor(authorizationSource(clientCredentials(), { logger: silentLogger() }));
    await client.get('/a');
    await client.get('/b');
    expect(api.seen).to.deep.equal(['Bearer tok-1', 'Bearer tok-1']);
    expect(tokens.requests).to.have.length(1);
    expect(tokens.requests[0]).to.deep.include({ grantType: 'client_credentials', scope: 'terminology.read', clientAuthentication: 'basic', clientId: CLIENT_ID });
    expect(tokens.requests[0]!.contentType).to.match(/^application\/x-www-form-urlencoded/);
  });

  it('sends the client id and secret in the form with client authentication post', async () => {
    const client = clientFor(authorizationSource(clientCredentials({ clientAuthentication: 'post', scope: undefined }), { logger: silentLogger() }));
    await client.get('/a');
    expect(tokens.requests).to.deep.equal([{ grantType: 'client_credentials', scope: null, clientAuthentication: 'post', clientId: CLIENT_ID, contentType: 'application/x-www-form-urlencoded' }]);
    expect(api.seen).to.deep.equal(['Bearer tok-1']);
  });

  it('keeps the token until shortly before expires_in runs out, then gets a new one', async () => {
    let now = 1_000_000;
    tokens.expiresIn = 120;
    const source = authorizationSource(clientCredentials(), { logger: silentLogger(), now: () => now })!;
    expect(await source.header()).to.equal('Bearer tok-1');
    now += 85_000; // 35 s left: still more than the 30 s renewal margin
    expect(await source.header()).to.equal('Bearer tok-1');
    now += 10_000; // 25 s left
    expect(await source.header()).to.equal('Bearer tok-2');
    expect(tokens.requests).to.have.length(2);
  });

  it('callers waiting for a token share one request to the token endpoint', async () => {
    const source = authorizationSource(clientCredentials(), { logger: silentLogger() })!;
    const headers = await Promise.all(Array.from({ length: 8 }, () => source.header()));
    expect(new Set(headers)).to.deep.equal(new Set(['Bearer tok-1']));
    expect(tokens.requests).to.have.length(1);
  });

  it('a token the server refuses (401) is dropped: the call is made once more with a new token', async () => {
    tokens.expiresIn = undefined; // no expires_in: kept until refused
    const client = clientFor(authorizationSource(clientCredentials(), { logger: silentLogger() }));
    await client.get('/a');
    api.accept.add('Bearer tok-2'); // the server revoked tok-1
    const answer = await client.get('/b');
    expect(answer.status).to.equal(200);
    expect(api.seen).to.deep.equal(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2']);
    api.accept.clear();
    api.accept.add('Bearer never');
    expect((await client.get('/c')).status, 'a second refusal is the answer').to.equal(401);
  });

  it('a refused client is an error naming the endpoint\'s error code, never the secret', async () => {
    const source = authorizationSource(clientCredentials({ clientSecret: 'wrong-secret' }), { logger: silentLogger() })!;
    const error = await source.header().then(() => undefined, (e: unknown) => e as Error);
    expect(error?.message).to.contain('401').and.contain('invalid_client').and.not.contain('wrong-secret');
    expect(JSON.stringify(describeCredentials(clientCredentials()))).not.to.contain(CLIENT_SECRET);
  });
});
