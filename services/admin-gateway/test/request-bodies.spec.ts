/**
 * Issue 28, item 3 (and issue 33, item 3): the gateway authenticates before it reads any body, reads
 * none on its own routes, and streams what it passes on, counting it against gateway.body-limit.
 * The requests go out with node:http so the test controls when each byte is sent: an answer that
 * arrives while most of the body is still unsent proves the gateway did not wait for (hold) it.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import http, { type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { createTokenVerifier } from '#adapters/auth/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { createGatewayApp } from '#gateway/gateway-app.js';

const MiB = 1024 * 1024;
const LIMIT = 32 * MiB;

interface Answer { status: number; headers: IncomingHttpHeaders; body: Record<string, unknown>; closed: Promise<void> }
interface Upload { url: string; headers: IncomingHttpHeaders; received: number; sha: string; complete: boolean }

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
}

/** A chunk of 1 MiB whose bytes depend on its index (so a reordered or lost chunk changes the hash). */
function chunk(index: number): Buffer {
  const bytes = Buffer.alloc(MiB, index % 251);
  bytes.writeUInt32BE(index, 0);
  return bytes;
}

/**
 * Sends `method path` with `headers`, then the body chunks `write` gives, each after the previous
 * was written; resolves with the answer (possibly before the body is all sent).
 */
function send(base: string, path: string, headers: Record<string, string>, write: (req: http.ClientRequest) => Promise<void>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(base);
    const req = http.request({ hostname, port, path, method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (part: string) => { text += part; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) as Record<string, unknown> : {}, closed }));
    });
    const closed = new Promise<void>((resolveClosed) => req.once('socket', (socket) => socket.once('close', () => resolveClosed())));
    // The gateway may close the connection while we still write (that is the point of some tests).
    req.on('error', (error: NodeJS.ErrnoException) => { if (!['EPIPE', 'ECONNRESET'].includes(error.code ?? '')) reject(error); });
    write(req).catch(() => undefined);
  });
}

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('admin gateway: request bodies are authenticated first and streamed, never held', () => {
  let upstream: Server;
  let gateway: Server;
  let gatewayUrl: string;
  let privateKey: CryptoKey;
  const uploads: Upload[] = [];

  before(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'b1', alg: 'ES256' };
    // The service hashes what it receives as it arrives (it holds nothing either), answers at the end.
    upstream = http.createServer((req, res) => {
      const upload: Upload = { url: req.url ?? '', headers: req.headers, received: 0, sha: '', complete: false };
      uploads.push(upload);
      const hash = createHash('sha256');
      req.on('data', (part: Buffer) => { hash.update(part); upload.received += part.length; });
      req.on('end', () => {
        upload.sha = hash.digest('hex');
        upload.complete = true;
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ received: upload.received }));
      });
    });
    const app = createGatewayApp({
      upstreams: { validation: await listen(upstream) },
      upstreamTimeoutMs: 5000, maxBodyBytes: LIMIT, authMode: 'jwt', logger: silentLogger(), docs: false,
      verifier: createTokenVerifier({ issuer: 'https://idp.test', audience: 'nhsn', jwks: { keys: [jwk] } }),
    }).finish();
    gateway = http.createServer(app);
    gatewayUrl = await listen(gateway);
  });

  after(async () => {
    await close(gateway);
    await close(upstream);
  });

  beforeEach(() => { uploads.length = 0; });

  const bearer = async () => `Bearer ${await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'b1', typ: 'at+jwt' })
    .setSubject('uploader').setIssuer('https://idp.test').setAudience('nhsn').setExpirationTime('5m').sign(privateKey)}`;

  it('answers an unauthenticated 40 MiB POST with 401 after its first 64 KiB, without reading the rest (the connection closes), and calls no service', async () => {
    let sent = 0;
    const answer = await send(gatewayUrl, '/api/validation/$validate', { 'content-type': 'application/fhir+json', 'content-length': String(40 * MiB) }, async (req) => {
      req.write(Buffer.alloc(64 * 1024, 0x20));
      sent += 64 * 1024;
      // The rest is never sent: a gateway that read the body before authenticating would never answer.
    });
    expect(answer.status).to.equal(401);
    expect(answer.headers['www-authenticate']).to.match(/^Bearer/);
    expect(answer.headers.connection).to.equal('close');
    expect(answer.body).to.include({ status: 401 });
    expect(sent).to.equal(64 * 1024);
    expect(uploads).to.have.length(0);
    await answer.closed; // the gateway hangs up without waiting for the 40 MiB
  });

  /** A bearer token verified by the gateway before (its pass-through takes the request), or one it verifies on the request (express does). */
  const remembered = async () => {
    const token = await bearer();
    const warm = await fetch(`${gatewayUrl}/api/validation/warm-up`, { headers: { authorization: token } });
    await warm.text();
    expect(warm.status).to.equal(201);
    uploads.length = 0;
    return token;
  };
  const ways: ReadonlyArray<readonly [string, () => Promise<string>]> = [['a token verified on this request', bearer], ['a token verified before (pass-through)', remembered]];

  for (const [way, authorization] of ways) {
    it(`${way}: streams an authenticated 24 MiB chunked upload to the service intact: the service has the first MiB before the client sends the second`, async () => {
      const chunks = 24;
      const expected = createHash('sha256');
      for (let i = 0; i < chunks; i++) expected.update(chunk(i));
      const answer = await send(gatewayUrl, '/api/validation/artifact/PACKAGE/x', { 'content-type': 'application/gzip', authorization: await authorization() }, async (req) => {
        for (let i = 0; i < chunks; i++) {
          if (!req.write(chunk(i))) await new Promise((resolve) => req.once('drain', resolve));
          // Lock-step for the first chunks: a gateway that held the body would deadlock here (time-out).
          if (i < 3) await until(() => (uploads[0]?.received ?? 0) >= (i + 1) * MiB, `chunk ${i} at the service`);
        }
        req.end();
      });
      expect(answer.status).to.equal(201);
      expect(uploads).to.have.length(1);
      expect(uploads[0]).to.include({ url: '/api/artifact/PACKAGE/x', received: chunks * MiB, complete: true, sha: expected.digest('hex') });
      expect(uploads[0]!.headers['transfer-encoding']).to.equal('chunked');
    });

    it(`${way}: cuts a chunked upload off at gateway.body-limit with 413 Problem Details; the service never gets the whole body`, async () => {
      const answer = await send(gatewayUrl, '/api/validation/artifact/PACKAGE/x', { 'content-type': 'application/gzip', authorization: await authorization() }, async (req) => {
        // Each chunk waits for the previous one to reach the service (or for the answer): a client still
        // writing when the gateway hangs up may see the broken pipe before the answer (node's client does).
        let responded = false;
        req.once('response', () => { responded = true; });
        for (let i = 0; i < 48 && !responded; i++) {
          req.write(chunk(i));
          await until(() => responded || (uploads[0]?.received ?? 0) >= (i + 1) * MiB, `chunk ${i} or the answer`);
        }
        if (!responded) req.end();
      });
      expect(answer.status).to.equal(413);
      expect(answer.headers['content-type']).to.contain('application/problem+json');
      expect(answer.body).to.include({ status: 413 });
      expect(answer.body.detail).to.contain(`${LIMIT} bytes`);
      expect(answer.body.traceId).to.be.a('string');
      await until(() => uploads.length === 1, 'the service to be called');
      expect(uploads[0]!.complete).to.equal(false);
      expect(uploads[0]!.received).to.be.at.most(LIMIT);
    });

    it(`${way}: refuses a declared length above gateway.body-limit with 413 before calling the service`, async () => {
      const answer = await send(gatewayUrl, '/api/validation/$validate', { 'content-type': 'application/fhir+json', 'content-length': String(LIMIT + 1), authorization: await authorization() }, async (req) => {
        req.write(Buffer.alloc(1024, 0x20));
      });
      expect(answer.status).to.equal(413);
      expect(answer.headers.connection).to.equal('close');
      expect(uploads).to.have.length(0);
    });
  }

  it('reads no body on its own routes: a 40 MiB POST outside /api/<service>/ is answered 413 after 64 KiB', async () => {
    const answer = await send(gatewayUrl, '/health', { 'content-type': 'application/octet-stream', 'content-length': String(40 * MiB) }, async (req) => {
      req.write(Buffer.alloc(64 * 1024, 1));
    });
    expect(answer.status).to.equal(413);
    expect(answer.body.detail).to.contain('own routes take no request body');
    expect(answer.headers.connection).to.equal('close');
  });
});
