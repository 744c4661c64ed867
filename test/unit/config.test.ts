import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

/** The message loadConfig throws for `environment`, or '' when it accepts it. */
function refusal(environment: NodeJS.ProcessEnv): string {
  try {
    loadConfig(environment);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('configuration from the environment', () => {
  it('takes the defaults of the README configuration table from an empty environment', () => {
    expect(loadConfig({})).toMatchObject({
      host: '127.0.0.1',
      port: 4000,
      dataDir: resolve('./data'),
      apiKeys: undefined,
      demo: true,
      engine: 'duckdb',
      queryTimeoutMs: 25_000,
      maxBodyBytes: 10_485_760,
      cacheMaxBytes: 67_108_864,
      duckdbConnections: 4,
      endpointConnections: 2,
      endpointQueue: 8,
      clientEngineCalls: 3,
      clientQueue: 16,
      graphqlOperationConcurrency: 2,
      schemaLimits: { maxFields: 500, maxDepth: 15 },
      duckdbMemoryLimit: '256MB',
      duckdbMemoryLimitBytes: 256_000_000,
      duckdbThreads: undefined,
      retentionDays: 90,
      schemaChangeIntervalMs: 10_000,
      adhoc: { calls: 4, longCalls: 2, shortMs: 3_000, memoryCeilingBytes: 512 * 1024 * 1024 },
      logLevel: 'info',
    });
  });

  it('keeps turns of the ad-hoc lane for quick queries: fewer long calls than calls, or a line naming the setting', () => {
    expect(loadConfig({ QUERYGATE_ADHOC_CALLS: '6', QUERYGATE_ADHOC_LONG_CALLS: '5' }).adhoc).toMatchObject({
      calls: 6,
      longCalls: 5,
    });
    expect(refusal({ QUERYGATE_ADHOC_LONG_CALLS: '4' })).toMatch(
      /^Invalid configuration:\n {2}QUERYGATE_ADHOC_LONG_CALLS: must be fewer than QUERYGATE_ADHOC_CALLS/,
    );
    expect(loadConfig({ QUERYGATE_ADHOC_MEMORY_CEILING: '1GB' }).adhoc.memoryCeilingBytes).toBe(
      1_000_000_000,
    );
    expect(refusal({ QUERYGATE_ADHOC_MEMORY_CEILING: 'lots' })).toMatch(
      /QUERYGATE_ADHOC_MEMORY_CEILING: must be a size/,
    );
  });

  it('reads a DuckDB memory limit as DuckDB does (MB in powers of 1000, MiB of 1024) and refuses other text', () => {
    expect(loadConfig({ QUERYGATE_DUCKDB_MEMORY_LIMIT: '1GiB' }).duckdbMemoryLimitBytes).toBe(1024 ** 3);
    expect(loadConfig({ QUERYGATE_DUCKDB_MEMORY_LIMIT: '384MB' }).duckdbMemoryLimitBytes).toBe(384e6);
    expect(loadConfig({ QUERYGATE_DUCKDB_MEMORY_LIMIT: '1.5 gb' }).duckdbMemoryLimitBytes).toBe(1.5e9);
    for (const bad of ['512', 'lots', '50%', '-1GB']) {
      expect(refusal({ QUERYGATE_DUCKDB_MEMORY_LIMIT: bad })).toMatch(
        /^Invalid configuration:\n {2}QUERYGATE_DUCKDB_MEMORY_LIMIT: /,
      );
    }
  });

  it('keeps records for ever with QUERYGATE_RETENTION_DAYS=0 and refuses a negative or fractional one', () => {
    expect(loadConfig({ QUERYGATE_RETENTION_DAYS: '0' }).retentionDays).toBe(0);
    expect(refusal({ QUERYGATE_RETENTION_DAYS: '-1' })).toMatch(/QUERYGATE_RETENTION_DAYS: /);
    expect(refusal({ QUERYGATE_RETENTION_DAYS: '1.5' })).toMatch(/QUERYGATE_RETENTION_DAYS: /);
  });

  it('gives one endpoint half the DuckDB connections, rounded up, unless told, and never more than all', () => {
    expect(loadConfig({ QUERYGATE_DUCKDB_CONNECTIONS: '5' }).endpointConnections).toBe(3);
    expect(loadConfig({ QUERYGATE_ENDPOINT_CONNECTIONS: '1' }).endpointConnections).toBe(1);
    expect(
      loadConfig({ QUERYGATE_DUCKDB_CONNECTIONS: '2', QUERYGATE_ENDPOINT_CONNECTIONS: '9' })
        .endpointConnections,
    ).toBe(2);
    expect(refusal({ QUERYGATE_ENDPOINT_QUEUE: '-1' })).toMatch(/QUERYGATE_ENDPOINT_QUEUE: /);
  });

  it('on BigQuery, shares 16 jobs in flight between endpoints and clients unless told, whatever the DuckDB connections', () => {
    const bigquery = {
      QUERYGATE_ENGINE: 'bigquery',
      QUERYGATE_BIGQUERY_PROJECT: 'my-project',
      QUERYGATE_BIGQUERY_DATASET: 'logs',
      QUERYGATE_DUCKDB_CONNECTIONS: '2',
    };
    expect(loadConfig(bigquery)).toMatchObject({
      engineCalls: 16,
      endpointConnections: 8,
      clientEngineCalls: 15,
    });
    expect(loadConfig({ ...bigquery, QUERYGATE_BIGQUERY_CONCURRENT_JOBS: '5' })).toMatchObject({
      engineCalls: 5,
      endpointConnections: 3,
      clientEngineCalls: 4,
    });
    expect(refusal({ ...bigquery, QUERYGATE_BIGQUERY_CONCURRENT_JOBS: '0' })).toMatch(
      /QUERYGATE_BIGQUERY_CONCURRENT_JOBS: /,
    );
    // On DuckDB the setting is not read: the engine's calls are its connections.
    expect(loadConfig({ QUERYGATE_BIGQUERY_CONCURRENT_JOBS: '5' }).engineCalls).toBe(4);
  });

  it('lets one client have one engine call fewer under way than there are DuckDB connections (at least one), unless told', () => {
    expect(loadConfig({ QUERYGATE_DUCKDB_CONNECTIONS: '6' }).clientEngineCalls).toBe(5);
    expect(loadConfig({ QUERYGATE_DUCKDB_CONNECTIONS: '1' }).clientEngineCalls).toBe(1);
    expect(loadConfig({ QUERYGATE_CLIENT_ENGINE_CALLS: '7' }).clientEngineCalls).toBe(7);
    expect(refusal({ QUERYGATE_CLIENT_ENGINE_CALLS: '0' })).toMatch(
      /^Invalid configuration:\n {2}QUERYGATE_CLIENT_ENGINE_CALLS: /,
    );
    expect(loadConfig({ QUERYGATE_CLIENT_QUEUE: '0' }).clientQueue).toBe(0);
    expect(refusal({ QUERYGATE_CLIENT_QUEUE: '-1' })).toMatch(
      /^Invalid configuration:\n {2}QUERYGATE_CLIENT_QUEUE: /,
    );
  });

  it.each([
    ['QUERYGATE_MAX_METADATA_FIELDS', '0'],
    ['QUERYGATE_MAX_METADATA_FIELDS', 'many'],
    ['QUERYGATE_MAX_METADATA_DEPTH', '31'],
  ])('refuses %s=%s, naming it', (name, value) => {
    expect(refusal({ [name]: value })).toMatch(new RegExp(`^Invalid configuration:\n {2}${name}: `));
  });

  it.each(['abc', '70000', '-1', '4000.5'])('refuses PORT=%s, naming PORT', (port) => {
    expect(refusal({ PORT: port })).toMatch(/^Invalid configuration:\n {2}PORT: /);
  });

  it('accepts PORT=0, which picks a free port', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
  });

  it('refuses an API key shorter than 16 characters, naming QUERYGATE_API_KEYS and the minimum', () => {
    const message = refusal({ QUERYGATE_API_KEYS: 'querygate-key-0123456789,short' });
    expect(message).toMatch(/^Invalid configuration:\n {2}QUERYGATE_API_KEYS: .*16/);
  });

  it('splits QUERYGATE_API_KEYS at commas and trims each key', () => {
    expect(
      loadConfig({ QUERYGATE_API_KEYS: ' first-key-0123456789 , second-key-0123456789' }).apiKeys,
    ).toEqual(['first-key-0123456789', 'second-key-0123456789']);
  });

  it('reads QUERYGATE_INGEST_KEYS as ingest-only keys, none when unset', () => {
    expect(
      loadConfig({ QUERYGATE_INGEST_KEYS: 'vector-key-0123456789, other-key-0123456789' }).ingestKeys,
    ).toEqual(['vector-key-0123456789', 'other-key-0123456789']);
    expect(loadConfig({}).ingestKeys).toEqual([]);
  });

  it('refuses an ingest key shorter than 16 characters, naming QUERYGATE_INGEST_KEYS', () => {
    expect(refusal({ QUERYGATE_INGEST_KEYS: 'short' })).toMatch(
      /^Invalid configuration:\n {2}QUERYGATE_INGEST_KEYS: .*16/,
    );
  });

  it('refuses a key given both scopes, naming QUERYGATE_INGEST_KEYS', () => {
    const message = refusal({
      QUERYGATE_API_KEYS: 'shared-key-0123456789',
      QUERYGATE_INGEST_KEYS: 'shared-key-0123456789',
    });
    expect(message).toMatch(/^Invalid configuration:\n {2}QUERYGATE_INGEST_KEYS: .*one scope/);
  });

  it('refuses an unknown engine, naming QUERYGATE_ENGINE and the engines it knows', () => {
    const message = refusal({ QUERYGATE_ENGINE: 'postgres' });
    expect(message).toMatch(/^Invalid configuration:\n {2}QUERYGATE_ENGINE: /);
    expect(message).toContain('duckdb');
    expect(message).toContain('bigquery');
  });

  it('refuses QUERYGATE_DEMO=maybe, naming it and the values it takes', () => {
    expect(refusal({ QUERYGATE_DEMO: 'maybe' })).toMatch(/QUERYGATE_DEMO: must be 0\/1, true\/false/);
  });

  it('turns demo data off with QUERYGATE_DEMO=0', () => {
    expect(loadConfig({ QUERYGATE_DEMO: '0' }).demo).toBe(false);
  });

  it('warns that QUERYGATE_MEMORY_TARGET, removed (jemalloc returns freed memory by itself), is ignored', () => {
    expect(loadConfig({ QUERYGATE_MEMORY_TARGET: '256MiB' }).warnings).toEqual([
      'QUERYGATE_MEMORY_TARGET is not a querygate variable and is ignored',
    ]);
  });

  it('gives one line to each bad variable', () => {
    const lines = refusal({ PORT: 'abc', QUERYGATE_ENGINE: 'postgres', QUERYGATE_QUERY_TIMEOUT_MS: '0' })
      .split('\n')
      .slice(1);
    expect(lines.map((line) => line.trim().split(':')[0]).sort()).toEqual([
      'PORT',
      'QUERYGATE_ENGINE',
      'QUERYGATE_QUERY_TIMEOUT_MS',
    ]);
  });
});

describe('signed token keys', () => {
  it('accepts no tokens unless a secret, a public key file or a JWKS file is set', () => {
    expect(loadConfig({}).signedTokens).toBeUndefined();
    expect(loadConfig({ QUERYGATE_JWKS_FILE: 'keys/jwks.json' }).signedTokens).toEqual({
      secret: undefined,
      publicKeyFile: undefined,
      jwksFile: resolve('keys/jwks.json'),
    });
  });

  it('refuses a JWT secret shorter than 32 characters, naming QUERYGATE_JWT_SECRET and the minimum', () => {
    expect(refusal({ QUERYGATE_JWT_SECRET: 'x'.repeat(31) })).toMatch(/QUERYGATE_JWT_SECRET: .*at least 32/);
    expect(loadConfig({ QUERYGATE_JWT_SECRET: 'x'.repeat(32) }).signedTokens?.secret).toBe('x'.repeat(32));
  });
});
