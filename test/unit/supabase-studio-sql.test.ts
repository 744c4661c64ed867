import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSources } from '../../src/endpoints/sources.js';
import { createScratchEngine, type ScratchEngine } from '../helpers/scratch-engine.js';

/**
 * The SQL self-hosted Studio's log pages generate (supabase/supabase e4c9079,
 * apps/studio/components/interfaces/Settings/Logs/Logs.utils.ts with IS_PLATFORM false:
 * genDefaultQuery, genCountQuery, genChartQuery, genSingleLogQuery; no filters) must run on a
 * fresh store of supabase/sources.yaml, before any record has brought the fields it names: a
 * field Studio reads is declared there, so the first page a new install opens is never refused.
 */
const sources = readSources(join(__dirname, '../../supabase'));
let scratch: ScratchEngine;

beforeAll(async () => {
  scratch = await createScratchEngine(sources);
});

afterAll(async () => {
  await scratch?.close();
});

const joins: Record<string, string> = {
  edge_logs: `cross join unnest(metadata) as m
  cross join unnest(m.request) as request
  cross join unnest(m.response) as response`,
  postgres_logs: `cross join unnest(metadata) as m
  cross join unnest(m.parsed) as parsed`,
  function_logs: 'cross join unnest(metadata) as metadata',
  auth_logs: 'cross join unnest(metadata) as metadata',
  function_edge_logs: `cross join unnest(metadata) as m
  cross join unnest(m.response) as response
  cross join unnest(m.request) as request`,
};

const defaults: Record<string, string> = {
  edge_logs: `
-- local dev edge_logs query
select id, edge_logs.timestamp, event_message, request.method, request.path, response.status_code 
from edge_logs 
${joins.edge_logs}

order by timestamp desc
limit 100;
`,
  postgres_logs: `
select postgres_logs.timestamp, id, event_message, parsed.error_severity
from postgres_logs
${joins.postgres_logs}

order by timestamp desc
limit 100
  `,
  function_logs: `select id, function_logs.timestamp, event_message, metadata.event_type, metadata.function_id, metadata.level from function_logs
  ${joins.function_logs}
  
  order by timestamp desc
  limit 100
    `,
  auth_logs: `select id, auth_logs.timestamp, event_message, metadata.level, metadata.status, metadata.path, metadata.msg as msg, metadata.error from auth_logs
  ${joins.auth_logs}
  
  order by timestamp desc
  limit 100
    `,
  function_edge_logs: `select id, function_edge_logs.timestamp, event_message, response.status_code, request.method, m.function_id, m.execution_time_ms, m.deployment_id, m.version from function_edge_logs
  ${joins.function_edge_logs}
  
  order by timestamp desc
  limit 100
  `,
};
for (const table of ['realtime_logs', 'storage_logs', 'postgrest_logs', 'pgbouncer_logs']) {
  defaults[table] = `select id, ${table}.timestamp, event_message from ${table}
  
  order by timestamp desc
  limit 100
  `;
}

const tables = Object.keys(defaults);

describe('self-hosted Studio’s log page SQL on a fresh supabase/ store', () => {
  it.each(tables)('runs the default query of %s', async (table) => {
    expect((await scratch.bigquery(defaults[table] as string)).rows).toEqual([]);
  });

  it.each(tables)('runs the count query of %s', async (table) => {
    const sql = `SELECT count(*) as count FROM ${table} ${joins[table] ?? ''} `;
    expect((await scratch.bigquery(sql)).rows).toEqual([{ count: 0 }]);
  });

  it.each(tables)('runs the chart query of %s', async (table) => {
    const sql = `
SELECT
-- log-event-chart
  timestamp_trunc(t.timestamp, minute) as timestamp,
  count(t.timestamp) as count
FROM
  ${table} t
  ${joins[table] ?? ''}
  where t.timestamp > '2026-05-15T06:00:00.000Z'
GROUP BY
timestamp
ORDER BY
  timestamp ASC
  `;
    expect((await scratch.bigquery(sql)).rows).toEqual([]);
  });

  it.each(tables)('runs the single-log query of %s', async (table) => {
    const sql = `select id, timestamp, event_message, metadata from ${table} where id = 'no-such-id' limit 1`;
    expect((await scratch.bigquery(sql)).rows).toEqual([]);
  });
});

/**
 * Every query of the BigQuery corpus that runs on the embedded engine (Studio's templates,
 * generators and reports, Logflare's endpoints) also runs on a fresh supabase/ store: the fields
 * they read that Kong's or GoTrue's lines may lack are declared, so they find NULLs instead of
 * being refused by name.
 */
describe('the corpus on a fresh supabase/ store', () => {
  const corpusDir = join(__dirname, '../fixtures/bigquery-corpus');
  const runnable = readdirSync(corpusDir)
    .filter((file) => file.endsWith('.sql') && !file.endsWith('.expected.sql'))
    .sort()
    .map((file) => [file, readFileSync(join(corpusDir, file), 'utf8')] as const)
    .filter(([, sql]) => !/^-- Refused:/m.test(sql));

  it.each(runnable)('runs %s', async (_file, sql) => {
    const params = Object.fromEntries(
      (/^-- Params: (.+)$/m.exec(sql)?.[1] ?? '')
        .split(',')
        .filter((pair) => pair.includes('='))
        .map((pair) => pair.trim().split('=') as [string, string]),
    );
    expect(Array.isArray((await scratch.bigquery(sql, params)).rows)).toBe(true);
  });
});

describe('the unified logs page on a fresh supabase/ store', () => {
  // supabase/supabase UnifiedLogs.queries.ts at ec8927e: getUnifiedLogsQuery with no filters,
  // with the ORDER BY and LIMIT 50 QueryOptions.ts at 5a7fc99 appends. Its ANY_VALUE and
  // unordered ARRAY_AGG leave no single right answer to compare rows with; it must run.
  it('runs, answering no rows', async () => {
    const sql = readFileSync(join(__dirname, '../fixtures/studio-sql/unified-logs-page.sql'), 'utf8');
    expect((await scratch.bigquery(sql)).rows).toEqual([]);
  });

  // The newer page (UnifiedLogs.queries.bq.ts at 051c828) joins a function's event logs to its
  // relay line by metadata.request_id, which Vector's lines never carry: declared, it finds NULLs.
  // A row's detail (ServiceFlow.sql.ts at 165dd41) reads the gateway's key and JWT records through
  // UNNEST(COALESCE(record, [])) and every field of a request, Postgres line or function call.
  it.each(['postgrest', 'edge-function', 'postgres'])(
    'runs the %s row detail, answering no rows',
    async (kind) => {
      const sql = readFileSync(join(__dirname, `../fixtures/studio-sql/service-flow-${kind}.sql`), 'utf8');
      expect((await scratch.bigquery(sql.replace("'LOG_ID'", "'no-such-id'"))).rows).toEqual([]);
    },
  );

  it('runs the newer page with all six log types, answering no rows', async () => {
    const sql = readFileSync(join(__dirname, '../fixtures/studio-sql/unified-logs-bq-all-types.sql'), 'utf8');
    expect((await scratch.bigquery(sql)).rows).toEqual([]);
  });
});
