import { describe, expect, it } from 'vitest';
import { createFairPool } from '../../src/engines/fair-pool.js';

/** The admission rules of the engine's connection pool, on plain items. */

const never = new AbortController().signal;
const options = { perKeyLimit: 2, maxQueuedPerKey: 2, maxWaitMs: 10_000 };

describe('a fair pool', () => {
  it('gives a freed connection to the waiting endpoint holding the fewest, ahead of an older waiter of a busy one', async () => {
    const pool = createFairPool(['c1', 'c2'], options);
    const busy = [await pool.acquire('slow', never), await pool.acquire('slow', never)];
    const order: string[] = [];
    const slowWaiter = pool.acquire('slow', never).then((lease) => order.push(`slow:${lease.item}`));
    const otherWaiter = pool.acquire('other', never).then((lease) => order.push(`other:${lease.item}`));
    expect(pool.load()).toEqual({ running: 2, waiting: 2 });
    busy[0]?.release();
    await otherWaiter;
    busy[1]?.release();
    await slowWaiter;
    expect(order).toEqual([`other:${busy[0]?.item}`, `slow:${busy[1]?.item}`]);
  });

  it('among endpoints holding as many, gives a freed connection to the oldest waiter', async () => {
    const pool = createFairPool(['c1', 'c2', 'c3'], options);
    await pool.acquire('a', never);
    await pool.acquire('b', never);
    const third = await pool.acquire('c', never);
    const order: string[] = [];
    const bWaiter = pool.acquire('b', never).then(() => order.push('b'));
    void pool.acquire('a', never).then(() => order.push('a'));
    third.release();
    await bWaiter;
    expect(order).toEqual(['b']);
  });

  it('never lets one endpoint hold more than its limit, even with idle connections', async () => {
    const pool = createFairPool(['c1', 'c2', 'c3', 'c4'], options);
    await pool.acquire('slow', never);
    await pool.acquire('slow', never);
    let third = false;
    void pool.acquire('slow', never).then(() => {
      third = true;
    });
    const cheap = await pool.acquire('cheap', never);
    expect(cheap.item).toBeDefined();
    expect(third).toBe(false);
    expect(pool.load()).toEqual({ running: 3, waiting: 1 });
  });

  it('refuses a caller beyond the queue with ENGINE_BUSY and forgets a waiter whose signal fires', async () => {
    const pool = createFairPool(['c1'], { ...options, perKeyLimit: 1, maxQueuedPerKey: 1 });
    const held = await pool.acquire('e', never);
    const gone = new AbortController();
    const waiting = pool.acquire('e', gone.signal);
    await expect(pool.acquire('e', never)).rejects.toMatchObject({ code: 'ENGINE_BUSY', status: 503 });
    gone.abort(new Error('caller left'));
    await expect(waiting).rejects.toThrow('caller left');
    expect(pool.load()).toEqual({ running: 1, waiting: 0 });
    held.release();
    expect((await pool.acquire('e', never)).item).toBe('c1');
  });
});
