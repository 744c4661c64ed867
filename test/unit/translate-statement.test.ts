import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBigQuery } from '../../src/sql/bigquery-ast.js';
import { translateStatement } from '../../src/sql/translate.js';
import { seedTableSchema } from '../../src/storage/log-tables.js';
import { createScratchEngine, type ScratchEngine } from '../helpers/scratch-engine.js';
import { logSources } from '../helpers/shipped-sources.js';

const tables = logSources.map(seedTableSchema);

// translateStatement is the entry for a query built from parsed ones (a caller's SELECT merged
// into saved CTEs): it must read the AST without changing it, and keep nothing between calls.
describe('translateStatement', () => {
  const sql = `
    with bounds as (select timestamp_sub(current_timestamp(), interval 1 hour) as since),
    unused as (select 1 as one)
    select t.id, count(*) as n
    from bounds, \`cloudflare.logs.prod\` as t
    cross join unnest(t.metadata) as m
    cross join unnest(m.request) as r
    where t.timestamp > bounds.since and r.method = @method
    group by t.id
    order by n desc
    limit 10`;

  it('leaves the parsed statement as it was', () => {
    const query = parseBigQuery(sql);
    const before = structuredClone(query);
    translateStatement(query, { tables });
    expect(query).toEqual(before);
  });

  it('translates one parsed statement the same way each time it is given', () => {
    const query = parseBigQuery(sql);
    const first = translateStatement(query, { tables });
    const second = translateStatement(query, { tables });
    expect(second).toEqual(first);
    expect(first.parameters).toEqual(['method']);
    expect(first.usesNow).toBe(true);
    // The CTE nothing reads is dropped, the constant one is inlined, whichever call translates.
    expect(first.sql).not.toContain('"unused"');
    expect(first.sql).not.toContain('"bounds"');
  });

  it('refuses a statement using a table the options do not list, naming it', () => {
    const query = parseBigQuery('select id from `nowhere.logs`');
    expect(() => translateStatement(query, { tables })).toThrow(/no table or source named nowhere\.logs/);
  });
});

// The translation lists the parameters the engine binds. DuckDB refuses to bind one its prepared
// statement lacks ("Failed to retrieve bind parameter index"), so the list must be exactly the
// statement's own, as DuckDB itself reports them: a caller's `select 1` over logs.all's nine CTEs
// (each reading @project) keeps none of them, and none of their parameters.
describe('the parameters of a translation', () => {
  let scratch: ScratchEngine;
  beforeAll(async () => {
    scratch = await createScratchEngine();
  });
  afterAll(async () => {
    await scratch.close();
  });

  async function preparedParameters(duckdbSql: string): Promise<string[]> {
    const connection = await scratch.database.connect();
    try {
      const statement = await connection.prepare(duckdbSql);
      const names = Array.from({ length: statement.parameterCount }, (_, i) =>
        statement.parameterName(i + 1),
      );
      statement.destroySync();
      return names.sort();
    } finally {
      connection.closeSync();
    }
  }

  const cases: Record<string, { sql: string; parameters: string[]; usesNow: boolean }> = {
    'a body reading no CTE': {
      sql: 'with e as (select id from `cloudflare.logs.prod` where project = @project) select 1 as x',
      parameters: [],
      usesNow: false,
    },
    'CURRENT_TIMESTAMP() in the body, parameters only in dropped CTEs': {
      sql: 'with e as (select id from `cloudflare.logs.prod` where project = @project and timestamp < current_timestamp()) select current_timestamp() as now',
      parameters: [],
      usesNow: true,
    },
    'CURRENT_TIMESTAMP() only in a dropped CTE': {
      sql: 'with e as (select current_timestamp() as t, @a as a) select @b as b',
      parameters: ['b'],
      usesNow: false,
    },
    'a kept CTE reaching another, a dropped one with its own parameter': {
      sql: 'with a as (select @p as p), b as (select p from a where @q is null), c as (select @r as r) select p from b',
      parameters: ['p', 'q'],
      usesNow: false,
    },
    'a dropped CTE inside a subquery, and one kept': {
      sql: 'select (with x as (select @inner as v), y as (select @kept as v) select v from y) as v, @outer as o',
      parameters: ['kept', 'outer'],
      usesNow: false,
    },
    'a WITH whose body is a set operation over one CTE': {
      sql: 'with t as (select @a as a), u as (select @u as a) select a from t union all select 2',
      parameters: ['a'],
      usesNow: false,
    },
  };

  for (const [name, { sql, parameters, usesNow }] of Object.entries(cases)) {
    it(`lists exactly the parameters DuckDB's statement has: ${name}`, async () => {
      const translation = translateStatement(parseBigQuery(sql), { tables });
      const prepared = await preparedParameters(translation.sql);
      expect(translation.parameters).toEqual(parameters);
      expect(translation.usesNow).toBe(usesNow);
      expect(prepared).toEqual([...parameters, ...(usesNow ? ['__now'] : [])].sort());
    });
  }
});
