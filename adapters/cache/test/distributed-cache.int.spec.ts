import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { expect } from 'chai';
import { createClient } from '@keyv/redis';
import { pino } from 'pino';
import { silentLogger, type Logger } from '../../observability/logger.js';
import { createCache, type Cache, type CacheOptions } from '../cache.js';
import { cacheKey } from '../cache-key.js';

const REDIS = { host: process.env.REDIS_HOST ?? '127.0.0.1', port: Number(process.env.REDIS_PORT ?? 6379), database: 0 };

// What every backend promises (round trip, copies, TTL, delete, clear) is in cache-contract.ts.
describe('cache: distributed (real Redis)', () => {
  const run = `test-${randomBytes(4).toString('hex')}`;
  const opened: Cache<unknown>[] = [];

  async function open<V>(namespace: string, extra: Partial<CacheOptions> = {}): Promise<Cache<V>> {
    const cache = await createCache<V>({ type: 'distributed', namespace: `${run}:${namespace}`, redis: REDIS, logger: silentLogger(), ...extra });
    opened.push(cache as Cache<unknown>);
    return cache;
  }

  after(async () => {
    for (const cache of opened) {
      await cache.clear();
      await cache.close();
    }
  });

  it('stores entries under the nhsn:<namespace>: prefix', async () => {
    const cache = await open<{ result: boolean; issues: { code: string }[] }>('roundtrip');
    const key = cacheKey(['http://loinc.org', '8867-4', undefined, 'http://vs']);
    await cache.set(key, { result: true, issues: [{ code: 'ok' }] });
    expect(await cache.get(key)).to.deep.equal({ result: true, issues: [{ code: 'ok' }] });
    expect(await cache.get('absent')).to.equal(undefined);
    expect(cache.stats()).to.deep.equal({ hits: 1, misses: 1, errors: 0 });
    await cache.readinessCheck();

    const raw = createClient({ socket: REDIS });
    await raw.connect();
    try {
      expect(await raw.exists(`nhsn:${run}:roundtrip:${key}`)).to.equal(1);
    } finally {
      raw.destroy();
    }
  });

  it('is shared: two instances on the same namespace see each other\'s entries', async () => {
    const first = await open<number>('shared');
    const second = await open<number>('shared');
    await first.set('k', 42);
    expect(await second.get('k')).to.equal(42);
    await second.delete('k');
    expect(await first.get('k')).to.equal(undefined);
  });

  describe('when Redis cannot be reached', () => {
    let blackHole: Server;
    const sockets: Socket[] = [];

    before(async () => {
      // Accepts connections and never answers: a hung Redis.
      blackHole = createServer((socket) => { sockets.push(socket); socket.on('error', () => undefined); });
      await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    });

    after(async () => {
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => blackHole.close(resolve));
    });

    function capturingLogger(lines: string[]): Logger {
      return pino({ level: 'warn' }, { write: (line: string) => { lines.push(line); } });
    }

    it('closed port: get is a miss and set a no-op, quickly, counted and logged once', async () => {
      const lines: string[] = [];
      const started = Date.now();
      const cache = await createCache<string>({
        type: 'distributed', namespace: `${run}:down`, logger: capturingLogger(lines),
        redis: { host: '127.0.0.1', port: 1, database: 0 }, operationTimeoutMs: 250,
      });
      try {
        const openedIn = Date.now() - started;
        const t0 = Date.now();
        for (let i = 0; i < 5; i++) {
          await cache.set('k', 'v');
          expect(await cache.get('k')).to.equal(undefined);
        }
        const tenCallsIn = Date.now() - t0;
        expect(openedIn).to.be.below(2000);
        expect(tenCallsIn).to.be.below(2500);
        expect(cache.stats()).to.deep.equal({ hits: 0, misses: 0, errors: 10 });
        let notReady: Error | undefined;
        await cache.readinessCheck().catch((e: Error) => { notReady = e; });
        expect(notReady).to.be.instanceOf(Error);
        expect(lines.length).to.equal(1);
        expect(JSON.parse(lines[0] ?? '{}')).to.include({ level: 40, cache: `${run}:down` });
      } finally {
        await cache.close();
      }
    });

    it('recovers by itself when Redis becomes reachable again', async () => {
      // A port with nothing behind it yet; later a TCP proxy to the real Redis takes it over.
      const port = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port: free } = probe.address() as { port: number };
          probe.close(() => resolve(free));
        });
      });
      const cache = await createCache<string>({
        type: 'distributed', namespace: `${run}:recover`, logger: silentLogger(), redis: { ...REDIS, port },
      });
      const proxy = createServer((client) => {
        const upstream = connect(REDIS.port, REDIS.host);
        sockets.push(client, upstream);
        client.on('error', () => undefined).pipe(upstream.on('error', () => undefined)).pipe(client);
      });
      try {
        await cache.set('k', 'lost');
        expect(await cache.get('k')).to.equal(undefined);
        await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
        const deadline = Date.now() + 8000;
        while ((await cache.get('k')) === undefined && Date.now() < deadline) {
          await cache.set('k', 'stored');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(await cache.get('k')).to.equal('stored');
        await cache.readinessCheck();
      } finally {
        await cache.clear();
        await cache.close();
        await new Promise((resolve) => proxy.close(resolve));
      }
    });

    it('hung server: each operation gives up after the operation timeout', async () => {
      const port = (blackHole.address() as { port: number }).port;
      const cache = await createCache<string>({
        type: 'distributed', namespace: `${run}:hung`, logger: silentLogger(),
        redis: { host: '127.0.0.1', port, database: 0 }, operationTimeoutMs: 100,
      });
      try {
        const t0 = Date.now();
        expect(await cache.get('k')).to.equal(undefined);
        await cache.set('k', 'v');
        expect(Date.now() - t0).to.be.below(1500);
        expect(cache.stats().errors).to.equal(2);
      } finally {
        await cache.close();
      }
    });
  });
});
