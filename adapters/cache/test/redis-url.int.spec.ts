import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createClient } from '@keyv/redis';
import { cacheSettings, loadConfig } from '../../config/index.js';
import { silentLogger } from '../../observability/logger.js';
import { createCache, type Cache } from '../cache.js';
import { RedisStore, redisConnection } from '../redis-store.js';
import { createTestPki, tlsTerminatingProxy, trustCaTemporarily, type TestPki, type TlsProxy } from '#test-support/test-tls.js';

const REDIS = { host: process.env.REDIS_HOST ?? '127.0.0.1', port: Number(process.env.REDIS_PORT ?? 6379) };

/** The connection the services would use for these environment variables (service-runtime.ts, composition.ts). */
const connectionFor = (env: Record<string, string>) => redisConnection(loadConfig(cacheSettings(), env));

describe('cache: data.cache-server.url (real Redis)', () => {
  const run = `test-${randomBytes(4).toString('hex')}`;
  const opened: Cache<unknown>[] = [];
  const open = async (env: Record<string, string>, namespace: string) => {
    const cache = await createCache<string>({ type: 'distributed', namespace: `${run}:${namespace}`, redis: connectionFor(env), logger: silentLogger() });
    opened.push(cache as Cache<unknown>);
    return cache;
  };
  after(async () => {
    for (const cache of opened) {
      await cache.clear();
      await cache.close();
    }
  });

  it('redis:// wins over host/port/database, and its path selects the database', async () => {
    const cache = await open({
      DATA_CACHE_SERVER_URL: `redis://${REDIS.host}:${REDIS.port}/7`, DATA_CACHE_SERVER_HOST: 'nowhere.invalid', DATA_CACHE_SERVER_PORT: '1',
      DATA_CACHE_SERVER_DATABASE: '3', DATA_CACHE_SERVER_PASSWORD: '',
    }, 'plain');
    await cache.readinessCheck();
    await cache.set('k', 'v');
    expect(await cache.get('k')).to.equal('v');
    const raw = createClient({ socket: REDIS, database: 7 });
    await raw.connect();
    try {
      expect(await raw.exists(`nhsn:${run}:plain:k`)).to.equal(1);
    } finally {
      raw.destroy();
    }
  });

  describe('rediss:// (a TLS-terminating proxy in front of the local server)', function () {
    this.timeout(20_000);
    let pki: TestPki;
    let proxy: TlsProxy;
    let wrongNameProxy: TlsProxy;
    let restoreTrust: () => void;

    before(async () => {
      pki = createTestPki();
      proxy = await tlsTerminatingProxy(REDIS, pki.server('localhost', 'DNS:localhost,IP:127.0.0.1'));
      wrongNameProxy = await tlsTerminatingProxy(REDIS, pki.server('wrong', 'DNS:wrong.example.org'));
    });
    after(async () => {
      restoreTrust?.();
      await proxy?.close();
      await wrongNameProxy?.close();
      pki?.remove();
    });

    it('refuses a server whose CA is not trusted', async () => {
      const errors: Error[] = [];
      const store = await RedisStore.open({
        redis: connectionFor({ DATA_CACHE_SERVER_URL: `rediss://localhost:${proxy.port}` }), prefix: `nhsn:${run}:untrusted`,
        connectTimeoutMs: 2_000, onConnectionError: (error) => errors.push(error),
      });
      try {
        expect(errors.map((e) => e.message).join('\n')).to.match(/certificate/i);
        let pinged = false;
        await store.ping().then(() => { pinged = true; }, () => undefined);
        expect(pinged).to.equal(false);
      } finally {
        await store.close();
      }
    });

    it('with the CA in the trust store (NODE_EXTRA_CA_CERTS in a pod): round-trips over TLS', async () => {
      restoreTrust = trustCaTemporarily(pki.ca);
      const before = proxy.handshakes;
      const cache = await open({ DATA_CACHE_SERVER_URL: `rediss://localhost:${proxy.port}/0` }, 'tls');
      await cache.readinessCheck();
      await cache.set('k', 'over tls');
      expect(await cache.get('k')).to.equal('over tls');
      expect(cache.stats().errors).to.equal(0);
      expect(proxy.handshakes).to.be.greaterThan(before);
    });

    it('refuses a certificate for another host name, even from the trusted CA', async () => {
      restoreTrust ??= trustCaTemporarily(pki.ca);
      const errors: Error[] = [];
      const store = await RedisStore.open({
        redis: connectionFor({ DATA_CACHE_SERVER_URL: `rediss://localhost:${wrongNameProxy.port}` }), prefix: `nhsn:${run}:wrong`,
        connectTimeoutMs: 2_000, onConnectionError: (error) => errors.push(error),
      });
      try {
        expect(errors.map((e) => e.message).join('\n')).to.match(/altnames|does not match/i);
      } finally {
        await store.close();
      }
    });
  });
});
