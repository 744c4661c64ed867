import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import type { QueryEngine, SavedQuery } from '../../src/engines/query-engine.js';
import { queriesDir } from '../../src/paths.js';
import { insertStatement } from '../helpers/log-fixture.js';
import { createScratchEngine, type ScratchEngine } from '../helpers/scratch-engine.js';
import { logSources } from '../helpers/shipped-sources.js';

// Typed parameters on the embedded engine: bound as DuckDB values of their types, and a query's
// columns described with those types before it ever runs.

const typedQuery: SavedQuery = {
  id: '0d4c1a52-5d2b-4c3e-9b56-000000000021',
  name: 'test.typed',
  hash: 'v1',
  sql: 'select id, @limit_to as limit_to, @flag as flag, @ratio as ratio from `cloudflare.logs.prod` where timestamp >= @since and @flag order by id',
  maxRows: 10,
  parameterTypes: { since: 'TIMESTAMP', limit_to: 'INT64', flag: 'BOOL', ratio: 'FLOAT64' },
};

let scratch: ScratchEngine;
let engine: QueryEngine;

beforeAll(async () => {
  scratch = await createScratchEngine();
  engine = await createDuckDbEngine({
    database: scratch.database,
    sources: logSources,
    queries: [typedQuery],
    queriesDir,
    timeoutMs: 10_000,
  });
  await scratch.duckdb(
    insertStatement('cloudflare.logs.prod', [
      { id: 'a', timestamp: '2026-03-10 11:59:59.999999', event_message: 'm', project: 'p', metadata: null },
      { id: 'b', timestamp: '2026-03-10 12:00:00', event_message: 'm', project: 'p', metadata: null },
      { id: 'c', timestamp: '2026-03-10 13:00:00', event_message: 'm', project: 'p', metadata: null },
    ]),
  );
});

afterAll(async () => {
  await engine?.close();
  await scratch?.close();
});

describe('typed parameters on DuckDB', () => {
  it('compares a TIMESTAMP parameter given with an offset to the microsecond, and returns INT64 beyond 2^53 exactly', async () => {
    // 14:00+02:00 is 12:00 UTC: record a, a microsecond earlier, is left out.
    const result = await engine.run(
      typedQuery,
      { since: '2026-03-10T14:00:00+02:00', limit_to: '9007199254740993', flag: 'true', ratio: '0.25' },
      { now: new Date() },
    );
    expect(result.rows).toEqual([
      { id: 'b', limit_to: 9007199254740993n, flag: true, ratio: 0.25 },
      { id: 'c', limit_to: 9007199254740993n, flag: true, ratio: 0.25 },
    ]);
  });

  it('binds a boolean as a boolean: false selects nothing', async () => {
    const result = await engine.run(
      typedQuery,
      { since: '2026-03-10', limit_to: '1', flag: 'false', ratio: '1' },
      { now: new Date() },
    );
    expect(result.rows).toEqual([]);
  });

  it('describes the columns with the parameters’ types before the query runs', async () => {
    expect(await engine.describe(typedQuery)).toEqual([
      { name: 'id', type: 'STRING' },
      { name: 'limit_to', type: 'INT64' },
      { name: 'flag', type: 'BOOL' },
      { name: 'ratio', type: 'FLOAT64' },
    ]);
  });

  // DuckDB reads `INTERVAL (x) unit` through a DOUBLE. BigQuery's INTERVAL holds up to
  // 316,224,000,000,000,000 microseconds (ZetaSQL IntervalValue::kMaxMicros), far past 2^53.
  const intervalQuery: SavedQuery = {
    id: '0d4c1a52-5d2b-4c3e-9b56-000000000022',
    name: 'test.interval',
    sql: "select unix_micros(timestamp_add(timestamp '1970-01-01 00:00:00+00', interval @us microsecond)) as us, date_add(date '2000-01-01', interval @days day) as d, timestamp_add(timestamp '2000-01-01 00:00:00+00', interval @s second) as t",
    maxRows: 1,
    parameterTypes: { us: 'INT64', days: 'INT64', s: 'INT64' },
  };

  it('adds an INT64 INTERVAL beyond 2^53 exactly: the epoch plus n microseconds is n', async () => {
    const result = await engine.run(
      intervalQuery,
      { us: '9007199254740993', days: '1', s: '1' },
      { now: new Date() },
    );
    expect(result.rows).toEqual([
      { us: 9007199254740993n, d: '2000-01-02', t: Date.parse('2000-01-01T00:00:01Z') * 1000 },
    ]);
  });

  it.each([
    ['s', '9223372036854775807'],
    ['days', '2147483648'],
    // Counted, but the time it moves to is past any TIMESTAMP.
    ['us', '9223372036854775807'],
    // BigQuery's INTERVAL holds at most 3,660,000 days (interval_value.h kMaxDays).
    ['days', '3660001'],
    // 2000-01-01 plus 3,000,000 days is past 9999-12-31, the last DATE (data-types.md).
    ['days', '3000000'],
    // An INTERVAL's time holds at most 3,660,000 days' worth: 316,224,000,000 seconds.
    ['s', '316224000001'],
  ])('refuses INTERVAL @%s past what it can count with 400 naming the parameter', async (name, value) => {
    const values = { us: '0', days: '0', s: '0', [name]: value };
    const error = await engine.run(intervalQuery, values, { now: new Date() }).then(
      () => expect.fail('expected a refusal'),
      (refusal: unknown) => refusal,
    );
    expect(error).toMatchObject({ code: 'BAD_PARAMETER', details: { parameter: name } });
  });

  it('refuses PARSE_JSON(@doc) of a number its JSON cannot hold with 400 naming the parameter', async () => {
    // json_functions.md: PARSE_JSON('{"id": 922337203685477580701}') fails (wide_number_mode 'exact').
    const parsing: SavedQuery = {
      id: '0d4c1a52-5d2b-4c3e-9b56-000000000024',
      name: 'test.parse_json',
      sql: 'select to_json_string(parse_json(@doc)) as j',
      maxRows: 1,
      parameterTypes: { doc: 'STRING' },
    };
    await expect(
      engine.run(parsing, { doc: '{"id": 922337203685477580701}' }, { now: new Date() }),
    ).rejects.toMatchObject({
      code: 'BAD_PARAMETER',
      details: { parameter: 'doc' },
      message: expect.stringContaining(
        'Input number: 922337203685477580701 cannot round-trip through string representation',
      ),
    });
  });

  it.each([
    // 9999-12-31 23:59:59.999999 UTC is 253402300799 seconds after the epoch (data-types.md,
    // TIMESTAMP range); 2932896 days is 9999-12-31 (DATE range).
    ['select timestamp_seconds(@n) as t', '253402300800'],
    ['select date_from_unix_date(@n) as d', '2932897'],
  ])('refuses %s of a count past the range of times with 400 naming the parameter', async (sql, value) => {
    const counting: SavedQuery = {
      id: '0d4c1a52-5d2b-4c3e-9b56-000000000025',
      name: 'test.unix_count',
      sql,
      maxRows: 1,
      parameterTypes: { n: 'INT64' },
    };
    await expect(engine.run(counting, { n: value }, { now: new Date() })).rejects.toMatchObject({
      code: 'BAD_PARAMETER',
      details: { parameter: 'n' },
      message: expect.stringContaining(value),
    });
    // The last count in range answers.
    const last = String(BigInt(value) - 1n);
    await expect(engine.run(counting, { n: last }, { now: new Date() })).resolves.toBeDefined();
  });

  // BigQuery has EXTRACT for DATE, DATETIME, TIME, TIMESTAMP and INTERVAL only ("No matching
  // signature for function EXTRACT ... FROM STRING"); DuckDB's binder listed its candidates.
  const extractQuery = (types: SavedQuery['parameterTypes']): SavedQuery => ({
    id: '0d4c1a52-5d2b-4c3e-9b56-000000000023',
    name: 'test.extract',
    sql: 'select extract(day from @p) as d',
    maxRows: 1,
    parameterTypes: types,
  });

  it('refuses EXTRACT of a STRING parameter when the query loads, naming the parameter and the types EXTRACT takes', async () => {
    await expect(engine.describe(extractQuery({}))).rejects.toThrow(
      /^test\.extract does not prepare on DuckDB: EXTRACT\(DAY FROM @p\): @p is a STRING parameter, and EXTRACT takes a DATE, DATETIME, TIME, TIMESTAMP or INTERVAL;.* \(line 1, column 25\)$/,
    );
    // What DuckDB itself refuses is one line too: the loader reads a problem per line.
    const literal = { ...extractQuery({}), sql: 'select extract(day from 5) as d' };
    await expect(engine.describe(literal)).rejects.toThrow(
      /^test\.extract does not prepare on DuckDB: [^\n]+$/,
    );
    const declared = extractQuery({ p: 'TIMESTAMP' });
    expect((await engine.run(declared, { p: '2024-05-03T10:00:00Z' }, { now: new Date() })).rows).toEqual([
      { d: 3 },
    ]);
  });
});
