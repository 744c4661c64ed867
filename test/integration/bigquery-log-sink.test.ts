import { afterEach, describe, expect, it } from 'vitest';
import { runBigQuerySetup } from '../../src/backends/bigquery/commands.js';
import { type BigQueryLogSink, createBigQueryLogSink } from '../../src/backends/bigquery/log-sink.js';
import { isQuerygateError, type QuerygateError } from '../../src/errors.js';
import { type BigQueryHarness, startBigQueryHarness } from '../helpers/bigquery-harness.js';

const fixedNow = new Date('2026-03-10T12:34:56.789Z');
const edgeTable = 'querygate-test.logs.cloudflare_logs_prod';

let harness: BigQueryHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start({ tables = true } = {}): Promise<{ harness: BigQueryHarness; sink: BigQueryLogSink }> {
  harness = await startBigQueryHarness();
  const client = harness.client();
  if (tables) await runBigQuerySetup({ config: harness.config, client, tables: true, print: () => {} });
  return {
    harness,
    sink: createBigQueryLogSink({
      config: harness.config,
      client,
      sources: harness.sources,
      now: () => fixedNow,
    }),
  };
}

async function failureOf(promise: Promise<unknown>): Promise<QuerygateError> {
  const error = await promise.then(
    () => expect.fail('expected the write to fail'),
    (caught: unknown) => caught,
  );
  if (!isQuerygateError(error)) throw error;
  return error;
}

const edgeEvent = {
  id: 'evt-1',
  timestamp: '2026-03-10T12:00:00.123456+01:00',
  event_message: 'GET /rest/v1/items',
  project: 'p1',
  metadata: {
    request: {
      url: 'https://p1.supabase.co/rest/v1/items',
      path: '/rest/v1/items',
      method: 'GET',
      host: 'p1.supabase.co',
    },
    response: { status_code: 200, origin_time: 12 },
  },
};

describe('ingestion on the BigQuery engine', () => {
  it('streams events into the mapped table with insertAll, every object a repeated record', async () => {
    const { harness, sink } = await start();
    expect(await sink.write('cloudflare.logs.prod', [edgeEvent])).toEqual({ ingested: 1 });
    expect(harness.fake.calls('tabledata.insertAll').map((call) => call.path)).toEqual([
      '/bigquery/v2/projects/querygate-test/datasets/logs/tables/cloudflare_logs_prod/insertAll',
    ]);
    expect(harness.fake.insertedRows.get(edgeTable)).toEqual([
      {
        insertId: 'evt-1',
        json: {
          id: 'evt-1',
          timestamp: '2026-03-10T11:00:00.123456Z',
          event_message: 'GET /rest/v1/items',
          project: 'p1',
          metadata: [
            {
              request: [
                {
                  url: 'https://p1.supabase.co/rest/v1/items',
                  path: '/rest/v1/items',
                  method: 'GET',
                  host: 'p1.supabase.co',
                },
              ],
              response: [{ status_code: 200, origin_time: 12 }],
            },
          ],
        },
      },
    ]);
  });

  it('keeps fields the table lacks and values that do not fit their field in _extra, by path', async () => {
    const { harness, sink } = await start();
    await sink.write('cloudflare.logs.prod', [
      {
        ...edgeEvent,
        level: 'info',
        metadata: {
          request: { ...edgeEvent.metadata.request, referer: 'https://example.com' },
          response: { status_code: 'teapot', origin_time: 3 },
        },
      },
    ]);
    const [row] = harness.fake.insertedRows.get(edgeTable) ?? [];
    expect(row.json.metadata).toEqual([
      {
        request: [
          {
            url: 'https://p1.supabase.co/rest/v1/items',
            path: '/rest/v1/items',
            method: 'GET',
            host: 'p1.supabase.co',
          },
        ],
        response: [{ origin_time: 3 }],
      },
    ]);
    expect(JSON.parse(row.json._extra)).toEqual({
      level: 'info',
      'metadata.request.referer': 'https://example.com',
      'metadata.response.status_code': 'teapot',
    });
  });

  it('stamps an event without a timestamp with the clock and gives one without an id a UUID', async () => {
    const { harness, sink } = await start();
    await sink.write('deno-relay-logs', [
      { event_message: 'boot', metadata: { project_ref: 'p1', execution_time_ms: 4 } },
    ]);
    const [row] = harness.fake.insertedRows.get('querygate-test.logs.deno_relay_logs') ?? [];
    expect(row.json.timestamp).toBe('2026-03-10T12:34:56.789000Z');
    expect(row.json.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(row.insertId).toBe(row.json.id);
    expect(row.json).not.toHaveProperty('project');
    expect(row.json.metadata).toEqual([{ project_ref: 'p1', execution_time_ms: 4 }]);
  });

  it('sends at most 500 rows per insertAll request', async () => {
    const { harness, sink } = await start();
    const events = Array.from({ length: 1200 }, (_, i) => ({ ...edgeEvent, id: `evt-${i}` }));
    expect(await sink.write('cloudflare.logs.prod', events)).toEqual({ ingested: 1200 });
    expect(harness.fake.calls('tabledata.insertAll').map((call) => call.body.rows.length)).toEqual([
      500, 500, 200,
    ]);
    expect(harness.fake.insertedRows.get(edgeTable)?.map((row) => row.insertId)).toEqual(
      events.map((event) => event.id),
    );
  });

  it('answers 404 NOT_FOUND naming the setup command when the table does not exist', async () => {
    const { harness, sink } = await start({ tables: false });
    const error = await failureOf(sink.write('cloudflare.logs.prod', [edgeEvent]));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe(
      "The BigQuery table querygate-test.logs.cloudflare_logs_prod of source 'cloudflare.logs.prod' does not exist. " +
        'Create the tables with `querygate bigquery setup --tables`, or map the source to an existing table in QUERYGATE_BIGQUERY_TABLES',
    );
    expect(harness.fake.calls('tabledata.insertAll')).toHaveLength(0);
  });

  it('answers 400 naming the event BigQuery refused when the table changed under the cached schema', async () => {
    const { harness, sink } = await start();
    await sink.write('cloudflare.logs.prod', [edgeEvent]);
    // Someone drops metadata.request.host from the table; the sink still has the old schema.
    const table = harness.fake.createdTables.get(edgeTable);
    const metadata = table.schema.fields.find((field: { name: string }) => field.name === 'metadata');
    const request = metadata.fields.find((field: { name: string }) => field.name === 'request');
    request.fields = request.fields.filter((field: { name: string }) => field.name !== 'host');
    const withoutHost = {
      ...edgeEvent,
      id: 'evt-2',
      metadata: { request: { url: 'https://p1.supabase.co/' } },
    };
    const error = await failureOf(
      sink.write('cloudflare.logs.prod', [withoutHost, { ...edgeEvent, id: 'evt-3' }]),
    );
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toBe('event 1: BigQuery refused it: no such field: metadata.request.host.');
    // The schema is read again, so the next write fits the table as it is now.
    await sink.write('cloudflare.logs.prod', [{ ...edgeEvent, id: 'evt-4' }]);
    const stored = harness.fake.insertedRows.get(edgeTable) ?? [];
    expect(stored.map((row) => row.insertId)).toEqual(['evt-1', 'evt-4']);
    expect(JSON.parse(stored[1].json._extra)).toEqual({ 'metadata.request.host': 'p1.supabase.co' });
  });

  it('refuses an unknown source and a bad event before sending anything', async () => {
    const { harness, sink } = await start();
    const unknown = await failureOf(sink.write('nginx.logs', [edgeEvent]));
    expect(unknown.code).toBe('BAD_PARAMETER');
    const bad = await failureOf(sink.write('cloudflare.logs.prod', [edgeEvent, { metadata: {} }]));
    expect(bad.code).toBe('BAD_REQUEST');
    expect(bad.message).toMatch(/^event 1: event_message is required/);
    expect(harness.fake.calls('tabledata.insertAll')).toHaveLength(0);
  });
});
