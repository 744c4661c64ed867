import { describe, expect, it } from 'vitest';
import { createMemoryCeiling } from '../../src/backends/duckdb/memory-ceiling.js';

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the memory ceiling of caller queries', () => {
  it('stops nothing while RSS is at or under the ceiling', async () => {
    const stopped: string[] = [];
    const ceiling = createMemoryCeiling({ ceilingBytes: 100, residentBytes: () => 100, intervalMs: 5 });
    const end = ceiling.watch(() => stopped.push('a'));
    await settle(50);
    end();
    expect(stopped).toEqual([]);
  });

  it('stops the run that has run longest first, and the next only after the grace time', async () => {
    const stopped: string[] = [];
    let rss = 50;
    const ceiling = createMemoryCeiling({
      ceilingBytes: 100,
      residentBytes: () => rss,
      intervalMs: 5,
      graceMs: 200,
      growthBytes: 10,
    });
    const ends = ['first', 'second', 'third'].map((name) => ceiling.watch(() => stopped.push(name)));
    rss = 101;
    await settle(60);
    expect(stopped).toEqual(['first']);
    await settle(300);
    expect(stopped).toEqual(['first', 'second']);
    rss = 90;
    await settle(300);
    expect(stopped).toEqual(['first', 'second']);
    for (const end of ends) end();
  });

  it('does not stop a run for memory the process held before it began, only for what came while it ran', async () => {
    const stopped: string[] = [];
    // A wide store keeps the process above the ceiling at rest.
    let rss = 150;
    const ceiling = createMemoryCeiling({
      ceilingBytes: 100,
      residentBytes: () => rss,
      intervalMs: 5,
      growthBytes: 20,
    });
    const end = ceiling.watch(() => stopped.push('late'));
    await settle(50);
    expect(stopped).toEqual([]);
    rss = 175;
    await settle(50);
    expect(stopped).toEqual(['late']);
    end();
  });

  it('stops no run while the memory above the ceiling is held by others (a schema change)', async () => {
    const stopped: string[] = [];
    let rss = 50;
    let writerHolds = true;
    const ceiling = createMemoryCeiling({
      ceilingBytes: 100,
      residentBytes: () => rss,
      intervalMs: 5,
      growthBytes: 10,
      othersHold: () => writerHolds,
    });
    const end = ceiling.watch(() => stopped.push('reader'));
    rss = 300;
    await settle(50);
    expect(stopped).toEqual([]);
    writerHolds = false;
    await settle(50);
    expect(stopped).toEqual(['reader']);
    end();
  });

  it('never stops a run that has ended', async () => {
    const stopped: string[] = [];
    const ceiling = createMemoryCeiling({ ceilingBytes: 100, residentBytes: () => 200, intervalMs: 5 });
    ceiling.watch(() => stopped.push('gone'))();
    await settle(50);
    expect(stopped).toEqual([]);
  });
});

describe('stopping every caller query for a saved one', () => {
  it('stops each run watched, saying why, and resolves once each has ended', async () => {
    const reasons: string[] = [];
    const ceiling = createMemoryCeiling({ ceilingBytes: 100, residentBytes: () => 0 });
    const ends: Array<() => void> = [];
    for (const name of ['a', 'b']) ends.push(ceiling.watch((reason) => reasons.push(`${name} ${reason}`)));
    let resolved = false;
    const stopping = ceiling.stopAll().then((count) => {
      resolved = true;
      return count;
    });
    await settle(20);
    expect(reasons).toEqual(['a saved-query', 'b saved-query']);
    ends[0]?.();
    await settle(20);
    expect(resolved).toBe(false);
    ends[1]?.();
    expect(await stopping).toBe(2);
  });

  it('resolves with none at once when no caller query runs', async () => {
    expect(await createMemoryCeiling({ ceilingBytes: 100 }).stopAll()).toBe(0);
  });
});
