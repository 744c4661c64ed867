import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type MemoryResult, measureMemory } from '../../bench/memory.js';

/**
 * The real server in a child process over the demo store, serving `supabase/`: four readers
 * sending what Studio's log pages send (bench/memory.ts, studioReads) for 10 s, then two clients each posting one metadata field never seen before per
 * request beside the four readers, until 181 new fields (the amount issue 18 measured) or 60 s.
 * Its resident memory is sampled from /proc/<pid>/status every 100 ms.
 *
 * The server runs through tsx, which holds 50-100 MiB of its own, so the serving bound is
 * issue 18's 256 MiB plus that and some slack
 * for a loaded 2-core machine (`npm run bench` measures the built server): through tsx serving
 * measured 272 MiB and the churn 279 MiB (built: 234 and 360 MiB over 60 s each). Issue 31's
 * stop measured tsx's share at 70-94 MiB (idle 255-291 MiB through tsx against 212 built, serving
 * 353-377 against 264 built in the same CI run) on its own code and on the stop before's alike,
 * so the bound was raised to 256 MiB plus 128 for tsx and the slack. With the SQL parser's WASM
 * compiled on the main thread (sql/bigquery-ast.ts, loadSqlParser), serving through tsx measured
 * 292-298 MiB against 295-355 before (built: 240-265 against 287-291), so the bound is 256 MiB
 * plus 96 again. Then, on 2026-11-30, two full CI runs measured serving 354 and 356 MiB (idle
 * 280-282) where the same commit alone measured 300-302 (idle 225-232, 318 before that day's
 * merges) and the built server in the same CI runs 218-228: tsx's share under a full suite's
 * two workers, not the server's, so the bound is 256 MiB plus 128 again. Before a
 * memory target (since removed: jemalloc's background threads return freed pages), serving the spec's endpoints measured 337-371 MiB and the churn 572-583 MiB. Before GraphiQL was loaded lazily, start-up garbage collected and
 * stores used 16 KiB blocks, the built server measured 440-480 and 470-725 MiB; before schema
 * changes were paced and checkpointed the churn drove RSS to about 2 GiB in 20 s.
 */
const mib = 1024 * 1024;

describe.skipIf(!existsSync('/proc/self/status'))('memory over the demo store', () => {
  let result: MemoryResult;
  let summary: string;

  beforeAll(async () => {
    result = await measureMemory({ build: 'tsx', seconds: 60, newFields: 181, servingSeconds: 10 });
    const at = (bytes: number) => Math.round(bytes / mib);
    summary = `idle ${at(result.idleBytes)} MiB, serving ${at(result.servingPeakBytes)} MiB, churn ${at(result.churnPeakBytes)} MiB, ${result.newFieldRequests} new fields`;
  }, 180_000);

  it('stays within 384 MiB RSS (256 MiB and tsx) while four readers send what Studio’s pages send', () => {
    expect(result.reads, summary).toBeGreaterThan(20);
    expect(result.servingPeakBytes, summary).toBeLessThanOrEqual(384 * mib);
  });

  it('stays within 1 GiB RSS while two writers add 181 fields one per request beside four readers, every request acknowledged', () => {
    expect(result.newFieldRequests, summary).toBeGreaterThan(10);
    expect(result.writeFailures, summary).toBe(0);
    // Sampled every 100 ms: the phase ran (181 fields take 2-5 s, the readers go on 3 s more) and was measured.
    expect(result.churnSamples.length, summary).toBeGreaterThan(20);
    expect(result.churnPeakBytes, summary).toBeLessThanOrEqual(1024 * mib);
  });
});
