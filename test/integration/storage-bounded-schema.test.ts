import { type DuckDBType, DuckDBTypeId } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQuerygateError } from '../../src/errors.js';
import { createLogWriter } from '../../src/storage/log-writer.js';
import { logSources } from '../helpers/shipped-sources.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';

/**
 * Hostile keys and values against the real writer and DuckDB file: a source's typed schema stops
 * at its field cap whatever clients send, the rest is kept in `_extra` and readable with JSON
 * functions; a request that fails in the store fails alone, not with the requests committed
 * beside it.
 */

/** Named fields in a DuckDB type at every level, counted from DuckDB's own description. */
function namedFields(type: DuckDBType): number {
  if (type.typeId === DuckDBTypeId.LIST) return namedFields(type.valueType);
  if (type.typeId !== DuckDBTypeId.STRUCT) return 0;
  return type.entryTypes.reduce((sum, entry) => sum + 1 + namedFields(entry), 0);
}

const manyKeys = (prefix: string, count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, `v${i}`]));

describe('a POST whose metadata has 10,000 distinct keys', () => {
  let store: TempStore;
  // The seed of cloudflare.logs.prod: request (url, path, method, host), response (status_code, origin_time).
  const seedFields = 8;
  const cap = 500;

  const metadataType = async () => {
    const result = await store.connection.run('SELECT metadata FROM "cloudflare.logs.prod" LIMIT 0');
    return result.columnType(0);
  };

  beforeAll(async () => {
    store = await openTempStore('querygate-bounded-schema-');
  });

  afterAll(async () => {
    await store?.close();
  });

  it('types fields up to the cap of 500 and keeps the other keys in _extra, none dropped', async () => {
    await store.writer.write('cloudflare.logs.prod', [
      { id: 'wide-1', event_message: 'wide', metadata: manyKeys('k', 10_000) },
    ]);
    expect(namedFields(await metadataType())).toBe(cap);
    const typed = cap - seedFields;
    const reader = await store.connection.runAndReadAll(
      `SELECT metadata.k0, metadata."k${typed - 1}", json_extract_string(_extra, '$."metadata.k${typed}"'),
              json_extract_string(_extra, '$."metadata.k9999"'), len(json_keys(_extra))::INTEGER
       FROM "cloudflare.logs.prod" WHERE id = 'wide-1'`,
    );
    expect(reader.getRowsJS()).toEqual([['v0', `v${typed - 1}`, `v${typed}`, 'v9999', 10_000 - typed]]);
  });

  it('changes no schema for a second POST of 10,000 other keys, all of them kept in _extra', async () => {
    const before = (await metadataType()).toString();
    await store.writer.write('cloudflare.logs.prod', [
      { id: 'wide-2', event_message: 'wide', metadata: manyKeys('other', 10_000) },
    ]);
    expect((await metadataType()).toString()).toBe(before);
    const reader = await store.connection.runAndReadAll(
      `SELECT len(json_keys(_extra))::INTEGER, json_extract_string(_extra, '$."metadata.other1234"')
       FROM "cloudflare.logs.prod" WHERE id = 'wide-2'`,
    );
    expect(reader.getRowsJS()).toEqual([[10_000, 'v1234']]);
  });
});

describe('a request that fails in the store beside others committed with it', () => {
  let store: TempStore;

  beforeAll(async () => {
    store = await openTempStore('querygate-group-isolation-');
    // A table made before the writer's, with a constraint only one request breaks: DuckDB fails the
    // whole group commit, as it would on any store error a single request causes.
    await store.writer.close();
    await store.connection.run('DROP TABLE "postgres.logs"');
    await store.connection.run(
      `CREATE TABLE "postgres.logs" (id VARCHAR CHECK (id <> 'poison'), "timestamp" TIMESTAMP,
        event_message VARCHAR, project VARCHAR,
        metadata STRUCT(host VARCHAR, parsed STRUCT(error_severity VARCHAR)), _extra JSON)`,
    );
  });

  afterAll(async () => {
    await store?.close();
  });

  it('fails only that request with ENGINE_ERROR; the others answer with their counts and are stored', async () => {
    const writer = createLogWriter(store.db, { sources: logSources });
    try {
      const requests = [
        [{ id: 'good-a', event_message: 'a' }],
        [{ id: 'poison', event_message: 'p' }],
        [
          { id: 'good-b', event_message: 'b' },
          { id: 'good-c', event_message: 'c' },
        ],
      ];
      // Written in one tick, so the three requests join one group commit.
      const outcomes = await Promise.allSettled(
        requests.map((events) => writer.write('postgres.logs', events)),
      );
      expect(outcomes[0]).toEqual({ status: 'fulfilled', value: { ingested: 1 } });
      expect(outcomes[2]).toEqual({ status: 'fulfilled', value: { ingested: 2 } });
      const failure = outcomes[1]?.status === 'rejected' ? outcomes[1].reason : undefined;
      expect(isQuerygateError(failure) && failure.code).toBe('ENGINE_ERROR');
      expect((failure as Error).message).not.toMatch(/CHECK|Constraint/i);
    } finally {
      await writer.close();
    }
    const reader = await store.connection.runAndReadAll('SELECT id FROM "postgres.logs" ORDER BY id');
    expect(reader.getRowsJS()).toEqual([['good-a'], ['good-b'], ['good-c']]);
  });
});
