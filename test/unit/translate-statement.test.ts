import { describe, expect, it } from 'vitest';
import { parseBigQuery } from '../../src/sql/bigquery-ast.js';
import { translateStatement } from '../../src/sql/translate.js';
import { seedTableSchema } from '../../src/storage/log-tables.js';
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
