import { describe, expect, it } from 'vitest';
import { readSourceDeclarations } from '../../src/endpoints/sources.js';
import { sourceList } from '../../src/rest/source-list.js';
import { logSources } from '../helpers/shipped-sources.js';

// GET /api/sources over a directory with both kinds: the shipped log sources and the table
// source of test/fixtures/numeric-queries (an orders table with NUMERIC and BIGNUMERIC columns).
const { tables } = readSourceDeclarations(new URL('../fixtures/numeric-queries', import.meta.url).pathname);

describe('the source list', () => {
  it("keeps the log sources' entries as they were, first, and adds each table source after them", () => {
    const listed = sourceList(logSources, tables, true) as Array<Record<string, unknown>>;
    expect(listed.slice(0, logSources.length)).toEqual(sourceList(logSources, [], false));
    expect(listed.slice(0, logSources.length).map((entry) => [entry.name, entry.id, entry.kind])).toEqual(
      logSources.map((source) => [source.name, source.id, undefined]),
    );
    expect(listed.slice(logSources.length)).toEqual([
      {
        kind: 'table',
        name: 'orders',
        description: 'A warehouse table',
        warehouseName: 'my-project.shop.orders',
        ingest: true,
        columns: [
          { name: 'order_id', type: 'STRING', mode: 'REQUIRED' },
          { name: 'total', type: 'NUMERIC', mode: 'NULLABLE' },
          {
            name: 'charges',
            type: 'RECORD',
            mode: 'NULLABLE',
            fields: [{ name: 'fee', type: 'BIGNUMERIC', mode: 'NULLABLE', precision: 38, scale: 9 }],
          },
        ],
      },
    ]);
  });
});
