import { describe, expect, it } from 'vitest';
import { useTranslatedQueries } from '../helpers/translated-row.js';

// Forms analytics teams write over their warehouse tables, with BigQuery's documented results:
// https://cloud.google.com/bigquery/docs/reference/standard-sql/aggregate_functions
// https://cloud.google.com/bigquery/docs/reference/standard-sql/query-syntax (GROUP BY, JOIN)
const { row, rows } = useTranslatedQueries();

const fruits = `with fruits as (select 'apple' as fruit, 3.55 as price union all select 'banana', 2.10
  union all select 'pear', 4.30)`;
const store = `with store as (select 20 as sold, 'apples' as fruit union all select 30, 'pears'
  union all select 30, 'bananas' union all select 10, 'oranges')`;

describe('warehouse idioms on DuckDB', () => {
  it('MAX_BY, MIN_BY and ANY_VALUE with HAVING MAX or MIN take a value of the row with the largest or smallest key', async () => {
    // Docs: MAX_BY(fruit, price) = 'pear', MIN_BY(fruit, price) = 'banana'; ANY_VALUE(fruit HAVING
    // MAX sold) is 'pears' or 'bananas' (both sold 30), HAVING MIN sold 'oranges'.
    expect(
      await row(`${fruits} select max_by(fruit, price) as hi, min_by(fruit, price) as lo from fruits`),
    ).toEqual({
      hi: 'pear',
      lo: 'banana',
    });
    const having = await row(
      `${store} select any_value(fruit having max sold) as hi, any_value(fruit having min sold) as lo from store`,
    );
    expect(['pears', 'bananas']).toContain(having.hi);
    expect(having.lo).toBe('oranges');
    // MAX_BY(x, y) is ANY_VALUE(x HAVING MAX y): rows with a NULL key are left out, a NULL value
    // at the largest key is the answer when no row there has another (ANY_VALUE skips NULLs).
    const keyed = `with keyed as (select cast(null as string) as x, 3 as y, 'p' as z union all select 'q', 3, null
      union all select 'r', 1, 'm' union all select 's', null, 'n')`;
    expect(
      await row(`${keyed} select max_by(x, y) as a, min_by(x, y) as b, max_by(z, y) as c from keyed`),
    ).toEqual({
      a: 'q',
      b: 'r',
      c: 'p',
    });
    expect(await row(`${keyed} select max_by(x, y) as a from keyed where x is null or y = 1`)).toEqual({
      a: null,
    });
  });

  it('ARRAY_CONCAT_AGG concatenates the arrays in ORDER BY order, skipping NULL ones, LIMIT counting arrays', async () => {
    // Docs: over [1, 2, 3, 4], [5, 6], [7, 8, 9]: ARRAY_CONCAT_AGG(x) = [1, ..., 9];
    // ORDER BY ARRAY_LENGTH(x) = [5, 6, 7, 8, 9, 1, 2, 3, 4]; LIMIT 2 = [1, 2, 3, 4, 5, 6].
    const arrays = `from (select [1, 2, 3, 4] as x, 0 as o union all select [5, 6], 1 union all select null, 2
      union all select [7, 8, 9], 3)`;
    expect(
      await row(`select array_concat_agg(x order by o) as a, array_concat_agg(x order by array_length(x)) as b,
        array_concat_agg(x order by o limit 2) as c ${arrays}`),
    ).toEqual({ a: [1, 2, 3, 4, 5, 6, 7, 8, 9], b: [5, 6, 7, 8, 9, 1, 2, 3, 4], c: [1, 2, 3, 4, 5, 6] });
  });

  it('groups by ROLLUP, CUBE and GROUPING SETS, with GROUPING naming the columns a row aggregated away', async () => {
    const sales = `with sales as (select 'shirt' as kind, 'red' as color, 3 as n union all select 'shirt', 'blue', 1
      union all select 'pants', 'red', 2)`;
    expect(
      await rows(`${sales} select kind, color, sum(n) as n, grouping(color) as all_colors from sales
        group by rollup(kind, color) order by kind, color`),
    ).toEqual([
      { kind: null, color: null, n: 6, all_colors: 1 },
      { kind: 'pants', color: null, n: 2, all_colors: 1 },
      { kind: 'pants', color: 'red', n: 2, all_colors: 0 },
      { kind: 'shirt', color: null, n: 4, all_colors: 1 },
      { kind: 'shirt', color: 'blue', n: 1, all_colors: 0 },
      { kind: 'shirt', color: 'red', n: 3, all_colors: 0 },
    ]);
    expect(
      await rows(`${sales} select color as c, sum(n) as n from sales group by cube(c) order by c`),
    ).toEqual([
      { c: null, n: 6 },
      { c: 'blue', n: 1 },
      { c: 'red', n: 5 },
    ]);
    expect(
      await rows(`${sales} select kind, color, count(*) as rows_in from sales
        group by grouping sets ((kind), (color), ()) order by kind, color`),
    ).toEqual([
      { kind: null, color: null, rows_in: 3 },
      { kind: null, color: 'blue', rows_in: 1 },
      { kind: null, color: 'red', rows_in: 2 },
      { kind: 'pants', color: null, rows_in: 1 },
      { kind: 'shirt', color: null, rows_in: 2 },
    ]);
  });

  it('groups by ROLLUP and CUBE nested in GROUPING SETS, each the sets it stands for', async () => {
    // query-syntax.md, "Group rows by GROUPING SETS": GROUPING SETS (product_type,
    // ROLLUP (product_type, product_name)) adds the rollup's rows to product_type's.
    const products = `with Products as (select 'shirt' as product_type, 't-shirt' as product_name, 3 as product_count
      union all select 'shirt', 't-shirt', 8 union all select 'shirt', 'polo', 25 union all select 'pants', 'jeans', 6)`;
    const query = (
      nested: string,
    ) => `${products} select product_type, product_name, sum(product_count) as product_sum
      from Products group by grouping sets (product_type, ${nested}) order by product_type, product_name, product_sum`;
    expect(await rows(query('rollup (product_type, product_name)'))).toEqual([
      { product_type: null, product_name: null, product_sum: 42 },
      { product_type: 'pants', product_name: null, product_sum: 6 },
      { product_type: 'pants', product_name: null, product_sum: 6 },
      { product_type: 'pants', product_name: 'jeans', product_sum: 6 },
      { product_type: 'shirt', product_name: null, product_sum: 36 },
      { product_type: 'shirt', product_name: null, product_sum: 36 },
      { product_type: 'shirt', product_name: 'polo', product_sum: 25 },
      { product_type: 'shirt', product_name: 't-shirt', product_sum: 11 },
    ]);
    // CUBE (product_name): the sets (product_name) and ().
    expect(await rows(query('cube (product_name)'))).toEqual([
      { product_type: null, product_name: null, product_sum: 42 },
      { product_type: null, product_name: 'jeans', product_sum: 6 },
      { product_type: null, product_name: 'polo', product_sum: 25 },
      { product_type: null, product_name: 't-shirt', product_sum: 11 },
      { product_type: 'pants', product_name: null, product_sum: 6 },
      { product_type: 'shirt', product_name: null, product_sum: 36 },
    ]);
  });

  it('keeps the unmatched rows of RIGHT JOIN and of both sides of FULL JOIN', async () => {
    const sides = `with a as (select 1 as k, 'a1' as va union all select 2, 'a2'),
      b as (select 2 as k, 'b2' as vb union all select 3, 'b3')`;
    expect(await rows(`${sides} select a.va, b.vb from a right join b on a.k = b.k order by b.vb`)).toEqual([
      { va: 'a2', vb: 'b2' },
      { va: null, vb: 'b3' },
    ]);
    expect(
      await rows(`${sides} select a.va, b.vb from a full outer join b on a.k = b.k order by a.va, b.vb`),
    ).toEqual([
      { va: null, vb: 'b3' },
      { va: 'a1', vb: null },
      { va: 'a2', vb: 'b2' },
    ]);
  });

  it('names the column of JOIN ... USING bare as one column, that of either side in a FULL JOIN', async () => {
    const sides = `with a as (select 1 as k, 'a1' as va union all select 2, 'a2'),
      b as (select 2 as k, 'b2' as vb union all select 3, 'b3')`;
    expect(await rows(`${sides} select k, va, vb from a join b using (k)`)).toEqual([
      { k: 2, va: 'a2', vb: 'b2' },
    ]);
    expect(await rows(`${sides} select k, va, vb from a full join b using (k) order by k`)).toEqual([
      { k: 1, va: 'a1', vb: null },
      { k: 2, va: 'a2', vb: 'b2' },
      { k: 3, va: null, vb: 'b3' },
    ]);
  });

  it('answers SELECT * of JOIN ... USING with the joined column first, then the others in FROM order', async () => {
    // query-syntax.md, "USING clause": SELECT * FROM Roster INNER JOIN TeamMascot USING (SchoolID)
    // answers SchoolID, LastName, Mascot.
    const sides = `with Roster as (select 'Adams' as LastName, 50 as SchoolID union all select 'Eisenhower', 77),
      TeamMascot as (select 50 as SchoolID, 'Jaguars' as Mascot union all select 53, 'Mustangs')`;
    const joined = await rows(`${sides} select * from Roster inner join TeamMascot using (SchoolID)`);
    expect(joined.map((row) => Object.entries(row))).toEqual([
      [
        ['SchoolID', 50],
        ['LastName', 'Adams'],
        ['Mascot', 'Jaguars'],
      ],
    ]);
    const full = await rows(
      `${sides} select * except (Mascot) from Roster full join TeamMascot using (SchoolID) order by SchoolID`,
    );
    expect(full.map((row) => Object.entries(row))).toEqual([
      [
        ['SchoolID', 50],
        ['LastName', 'Adams'],
      ],
      [
        ['SchoolID', 53],
        ['LastName', null],
      ],
      [
        ['SchoolID', 77],
        ['LastName', 'Eisenhower'],
      ],
    ]);
  });

  it('moves a DATE by INTERVAL n WEEK, seven days each', async () => {
    // Docs (DATE_ADD): WEEK is equivalent to 7 DAYs.
    expect(
      await row(
        `select date_sub(date '2008-12-25', interval 2 week) as a, date_add(date '2008-12-25', interval 1 week) as b`,
      ),
    ).toEqual({ a: '2008-12-11', b: '2009-01-01' });
  });

  it("CAST and SAFE_CAST of a STRING to BOOL read only 'true' and 'false', in any case", async () => {
    // Docs (conversion rules): a STRING casts to BOOL as TRUE for 'true' and FALSE for 'false',
    // case-insensitively; "all other values of x are invalid and throw an error".
    expect(
      await row(`select cast('TRUE' as bool) as a, cast('false' as bool) as b, safe_cast('yes' as bool) as c,
        safe_cast('1' as bool) as d, safe_cast('t' as bool) as e, safe_cast(cast(null as string) as bool) as f`),
    ).toEqual({ a: true, b: false, c: null, d: null, e: null, f: null });
    await expect(row(`select cast('1' as bool) as a`)).rejects.toThrow(/Bad bool value: 1/);
  });

  it('PIVOTs a subquery into a column per value, named as BigQuery names them, grouping by the columns left', async () => {
    // Docs (PIVOT operator): PIVOT(SUM(sales) AS total_sales, COUNT(*) AS num_records FOR quarter
    // IN ('Q1', 'Q2')) makes total_sales_Q1, num_records_Q1, total_sales_Q2, num_records_Q2.
    const produce = `(select 'Kale' as product, 51 as sales, 'Q1' as quarter union all select 'Kale', 23, 'Q2'
      union all select 'Kale', 45, 'Q2' union all select 'Apple', 77, 'Q1')`;
    expect(
      await rows(`select * from ${produce} pivot(sum(sales) as total_sales, count(*) as num_records
        for quarter in ('Q1', 'Q2')) order by product`),
    ).toEqual([
      { product: 'Apple', total_sales_Q1: 77, num_records_Q1: 1, total_sales_Q2: null, num_records_Q2: 0 },
      { product: 'Kale', total_sales_Q1: 51, num_records_Q1: 1, total_sales_Q2: 68, num_records_Q2: 2 },
    ]);
    expect(
      await rows(
        `select * from ${produce} pivot(sum(sales) for quarter in ('Q2' as second, 'Q3')) order by product`,
      ),
    ).toEqual([
      { product: 'Apple', second: null, Q3: null },
      { product: 'Kale', second: 68, Q3: null },
    ]);
  });
  it('UNPIVOTs columns into rows, the columns left first, then the value and the name, NULLs left out unless asked', async () => {
    // Docs (UNPIVOT operator), over Produce (Kale 51 23 45 3, Apple 77 0 25 2):
    // UNPIVOT(sales FOR quarter IN (Q1, Q2, Q3, Q4)) gives product | sales | quarter, Kale 51 Q1 ...
    // "By default, UNPIVOT excludes rows with NULL values"; INCLUDE NULLS keeps them; a
    // row_value_alias names the row instead of the column's name.
    const produce = `(select 'Kale' as product, 51 as Q1, 23 as Q2, 45 as Q3, 3 as Q4
      union all select 'Apple', 77, 0, 25, 2)`;
    const unpivoted = await rows(
      `select * from ${produce} unpivot(sales for quarter in (Q1, Q2, Q3, Q4)) order by product desc, quarter`,
    );
    expect(unpivoted.map((row) => Object.keys(row))).toEqual(Array(8).fill(['product', 'sales', 'quarter']));
    expect(unpivoted).toEqual([
      { product: 'Kale', sales: 51, quarter: 'Q1' },
      { product: 'Kale', sales: 23, quarter: 'Q2' },
      { product: 'Kale', sales: 45, quarter: 'Q3' },
      { product: 'Kale', sales: 3, quarter: 'Q4' },
      { product: 'Apple', sales: 77, quarter: 'Q1' },
      { product: 'Apple', sales: 0, quarter: 'Q2' },
      { product: 'Apple', sales: 25, quarter: 'Q3' },
      { product: 'Apple', sales: 2, quarter: 'Q4' },
    ]);
    const halves = `(select 'Kale' as product, 51 as h1, cast(null as int64) as h2)`;
    expect(
      await rows(
        `select u.quarter, u.sales from ${halves} unpivot(sales for quarter in (h1 as 'first', h2)) as u`,
      ),
    ).toEqual([{ quarter: 'first', sales: 51 }]);
    expect(
      await rows(
        `select * from ${halves} unpivot include nulls (sales for quarter in (h1, h2 as 'second')) order by quarter`,
      ),
    ).toEqual([
      { product: 'Kale', sales: 51, quarter: 'h1' },
      { product: 'Kale', sales: null, quarter: 'second' },
    ]);
  });
});
