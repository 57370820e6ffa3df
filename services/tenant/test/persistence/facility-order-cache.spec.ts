import { expect } from 'chai';
import { FacilityOrderCache, type FacilityOrder } from '#tenant/adapters/persistence/facility-order-cache.js';

const order = (version: string, ...ids: string[]): FacilityOrder => ({ version, ids });

describe('tenant: facility order cache', () => {
  it('reads an order once for concurrent callers and keeps it until dropped', async () => {
    const cache = new FacilityOrderCache();
    let reads = 0;
    const read = async () => {
      reads++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return order(String(reads), 'a', 'b');
    };
    const [first, second] = await Promise.all([cache.get('k', read), cache.get('k', read)]);
    expect(first).to.equal(second);
    expect(await cache.get('k', read)).to.equal(first);
    expect(reads).to.equal(1);
    cache.drop('k', first!);
    expect((await cache.get('k', read))!.version).to.equal('2');
  });

  it('ignores a drop of an order that a newer one already replaced', async () => {
    const cache = new FacilityOrderCache();
    const stale = (await cache.get('k', async () => order('1', 'a')))!;
    cache.drop('k', stale);
    const fresh = (await cache.get('k', async () => order('2', 'a')))!;
    cache.drop('k', stale);
    expect(await cache.get('k', async () => order('3', 'a'))).to.equal(fresh);
  });

  it('keeps at most maxOrders, dropping the least recently used', async () => {
    const cache = new FacilityOrderCache({ maxOrders: 2 });
    const a = await cache.get('a', async () => order('1'));
    await cache.get('b', async () => order('1'));
    expect(await cache.get('a', async () => order('2'))).to.equal(a); // a is now the most recent
    await cache.get('c', async () => order('1'));
    expect((await cache.get('b', async () => order('2')))!.version).to.equal('2'); // b was dropped
    expect((await cache.get('c', async () => order('2')))!.version).to.equal('1');
  });

  it('asks for a too-long order again only after tooLongRecheckMs', async () => {
    const cache = new FacilityOrderCache({ tooLongRecheckMs: 30 });
    let reads = 0;
    const tooLong = async () => {
      reads++;
      return null;
    };
    expect(await cache.get('k', tooLong)).to.equal(null);
    expect(await cache.get('k', tooLong)).to.equal(null);
    expect(reads).to.equal(1);
    await new Promise((resolve) => setTimeout(resolve, 40));
    await cache.get('k', tooLong);
    expect(reads).to.equal(2);
  });

  it('keeps no failed read: the next caller reads again', async () => {
    const cache = new FacilityOrderCache();
    let error: unknown;
    await cache.get('k', () => Promise.reject(new Error('database down'))).catch((e: unknown) => { error = e; });
    expect(error).to.be.instanceOf(Error);
    expect((await cache.get('k', async () => order('1', 'a')))!.ids).to.deep.equal(['a']);
  });
});
