import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBTimestampValue, type DuckDBType, TIMESTAMP, VARCHAR } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import { decodeRows } from '../../src/backends/duckdb/rows.js';
import { generateDemoLogs } from '../../src/demo/sampler.js';
import type { QueryEngine, ResultRow } from '../../src/engines/query-engine.js';
import { isQuerygateError } from '../../src/errors.js';
import { queriesDir } from '../../src/paths.js';
import { logSources } from '../helpers/shipped-sources.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';

/**
 * Real BigQuery SQL that people write over Supabase logs (test/fixtures/bigquery-corpus/, each
 * file naming where it comes from), run through the translator on a store filled by the real log
 * writer with deterministic demo traffic. Each answer is compared with a hand-written DuckDB query
 * over the same store (`NN-name.expected.sql`). A file whose header says `-- Refused: <construct>`
 * is one the translator cannot run yet: it must be refused at load, naming that construct.
 *
 * Header lines: `-- Params: name=value, ...` binds @parameters (and $name in the expected SQL);
 * `-- Compare: subset N` is for a LIMIT without a total order: the answer must be N rows (or all,
 * when fewer) of those the expected SQL returns without the limit; `-- Compare: top N by col` is
 * for ORDER BY col DESC LIMIT N with ties: besides, its col values must be the N largest.
 */
const corpusDir = join(__dirname, '../fixtures/bigquery-corpus');
const now = new Date('2026-05-15T12:34:56.789Z');

interface CorpusQuery {
  readonly name: string;
  readonly sql: string;
  readonly source: string;
  readonly params: Record<string, string>;
  readonly refused?: string;
  readonly subset?: number;
  /** With `subset`: the column the query orders by, descending. */
  readonly topBy?: string;
}

function readCorpus(): CorpusQuery[] {
  return readdirSync(corpusDir)
    .filter((file) => file.endsWith('.sql') && !file.endsWith('.expected.sql'))
    .sort()
    .map((file) => {
      const sql = readFileSync(join(corpusDir, file), 'utf8');
      const header = (name: string) => new RegExp(`^-- ${name}: (.+)$`, 'm').exec(sql)?.[1]?.trim();
      const params = Object.fromEntries(
        (header('Params') ?? '')
          .split(',')
          .filter((pair) => pair.includes('='))
          .map((pair) => pair.trim().split('=') as [string, string]),
      );
      const compare = header('Compare')?.match(/^(?:subset (\d+)|top (\d+) by (\w+))$/);
      const subset = compare?.[1] ?? compare?.[2];
      const source = header('Source');
      if (!source) throw new Error(`${file} does not name its source`);
      return {
        name: file.replace(/\.sql$/, ''),
        sql,
        source,
        params,
        ...(header('Refused') ? { refused: header('Refused') } : {}),
        ...(subset ? { subset: Number(subset) } : {}),
        ...(compare?.[3] ? { topBy: compare[3] } : {}),
      };
    });
}

const corpus = readCorpus();
let store: TempStore;
let engine: QueryEngine;

beforeAll(async () => {
  store = await openTempStore('querygate-corpus-');
  for (const [source, events] of generateDemoLogs({ now, days: 0.25, scale: 0.25 })) {
    await store.writer.write(source, events);
  }
  engine = await createDuckDbEngine({
    database: store.db,
    sources: logSources,
    queries: [],
    queriesDir,
    timeoutMs: 30_000,
  });
});

afterAll(async () => {
  await engine?.close();
  await store?.close();
});

async function expectedRows(query: CorpusQuery): Promise<{ columns: string[]; rows: ResultRow[] }> {
  const sql = readFileSync(join(corpusDir, `${query.name}.expected.sql`), 'utf8');
  const prepared = await store.connection.prepare(sql);
  const values: Record<string, string | DuckDBTimestampValue> = {};
  const types: Record<string, DuckDBType> = {};
  // A `$name` placeholder, not a quoted name that starts with `$` (the mark of a STRUCT answered
  // as an object, "$object").
  for (const [, name] of sql.matchAll(/(?<!")\$(\w+)/g)) {
    if (name === undefined || name in values) continue;
    if (name === '__now') {
      values[name] = new DuckDBTimestampValue(BigInt(now.getTime()) * 1000n);
      types[name] = TIMESTAMP;
    } else {
      values[name] = query.params[name] ?? '';
      types[name] = VARCHAR;
    }
  }
  prepared.bind(values, types);
  const result = decodeRows(await prepared.runAndReadAll(), 100_000);
  return { columns: result.columns.map((column) => column.name), rows: [...result.rows] };
}

/** Rows in a canonical order, for comparing answers whose order the query leaves open. */
function canonical(rows: readonly ResultRow[]): string[] {
  return rows
    .map((row) => JSON.stringify(row, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value)))
    .sort();
}

const runnable = corpus.filter((query) => query.refused === undefined);
const refused = corpus.filter((query) => query.refused !== undefined);

describe(`BigQuery corpus: ${runnable.length} of ${corpus.length} queries run with the expected rows`, () => {
  it('holds at least 40 real queries, each naming its source', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    expect(corpus.every((query) => query.source.length > 10)).toBe(true);
  });

  it.each(runnable.map((query) => [query.name, query] as const))('%s', async (_name, query) => {
    const translated = await engine.run(
      { id: `corpus-${query.name}`, name: query.name, sql: query.sql, maxRows: 100_000 },
      query.params,
      { now },
    );
    const expected = await expectedRows(query);
    expect(translated.columns.map((column) => column.name)).toEqual(expected.columns);
    if (query.subset === undefined) {
      expect(canonical(translated.rows)).toEqual(canonical(expected.rows));
    } else {
      expect(translated.rows.length).toBe(Math.min(query.subset, expected.rows.length));
      const all = new Set(canonical(expected.rows));
      expect(canonical(translated.rows).filter((row) => !all.has(row))).toEqual([]);
      if (query.topBy) {
        const key = query.topBy;
        const descending = (rows: readonly ResultRow[]) =>
          rows.map((row) => Number(row[key])).sort((a, b) => b - a);
        expect(descending(translated.rows)).toEqual(descending(expected.rows).slice(0, query.subset));
      }
    }
    // An empty answer would compare equal to a broken query that finds nothing.
    expect(expected.rows.length, 'the fixture gives this query rows').toBeGreaterThan(0);
  });
});

describe(`BigQuery corpus: ${refused.length} queries refused at load until their constructs have rules`, () => {
  it.each(refused.map((query) => [query.name, query.refused, query] as const))(
    '%s is refused for %s',
    async (_name, construct, query) => {
      let error: unknown;
      try {
        await engine.run(
          { id: `corpus-${query.name}`, name: query.name, sql: query.sql, maxRows: 10 },
          query.params,
          {
            now,
          },
        );
      } catch (caught) {
        error = caught;
      }
      expect(isQuerygateError(error) && error.code).toBe('UNSUPPORTED_SQL');
      expect((error as Error).message).toContain(construct);
      expect((error as { details?: Record<string, unknown> }).details?.line).toBeTypeOf('number');
    },
  );
});
