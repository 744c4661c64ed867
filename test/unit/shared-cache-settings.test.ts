import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { decodeSharedValue, encodeSharedValue } from '../../src/resolve/shared-value.js';

const bigquery = {
  QUERYGATE_ENGINE: 'bigquery',
  QUERYGATE_BIGQUERY_PROJECT: 'querygate-test',
  QUERYGATE_BIGQUERY_DATASET: 'logs',
};

const computed = {
  computedAt: 1_790_000_000_000,
  result: {
    columns: [
      { name: 'requests', type: 'INT64' as const },
      { name: 'metadata', type: 'RECORD' as const },
    ],
    rows: [{ requests: 9_007_199_254_740_993n, metadata: [{ request: [{ path: '/rest' }] }] }],
  },
};

describe('the shared cache settings', () => {
  it('refuses QUERYGATE_REDIS_URL over the DuckDB engine, saying why and what to do', () => {
    expect(() => loadConfig({ QUERYGATE_REDIS_URL: 'redis://127.0.0.1:6379' })).toThrow(
      /QUERYGATE_REDIS_URL: .*each DuckDB store belongs to one process: set QUERYGATE_ENGINE=bigquery/,
    );
  });

  it('takes QUERYGATE_REDIS_URL on BigQuery, with its timeout and lease', () => {
    const config = loadConfig({
      ...bigquery,
      QUERYGATE_REDIS_URL: 'redis://:secret@cache:6380/2',
      QUERYGATE_REDIS_LEASE_MS: '2000',
    });
    expect(config.redis).toEqual({ url: 'redis://:secret@cache:6380/2', timeoutMs: 1000, leaseMs: 2000 });
    expect(loadConfig(bigquery).redis).toBeUndefined();
  });

  it('answers a URL that is not redis:// naming QUERYGATE_REDIS_URL', () => {
    expect(() => loadConfig({ ...bigquery, QUERYGATE_REDIS_URL: 'http://cache:6379' })).toThrow(
      /QUERYGATE_REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/,
    );
  });

  it('sends no credentials to an emulator, and wants its endpoint', () => {
    const emulated = loadConfig({
      ...bigquery,
      QUERYGATE_BIGQUERY_API_ENDPOINT: 'http://127.0.0.1:9050',
      QUERYGATE_BIGQUERY_EMULATOR: 'true',
    });
    expect(emulated.bigquery).toMatchObject({ apiEndpoint: 'http://127.0.0.1:9050', emulator: true });
    expect(() => loadConfig({ ...bigquery, QUERYGATE_BIGQUERY_EMULATOR: 'true' })).toThrow(
      /QUERYGATE_BIGQUERY_EMULATOR: needs QUERYGATE_BIGQUERY_API_ENDPOINT/,
    );
  });
});

describe('values in the shared cache', () => {
  it('reads back the result stored, BIGINTs beyond 2^53 and nested records as they were', () => {
    expect(decodeSharedValue('k?project=a', encodeSharedValue('k?project=a', computed))).toEqual(computed);
  });

  it("reads a corrupt, truncated, foreign or other key's value as a miss", () => {
    const stored = encodeSharedValue('k?project=a', computed);
    expect(decodeSharedValue('k?project=b', stored)).toBeUndefined();
    expect(decodeSharedValue('k?project=a', stored.subarray(0, stored.length - 7))).toBeUndefined();
    expect(decodeSharedValue('k?project=a', Buffer.from('{"result":[]}'))).toBeUndefined();
    expect(decodeSharedValue('k?project=a', Buffer.alloc(0))).toBeUndefined();
    const foreign = serialize({ format: 'querygate-result/1', key: 'k?project=a', computedAt: 'yesterday' });
    expect(decodeSharedValue('k?project=a', foreign)).toBeUndefined();
    const noRows = serialize({
      format: 'querygate-result/1',
      key: 'k?project=a',
      computedAt: 1,
      columns: [],
      rows: 'x',
    });
    expect(decodeSharedValue('k?project=a', noRows)).toBeUndefined();
  });
});
