import { afterEach, describe, expect, it } from 'vitest';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';

/**
 * Schema changes paced per source, on the real writer and DuckDB file: a client sending a field
 * never seen before with every request changes the column's type at most once per interval; a
 * field that arrives in between is kept in `_extra` under its path and promoted by the source's
 * first batch after the interval. No value is lost at any point.
 */

const source = 'cloudflare.logs.prod';
const intervalMs = 10_000;

let store: TempStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function open(now: () => Date): Promise<TempStore> {
  store = await openTempStore('querygate-schema-pacing-', { now, schemaChangeIntervalMs: intervalMs });
  return store;
}

/** The metadata column's type as DuckDB spells it. */
async function typeText(opened: TempStore): Promise<string> {
  return (await opened.connection.run(`SELECT metadata FROM "${source}" LIMIT 0`)).columnType(0).toString();
}

describe('schema changes of one source', () => {
  it('types the first new field at once, keeps one arriving within the interval in _extra, and promotes it after', async () => {
    let clock = Date.parse('2026-04-01T00:00:00Z');
    const opened = await open(() => new Date(clock));
    await opened.writer.write(source, [{ id: 'a', event_message: 'a', metadata: { first_field: 'one' } }]);
    clock += 1_000;
    await opened.writer.write(source, [{ id: 'b', event_message: 'b', metadata: { second_field: 2 } }]);
    expect(await typeText(opened)).toMatch(/"first_field" VARCHAR/);
    expect(await typeText(opened)).not.toMatch(/second_field/);
    const waiting = await opened.connection.runAndReadAll(
      `SELECT json_extract(_extra, '$."metadata.second_field"')::BIGINT FROM "${source}" WHERE id = 'b'`,
    );
    expect(waiting.getRowsJS()).toEqual([[2n]]);

    // After the interval a batch without the field promotes it; later values are typed.
    clock += intervalMs;
    await opened.writer.write(source, [{ id: 'c', event_message: 'c', metadata: { first_field: 'again' } }]);
    expect(await typeText(opened)).toMatch(/"second_field" BIGINT/);
    await opened.writer.write(source, [{ id: 'd', event_message: 'd', metadata: { second_field: 4 } }]);
    const rows = await opened.connection.runAndReadAll(
      `SELECT id, metadata.second_field, json_extract(_extra, '$."metadata.second_field"')::BIGINT
       FROM "${source}" WHERE id IN ('b', 'd') ORDER BY id`,
    );
    // b's value stays where it was stored; d's is typed.
    expect(rows.getRowsJS()).toEqual([
      ['b', null, 2n],
      ['d', 4n, null],
    ]);
  });

  it('changes the type at most once per interval for a new field in every request, and loses no value', async () => {
    let clock = Date.parse('2026-04-01T00:00:00Z');
    const opened = await open(() => new Date(clock));
    const requests = 60;
    let changes = 0;
    let previous = await typeText(opened);
    for (let i = 0; i < requests; i++) {
      await opened.writer.write(source, [
        { id: `r${i}`, event_message: 'x', metadata: { [`field_${i}`]: i } },
      ]);
      const current = await typeText(opened);
      if (current !== previous) changes++;
      previous = current;
      clock += 1_000;
    }
    // 60 requests over 60 s, one change per 10 s at most.
    expect(changes).toBeLessThanOrEqual(Math.ceil((requests * 1_000) / intervalMs));
    expect(changes).toBeGreaterThan(1);
    // Every value is in its typed field or in _extra under its path, as the plain SQL reads it.
    const reader = await opened.connection.runAndReadAll(
      `SELECT id, _extra, to_json(metadata) FROM "${source}" ORDER BY id`,
    );
    const found = reader.getRowsJS().map(([id, extra, metadata]) => {
      const i = Number(String(id).slice(1));
      const typed = JSON.parse(String(metadata)) as Record<string, unknown>;
      const kept = extra === null ? {} : (JSON.parse(String(extra)) as Record<string, unknown>);
      return typed[`field_${i}`] ?? kept[`metadata.field_${i}`];
    });
    expect(found.sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: requests }, (_, i) => i),
    );
  });
});
