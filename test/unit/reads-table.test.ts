import { describe, expect, it } from 'vitest';
import { readsTableSource } from '../../src/endpoints/reads-table.js';
import { readSourceDeclarations } from '../../src/endpoints/sources.js';
import type { TableSource } from '../../src/endpoints/table-source.js';
import { warehouseDir } from '../helpers/warehouse-fixture.js';

// Which endpoints' cached results a replace of a table drops: those whose SQL names the table.
// The example's GA4 family: my-project.analytics_123456.events_*, stored as ga4_events.
const ga4 = readSourceDeclarations(warehouseDir).tables.find(
  (table) => table.name === 'ga4_events',
) as TableSource;
const reads = (sql: string) => readsTableSource({ sql }, ga4);

describe('readsTableSource', () => {
  it('finds the family by its warehouse name, a day table, a longer prefix and its store name', () => {
    expect(reads('SELECT 1 FROM `my-project.analytics_123456.events_*`')).toBe(true);
    expect(reads('SELECT 1 FROM `my-project.analytics_123456.events_20201201`')).toBe(true);
    expect(reads('SELECT 1 FROM `analytics_123456.events_2020*` AS e')).toBe(true);
    expect(reads('WITH x AS (SELECT * FROM ga4_events) SELECT * FROM x')).toBe(true);
  });

  it('does not take another table, a CTE of the same name, a string or a comment for it', () => {
    expect(reads('SELECT 1 FROM `my-project.shop.orders`')).toBe(false);
    expect(reads("SELECT 'my-project.analytics_123456.events_*' AS t -- FROM ga4_events")).toBe(false);
    expect(reads('WITH ga4_events AS (SELECT 1 AS n) SELECT n FROM ga4_events')).toBe(false);
  });
});
