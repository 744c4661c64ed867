import { describe, expect, it } from 'vitest';
import { measureSchemaChurn } from '../../bench/schema-churn.js';

/**
 * Issue 32's churn case at a size CI affords, on the real server over the demo store: four
 * readers call `logs.all` uncached while two writers post two new `metadata` fields per request
 * to `cloudflare.logs.prod`, so every paced schema change promotes a batch of queued fields beside
 * the readers, at the default DuckDB memory limit.
 */
describe('schema changes beside readers', () => {
  it('answer no 5xx but 503 with Retry-After, keep /health 200 and RSS under 1 GiB', async () => {
    const result = await measureSchemaChurn({
      seconds: 15,
      // The first change promotes 400 fields at once: over the demo's edge records, a large one.
      openingFields: 400,
      env: { QUERYGATE_SCHEMA_CHANGE_INTERVAL_MS: '3000' },
    });
    const statuses = (counts: Readonly<Record<number, number>>) =>
      Object.keys(counts)
        .map(Number)
        .filter((status) => status !== 200 && status !== 503);
    console.info(
      `schema churn: peak RSS ${Math.round(result.peakBytes / 2 ** 20)} MiB, reads ${JSON.stringify(result.reads)}, ` +
        `writes ${JSON.stringify(result.writes)}, health ${JSON.stringify(result.health)}`,
    );
    // What the server logged as errors, to read when a status below is not the one expected.
    for (const line of result.output.split('\n').filter((text) => text.includes('"level":50')))
      console.info(line.slice(0, 600));
    expect(statuses(result.reads)).toEqual([]);
    expect(statuses(result.writes)).toEqual([]);
    expect(result.unannounced503).toBe(0);
    expect(Object.keys(result.health)).toEqual(['200']);
    expect(result.writes[200]).toBeGreaterThan(0);
    expect(result.reads[200]).toBeGreaterThan(0);
    // The change was large enough to hold the readers off: the mechanism under test ran.
    expect(result.output).toMatch(/a large schema change runs with queries held off/);
    expect(result.output).not.toMatch(/FATAL|invalidated|Out of Memory/i);
    expect(result.peakBytes).toBeLessThan(2 ** 30);
  }, 120_000);
});
