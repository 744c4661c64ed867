import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBigQueryEnvironment } from '../../src/backends/bigquery/config.js';
import { bigQueryNaming } from '../../src/backends/bigquery/engine.js';
import { qualifyForBigQuery, renameObjects } from '../../src/backends/bigquery/qualify.js';
import { loadEndpointRegistry } from '../../src/endpoints/registry.js';
import { queriesDir } from '../../src/paths.js';
import { type Ast, parseBigQuery } from '../../src/sql/bigquery-ast.js';
import { logSources } from '../helpers/shipped-sources.js';

const naming = {
  tables: {
    'cloudflare.logs.prod': 'my-project.logs.cloudflare_logs_prod',
    'deno-relay-logs': 'other-project.edge.relay',
    'postgREST.logs.prod': 'my-project.logs.postgrest_logs_prod',
  },
  routines: { generate_timestamp_trunc_array: 'my-project.logs.generate_timestamp_trunc_array' },
};

/** The dotted table names of every FROM/JOIN item, read back from the parsed result. */
function tablesOf(sql: string): string[] {
  const found: string[] = [];
  const walk = (node: Ast) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      if (node.Table && Array.isArray(node.Table.name)) {
        found.push(node.Table.name.map((part: Ast) => part.Identifier.value).join('.'));
      }
      Object.values(node).forEach(walk);
    }
  };
  walk(parseBigQuery(sql));
  return found;
}

describe('qualifying saved SQL for BigQuery', () => {
  it('replaces a backticked logical source name with the backticked fully-qualified table', () => {
    const { sql } = qualifyForBigQuery('select t.id from `cloudflare.logs.prod` as t', naming);
    expect(sql).toBe('select t.id from `my-project.logs.cloudflare_logs_prod` as t');
  });

  it('replaces an unquoted dotted name and a name quoted part by part', () => {
    const { sql } = qualifyForBigQuery(
      'select 1 from cloudflare.logs.prod, `postgREST`.logs.`prod`, `deno-relay-logs`',
      naming,
    );
    expect(sql).toBe(
      'select 1 from `my-project.logs.cloudflare_logs_prod`, `my-project.logs.postgrest_logs_prod`, `other-project.edge.relay` AS `deno-relay-logs`',
    );
  });

  it('renames a Logs Explorer name to its source table and keeps the name for its columns', () => {
    const { sql } = qualifyForBigQuery(
      'select edge_logs.id from edge_logs cross join unnest(metadata) as m',
      {
        tables: { edge_logs: 'my-project.logs.cloudflare_logs_prod' },
        routines: {},
      },
    );
    expect(sql).toBe(
      'select edge_logs.id from `my-project.logs.cloudflare_logs_prod` AS `edge_logs` cross join unnest(metadata) as m',
    );
  });

  it('maps every alias of a source to the table of the source in the engine naming', () => {
    const config = parseBigQueryEnvironment({
      QUERYGATE_BIGQUERY_PROJECT: 'acme-logs-prod',
      QUERYGATE_BIGQUERY_DATASET: 'logflare',
    });
    const { tables } = bigQueryNaming(config, logSources, queriesDir);
    for (const source of logSources) {
      for (const alias of source.aliases) expect(tables[alias], alias).toBe(tables[source.name]);
    }
    expect(tables.edge_logs).toBe('acme-logs-prod.logflare.cloudflare_logs_prod');
  });

  it('matches source names without regard to case, as the translator does', () => {
    const { sql } = qualifyForBigQuery('select 1 from `postgrest.logs.prod`', naming);
    expect(sql).toBe('select 1 from `my-project.logs.postgrest_logs_prod`');
  });

  it('leaves names in string literals, comments and column paths alone', () => {
    const text = [
      '-- reads `cloudflare.logs.prod`',
      "select 'cloudflare.logs.prod' as label, /* deno-relay-logs */ t.metadata",
      'from `cloudflare.logs.prod` as t',
    ].join('\n');
    const { sql } = qualifyForBigQuery(text, naming);
    expect(sql).toBe(
      [
        '-- reads `cloudflare.logs.prod`',
        "select 'cloudflare.logs.prod' as label, /* deno-relay-logs */ t.metadata",
        'from `my-project.logs.cloudflare_logs_prod` as t',
      ].join('\n'),
    );
  });

  it('keeps a CTE that shares its name with a source as the CTE', () => {
    const text = 'with `deno-relay-logs` as (select 1 as x) select x from `deno-relay-logs`';
    expect(qualifyForBigQuery(text, naming).sql).toBe(text);
  });

  it('qualifies calls of the UDF but not other functions', () => {
    const { sql } = qualifyForBigQuery(
      "select Generate_Timestamp_Trunc_Array(1, 'day_hour') as a, timestamp_trunc(current_timestamp(), hour) as b",
      naming,
    );
    expect(sql).toBe(
      "select `my-project.logs.generate_timestamp_trunc_array`(1, 'day_hour') as a, timestamp_trunc(current_timestamp(), hour) as b",
    );
  });

  it('splices at the right place after CRLF line ends and characters outside the BMP', () => {
    const text = "-- 😀😀 `deno-relay-logs`\r\nselect '😀' as e,\r\n  x from `deno-relay-logs`\r\n";
    expect(qualifyForBigQuery(text, naming).sql).toBe(
      "-- 😀😀 `deno-relay-logs`\r\nselect '😀' as e,\r\n  x from `other-project.edge.relay` AS `deno-relay-logs`\r\n",
    );
  });

  it('lists the @parameters of the query, sorted', () => {
    const { parameters } = qualifyForBigQuery('select @b as b, @a as a, @b as again', naming);
    expect(parameters).toEqual(['a', 'b']);
  });

  it('maps the qualified names back with renameObjects, as the fake server does', () => {
    const original =
      'select 1 from `cloudflare.logs.prod` where generate_timestamp_trunc_array(1, "x") is null';
    const { sql } = qualifyForBigQuery(original, naming);
    const back = renameObjects(sql, {
      tables: new Map([['my-project.logs.cloudflare_logs_prod', '`cloudflare.logs.prod`']]),
      functions: new Map([
        ['my-project.logs.generate_timestamp_trunc_array', 'generate_timestamp_trunc_array'],
      ]),
    });
    expect(back).toBe(original);
  });

  it('qualifies every source of every saved query and changes nothing else in the text', () => {
    const registry = loadEndpointRegistry(queriesDir);
    const all = {
      tables: {
        'cloudflare.logs.prod': 'p-123456.ds.cf',
        'postgres.logs': 'p-123456.ds.pg',
        'deno-relay-logs': 'p-123456.ds.relay',
        'deno-subhosting-events': 'p-123456.ds.events',
        'gotrue.logs.prod': 'p-123456.ds.auth',
        'realtime.logs.prod': 'p-123456.ds.realtime',
        'storage.logs.prod.2': 'p-123456.ds.storage',
        'postgREST.logs.prod': 'p-123456.ds.rest',
        'pgbouncer.logs.prod': 'p-123456.ds.pooler',
      },
      routines: { generate_timestamp_trunc_array: 'p-123456.ds.generate_timestamp_trunc_array' },
    };
    for (const endpoint of registry.endpoints) {
      const text = readFileSync(join(queriesDir, `${endpoint.name}.sql`), 'utf8');
      // The expected text, worked out by plain substitution: the saved files write every source
      // backticked and call the UDF by its bare name, and neither appears in a literal or comment.
      let expected = text.replaceAll(
        'generate_timestamp_trunc_array(',
        '`p-123456.ds.generate_timestamp_trunc_array`(',
      );
      for (const [logical, table] of Object.entries(all.tables)) {
        expected = expected.replaceAll(`\`${logical}\``, `\`${table}\``);
      }
      const { sql } = qualifyForBigQuery(text, all);
      expect(sql).toBe(expected);
      const sourcesRead = tablesOf(sql).filter((name) => name.includes('.'));
      expect(sourcesRead.length).toBeGreaterThan(0);
      expect(sourcesRead.every((name) => name.startsWith('p-123456.ds.'))).toBe(true);
    }
  });
});
