import { Agent, get } from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import express, { Router } from 'express';
import { silentLogger } from '../../observability/logger.js';
import { createHttpApp, listen } from '../index.js';
import { allowedMethods, routeTemplate } from '../route-table.js';

function getText(url: string, agent: Agent | false = false): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

describe('adapters/http server and route table', () => {
  it('finishes in-flight requests on close, then refuses new connections', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => { release = resolve; });
    let arrived!: () => void;
    const hasArrived = new Promise<void>((resolve) => { arrived = resolve; });
    const http = createHttpApp({ serviceName: 'shutdown-test', logger: silentLogger() });
    http.app.get('/slow', async (_req, res) => {
      arrived();
      await released;
      res.send('done');
    });
    const handle = await listen(http.finish(), 0, '127.0.0.1');
    const inFlight = getText(`${handle.url}/slow`);
    await hasArrived;
    const closed = handle.close(15_000);
    release();
    expect(await inFlight).to.deep.equal({ status: 200, body: 'done' });
    await closed;
    const refused = await getText(`${handle.url}/health`).then(() => 'answered', (error: NodeJS.ErrnoException) => error.code);
    expect(refused).to.equal('ECONNREFUSED');
  });

  it('does not wait for idle keep-alive connections', async () => {
    const http = createHttpApp({ serviceName: 'keepalive-test', logger: silentLogger() });
    const handle = await listen(http.finish(), 0, '127.0.0.1');
    const agent = new Agent({ keepAlive: true });
    try {
      expect((await getText(`${handle.url}/health`, agent)).status).to.equal(200);
      // A grace period far beyond the test timeout: resolving at all proves the idle socket was closed.
      await handle.close(600_000);
    } finally {
      agent.destroy();
    }
  });

  it('rejects when the port is taken', async () => {
    const first = await listen(express(), 0, '127.0.0.1');
    try {
      const error = await listen(express(), first.port, '127.0.0.1').then(() => undefined, (e: NodeJS.ErrnoException) => e);
      expect(error?.code).to.equal('EADDRINUSE');
    } finally {
      await first.close(1000);
    }
  });

  it('finds methods and full templates through nested routers', () => {
    const app = express();
    const outer = Router();
    const inner = Router();
    inner.get('/items/:itemId', (_req, res) => { res.end(); });
    inner.post('/items/:itemId', (_req, res) => { res.end(); });
    outer.use('/inner', inner);
    app.use('/outer', outer);
    app.get('/top', (_req, res) => { res.end(); });
    expect(allowedMethods(app, '/outer/inner/items/7')).to.deep.equal(['GET', 'HEAD', 'POST']);
    expect(allowedMethods(app, '/outer/inner/other')).to.deep.equal([]);
    expect(routeTemplate(app, 'POST', '/outer/inner/items/7')).to.equal('/outer/inner/items/:itemId');
    expect(routeTemplate(app, 'HEAD', '/top')).to.equal('/top');
    expect(routeTemplate(app, 'DELETE', '/top')).to.equal(undefined);
  });

  /** Writes `raw` on a fresh connection and reads the whole answer. */
  const rawAnswer = (url: string, raw: string) => new Promise<string>((resolve, reject) => {
    const { port } = new URL(url);
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(raw));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => { answer += chunk; });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });

  it('answers what the HTTP parser refuses (headers over the limit, a malformed request) as Problem Details', async () => {
    const handle = await listen(createHttpApp({ serviceName: 'parser-test', logger: silentLogger() }).finish(), 0, '127.0.0.1');
    try {
      const cases = [
        [`GET /health?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, 'request-header-fields-too-large'],
        [`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`, 431, 'request-header-fields-too-large'],
        ['NOT HTTP AT ALL\r\n\r\n', 400, 'bad-request'],
        ['GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n', 400, 'bad-request'],
      ] as const;
      for (const [raw, status, slug] of cases) {
        const answer = await rawAnswer(handle.url, raw);
        const [head, body] = answer.split('\r\n\r\n') as [string, string];
        expect(head, raw.slice(0, 40)).to.match(new RegExp(`^HTTP/1.1 ${status} `));
        expect(head.toLowerCase()).to.contain('content-type: application/problem+json');
        const problem = JSON.parse(body) as Record<string, unknown>;
        expect(problem).to.include({ status, type: `https://nhsn-link.example/problems/${slug}` });
        expect(problem.title).to.be.a('string');
        expect(problem.detail).to.be.a('string');
        expect(problem.traceId).to.match(/^[0-9a-f]{32}$/);
      }
      // a HEAD request gets the headers without the body
      const head = await rawAnswer(handle.url, `HEAD /health?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(head).to.match(/^HTTP\/1.1 431 Request header fields too large\r\nContent-Type: application\/problem\+json\r\nContent-Length: \d+\r\n/);
      expect(head.endsWith('\r\n\r\n'), head).to.equal(true);
      // on a keep-alive connection whose first request was answered, too (Node answers only a connection's first request)
      const second = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(new URL(handle.url).port), '127.0.0.1', () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n'));
        let answer = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => {
          if (answer === '' && chunk.startsWith('HTTP/1.1 200 ')) socket.write(`GET /health?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
          answer += chunk;
        });
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });
      expect(second).to.match(/^HTTP\/1.1 200 /);
      expect(second).to.match(/HTTP\/1.1 431 Request header fields too large\r\nContent-Type: application\/problem\+json/);
      // the server still answers
      expect((await getText(`${handle.url}/health`)).status).to.equal(200);
    } finally {
      await handle.close();
    }
  });
});
