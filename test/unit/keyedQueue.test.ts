import assert from 'node:assert/strict';
import { KeyedQueue } from '../../src/core/clock/keyedQueue';
import { MobilityError } from '../../src/core/base/errors';

describe('KeyedQueue', () => {
  it('lets one holder per key in at a time, in arrival order', async () => {
    const queue = new KeyedQueue();
    const order: string[] = [];
    const work = async (name: string) => {
      const release = await queue.acquire('k');
      order.push(`${name}+`);
      await new Promise((r) => setTimeout(r, 5));
      order.push(`${name}-`);
      release();
    };
    await Promise.all([work('a'), work('b'), work('c')]);
    assert.deepEqual(order, ['a+', 'a-', 'b+', 'b-', 'c+', 'c-']);
    assert.equal(queue.busyKeys, 0);
  });

  it('a cancelled waiter leaves without blocking the ones behind it', async () => {
    const queue = new KeyedQueue();
    const releaseA = await queue.acquire('k');
    const ac = new AbortController();
    const b = queue.acquire('k', ac.signal);
    const c = queue.acquire('k');
    ac.abort();
    await assert.rejects(b, (e: unknown) => e instanceof MobilityError && e.code === 'CANCELLED');
    releaseA();
    const releaseC = await c;
    releaseC();
  });
});
