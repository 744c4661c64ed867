import { describe, expect, it } from 'vitest';
import { QuerygateError } from '../../src/errors.js';
import { createKeyedSemaphore, type KeyedSemaphoreOptions } from '../../src/keyed-semaphore.js';

// The admission rules shared by the engine's calls per endpoint, a client's turns and a GraphQL
// operation's turns, on plain keys. (Ported from the tests of the engine's former fair pool,
// whose connections are now the permits of `capacity`; the assertions are the same.)

const never = new AbortController().signal;
const fair = (capacity: number, more: Partial<KeyedSemaphoreOptions> = {}) =>
  createKeyedSemaphore({
    capacity,
    perKey: 2,
    maxWaitingPerKey: 2,
    handOff: 'fewest-held',
    maxWaitMs: 10_000,
    ...more,
  });

describe('a keyed semaphore handing off to the key holding the fewest', () => {
  it('gives a freed permit to the waiting key holding the fewest, ahead of an older waiter of a busy one', async () => {
    const slots = fair(2);
    const busy = [
      await slots.acquire('slow', { signal: never }),
      await slots.acquire('slow', { signal: never }),
    ];
    const order: string[] = [];
    const slowWaiter = slots.acquire('slow', { signal: never }).then(() => order.push('slow'));
    const otherWaiter = slots.acquire('other', { signal: never }).then(() => order.push('other'));
    expect(slots.load()).toEqual({ running: 2, waiting: 2 });
    busy[0]?.();
    await otherWaiter;
    busy[1]?.();
    await slowWaiter;
    expect(order).toEqual(['other', 'slow']);
  });

  it('among keys holding as many, gives a freed permit to the oldest waiter', async () => {
    const slots = fair(3);
    await slots.acquire('a', { signal: never });
    await slots.acquire('b', { signal: never });
    const third = await slots.acquire('c', { signal: never });
    const order: string[] = [];
    const bWaiter = slots.acquire('b', { signal: never }).then(() => order.push('b'));
    void slots.acquire('a', { signal: never }).then(() => order.push('a'));
    third();
    await bWaiter;
    expect(order).toEqual(['b']);
  });

  it('never lets one key hold more than its share, even with permits free', async () => {
    const slots = fair(4);
    await slots.acquire('slow', { signal: never });
    await slots.acquire('slow', { signal: never });
    let third = false;
    void slots.acquire('slow', { signal: never }).then(() => {
      third = true;
    });
    await slots.acquire('cheap', { signal: never });
    expect(third).toBe(false);
    expect(slots.load()).toEqual({ running: 3, waiting: 1 });
    expect(slots.load('slow')).toEqual({ running: 2, waiting: 1 });
  });

  it('refuses a caller beyond the queue with ENGINE_BUSY and forgets a waiter whose signal fires', async () => {
    const slots = fair(1, { perKey: 1, maxWaitingPerKey: 1 });
    const held = await slots.acquire('e', { signal: never });
    const gone = new AbortController();
    const waiting = slots.acquire('e', { signal: gone.signal });
    await expect(slots.acquire('e', { signal: never })).rejects.toMatchObject({
      code: 'ENGINE_BUSY',
      status: 503,
    });
    gone.abort(new Error('caller left'));
    await expect(waiting).rejects.toThrow('caller left');
    expect(slots.load()).toEqual({ running: 1, waiting: 0 });
    held();
    held();
    expect(slots.load()).toEqual({ running: 0, waiting: 0 });
    await slots.acquire('e', { signal: never });
    expect(slots.load()).toEqual({ running: 1, waiting: 0 });
  });
});

describe('a keyed semaphore handing off first come first served', () => {
  it('bounds the permits of one part of a key within the key, serving the oldest waiter that may take a freed one', async () => {
    const turns = createKeyedSemaphore({ perKey: 3, perPart: 2, handOff: 'first-come' });
    const slow = [
      await turns.acquire('client', { part: 'slow' }),
      await turns.acquire('client', { part: 'slow' }),
    ];
    const order: string[] = [];
    const slowWaiter = turns.acquire('client', { part: 'slow' }).then(() => order.push('slow'));
    // Its part is under its share and the key under its own: it runs at once, ahead of the older waiter.
    await turns.acquire('client', { part: 'cheap' });
    expect(turns.load('client')).toEqual({ running: 3, waiting: 1 });
    expect(order).toEqual([]);
    slow[0]?.();
    await slowWaiter;
    expect(order).toEqual(['slow']);
  });

  it('lets a caller wait no longer than its own maximum, and rejects it with the timeout error', async () => {
    let fire: (() => void) | undefined;
    const turns = createKeyedSemaphore({
      capacity: 1,
      handOff: 'first-come',
      maxWaitMs: 10_000,
      timers: {
        setTimeout: (callback, delayMs) => {
          expect(delayMs).toBe(250);
          fire = callback;
          return 1;
        },
        clearTimeout: () => {},
      },
      timedOut: (load, waitedMs) =>
        new QuerygateError('ENGINE_TIMEOUT', `waited ${waitedMs} ms behind ${load.running}`),
    });
    await turns.acquire('k');
    const waiting = turns.acquire('k', { maxWaitMs: 250 });
    fire?.();
    await expect(waiting).rejects.toThrow('waited 250 ms behind 1');
    expect(turns.load()).toEqual({ running: 1, waiting: 0 });
  });
});
