import { describe, expect, it } from 'vitest';
import {
  bigQueryEnvironmentSchema,
  bigQueryTables,
  parseBigQueryEnvironment,
} from '../../src/backends/bigquery/config.js';
import { logSources } from '../helpers/shipped-sources.js';

const required = { QUERYGATE_BIGQUERY_PROJECT: 'acme-logs-prod', QUERYGATE_BIGQUERY_DATASET: 'logflare' };

function failureOf(environment: Record<string, string>): string {
  try {
    parseBigQueryEnvironment(environment);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('BigQuery configuration', () => {
  it('defaults every source to <project>.<dataset>.<name with underscores>, a 25 s timeout and no cap', () => {
    const config = parseBigQueryEnvironment(required);
    expect(bigQueryTables(config, logSources)).toEqual({
      'cloudflare.logs.prod': 'acme-logs-prod.logflare.cloudflare_logs_prod',
      'postgres.logs': 'acme-logs-prod.logflare.postgres_logs',
      'deno-relay-logs': 'acme-logs-prod.logflare.deno_relay_logs',
      'deno-subhosting-events': 'acme-logs-prod.logflare.deno_subhosting_events',
      'gotrue.logs.prod': 'acme-logs-prod.logflare.gotrue_logs_prod',
      'realtime.logs.prod': 'acme-logs-prod.logflare.realtime_logs_prod',
      'storage.logs.prod.2': 'acme-logs-prod.logflare.storage_logs_prod_2',
      'postgREST.logs.prod': 'acme-logs-prod.logflare.postgrest_logs_prod',
      'pgbouncer.logs.prod': 'acme-logs-prod.logflare.pgbouncer_logs_prod',
    });
    expect(config.timeoutMs).toBe(25_000);
    expect(config.maximumBytesBilled).toBeUndefined();
    expect(config.location).toBeUndefined();
    expect(config.apiEndpoint).toBeUndefined();
  });

  it('reads the table mapping as a comma list, a dataset.table taking the configured project', () => {
    const config = parseBigQueryEnvironment({
      ...required,
      QUERYGATE_BIGQUERY_TABLES:
        'cloudflare.logs.prod=edge-project.edge.requests, deno-relay-logs=functions.relay',
    });
    const tables = bigQueryTables(config, logSources);
    expect(tables['cloudflare.logs.prod']).toBe('edge-project.edge.requests');
    expect(tables['deno-relay-logs']).toBe('acme-logs-prod.functions.relay');
    expect(tables['postgres.logs']).toBe('acme-logs-prod.logflare.postgres_logs');
  });

  it('reads the table mapping as a JSON object, domain-scoped projects included', () => {
    const config = parseBigQueryEnvironment({
      ...required,
      QUERYGATE_BIGQUERY_TABLES: JSON.stringify({ 'gotrue.logs.prod': 'example.com:auth-logs.auth.events' }),
    });
    expect(bigQueryTables(config, logSources)['gotrue.logs.prod']).toBe('example.com:auth-logs.auth.events');
  });

  it('reads the timeout, the bytes cap, the location and the API endpoint', () => {
    const config = parseBigQueryEnvironment({
      ...required,
      QUERYGATE_BIGQUERY_TIMEOUT_MS: '5000',
      QUERYGATE_BIGQUERY_MAX_BYTES_BILLED: '10000000000',
      QUERYGATE_BIGQUERY_LOCATION: 'europe-west1',
      QUERYGATE_BIGQUERY_API_ENDPOINT: 'https://bigquery.example.test/',
    });
    expect(config).toMatchObject({
      timeoutMs: 5000,
      maximumBytesBilled: '10000000000',
      location: 'europe-west1',
      apiEndpoint: 'https://bigquery.example.test',
    });
  });

  it('names both required variables when they are missing', () => {
    const message = failureOf({});
    expect(message).toContain('QUERYGATE_BIGQUERY_PROJECT: is required');
    expect(message).toContain('QUERYGATE_BIGQUERY_DATASET: is required');
  });

  it('refuses a mapping of a source the served directory lacks once the sources are known, listing them', () => {
    const config = parseBigQueryEnvironment({
      ...required,
      QUERYGATE_BIGQUERY_TABLES: 'cloudflare=p-123456.d.t',
    });
    expect(() => bigQueryTables(config, logSources)).toThrow(
      "QUERYGATE_BIGQUERY_TABLES: 'cloudflare' is not a log source; the sources are cloudflare.logs.prod, postgres.logs",
    );
  });

  it("resolves a directory's own sources, mapped or by default, and refuses a shipped source it does not declare", () => {
    const own = [
      { name: 'checkout.events', aliases: [] },
      { name: 'Billing-Runs', aliases: ['billing'] },
    ];
    const config = parseBigQueryEnvironment({
      ...required,
      QUERYGATE_BIGQUERY_TABLES: 'Billing-Runs=finance.runs',
    });
    expect(bigQueryTables(config, own)).toEqual({
      'checkout.events': 'acme-logs-prod.logflare.checkout_events',
      'Billing-Runs': 'acme-logs-prod.finance.runs',
    });
    const shipped = parseBigQueryEnvironment({ ...required, QUERYGATE_BIGQUERY_TABLES: 'postgres.logs=a.b' });
    expect(() => bigQueryTables(shipped, own)).toThrow(
      "'postgres.logs' is not a log source; the sources are checkout.events, Billing-Runs",
    );
  });

  it('refuses a table that is not project.dataset.table or dataset.table', () => {
    expect(failureOf({ ...required, QUERYGATE_BIGQUERY_TABLES: 'postgres.logs=just_a_table' })).toContain(
      "QUERYGATE_BIGQUERY_TABLES: the table of 'postgres.logs' must be project.dataset.table",
    );
    expect(failureOf({ ...required, QUERYGATE_BIGQUERY_TABLES: 'postgres.logs=p-123456.d.`t`' })).toContain(
      'QUERYGATE_BIGQUERY_TABLES',
    );
  });

  it('refuses a bad project id, a zero bytes cap and a timeout that is not a number', () => {
    const message = failureOf({
      QUERYGATE_BIGQUERY_PROJECT: 'Acme Logs',
      QUERYGATE_BIGQUERY_DATASET: 'logflare',
      QUERYGATE_BIGQUERY_MAX_BYTES_BILLED: '0',
      QUERYGATE_BIGQUERY_TIMEOUT_MS: 'soon',
    });
    expect(message).toContain('QUERYGATE_BIGQUERY_PROJECT: must be a GCP project id');
    expect(message).toContain('QUERYGATE_BIGQUERY_MAX_BYTES_BILLED: must be a whole number of bytes');
    expect(message).toContain('QUERYGATE_BIGQUERY_TIMEOUT_MS');
  });

  it('refuses a bytes cap beyond INT64 and accepts the largest INT64', () => {
    const base = { QUERYGATE_BIGQUERY_PROJECT: 'acme-logs', QUERYGATE_BIGQUERY_DATASET: 'logflare' };
    expect(failureOf({ ...base, QUERYGATE_BIGQUERY_MAX_BYTES_BILLED: '9223372036854775808' })).toContain(
      'QUERYGATE_BIGQUERY_MAX_BYTES_BILLED: must be a whole number of bytes from 1 to 9223372036854775807',
    );
    expect(
      parseBigQueryEnvironment({ ...base, QUERYGATE_BIGQUERY_MAX_BYTES_BILLED: '9223372036854775807' })
        .maximumBytesBilled,
    ).toBe('9223372036854775807');
  });

  it('exposes a zod schema whose issues carry the variable name, for config.ts to merge', () => {
    const parsed = bigQueryEnvironmentSchema.safeParse({ QUERYGATE_BIGQUERY_DATASET: 'logflare' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['QUERYGATE_BIGQUERY_PROJECT']);
  });
});
