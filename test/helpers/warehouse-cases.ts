import { expect } from 'vitest';
import { corpusCases } from './warehouse-corpus-cases.js';
import { daysBetween, type Oracle } from './warehouse-fixture.js';
import { intParam, stringParam, valueParam } from './warehouse-oracle-sql.js';

/**
 * Each endpoint of examples/warehouse with its oracle: plain DuckDB SQL over the day tables and
 * `orders` (see createOracle), written from what the BigQuery query means, not from querygate's
 * translation. `ordered` says whether the query fixes the order of its rows.
 */
export interface WarehouseCase {
  readonly endpoint: string;
  readonly params?: Readonly<Record<string, string>>;
  readonly oracle: (dir: string) => string;
  readonly ordered: boolean;
  /**
   * The BigQuery type of each result column, from BigQuery's documented result types of the
   * query's expressions (COUNT is INT64, AVG of INT64 FLOAT64, SUM of NUMERIC NUMERIC), written
   * here by hand: what the GraphQL face must answer is derived from these, not from our shapes.
   */
  readonly types: Readonly<Record<string, BigQueryType>>;
}

/** A column's BigQuery type: a scalar, `[scalar]` for an ARRAY, an object for a STRUCT's fields. */
export type BigQueryType =
  | 'STRING'
  | 'INT64'
  | 'FLOAT64'
  | 'NUMERIC'
  | 'BOOL'
  | 'TIMESTAMP'
  | 'DATE'
  | 'DATETIME'
  | 'TIME'
  | readonly [BigQueryType]
  | { readonly [field: string]: BigQueryType };

export const warehouseCases: readonly WarehouseCase[] = [
  {
    endpoint: 'ga4.events-by-date',
    types: { event_date: 'STRING', event_name: 'STRING', event_count: 'INT64' },
    ordered: false,
    oracle: (
      dir,
    ) => `SELECT event_date, event_name, count(*) AS event_count FROM ${daysBetween(dir, '20201201', '20201202')}
      WHERE event_name IN ('page_view', 'session_start', 'purchase') GROUP BY ALL`,
  },
  {
    endpoint: 'ga4.users',
    types: { user_count: 'INT64', new_user_count: 'INT64' },
    ordered: false,
    oracle: (dir) => `SELECT count(*) AS user_count, sum(is_new) AS new_user_count FROM (
        SELECT user_pseudo_id, max(CASE WHEN event_name IN ('first_visit', 'first_open') THEN 1 ELSE 0 END) AS is_new
        FROM ${daysBetween(dir, '20201201', '20201231')} GROUP BY user_pseudo_id)`,
  },
  {
    endpoint: 'ga4.transactions-per-purchaser',
    types: { avg_transaction_per_purchaser: 'FLOAT64' },
    ordered: false,
    oracle: (dir) => `SELECT count(*) / count(DISTINCT user_pseudo_id) AS avg_transaction_per_purchaser
      FROM ${daysBetween(dir, '20201201', '20201231')} WHERE event_name IN ('in_app_purchase', 'purchase')`,
  },
  {
    endpoint: 'ga4.purchase-values',
    types: { event_timestamp: 'INT64', event_value: 'FLOAT64' },
    ordered: false,
    oracle: (dir) => `SELECT event_timestamp, ${valueParam} AS event_value
      FROM ${daysBetween(dir, '20201201', '20201202')} WHERE event_name = 'purchase'`,
  },
  {
    endpoint: 'ga4.top-items-added-to-cart',
    types: { item_id: 'STRING', item_name: 'STRING', user_count: 'INT64' },
    ordered: false,
    oracle: (dir) => `SELECT i.item_id, i.item_name, count(DISTINCT user_pseudo_id) AS user_count
      FROM (SELECT user_pseudo_id, unnest(items) AS i FROM ${daysBetween(dir, '20201101', '20210131')} WHERE event_name = 'add_to_cart')
      GROUP BY ALL ORDER BY user_count DESC LIMIT 10`,
  },
  {
    endpoint: 'ga4.pageviews-by-purchaser',
    types: { purchaser: 'BOOL', user_count: 'INT64', total_page_views: 'INT64', avg_page_views: 'FLOAT64' },
    ordered: false,
    oracle: (
      dir,
    ) => `SELECT purchase_count > 0 AS purchaser, count(*) AS user_count, sum(views) AS total_page_views,
        sum(views) / count(*) AS avg_page_views
      FROM (SELECT user_pseudo_id, count(*) FILTER (WHERE event_name = 'page_view') AS views,
              count(*) FILTER (WHERE event_name IN ('in_app_purchase', 'purchase')) AS purchase_count
            FROM ${daysBetween(dir, '20201201', '20201202')} GROUP BY user_pseudo_id)
      GROUP BY ALL`,
  },
  {
    endpoint: 'ga4.pageview-sequence',
    types: {
      user_pseudo_id: 'STRING',
      event_timestamp: 'INT64',
      ga_session_id: 'INT64',
      page_location: 'STRING',
      page_title: 'STRING',
    },
    ordered: true,
    oracle: (dir) => `SELECT user_pseudo_id, event_timestamp, ${intParam('ga_session_id')} AS ga_session_id,
        ${stringParam('page_location')} AS page_location, ${stringParam('page_title')} AS page_title
      FROM ${daysBetween(dir, '20201201', '20201202')} WHERE event_name = 'page_view'
      ORDER BY user_pseudo_id, ga_session_id, event_timestamp`,
  },
  {
    endpoint: 'ga4.products-bought-together',
    types: { item_name: 'STRING', item_quantity: 'INT64' },
    ordered: false,
    oracle: (dir) => `WITH purchases AS (
        SELECT user_pseudo_id, unnest(items) AS i FROM ${daysBetween(dir, '20201101', '20210131')} WHERE event_name = 'purchase'),
      buyers AS (SELECT DISTINCT user_pseudo_id FROM purchases WHERE i.item_name = 'Google Navy Speckled Tee')
      SELECT i.item_name AS item_name, sum(i.quantity) AS item_quantity FROM purchases
      WHERE user_pseudo_id IN (SELECT user_pseudo_id FROM buyers) AND i.item_name <> 'Google Navy Speckled Tee'
      GROUP BY ALL`,
  },
  {
    endpoint: 'ga4.spend-per-session',
    types: { user_pseudo_id: 'STRING', session_count: 'INT64', avg_spend_per_session_by_user: 'FLOAT64' },
    ordered: false,
    oracle: (dir) => `SELECT user_pseudo_id, count(DISTINCT ${intParam('ga_session_id')}) AS session_count,
        avg(${valueParam}) AS avg_spend_per_session_by_user
      FROM ${daysBetween(dir, '20201101', '20210131')} WHERE event_name = 'purchase' GROUP BY ALL`,
  },
  ...[
    ['20201202', '20201203'],
    ['20201201', '20201201'],
    ['20201204', '20201231'],
  ].map(
    ([first, last]): WarehouseCase => ({
      endpoint: 'ga4.events-in-range',
      types: { day: 'STRING', events: 'INT64', users: 'INT64' },
      params: { first_day: first as string, last_day: last as string },
      ordered: true,
      oracle: (dir) =>
        daysBetween(dir, first as string, last as string) === '()'
          ? `SELECT NULL AS day, 0 AS events, 0 AS users WHERE false`
          : `SELECT event_date AS day, count(*) AS events, count(DISTINCT user_pseudo_id) AS users
             FROM ${daysBetween(dir, first as string, last as string)} GROUP BY ALL ORDER BY day`,
    }),
  ),
  {
    endpoint: 'ga4.page-titles',
    types: { event_date: 'STRING', page_title: 'STRING', page_views: 'INT64' },
    ordered: true,
    oracle: (dir) => `SELECT event_date, ${stringParam('page_title')} AS page_title, count(*) AS page_views
      FROM ${daysBetween(dir, '20201201', '20201203')} WHERE event_name = 'page_view'
      GROUP BY ALL ORDER BY event_date, page_title`,
  },
  {
    endpoint: 'orders.daily-revenue',
    types: { order_date: 'DATE', orders: 'INT64', revenue: 'NUMERIC' },
    ordered: true,
    oracle: () => `SELECT CAST(order_date AS VARCHAR) AS order_date, count(*) AS orders, sum(total) AS revenue
      FROM orders WHERE status <> 'refunded' GROUP BY ALL ORDER BY order_date`,
  },
  {
    endpoint: 'orders.shipping',
    types: {
      order_id: 'STRING',
      shipping: {
        method: 'STRING',
        address: { city: 'STRING', country: 'STRING', postal_code: 'STRING' },
        shipped_at: 'DATETIME',
        window_start: 'TIME',
      },
      tags: ['STRING'],
      is_gift: 'BOOL',
    },
    ordered: true,
    oracle: () => `SELECT order_id, shipping, tags, is_gift FROM orders ORDER BY order_id LIMIT 20`,
  },
  {
    endpoint: 'orders.average-order',
    types: { currency: 'STRING', average_total: 'NUMERIC', mean_total: 'NUMERIC' },
    ordered: true,
    // BigQuery's NUMERIC average: exact, 9 places, halves away from zero (totals are positive).
    // Worked in integer cents here and written as decimal text, never through a double.
    oracle: () => `WITH s AS (
        SELECT currency, CAST(sum(total) * 100 AS HUGEINT) AS cents, count(total) AS n FROM orders GROUP BY currency),
      q AS (SELECT currency, (cents * 10000000 * 2 + n) // (2 * n) AS nanos FROM s)
      SELECT currency, CAST(nanos // 1000000000 AS VARCHAR) || '.' || lpad(CAST(nanos % 1000000000 AS VARCHAR), 9, '0') AS average_total,
        CAST(nanos // 1000000000 AS VARCHAR) || '.' || lpad(CAST(nanos % 1000000000 AS VARCHAR), 9, '0') AS mean_total
      FROM q ORDER BY currency`,
  },
  {
    endpoint: 'ga4.events-by-session',
    params: { event_name: 'page_view' },
    types: { ga_session_id: 'INT64', events: 'INT64' },
    ordered: false,
    // BigQuery's LEFT JOIN UNNEST ... ON: per event, one row per parameter meeting the condition,
    // or one row with a NULL element when none does.
    oracle: (dir) => `WITH e AS (
        SELECT list_filter(event_params, p -> p.key = 'ga_session_id') AS matched
        FROM ${daysBetween(dir, '00000000', '99999999')} WHERE event_name = 'page_view')
      SELECT s.value.int_value AS ga_session_id, count(*) AS events
      FROM (SELECT unnest(CASE WHEN len(matched) > 0 THEN matched ELSE [NULL] END) AS s FROM e)
      GROUP BY ALL`,
  },
  {
    endpoint: 'ga4.basket-items',
    types: { item_name: 'STRING', quantity: 'INT64', buyers: 'INT64' },
    ordered: false,
    oracle: (
      dir,
    ) => `SELECT i.item_name AS item_name, sum(i.quantity) AS quantity, count(DISTINCT user_pseudo_id) AS buyers
      FROM (SELECT user_pseudo_id, unnest(items) AS i FROM ${daysBetween(dir, '00000000', '99999999')} WHERE event_name = 'purchase')
      GROUP BY ALL`,
  },
  {
    endpoint: 'orders.attribute-channels',
    types: { channel: 'STRING', coupon: 'STRING', orders: 'INT64' },
    ordered: false,
    // The JSON column read with DuckDB's own ->> (a JSON null member is NULL).
    oracle:
      () => `SELECT attributes->>'$.channel' AS channel, attributes->>'$.coupon' AS coupon, count(*) AS orders
      FROM orders GROUP BY ALL`,
  },
  {
    endpoint: 'orders.median-total',
    types: { currency: 'STRING', median_total: 'NUMERIC', median_order_total: 'NUMERIC' },
    ordered: true,
    // The middle total, or the mean of the two middle ones (exact: at most one more decimal place).
    oracle: () => `WITH ranked AS (
        SELECT currency, total, row_number() OVER (PARTITION BY currency ORDER BY total) AS k,
          count(*) OVER (PARTITION BY currency) AS n FROM orders WHERE total IS NOT NULL)
      SELECT currency,
        CAST(CAST(min(total) FILTER (WHERE k = (n + 1) // 2) + min(total) FILTER (WHERE k = n // 2 + 1) AS DECIMAL(20, 3)) / 2 AS DECIMAL(20, 3)) AS median_total,
        min(total) FILTER (WHERE k = (n + 1) // 2) AS median_order_total
      FROM ranked GROUP BY currency ORDER BY currency`,
  },
  {
    endpoint: 'orders.status-rollup',
    types: {
      status: 'STRING',
      currency: 'STRING',
      orders: 'INT64',
      revenue: 'NUMERIC',
      all_currencies: 'INT64',
    },
    ordered: true,
    // Each level of the rollup on its own; BigQuery sorts the subtotals' NULLs first.
    oracle: () => `SELECT * FROM (
        SELECT status, currency, count(*) AS orders, sum(total) AS revenue, 0 AS all_currencies FROM orders GROUP BY status, currency
        UNION ALL SELECT status, NULL, count(*), sum(total), 1 FROM orders GROUP BY status
        UNION ALL SELECT NULL, NULL, count(*), sum(total), 1 FROM orders)
      ORDER BY status NULLS FIRST, currency NULLS FIRST`,
  },
  {
    endpoint: 'ga4.events-last-week',
    types: { event_date: 'STRING', events: 'INT64' },
    ordered: false,
    oracle: (dir) =>
      `SELECT event_date, count(*) AS events FROM ${daysBetween(dir, '20201202', '20201209')} GROUP BY event_date`,
  },
  {
    endpoint: 'orders.calendar',
    types: { day: 'DATE', orders: 'INT64', revenue: 'NUMERIC' },
    ordered: true,
    oracle:
      () => `SELECT CAST(day AS VARCHAR) AS day, count(o.order_id) AS orders, coalesce(sum(o.total), 0) AS revenue
      FROM (SELECT CAST(range AS DATE) AS day FROM range(DATE '2020-11-30', DATE '2020-12-05', INTERVAL 1 DAY)) AS days
      LEFT JOIN orders AS o ON o.order_date = days.day GROUP BY day ORDER BY day`,
  },
  {
    endpoint: 'ga4.day-over-day',
    types: { event_name: 'STRING', day1_events: 'INT64', day2_events: 'INT64' },
    ordered: true,
    oracle: (dir) => `WITH names AS (
        SELECT event_name FROM ${daysBetween(dir, '20201201', '20201202')} GROUP BY event_name)
      SELECT event_name,
        (SELECT nullif(count(*), 0) FROM ${daysBetween(dir, '20201201', '20201201')} AS d WHERE d.event_name = names.event_name AND d.event_name <> 'purchase') AS day1_events,
        (SELECT nullif(count(*), 0) FROM ${daysBetween(dir, '20201202', '20201202')} AS d WHERE d.event_name = names.event_name AND d.event_name <> 'scroll') AS day2_events
      FROM names ORDER BY event_name`,
  },
  {
    endpoint: 'orders.customer-latest',
    types: {
      customer_id: 'STRING',
      first_order: 'STRING',
      latest_status: 'STRING',
      latest_method: 'STRING',
      tags: ['STRING'],
    },
    ordered: false,
    // created_at is text of one width (YYYY-MM-DD HH:MM:SS.ffffff UTC): its order is time's.
    oracle: () => `SELECT customer_id, list(order_id ORDER BY created_at)[1] AS first_order,
        list(status ORDER BY created_at DESC)[1] AS latest_status,
        list(shipping.method ORDER BY created_at DESC)[1] AS latest_method,
        flatten(list(tags ORDER BY created_at)) AS tags
      FROM orders WHERE customer_id IS NOT NULL GROUP BY customer_id`,
  },
  {
    endpoint: 'orders.status-by-currency',
    types: {
      status: 'STRING',
      revenue_USD: 'NUMERIC',
      orders_USD: 'INT64',
      revenue_eur: 'NUMERIC',
      orders_eur: 'INT64',
    },
    ordered: true,
    oracle: () => `SELECT status,
        sum(total) FILTER (WHERE currency = 'USD') AS revenue_USD, count(*) FILTER (WHERE currency = 'USD') AS orders_USD,
        sum(total) FILTER (WHERE currency = 'EUR') AS revenue_eur, count(*) FILTER (WHERE currency = 'EUR') AS orders_eur
      FROM orders GROUP BY status ORDER BY status`,
  },
  {
    endpoint: 'orders.currency-days',
    types: { currency: 'STRING', _1: 'INT64', _2: 'INT64', _3: 'INT64' },
    ordered: true,
    oracle: () => `SELECT currency, count(*) FILTER (WHERE day(order_date) = 1) AS _1,
        count(*) FILTER (WHERE day(order_date) = 2) AS _2, count(*) FILTER (WHERE day(order_date) = 3) AS _3
      FROM orders GROUP BY currency ORDER BY currency`,
  },
  ...corpusCases,
];

/** Asserts REST rows equal the oracle's: the same values (numbers within float error), in order where fixed. */
export async function expectOracleRows(
  oracle: Oracle,
  dir: string,
  testCase: WarehouseCase,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  const expected = await oracle.rows(testCase.oracle(dir));
  const canonical = (list: readonly Record<string, unknown>[]) => {
    const mapped = list.map((row) => canonicalValue(row));
    return testCase.ordered
      ? mapped
      : mapped.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  };
  expect(rows.length).toBe(expected.length);
  expect(canonical(rows)).toEqual(canonical(expected));
}

/**
 * Numbers (and numeric text, as DuckDB's JSON writes BIGINT and DECIMAL) as numbers: integers
 * exact, fractions to 12 significant digits, so a float sum in another order still compares.
 */
function canonicalValue(value: unknown): unknown {
  const number = typeof value === 'string' && /^-?\d+(?:\.\d+)?$/.test(value) ? Number(value) : value;
  if (typeof number === 'number') return Number.isInteger(number) ? number : Number(number.toPrecision(12));
  if (Array.isArray(value)) return value.map(canonicalValue);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, canonicalValue(v)]));
  return value;
}
