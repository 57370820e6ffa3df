/**
 * The validation service authenticates before it reads a body, as production configures it
 * (auth.mode jwt with issuer, audience and key): the HTTP frame is the runtime's own (serviceHttpApp)
 * with the validation API's routes (validationApiHttpFrame). An unauthenticated POST announcing 40 MB
 * is answered 401 while the client has sent 64 KB of it, the connection is closed, and the server
 * never reads the rest; a caller without the admin permission is refused a write the same way (403).
 * Authenticated callers are served as before.
 */
import net from 'node:net';
import { expect } from 'chai';
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import request from 'supertest';
import { loadConfig } from '#adapters/config/index.js';
import { listen, OpenApiBuilder, type HttpServerHandle } from '#adapters/http/index.js';
import { verifierFromConfig } from '#adapters/auth/index.js';
import { createMetrics } from '#adapters/observability/metrics.js';
import { silentLogger } from '#adapters/observability/logger.js';
import type { Database } from '#adapters/persistence/database.js';
import { serviceHttpApp } from '#adapters/runtime/service-runtime.js';
import { validationApiHttpFrame } from '#validation/adapters/http/validation-api-module.js';
import { createValidationApiModule } from '#validation/composition.js';
import { pgValidationApiRepositories } from '#validation/adapters/persistence/validation-api-repositories.js';
import { validationSchema } from '#validation/config.js';
import { ScriptedValidator } from './support/app.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from './support/database.js';

const ANNOUNCED = 40 * 1024 * 1024;
const SENT_BEFORE_ANSWER = 64 * 1024;

interface RawExchange {
  /** The status line and headers, as received. */
  readonly head: string;
  /** Bytes the client had written when the answer arrived. */
  readonly sentWhenAnswered: number;
}

/**
 * Sends the head of a POST announcing ANNOUNCED bytes and SENT_BEFORE_ANSWER of its body, then waits
 * for the answer (it must come although the body is incomplete) and tries to send more (8 MB), which
 * a closed connection refuses.
 */
function postWithoutFinishing(port: number, method: string, path: string, headers: Record<string, string>): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let sent = 0;
    let answered: RawExchange | undefined;
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no answer with ${sent} bytes sent`)); }, 20_000);
    socket.on('error', () => undefined); // writing after the server closed: expected
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (answered || end < 0) return;
      answered = { head: received.slice(0, end), sentWhenAnswered: sent };
      // The rest of the body: the server must not read it.
      for (let i = 0; i < 128 && !socket.destroyed; i++) socket.write(Buffer.alloc(64 * 1024, 0x20));
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (answered) resolve(answered);
      else reject(new Error('the connection closed without an answer'));
    });
    const head = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/fhir+json', `Content-Length: ${ANNOUNCED}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
    socket.write(head);
    socket.write(Buffer.concat([Buffer.from('{"resourceType":"Bundle","entry":['), Buffer.alloc(SENT_BEFORE_ANSWER, 0x20)]), () => { sent = SENT_BEFORE_ANSWER; });
  });
}

describe('validation service: authentication before any body is read (auth.mode jwt, the runtime\'s HTTP frame)', function () {
  this.timeout(60_000);
  const dbName = uniqueDbName('authbody');
  let db: Database;
  let server: HttpServerHandle;
  let privateKey: CryptoKey;
  /** Bytes each connection's socket read on the server side. */
  const serverSockets: net.Socket[] = [];
  const validator = new ScriptedValidator();

  const token = (permissions: string[]) => new SignJWT({ permissions }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' })
    .setSubject('caller').setIssuer('https://idp.test').setAudience('validation').setIssuedAt().setExpirationTime('5m').sign(privateKey);

  before(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    const config = loadConfig(validationSchema, {
      AUTH_MODE: 'jwt', AUTH_ISSUER: 'https://idp.test', AUTH_AUDIENCE: 'validation', AUTH_PUBLIC_KEY: await exportSPKI(pair.publicKey), AUTH_PUBLIC_KEY_ALGORITHM: 'ES256',
    });
    db = await openValidationTestDatabase(dbName);
    const logger = silentLogger();
    const openApi = new OpenApiBuilder({ title: 'Validation API (test)', version: 'test' });
    const module = createValidationApiModule({ repositories: pgValidationApiRepositories(db.orm), openApi, validator, validateBodyLimit: config.validateBodyLimit });
    await module.categories.initialize();
    const http = serviceHttpApp({
      serviceName: 'validation-auth-test', config, logger, metrics: createMetrics('validation-auth-test', { defaultMetrics: false }), openApi,
      verifier: verifierFromConfig(config, logger), ...validationApiHttpFrame(config.validateBodyLimit),
    });
    http.app.use(module.router);
    server = await listen(http.finish(), 0, '127.0.0.1');
    server.server.on('connection', (socket) => serverSockets.push(socket));
  });
  after(async () => {
    await server?.close(1_000);
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  for (const path of ['/api/$validate', '/api/$categorize', '/api/category/$import']) {
    it(`POST ${path} announcing 40 MB without a token: 401 while 64 KB were sent; the connection closes, the rest is never read`, async () => {
      const before = serverSockets.length;
      const exchange = await postWithoutFinishing(server.port, 'POST', path, {});
      expect(exchange.head).to.match(/^HTTP\/1\.1 401 /);
      expect(exchange.head.toLowerCase()).to.contain('connection: close');
      expect(exchange.head.toLowerCase()).to.contain('www-authenticate: bearer');
      expect(exchange.sentWhenAnswered).to.be.at.most(SENT_BEFORE_ANSWER);
      const socket = serverSockets[before]!;
      expect(socket.bytesRead).to.be.below(2 * 1024 * 1024);
    });
  }

  it('a caller without the admin permission writing a category with a 40 MB body: 403 before the body is read', async () => {
    const before = serverSockets.length;
    const exchange = await postWithoutFinishing(server.port, 'POST', '/api/category/$import', { Authorization: `Bearer ${await token(['read'])}` });
    expect(exchange.head).to.match(/^HTTP\/1\.1 403 /);
    expect(serverSockets[before]!.bytesRead).to.be.below(2 * 1024 * 1024);
  });

  it('authenticated callers are served: $validate and $categorize read their bodies after the token was checked', async () => {
    const reader = `Bearer ${await token(['read'])}`;
    const validated = await request(server.url).post('/api/$validate').set('Authorization', reader).type('application/fhir+json')
      .send(JSON.stringify({ resourceType: 'Patient', id: 'p' })).expect(200);
    expect(JSON.parse(validated.text)).to.deep.equal({ resourceType: 'OperationOutcome', issue: [] });
    expect(validator.calls.at(-1)!.resource).to.deep.equal({ resourceType: 'Patient', id: 'p' });
    const categorized = await request(server.url).post('/api/$categorize').set('Authorization', reader)
      .send([{ severity: 'error', message: 'Patient.gender: minimum required = 1, but only found 0 (from x)' }]).expect(200);
    expect(categorized.body[0].categories.map((c: { id: string }) => c.id)).to.deep.equal(['missing_required_element']);
    await request(server.url).post('/api/$validate').type('application/fhir+json').send('{}').expect(401);
  });
});
