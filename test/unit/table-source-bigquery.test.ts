import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBigQueryEnvironment } from '../../src/backends/bigquery/config.js';
import { bigQueryNaming } from '../../src/backends/bigquery/engine.js';
import { qualifyForBigQuery } from '../../src/backends/bigquery/qualify.js';
import { addTableSource } from '../../src/cli/sources-commands.js';
import { readSourceDeclarations } from '../../src/endpoints/sources.js';
import { queryableTable, tableSourceSchema } from '../../src/endpoints/table-source.js';
import { queriesDir } from '../../src/paths.js';

const events = tableSourceSchema.parse({
  kind: 'table',
  name: 'ga4_events',
  warehouseName: 'my-project.analytics_123456.events_*',
  tableSuffix: { column: 'event_date' },
  columns: [{ name: 'event_date', type: 'STRING' }],
});
const saved =
  "SELECT count(*) AS n FROM `my-project.analytics_123456.events_*` AS e WHERE _TABLE_SUFFIX = '20240101'";
const config = (tables = '') =>
  parseBigQueryEnvironment({
    QUERYGATE_BIGQUERY_PROJECT: 'querygate-test',
    QUERYGATE_BIGQUERY_DATASET: 'logs',
    QUERYGATE_BIGQUERY_TABLES: tables,
  });

describe('table sources on BigQuery', () => {
  it('sends a declared warehouse name as written, and renames the logical name to it', () => {
    const naming = bigQueryNaming(config(), [queryableTable(events)], queriesDir);
    expect(qualifyForBigQuery(saved, naming).sql).toBe(saved);
    expect(qualifyForBigQuery('SELECT 1 FROM ga4_events', naming).sql).toBe(
      'SELECT 1 FROM `my-project.analytics_123456.events_*` AS `ga4_events`',
    );
    expect(qualifyForBigQuery('SELECT 1 FROM `other-project.sales.orders`', naming).sql).toBe(
      'SELECT 1 FROM `other-project.sales.orders`',
    );
  });

  it('sends a table source elsewhere when QUERYGATE_BIGQUERY_TABLES maps it, wildcard included', () => {
    const naming = bigQueryNaming(
      config('ga4_events=staging.events_*'),
      [queryableTable(events)],
      queriesDir,
    );
    expect(qualifyForBigQuery(saved, naming).sql).toBe(
      "SELECT count(*) AS n FROM `querygate-test.staging.events_*` AS e WHERE _TABLE_SUFFIX = '20240101'",
    );
    // One table of the family, and a longer prefix of it, move with the family and keep their suffix.
    expect(
      qualifyForBigQuery('SELECT 1 FROM `my-project.analytics_123456.events_20240101`', naming).sql,
    ).toBe('SELECT 1 FROM `querygate-test.staging.events_20240101`');
    expect(
      qualifyForBigQuery('SELECT 1 FROM `my-project.analytics_123456.events_2024*` AS e', naming).sql,
    ).toBe('SELECT 1 FROM `querygate-test.staging.events_2024*` AS e');
  });
});

describe('querygate sources add-table', () => {
  const dir = mkdtempSync(join(tmpdir(), 'querygate-add-table-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("declares a table from bq's schema JSON, keeping the file's other entries and comments", () => {
    writeFileSync(
      join(dir, 'sources.yaml'),
      '# my sources\nsources:\n  - { kind: table, name: first, columns: [{ name: a, type: STRING }] }\n',
    );
    writeFileSync(
      join(dir, 'schema.json'),
      JSON.stringify([
        { name: 'id', type: 'INTEGER', mode: 'REQUIRED' },
        {
          name: 'attrs',
          type: 'RECORD',
          mode: 'REPEATED',
          fields: [{ name: 'k', type: 'STRING', mode: 'NULLABLE' }],
        },
      ]),
    );
    addTableSource({
      queriesDir: dir,
      name: 'facts',
      schemaFile: join(dir, 'schema.json'),
      warehouseName: 'p1.d.facts',
    });
    expect(readFileSync(join(dir, 'sources.yaml'), 'utf8')).toContain('# my sources');
    const declared = readSourceDeclarations(dir).tables;
    expect(declared.map((table) => table.name)).toEqual(['first', 'facts']);
    expect(declared[1]?.columns).toEqual([
      { name: 'id', type: 'INT64', mode: 'REQUIRED' },
      {
        name: 'attrs',
        type: 'STRUCT',
        mode: 'REPEATED',
        fields: [{ name: 'k', type: 'STRING', mode: 'NULLABLE' }],
      },
    ]);
  });

  it('refuses a schema with a type it cannot store, naming the file and column, and leaves sources.yaml alone', () => {
    const before = readFileSync(join(dir, 'sources.yaml'), 'utf8');
    writeFileSync(join(dir, 'bad.json'), JSON.stringify([{ name: 'g', type: 'GEOGRAPHY' }]));
    expect(() => addTableSource({ queriesDir: dir, name: 'geo', schemaFile: join(dir, 'bad.json') })).toThrow(
      /bad\.json: \[0\]\.type: GEOGRAPHY is not a BigQuery column type/,
    );
    expect(readFileSync(join(dir, 'sources.yaml'), 'utf8')).toBe(before);
  });
});
