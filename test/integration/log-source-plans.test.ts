import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQueriesLock } from '../../src/cli/queries-commands.js';
import { type QuerygateUnderTest, startQuerygateUnderTest } from '../helpers/querygate-server.js';

// Saved endpoints over a log source, their statements prepared, then events ingested whose values
// lie outside the rows the statements were planned over. DuckDB plans a statement without
// parameters once, with the statistics of the moment (a perfect hash aggregate sized to the
// statuses seen, a filter the statistics rule out dropped, a sort key packed into the range seen)
// and does not plan it again when rows arrive; every answer here is plain DuckDB's over the
// events ingested so far.

let dir: string;
let service: QuerygateUnderTest;
let eventsFile: string;

const edge = 'cloudflare.logs.prod';
const fromEdge = `from \`${edge}\` as t
cross join unnest(t.metadata) as m
cross join unnest(m.request) as r
cross join unnest(m.response) as s`;

/** The endpoints: none takes a parameter (but the last), so DuckDB keeps each one's plan. */
const endpoints: Record<string, { sql: string; columns: readonly string[]; parameter?: string }> = {
  // GROUP BY a small-range integer: a perfect hash aggregate sized to the statuses seen.
  'edge.status-counts': {
    sql: `select s.status_code as status, count(*) as requests\n${fromEdge}\ngroup by status\norder by status`,
    columns: ['status', 'requests'],
  },
  // The records the CROSS JOINs need, tested for presence: folded away while the statistics
  // say every row holds them.
  'edge.requests': {
    sql: `select count(*) as requests\n${fromEdge}`,
    columns: ['requests'],
  },
  // A filter the statistics say nothing passes is replaced by an empty result.
  'edge.server-errors': {
    sql: `select count(*) as errors\n${fromEdge}\nwhere s.status_code >= 500`,
    columns: ['errors'],
  },
  'edge.since-february': {
    sql: `select count(*) as requests\n${fromEdge}\nwhere t.timestamp >= timestamp '2026-02-01 00:00:00+00'`,
    columns: ['requests'],
  },
  'edge.new-path': {
    sql: `select count(*) as requests\n${fromEdge}\nwhere r.path = '/zz/new'`,
    columns: ['requests'],
  },
  // TopN: the sorted payload is packed into the range of the statuses seen.
  'edge.newest': {
    sql: `select t.id as id, s.status_code as status, r.path as path\n${fromEdge}\norder by t.timestamp desc, t.id\nlimit 3`,
    columns: ['id', 'status', 'path'],
  },
  // A parameter: DuckDB plans the statement again at every call (it never keeps the plan of a
  // statement with parameters that reads a table: PreparedStatement::CanCachePlan), so the
  // engine leaves it prepared; kept plans would fail the perfect hash or drop the filter here.
  'edge.statuses-at-least': {
    sql: `select s.status_code as status, count(*) as requests\n${fromEdge}\nwhere s.status_code >= @min_status\ngroup by status\norder by status`,
    columns: ['status', 'requests'],
    parameter: 'min_status',
  },
};

function writeQueriesDir(queries: string): void {
  mkdirSync(queries, { recursive: true });
  writeFileSync(
    join(queries, 'sources.yaml'),
    `sources:
  - name: ${edge}
    id: 0d4f6d8e-5b0a-4a57-9c53-0f3f1c8e2a01
    aliases: [edge_logs]
    description: Request logs at the edge
    hasProject: true
    metadata:
      request: { path: STRING }
      response: { status_code: INT64 }
`,
  );
  Object.entries(endpoints).forEach(([name, { sql, columns, parameter }], i) => {
    writeFileSync(join(queries, `${name}.sql`), `${sql}\n`);
    const parameters = parameter
      ? `parameters:\n  - { name: ${parameter}, required: true, type: integer, description: Least status counted. }\n`
      : 'parameters: []\n';
    writeFileSync(
      join(queries, `${name}.yaml`),
      `name: ${name}
id: 5a1f0c3e-0000-4000-8000-00000000000${i}
description: ${name} over the edge requests.
maxRows: 100
cacheSeconds: 0
warmSeconds: null
sandboxed: false
${parameters}columns:
${columns.map((column) => `  ${column}: { description: ${column}. }`).join('\n')}
`,
    );
  });
}

let ingested = 0;
/** Ingests one batch over HTTP and appends it to the file plain DuckDB reads as the oracle. */
async function ingest(requests: ReadonlyArray<{ status?: number; path: string; at: string }>) {
  const events = requests.map((request) => ({
    id: `e${String(ingested++).padStart(4, '0')}`,
    timestamp: request.at,
    event_message: `GET ${request.path} ${request.status ?? '-'}`,
    project: 'default',
    // A request that got no response carries no response record.
    metadata: {
      request: { path: request.path },
      ...(request.status === undefined ? {} : { response: { status_code: request.status } }),
    },
  }));
  const response = await service.ingest(edge, events);
  expect(response.status, response.text).toBe(200);
  appendFileSync(eventsFile, events.map((event) => `${JSON.stringify(event)}\n`).join(''));
}

/**
 * Plain DuckDB over every event ingested so far, as the table `edge`: one row per event that
 * holds both records, since BigQuery's CROSS JOIN UNNEST of an empty record yields no row.
 */
async function plain(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run(
      `CREATE TABLE edge AS SELECT id, "timestamp", metadata.request.path AS path,
         metadata.response.status_code AS status
       FROM read_json('${eventsFile}', format = 'newline_delimited', columns = {
         id: 'VARCHAR', "timestamp": 'TIMESTAMPTZ',
         metadata: 'STRUCT(request STRUCT(path VARCHAR), response STRUCT(status_code BIGINT))'})
       WHERE metadata.request IS NOT NULL AND metadata.response IS NOT NULL`,
    );
    return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Every endpoint as plain DuckDB answers it over the events so far, numbers as numbers. */
async function expectedAnswers(): Promise<Record<string, unknown>> {
  const counts = async (where: string) =>
    (await plain(`SELECT count(*)::INTEGER AS n FROM edge WHERE ${where}`))[0]?.n;
  return {
    'edge.status-counts': (
      await plain('SELECT status, count(*)::INTEGER AS requests FROM edge GROUP BY status ORDER BY status')
    ).map((row) => ({ status: Number(row.status), requests: row.requests })),
    'edge.requests': [{ requests: await counts('true') }],
    'edge.server-errors': [{ errors: await counts('status >= 500') }],
    'edge.since-february': [
      { requests: await counts(`"timestamp" >= TIMESTAMPTZ '2026-02-01 00:00:00+00'`) },
    ],
    'edge.new-path': [{ requests: await counts(`path = '/zz/new'`) }],
    'edge.newest': (
      await plain('SELECT id, status, path FROM edge ORDER BY "timestamp" DESC, id LIMIT 3')
    ).map((row) => ({ ...row, status: Number(row.status) })),
    'edge.statuses-at-least': (
      await plain(
        'SELECT status, count(*)::INTEGER AS requests FROM edge WHERE status >= 500 GROUP BY status ORDER BY status',
      )
    ).map((row) => ({ status: Number(row.status), requests: row.requests })),
  };
}

/** Every endpoint as the server answers it now (the same statements, prepared at their first call). */
async function servedAnswers(): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const [name, { parameter }] of Object.entries(endpoints)) {
    const response = await service.get(`/api/endpoints/${name}`, parameter ? { [parameter]: '500' } : {});
    answers[name] = response.status === 200 ? (response.body as { result: unknown }).result : response.text;
  }
  return answers;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'querygate-log-plans-'));
  const queries = join(dir, 'queries');
  eventsFile = join(dir, 'events.ndjson');
  writeFileSync(eventsFile, '');
  writeQueriesDir(queries);
  expect(await runQueriesLock({ queriesDir: queries, print: () => undefined })).toBe(true);
  service = await startQuerygateUnderTest({
    now: new Date('2026-03-02T00:00:00Z'),
    // One connection: every call runs the statement the first call prepared (with four, calls
    // in turn would each find a connection yet to prepare it).
    environment: {
      QUERYGATE_QUERIES_DIR: queries,
      QUERYGATE_SCHEMA_CHANGE_INTERVAL_MS: '0',
      QUERYGATE_DUCKDB_CONNECTIONS: '1',
    },
  });
  // January, statuses 200 to 204 on two paths.
  await ingest(
    Array.from({ length: 40 }, (_, i) => ({
      status: 200 + (i % 5),
      path: i % 2 ? '/rest/v1/todos' : '/auth/v1/token',
      at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    })),
  );
}, 60_000);

afterAll(async () => {
  await service?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('saved endpoints over a log source, prepared before new events arrive', () => {
  it('answer the prepared-time rows as plain DuckDB does', async () => {
    expect(await servedAnswers()).toEqual(await expectedAnswers());
  });

  it('answer the events ingested after they were prepared, outside the statuses, times and paths seen', async () => {
    await ingest([
      { status: 503, path: '/zz/new', at: '2026-03-01T10:00:00Z' },
      { status: 502, path: '/rest/v1/todos', at: '2026-03-01T10:01:00Z' },
      { status: 404, path: '/zz/new', at: '2026-03-01T10:02:00Z' },
    ]);
    expect(await servedAnswers()).toEqual(await expectedAnswers());
  });

  it('leave out the events ingested without a record the joins need, once every event had it', async () => {
    await ingest([
      { path: '/rest/v1/todos', at: '2026-03-01T10:03:00Z' },
      { status: 200, path: '/rest/v1/todos', at: '2026-03-01T10:04:00Z' },
    ]);
    expect(await servedAnswers()).toEqual(await expectedAnswers());
  });

  // After DDL DuckDB itself plans the statements held since at every call (its rebind is not kept
  // in the statement: ClientContext::RebindPreparedStatement); those prepared after it, as the
  // engine prepares them after the commit of the change, must be prepared again after the next.
  it('answer the events ingested after a schema change and its checkpoint', async () => {
    // A field the source has not had: the writer changes the column's type, commits, checkpoints.
    const response = await service.ingest(edge, [
      {
        id: 'e-schema',
        timestamp: '2026-03-01T11:00:00Z',
        event_message: 'GET /rest/v1/todos 200',
        project: 'default',
        metadata: { request: { path: '/rest/v1/todos', host: 'h' }, response: { status_code: 200 } },
      },
    ]);
    expect(response.status, response.text).toBe(200);
    appendFileSync(
      eventsFile,
      `${JSON.stringify({ id: 'e-schema', timestamp: '2026-03-01T11:00:00Z', metadata: { request: { path: '/rest/v1/todos' }, response: { status_code: 200 } } })}\n`,
    );
    expect(await servedAnswers()).toEqual(await expectedAnswers());
    await ingest([
      { status: 9599, path: '/zz/newer', at: '2026-04-01T12:00:00Z' },
      { status: 100, path: '/zz/new', at: '2026-03-01T12:01:00Z' },
    ]);
    expect(await servedAnswers()).toEqual(await expectedAnswers());
  });
});
