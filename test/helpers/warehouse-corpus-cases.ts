import type { WarehouseCase } from './warehouse-cases.js';
import { daysBetween } from './warehouse-fixture.js';
import { floatText, intParam, sessionKey, stringParam } from './warehouse-oracle-sql.js';

/**
 * The oracles of examples/warehouse's second corpus: GA4 queries as people publish them (each
 * YAML cites its page), written here in plain DuckDB from what each BigQuery query means, never
 * from querygate's translation. Where BigQuery and DuckDB differ, the oracle says BigQuery's
 * meaning: REGEXP_EXTRACT is NULL without a match (DuckDB's regexp_extract is ''), ORDER BY puts
 * NULLs first, CONCAT is NULL when an argument is.
 */
const allDays = (dir: string) => daysBetween(dir, '20201101', '20210131');
const eventKey = `CAST(event_timestamp AS VARCHAR) || user_pseudo_id`;
const funnelSteps = [
  'view_item_list',
  'select_item',
  'view_item',
  'add_to_cart',
  'remove_from_cart',
  'begin_checkout',
  'purchase',
];
const quantityOf = (event: string) => `sum(CASE WHEN event_name = '${event}' THEN i.quantity ELSE 0 END)`;
const funnel = (steps: string) => `count(CASE WHEN regexp_matches(funnel, '${steps}') THEN session END)`;

export const corpusCases: readonly WarehouseCase[] = [
  {
    endpoint: 'ga4.landing-page-sources',
    types: {
      landing_page: 'STRING',
      source: 'STRING',
      medium: 'STRING',
      campaign: 'STRING',
      sessions: 'INT64',
      engaged_sessions: 'INT64',
      bounces: 'INT64',
      bounce_rate: 'FLOAT64',
      transactions: 'INT64',
    },
    ordered: false,
    oracle: (dir) => `WITH e AS (
        SELECT *, ${sessionKey()} AS session, ${stringParam('session_engaged')} AS engaged,
          CASE WHEN event_name = 'page_view' AND ${intParam('entrances')} = 1 THEN ${stringParam('page_location')} END AS landing_page
        FROM ${allDays(dir)})
      SELECT landing_page, traffic_source.source AS source, traffic_source.medium AS medium, traffic_source.name AS campaign,
        count(DISTINCT session) AS sessions,
        count(DISTINCT session) FILTER (WHERE engaged = '1') AS engaged_sessions,
        count(DISTINCT session) - count(DISTINCT session) FILTER (WHERE engaged = '1') AS bounces,
        (count(DISTINCT session) - count(DISTINCT session) FILTER (WHERE engaged = '1')) / count(DISTINCT session) AS bounce_rate,
        count(DISTINCT ${eventKey}) FILTER (WHERE event_name = 'purchase') AS transactions
      FROM e GROUP BY ALL`,
  },
  {
    endpoint: 'ga4.item-funnel',
    types: {
      item_id: 'STRING',
      item_name: 'STRING',
      item_category: 'STRING',
      item_list_views: 'INT64',
      item_list_clicks: 'INT64',
      item_views: 'INT64',
      items_added_to_cart: 'INT64',
      items_removed_from_cart: 'INT64',
      items_checked_out: 'INT64',
      items_purchased: 'INT64',
      item_revenue: 'FLOAT64',
    },
    ordered: false,
    oracle: (dir) => `SELECT i.item_id AS item_id, i.item_name AS item_name, i.item_category AS item_category,
        ${quantityOf('view_item_list')} AS item_list_views, ${quantityOf('select_item')} AS item_list_clicks,
        ${quantityOf('view_item')} AS item_views, ${quantityOf('add_to_cart')} AS items_added_to_cart,
        ${quantityOf('remove_from_cart')} AS items_removed_from_cart, ${quantityOf('begin_checkout')} AS items_checked_out,
        ${quantityOf('purchase')} AS items_purchased,
        sum(CASE WHEN event_name = 'purchase' THEN coalesce(i.item_revenue, 0) ELSE 0 END) AS item_revenue
      FROM (SELECT event_name, unnest(items) AS i FROM ${allDays(dir)}
            WHERE event_name IN (${funnelSteps.map((step) => `'${step}'`).join(', ')}))
      GROUP BY ALL`,
  },
  {
    endpoint: 'ga4.event-pages',
    types: { event_name: 'STRING', event_page: 'STRING', event_count: 'INT64', event_sessions: 'INT64' },
    ordered: false,
    oracle: (dir) => `SELECT event_name, ${stringParam('page_location')} AS event_page,
        count(DISTINCT ${eventKey}) AS event_count, count(DISTINCT ${sessionKey()}) AS event_sessions
      FROM ${allDays(dir)} GROUP BY ALL`,
  },
  {
    endpoint: 'ga4.purchase-param-values',
    types: { event_name: 'STRING', key: 'STRING', value: 'STRING' },
    ordered: false,
    oracle: (dir) => `SELECT event_name, p.key AS key,
        coalesce(p.value.string_value, CAST(p.value.int_value AS VARCHAR), ${floatText('p.value.double_value')},
                 ${floatText('p.value.float_value')}) AS value
      FROM (SELECT event_name, unnest(event_params) AS p FROM ${allDays(dir)} WHERE event_name = 'purchase')`,
  },
  {
    endpoint: 'ga4.session-funnel',
    types: {
      event_date: 'STRING',
      sessions_all: 'INT64',
      sessions_with_item_view: 'INT64',
      sessions_with_itemview_addtocart: 'INT64',
      sessions_with_itemview_addtocart_checkout: 'INT64',
      sessions_with_itemview_addtocart_checkout_purchase: 'INT64',
      sessions_with_checkoutstep1: 'INT64',
      sessions_with_checkoutstep1_2: 'INT64',
      sessions_with_checkoutstep1_2_3: 'INT64',
      sessions_with_checkoutstep1_2_3_purchase: 'INT64',
    },
    ordered: false,
    // STRING_AGG joins with ',' by default in both; REGEXP_CONTAINS matches anywhere, as
    // regexp_matches does ('view_item' also matches 'view_item_list', as the query is written).
    oracle: () => `WITH hits AS (
        SELECT DISTINCT event_date, event_timestamp, ${sessionKey()} AS session, user_pseudo_id AS userid, event_name AS step
        FROM events_20201201
        WHERE event_name IN ('view_item_list', 'view_item', 'add_to_cart', 'remove_from_cart', 'view_promotion',
          'select_promotion', 'begin_checkout', 'add_shipping_info', 'add_payment_info', 'purchase')),
      sessions AS (
        SELECT session, userid, event_date, string_agg(step, ',' ORDER BY event_timestamp) AS funnel FROM hits GROUP BY ALL)
      SELECT event_date, count(session) AS sessions_all,
        ${funnel('view_item')} AS sessions_with_item_view,
        ${funnel('view_item.*add_to_cart')} AS sessions_with_itemview_addtocart,
        ${funnel('view_item.*add_to_cart.*begin_checkout')} AS sessions_with_itemview_addtocart_checkout,
        ${funnel('view_item.*add_to_cart.*begin_checkout.*purchase')} AS sessions_with_itemview_addtocart_checkout_purchase,
        ${funnel('begin_checkout')} AS sessions_with_checkoutstep1,
        ${funnel('begin_checkout.*add_shipping_info')} AS sessions_with_checkoutstep1_2,
        ${funnel('begin_checkout.*add_shipping_info.*add_payment_info')} AS sessions_with_checkoutstep1_2_3,
        ${funnel('begin_checkout.*add_shipping_info.*add_payment_info.*purchase')} AS sessions_with_checkoutstep1_2_3_purchase
      FROM sessions GROUP BY event_date`,
  },
  {
    endpoint: 'ga4.funnel-events',
    types: {
      event_timestamp: 'TIMESTAMP',
      user_pseudo_id: 'STRING',
      session_id: 'INT64',
      event_name: 'STRING',
      country: 'STRING',
      device_category: 'STRING',
      source: 'STRING',
      medium: 'STRING',
      campaign: 'STRING',
    },
    ordered: false,
    // TIMESTAMP_MICROS(event_timestamp): REST answers a TIMESTAMP as its microseconds.
    oracle: (
      dir,
    ) => `SELECT event_timestamp, user_pseudo_id, ${intParam('ga_session_id')} AS session_id, event_name,
        geo.country AS country, device.category AS device_category, traffic_source.source AS source,
        traffic_source.medium AS medium, traffic_source.name AS campaign
      FROM ${daysBetween(dir, '20201201', '20201231')}
      WHERE event_name IN ('session_start', 'view_item', 'add_to_cart', 'begin_checkout', 'add_shipping_info',
        'add_payment_info', 'purchase')`,
  },
  {
    endpoint: 'ga4.conversions-by-channel',
    types: {
      event_date: 'DATE',
      source: 'STRING',
      medium: 'STRING',
      campaign: 'STRING',
      user_sessions_count: 'INT64',
      visit_to_cart: 'FLOAT64',
      visit_to_checkout: 'FLOAT64',
      visit_to_purchase: 'FLOAT64',
    },
    ordered: false,
    oracle: (dir) => `WITH e AS (
        SELECT CAST(make_timestamp(event_timestamp) AS DATE) AS event_date, event_name,
          traffic_source.source AS source, traffic_source.medium AS medium, traffic_source.name AS campaign,
          ${sessionKey()} AS session
        FROM ${allDays(dir)} WHERE event_name IN ('session_start', 'add_to_cart', 'begin_checkout', 'purchase'))
      SELECT CAST(event_date AS VARCHAR) AS event_date, source, medium, campaign, count(DISTINCT session) AS user_sessions_count,
        round(count(DISTINCT session) FILTER (WHERE event_name = 'add_to_cart') / count(DISTINCT session), 3) AS visit_to_cart,
        round(count(DISTINCT session) FILTER (WHERE event_name = 'begin_checkout') / count(DISTINCT session), 3) AS visit_to_checkout,
        round(count(DISTINCT session) FILTER (WHERE event_name = 'purchase') / count(DISTINCT session), 3) AS visit_to_purchase
      FROM e GROUP BY ALL`,
  },
  {
    endpoint: 'ga4.landing-page-conversions',
    types: {
      starting_page: 'STRING',
      total_unique_sessions: 'INT64',
      total_purchases: 'INT64',
      conversions: 'FLOAT64',
    },
    // ORDER BY starting_page: NULL (a first page without a path) first, as BigQuery sorts it.
    ordered: true,
    oracle: (dir) => `WITH e AS (
        SELECT *, ${intParam('ga_session_id')} AS session_id, ${stringParam('page_location')} AS page_location
        FROM ${allDays(dir)}),
      sessions AS (
        SELECT user_pseudo_id, session_id, count(*) AS unique_sessions,
          (list(page_location ORDER BY event_timestamp) FILTER (WHERE page_location IS NOT NULL))[1] AS first_page
        FROM e GROUP BY user_pseudo_id, session_id),
      paths AS (
        SELECT *, CASE WHEN regexp_matches(first_page, 'https://[^/]+/([^?]+)')
          THEN regexp_extract(first_page, 'https://[^/]+/([^?]+)', 1) END AS starting_page FROM sessions),
      purchases AS (
        SELECT user_pseudo_id, session_id, count(*) AS purchases FROM e WHERE event_name = 'purchase'
        GROUP BY user_pseudo_id, session_id)
      SELECT starting_page, sum(s.unique_sessions) AS total_unique_sessions, sum(p.purchases) AS total_purchases,
        round(sum(p.purchases) / count(*), 3) AS conversions
      FROM paths s LEFT JOIN purchases p ON p.user_pseudo_id = s.user_pseudo_id AND p.session_id = s.session_id
      GROUP BY starting_page ORDER BY starting_page NULLS FIRST`,
  },
  {
    endpoint: 'ga4.engagement-purchase-correlation',
    types: { engagement_purchase_corr: 'FLOAT64', activity_time_purchase_corr: 'FLOAT64' },
    ordered: false,
    // CORR is Pearson's coefficient in both, over the pairs where neither value is NULL.
    oracle: (dir) => `WITH s AS (
        SELECT user_pseudo_id, ${intParam('ga_session_id')} AS session_id,
          max(CASE WHEN ${stringParam('session_engaged')} = '1' THEN 1 ELSE 0 END) AS engaged,
          sum(${intParam('engagement_time_msec')}) AS msec,
          max(CASE WHEN event_name = 'purchase' THEN 1 ELSE 0 END) AS purchased
        FROM ${allDays(dir)} GROUP BY ALL)
      SELECT corr(engaged, purchased) AS engagement_purchase_corr, corr(msec, purchased) AS activity_time_purchase_corr FROM s`,
  },
  {
    endpoint: 'ga4.page-sessions-by-date',
    types: { event_date: 'DATE', page_url: 'STRING', sessions: 'INT64' },
    ordered: false,
    oracle: (dir) => `SELECT CAST(CAST(strptime(event_date, '%Y%m%d') AS DATE) AS VARCHAR) AS event_date,
        ${stringParam('page_location')} AS page_url,
        count(DISTINCT CAST(${intParam('ga_session_id')} AS VARCHAR) || '_' || user_pseudo_id) AS sessions
      FROM ${allDays(dir)} WHERE event_name = 'page_view' GROUP BY ALL`,
  },
  {
    endpoint: 'ga4.entrance-source-medium',
    types: { source: 'STRING', medium: 'STRING', session_count: 'INT64' },
    ordered: false,
    oracle: () => `SELECT ${stringParam('source')} AS source, ${stringParam('medium')} AS medium,
        count(DISTINCT ${sessionKey('.')}) AS session_count
      FROM events_20201202 WHERE event_name = 'page_view' AND ${intParam('entrances')} = 1 GROUP BY ALL`,
  },
  {
    endpoint: 'ga4.export-summary',
    types: { event_count: 'INT64', user_count: 'INT64', day_count: 'INT64' },
    ordered: false,
    oracle: (dir) => `SELECT count(*) AS event_count, count(DISTINCT user_pseudo_id) AS user_count,
        count(DISTINCT event_date) AS day_count FROM ${daysBetween(dir, '00000000', '99999999')}`,
  },
  {
    endpoint: 'ga4.page-location-events',
    types: { page_location: 'STRING', events: 'INT64' },
    ordered: false,
    oracle:
      () => `SELECT CASE WHEN p.key = 'page_location' THEN p.value.string_value END AS page_location, count(*) AS events
      FROM (SELECT unnest(event_params) AS p FROM events_20201201 WHERE event_name = 'page_view') GROUP BY ALL`,
  },
  {
    endpoint: 'ga4.revenue-per-user',
    types: { user_pseudo_id: 'STRING', event_count: 'INT64', total_revenue: 'FLOAT64' },
    ordered: false,
    oracle: (dir) => `SELECT user_pseudo_id, count(event_name) AS event_count,
        sum(ecommerce.purchase_revenue_in_usd) AS total_revenue
      FROM ${daysBetween(dir, '20201201', '20201231')} GROUP BY user_pseudo_id`,
  },
];
