import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { measureMemory } from '../../bench/memory.js';

/**
 * The real server in a child process over the demo store, with two clients each posting one
 * metadata field never seen before per request beside four readers, until 181 new fields (the
 * issue's measure) or 60 s: its resident memory, sampled from /proc/<pid>/status every 100 ms, stays within 1 GiB. Before schema
 * changes were paced and checkpointed this drove RSS to about 2 GiB in 20 s (issue 18).
 * The bound holds with room on a loaded 2-core machine: the process runs through tsx, which adds
 * some 90 MiB of its own, and it runs fewer requests there, not more.
 */
describe.skipIf(!existsSync('/proc/self/status'))('memory under one new field per request', () => {
  it('stays within 1 GiB RSS while two writers add a field per request beside four readers (181 new fields), every request acknowledged', async () => {
    const result = await measureMemory({ build: 'tsx', seconds: 60, newFields: 181, servingSeconds: 2 });
    const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
    const summary = `idle ${mib(result.idleBytes)} MiB, serving ${mib(result.servingPeakBytes)} MiB, churn ${mib(result.churnPeakBytes)} MiB, ${result.newFieldRequests} new fields`;
    expect(result.newFieldRequests, summary).toBeGreaterThan(10);
    expect(result.writeFailures, summary).toBe(0);
    expect(result.churnSamples.length, summary).toBeGreaterThan(50);
    expect(result.churnPeakBytes, summary).toBeLessThanOrEqual(1024 * 1024 * 1024);
  }, 180_000);
});
