import { describe, expect, it } from 'vitest';
import { useTranslatedQueries } from '../helpers/translated-row.js';

// Forms analytics teams write over their warehouse tables, with BigQuery's documented results:
// https://cloud.google.com/bigquery/docs/reference/standard-sql/aggregate_functions
// https://cloud.google.com/bigquery/docs/reference/standard-sql/query-syntax (GROUP BY, JOIN)
const { row } = useTranslatedQueries();

describe('warehouse idioms on DuckDB', () => {
  it('moves a DATE by INTERVAL n WEEK, seven days each', async () => {
    // Docs (DATE_ADD): WEEK is equivalent to 7 DAYs.
    expect(
      await row(
        `select date_sub(date '2008-12-25', interval 2 week) as a, date_add(date '2008-12-25', interval 1 week) as b`,
      ),
    ).toEqual({ a: '2008-12-11', b: '2009-01-01' });
  });
});
