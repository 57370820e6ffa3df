import { expect } from 'chai';
import { silentLogger } from '../../observability/logger.js';
import { connectNats, isNatsReady } from '../connection.js';
import { NATS_URL } from './support.js';

describe('messaging: NATS connection', () => {
  it('connects, is ready while open, and is not ready after close (close is idempotent)', async () => {
    const handle = await connectNats({ servers: NATS_URL, name: 'connection-test', logger: silentLogger() });
    expect(await isNatsReady(handle.nc)).to.equal(true);
    expect((await handle.jsm.getAccountInfo()).limits).to.be.an('object');
    await handle.close();
    await handle.close();
    expect(handle.nc.isClosed()).to.equal(true);
    expect(await isNatsReady(handle.nc)).to.equal(false);
  });

  it('fails clearly when no server is reachable', async () => {
    let err: unknown;
    try {
      await connectNats({ servers: 'nats://127.0.0.1:1', name: 'unreachable', logger: silentLogger(), connectTimeoutMs: 500 });
    } catch (e) { err = e; }
    expect(err).to.be.instanceOf(Error);
  });
});
