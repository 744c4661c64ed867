import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { measureMemory } from '../../bench/memory.js';

/**
 * The real server in a child process over the demo store, with two clients each posting one
 * metadata field never seen before per request beside four readers, until 181 new fields (the
 * amount issue 18 measured) or 60 s. Its resident memory, sampled from /proc/<pid>/status every
 * 100 ms, stays within 1.5 GiB, and every request is acknowledged. Before schema changes were
 * paced and checkpointed the same churn drove RSS to about 2 GiB in 20 s. Issue 18's target is
 * 1 GiB, which is not met yet: runs through tsx (about 100 MiB of its own) peaked at 0.9-1.23 GiB
 * on a loaded 2-core machine, and lowering DuckDB's memory limit to 768MB did not lower the peak,
 * so what remains is outside DuckDB's buffer pool. The bound here guards against the old growth.
 */
describe.skipIf(!existsSync('/proc/self/status'))('memory under one new field per request', () => {
  it('stays within 1.5 GiB RSS while two writers add 181 fields one per request beside four readers, every request acknowledged', async () => {
    const result = await measureMemory({ build: 'tsx', seconds: 60, newFields: 181, servingSeconds: 2 });
    const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
    const summary = `idle ${mib(result.idleBytes)} MiB, serving ${mib(result.servingPeakBytes)} MiB, churn ${mib(result.churnPeakBytes)} MiB, ${result.newFieldRequests} new fields`;
    expect(result.newFieldRequests, summary).toBeGreaterThan(10);
    expect(result.writeFailures, summary).toBe(0);
    expect(result.churnSamples.length, summary).toBeGreaterThan(50);
    expect(result.churnPeakBytes, summary).toBeLessThanOrEqual(1.5 * 1024 * 1024 * 1024);
  }, 180_000);
});
