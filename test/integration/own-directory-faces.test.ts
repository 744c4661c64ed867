import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQueriesCheck } from '../../src/cli/queries-commands.js';
import { type Querygate, startQuerygate } from '../../src/server.js';
import { callEveryOperation, openApiProblems } from '../helpers/openapi-check.js';
import { testApiKey, testConfig } from '../helpers/querygate-server.js';

// A user's directory as most start one: the shipped three, a copy of usage.api-counts under a new
// name (same GraphQL type), an endpoint that declares that type with other columns, one whose SQL
// the embedded engine refuses, and endpoints over INT64 literals. The refused ones are reported;
// everything else serves. Expected values come from the SQL literals and the files written here.

const shipped = join(import.meta.dirname, '../../queries');
const fixtures = join(import.meta.dirname, '../fixtures/faces-queries');

let root: string;
let queries: string;
let app: Querygate;

/** usage.api-counts under another name and UUID, its contract otherwise as shipped. */
function copyOfApiCounts(name: string, id: string, edit: (contract: string) => string = (c) => c): void {
  writeFileSync(join(queries, `${name}.sql`), readFileSync(join(shipped, 'usage.api-counts.sql')));
  writeFileSync(
    join(queries, `${name}.yaml`),
    edit(
      readFileSync(join(shipped, 'usage.api-counts.yaml'), 'utf8')
        .replace('name: usage.api-counts', `name: ${name}`)
        .replace(/^id: .*$/m, `id: ${id}`),
    ),
  );
}

async function call(path: string, init: RequestInit = {}) {
  const response = await fetch(new URL(path, app.url), {
    ...init,
    headers: { 'x-api-key': testApiKey, 'content-type': 'application/json', ...init.headers },
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

const graphql = (query: string) => call('/graphql', { method: 'POST', body: JSON.stringify({ query }) });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'querygate-refused-'));
  queries = join(root, 'queries');
  cpSync(shipped, queries, { recursive: true });
  for (const file of readdirSync(fixtures).filter((name) => /\.(sql|yaml|json)$/.test(name)))
    cpSync(join(fixtures, file), join(queries, file));
  copyOfApiCounts('usage.api-copy', '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f');
  // Same type name, one column more: refused, naming both files and graphql.type.
  copyOfApiCounts('usage.api-other', '4d5e6f7a-8b9c-4dae-8f10-2b3c4d5e6f70', (contract) =>
    contract.replace(
      'columns:\n',
      'columns:\n  extra: { description: "One more column.", nullable: false }\n',
    ),
  );
  const apiCountsSql = readFileSync(join(shipped, 'usage.api-counts.sql'), 'utf8');
  const lastSelect = apiCountsSql.toLowerCase().lastIndexOf('select');
  writeFileSync(
    join(queries, 'usage.api-other.sql'),
    `${apiCountsSql.slice(0, lastSelect + 'select'.length)} 1 as extra,${apiCountsSql.slice(lastSelect + 'select'.length)}`,
  );
  // Their locks, as `queries lock` would write them: the shipped one, and one with `extra` first.
  const lock = JSON.parse(readFileSync(join(shipped, 'usage.api-counts.lock.json'), 'utf8')) as {
    columns: unknown[];
  };
  writeFileSync(
    join(queries, 'usage.api-copy.lock.json'),
    JSON.stringify({ ...lock, endpoint: 'usage.api-copy' }),
  );
  writeFileSync(
    join(queries, 'usage.api-other.lock.json'),
    JSON.stringify({
      endpoint: 'usage.api-other',
      columns: [{ name: 'extra', type: 'INT64', nullable: false }, ...lock.columns],
    }),
  );
  app = await startQuerygate(testConfig(join(root, 'data'), { QUERYGATE_QUERIES_DIR: queries }));
});

afterAll(async () => {
  await app?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a directory with refused endpoints', () => {
  it('serves every endpoint that passes on REST and GraphQL', async () => {
    const list = (await call('/api/endpoints')).body as unknown as { result?: Array<{ name: string }> };
    const names = (Array.isArray(list) ? list : (list.result ?? [])).map((e: { name: string }) => e.name);
    expect(names).toEqual(
      expect.arrayContaining(['logs.all', 'usage.api-counts', 'usage.api-copy', 'types.int64']),
    );
    expect(names).not.toContain('broken.temp-function');
    expect(names).not.toContain('usage.api-other');
    for (const name of ['usage.api-counts', 'usage.api-copy'])
      expect((await call(`/api/endpoints/${name}?project=x&interval=hourly`)).status).toBe(200);
    expect((await call('/api/endpoints/broken.temp-function')).status).toBe(404);
    const answer = await graphql(/* GraphQL */ `{
      usage { apiCounts(project: "x", interval: HOURLY) { timestamp } apiCopy(project: "x", interval: HOURLY) { timestamp } }
    }`);
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
  });

  it('lets two endpoints declaring one GraphQL type with the same columns share it', async () => {
    const sdl = (
      await graphql(
        '{ __type(name: "UsageQueries") { fields { name type { name ofType { ofType { name } } } } } }',
      )
    ).body as {
      data: {
        __type: {
          fields: Array<{
            name: string;
            type: { name: string | null; ofType: { ofType: { name: string } } | null };
          }>;
        };
      };
    };
    // A list of rows, or (a page field) the page type itself.
    const rowTypes = Object.fromEntries(
      sdl.data.__type.fields.map((field) => [field.name, field.type.ofType?.ofType.name ?? field.type.name]),
    );
    expect(rowTypes).toEqual({
      apiCounts: 'ApiCountsBucket',
      apiCopy: 'ApiCountsBucket',
      apiCountsPage: 'ApiCountsBucketPage',
      apiCopyPage: 'ApiCountsBucketPage',
    });
  });

  it('lists each refusal on the public /health with its file relative to the directory, and no path of the host', async () => {
    const response = await fetch(new URL('/health', app.url));
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(root);
    const health = JSON.parse(text) as { status: string; refused: Array<Record<string, string>> };
    expect(health.status).toBe('ok');
    expect(health.refused).toEqual(
      expect.arrayContaining([
        {
          endpoint: 'broken.temp-function',
          file: 'broken.temp-function.sql',
          reason: expect.stringContaining('only SQL functions can run on DuckDB'),
        },
        {
          endpoint: 'usage.api-other',
          file: 'usage.api-other.yaml',
          reason: expect.stringMatching(
            /^graphql\.type: the GraphQL type ApiCountsBucket of endpoint usage\.api-other is also the type of endpoint usage\.api-co(unts|py) \(usage\.api-co(unts|py)\.yaml\) with other fields/,
          ),
        },
      ]),
    );
    expect(health.refused).toHaveLength(2);
  });

  it('prints each refusal in `queries check`, naming the file, and fails', async () => {
    const lines: string[] = [];
    const ok = await runQueriesCheck({ queriesDir: queries, print: (line) => lines.push(line) });
    expect(ok).toBe(false);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(
            `^✗ ${join(queries, 'broken.temp-function.sql')}: .*only SQL functions can run on DuckDB`,
          ),
        ),
        expect.stringContaining(
          `✗ ${join(queries, 'usage.api-other.yaml')}: graphql.type: the GraphQL type ApiCountsBucket`,
        ),
      ]),
    );
    expect(lines.at(-1)).toContain('(2 refused; the server would serve the others)');
  });

  it('refuses to start in strict mode, naming the refused file', async () => {
    await expect(
      startQuerygate(
        testConfig(join(root, 'strict-data'), { QUERYGATE_QUERIES_DIR: queries, QUERYGATE_STRICT: '1' }),
      ),
    ).rejects.toThrow(/broken\.temp-function\.sql: .*only SQL functions can run on DuckDB/);
  });
});

describe('INT64 on GraphQL', () => {
  it('answers INT64 past 2^31 and 2^53 exactly, and a value past a 32-bit Int field as a field error under 200', async () => {
    const answer = await graphql(
      /* GraphQL */ `{ types { int64 { eventTimestamp pastDouble intMax pastInt absent } } }`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      types: {
        int64: [
          {
            eventTimestamp: '1700000000000000',
            pastDouble: '9007199254740993',
            intMax: 2147483647,
            pastInt: null,
            absent: null,
          },
        ],
      },
    });
    expect(answer.body.errors).toEqual([
      expect.objectContaining({
        path: ['types', 'int64', 0, 'pastInt'],
        message: expect.stringContaining('2147483648'),
        extensions: expect.objectContaining({ code: 'VALUE_OUT_OF_RANGE' }),
      }),
    ]);
  });

  it('keeps the other endpoints of an operation when one fails', async () => {
    const answer = await graphql(/* GraphQL */ `{
      usage { apiCounts(project: "(", interval: HOURLY) { timestamp } apiCopy(project: "x", interval: HOURLY) { timestamp } }
    }`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ usage: { apiCounts: null, apiCopy: [] } });
    expect(answer.body.errors).toEqual([
      expect.objectContaining({
        path: ['usage', 'apiCounts'],
        extensions: expect.objectContaining({ code: 'BAD_PARAMETER' }),
      }),
    ]);
  });

  it('answers INT64 on REST as JSON numbers, whole', async () => {
    const response = await call('/api/endpoints/types.int64');
    expect(response.status).toBe(200);
    expect(response.text).toContain('"event_timestamp":1700000000000000');
    expect(response.text).toContain('"past_double":9007199254740993');
  });
});

describe('FLOAT64 infinities and NaN', () => {
  // BigQuery's REST API (jobs.query / getQueryResults) sends every FLOAT64 cell as text, these as
  // "Infinity", "-Infinity" and "NaN", the forms its JSON encodings use too
  // (https://cloud.google.com/bigquery/docs/reference/standard-sql/json_functions#json_encodings);
  // JSON has no number for them, and null would say NULL.
  it('answers them on REST as the texts BigQuery sends, never as null', async () => {
    const rest = await call('/api/endpoints/types.float64');
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual({
      result: [
        {
          finite: 1.5,
          pos_inf: 'Infinity',
          neg_inf: '-Infinity',
          not_a_number: 'NaN',
          absent: null,
          listed: [0.25, 'Infinity'],
        },
      ],
    });
    const csv = await fetch(new URL('/api/endpoints/types.float64.csv', app.url), {
      headers: { 'x-api-key': testApiKey },
    });
    expect((await csv.text()).split('\r\n')[1]).toBe('1.5,Infinity,-Infinity,NaN,,"[0.25,""Infinity""]"');
  });

  it('answers each on GraphQL as a VALUE_OUT_OF_RANGE field error, alike on every run', async () => {
    const operation = /* GraphQL */ `{ types { float64 { finite posInf negInf notANumber absent } } }`;
    // The first run executes, later ones run compiled or spliced: all answer the same.
    for (let run = 0; run < 3; run++) {
      const answer = await graphql(operation);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual({ types: { float64: null } });
      expect(answer.body.errors).toEqual([
        expect.objectContaining({
          path: ['types', 'float64', 0, 'posInf'],
          message: expect.stringContaining('Infinity'),
          extensions: expect.objectContaining({ code: 'VALUE_OUT_OF_RANGE' }),
        }),
      ]);
    }
    const nullable = await graphql(/* GraphQL */ `{ types { float64 { finite listed } } }`);
    expect(nullable.body.errors).toEqual([
      expect.objectContaining({
        path: ['types', 'float64', 0, 'listed', 1],
        extensions: expect.objectContaining({ code: 'VALUE_OUT_OF_RANGE' }),
      }),
    ]);
  });
});

describe('a reload where another file breaks', () => {
  it('keeps serving the endpoints that did not change, and the broken one at its previous version', async () => {
    const copySql = join(queries, 'usage.api-copy.sql');
    const before = readFileSync(copySql, 'utf8');
    writeFileSync(copySql, before.replaceAll('@interval', '@intervals'));
    writeFileSync(
      join(queries, 'types.int64.yaml'),
      readFileSync(join(queries, 'types.int64.yaml'), 'utf8').replace('INT64 literals', 'The INT64 literals'),
    );
    try {
      const outcome = await app.reload();
      expect(outcome).toMatchObject({ ok: true, changed: ['types.int64'] });
      const refused = outcome.ok ? outcome.refused : [];
      expect(refused).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            endpoint: 'usage.api-copy',
            reason: expect.stringContaining('@intervals'),
          }),
        ]),
      );
      expect((await call('/api/endpoints/usage.api-copy?project=x&interval=hourly')).status).toBe(200);
      expect((await call('/api/endpoints/usage.api-counts?project=x&interval=hourly')).status).toBe(200);
      const health = (await call('/health')).body as { refused: Array<{ endpoint: string }> };
      expect(health.refused.map((refusal) => refusal.endpoint)).toContain('usage.api-copy');
    } finally {
      writeFileSync(copySql, before);
    }
  });
});

describe('DATE, TIME, DATETIME, BYTES and arrays of scalars', () => {
  it('answers REST in BigQuery JSON forms and GraphQL with typed scalars and lists', async () => {
    const rest = await call('/api/endpoints/types.scalars');
    expect(rest.body).toEqual({
      result: [
        {
          day: '2024-01-02',
          time_of_day: '10:11:12.345678',
          civil: '2024-01-02T03:04:05.500000',
          raw: Buffer.from('abc').toString('base64'),
          ints: [1700000000000000, 2],
          words: ['x', 'y'],
          days: ['2024-01-02', '2024-02-29'],
        },
      ],
    });
    const answer = await graphql(
      /* GraphQL */ `{ types { scalars { day timeOfDay civil raw ints words days } } }`,
    );
    expect(answer.body.errors).toBeUndefined();
    // DATETIME is civil time: LocalDateTime, the text REST sends, with no zone made up.
    expect(answer.body.data).toEqual({
      types: {
        scalars: [
          {
            day: '2024-01-02',
            timeOfDay: '10:11:12.345678',
            civil: '2024-01-02T03:04:05.500000',
            raw: 'YWJj',
            ints: ['1700000000000000', '2'],
            words: ['x', 'y'],
            days: ['2024-01-02', '2024-02-29'],
          },
        ],
      },
    });
    const types = await graphql(
      '{ __type(name: "TypesScalarsRow") { fields { name type { kind name ofType { kind name ofType { kind name ofType { name } } } } } } }',
    );
    const typeOf = (name: string) =>
      JSON.stringify(
        (
          types.body.data as { __type: { fields: Array<{ name: string; type: unknown }> } }
        ).__type.fields.find((field) => field.name === name)?.type,
      );
    expect(typeOf('day')).toContain('"name":"Date"');
    expect(typeOf('timeOfDay')).toContain('"name":"Time"');
    expect(typeOf('raw')).toContain('"name":"Bytes"');
    expect(typeOf('civil')).toContain('"name":"LocalDateTime"');
    expect(typeOf('words')).toMatch(/"kind":"LIST".*"name":"String"/);
  });

  it('publishes OpenAPI types that the real responses of every endpoint validate against', async () => {
    const document = (await call('/openapi.json')).body;
    expect(await openApiProblems(document)).toEqual([]);
    const schemas = (
      document as {
        components: {
          schemas: Record<
            string,
            { properties: { result: { items: { properties: Record<string, unknown> } } } }
          >;
        };
      }
    ).components.schemas;
    const scalars = Object.values(schemas).find(
      (schema) => schema.properties?.result?.items?.properties?.time_of_day,
    );
    expect(scalars?.properties.result.items.properties.words).toMatchObject({
      type: 'array',
      items: { type: 'string' },
    });
    expect(scalars?.properties.result.items.properties.day).toMatchObject({ type: 'string', format: 'date' });
    // A zoneless civil time: a pattern the REST text matches, never `format: date-time` (RFC 3339
    // requires an offset there).
    const civil = scalars?.properties.result.items.properties.civil as { pattern: string; format?: string };
    expect(civil.format).toBeUndefined();
    expect(new RegExp(civil.pattern).test('2024-01-02T03:04:05.500000')).toBe(true);
    expect(new RegExp(civil.pattern).test('2024-01-02T03:04:05Z')).toBe(false);
    const { called, problems } = await callEveryOperation(document, async (path, params) => {
      const response = await call(`${path}?${new URLSearchParams(params)}`);
      return { status: response.status, body: response.body };
    });
    expect(problems).toEqual([]);
    expect(called.length).toBeGreaterThanOrEqual(2 * 6);
  });
});
