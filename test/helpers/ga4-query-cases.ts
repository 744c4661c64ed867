import type { WarehouseCase } from './warehouse-cases.js';
import { floatText, intParam, stringParam } from './warehouse-oracle-sql.js';

/**
 * The oracles of test/fixtures/ga4-queries: GA4 export queries as people publish them (each .sql
 * cites its page), answered here in plain DuckDB over the export's day tables (createGa4Oracle:
 * `events_20240330` ..., and `events_all` for the wildcard), written from what each BigQuery
 * query means, never from querygate's translation. Where BigQuery and DuckDB differ the oracle
 * says BigQuery's meaning: ascending ORDER BY puts NULLs first and descending last, CAST of a
 * whole FLOAT64 to STRING has no `.0`, REGEXP_EXTRACT without a match is NULL.
 */
const days = (first: string, last: string) =>
  `(SELECT * FROM events_all WHERE event_date BETWEEN '${first}' AND '${last}')`;
const eventDate = `CAST(strptime(event_date, '%Y%m%d') AS DATE)`;
const sessionId = intParam('ga_session_id');
/** A TIMESTAMP of the export's microseconds, as civil time in a zone (DuckDB's ICU time zones). */
const civil = (zone: string) => `timezone('${zone}', make_timestamptz(event_timestamp))`;
/**
 * BigQuery's CAST(TIMESTAMP AS STRING) of the export's microseconds: UTC with `+00`, the
 * fraction in zero, three or six digits by its trailing zeros (conversion rules), worked out
 * from the microseconds by arithmetic.
 */
const timestampText = (micros: string) => `strftime(make_timestamp(${micros}), '%Y-%m-%d %H:%M:%S') ||
  CASE WHEN ${micros} % 1000000 = 0 THEN '' WHEN ${micros} % 1000 = 0 THEN '.' || lpad(CAST(${micros} % 1000000 // 1000 AS VARCHAR), 3, '0')
    ELSE '.' || lpad(CAST(${micros} % 1000000 AS VARCHAR), 6, '0') END || '+00'`;
/** The user with the most events on 31 March in the seeded export (seed 7). */
export const busyUser = '1023.1700062961';
/** A user whose events of 31 March carry whole `value` doubles (40, 7), which TO_JSON_STRING writes without `.0`. */
const wholeValueUser = '1011.1700091434';

export const ga4QueryCases: readonly WarehouseCase[] = [
  {
    endpoint: 'ga4.daily-sessions',
    params: { start_suffix: '20240331', end_suffix: '20240401' },
    types: { ymd: 'DATE', _ssuu: 'INT64' },
    ordered: true,
    oracle:
      () => `SELECT ${eventDate} AS ymd, count(DISTINCT user_pseudo_id || '-' || CAST(${sessionId} AS VARCHAR)) AS _ssuu
      FROM ${days('20240331', '20240401')} GROUP BY ymd ORDER BY ymd`,
  },
  {
    endpoint: 'ga4.checkout-funnel',
    params: { start_suffix: '20240330', end_suffix: '20240401' },
    types: {
      total_sessions: 'INT64',
      step1_view_item: 'INT64',
      step2_add_to_cart: 'INT64',
      step3_begin_checkout: 'INT64',
      step4_purchase: 'INT64',
      pct_to_step1: 'FLOAT64',
      pct_step1_to_step2: 'FLOAT64',
      pct_step2_to_step3: 'FLOAT64',
      pct_step3_to_step4: 'FLOAT64',
    },
    ordered: true,
    oracle: () => {
      const s1 = 'viewed_item > 0';
      const s2 = `${s1} AND added_to_cart > 0`;
      const s3 = `${s2} AND began_checkout > 0`;
      const s4 = `${s3} AND purchased > 0`;
      const n = (condition: string) => `count(*) FILTER (WHERE ${condition})`;
      return `WITH session_events AS (
          SELECT user_pseudo_id, ${sessionId} AS session_id,
            count(*) FILTER (WHERE event_name = 'view_item') AS viewed_item,
            count(*) FILTER (WHERE event_name = 'add_to_cart') AS added_to_cart,
            count(*) FILTER (WHERE event_name = 'begin_checkout') AS began_checkout,
            count(*) FILTER (WHERE event_name = 'purchase') AS purchased
          FROM events_all WHERE event_name IN ('view_item', 'add_to_cart', 'begin_checkout', 'purchase')
          GROUP BY ALL)
        SELECT count(*) AS total_sessions, ${n(s1)} AS step1_view_item, ${n(s2)} AS step2_add_to_cart,
          ${n(s3)} AS step3_begin_checkout, ${n(s4)} AS step4_purchase,
          round(${n(s1)} / count(*) * 100, 1) AS pct_to_step1,
          round(${n(s2)} / nullif(${n(s1)}, 0) * 100, 1) AS pct_step1_to_step2,
          round(${n(s3)} / nullif(${n(s2)}, 0) * 100, 1) AS pct_step2_to_step3,
          round(${n(s4)} / nullif(${n(s3)}, 0) * 100, 1) AS pct_step3_to_step4
        FROM session_events`;
    },
  },
  {
    endpoint: 'ga4.param-values',
    params: { day: '20240331', event_name: 'purchase' },
    types: {
      event_name: 'STRING',
      event_timestamp: 'INT64',
      param_key: 'STRING',
      any_value: 'STRING',
      event_value: 'FLOAT64',
    },
    ordered: true,
    oracle: () => `SELECT event_name, event_timestamp, ep.key AS param_key,
        coalesce(ep.value.string_value, CAST(ep.value.int_value AS VARCHAR), ${floatText('ep.value.float_value')},
          ${floatText('ep.value.double_value')}) AS any_value,
        (SELECT coalesce(p.value.float_value, p.value.double_value) FROM (SELECT unnest(event_params) AS p) WHERE p.key = 'value') AS event_value
      FROM (SELECT *, unnest(event_params) AS ep FROM events_20240331) WHERE event_name = 'purchase'
      ORDER BY event_timestamp, param_key`,
  },
  {
    endpoint: 'ga4.first-touch-sources',
    params: { start_suffix: '20240330' },
    types: {
      source: 'STRING',
      medium: 'STRING',
      converting_users: 'INT64',
      first_touch_value: 'FLOAT64',
      avg_touches: 'FLOAT64',
    },
    ordered: true,
    oracle: () => `WITH touchpoints AS (
        SELECT user_pseudo_id,
          coalesce(${stringParam('source')}, traffic_source.source) AS source,
          coalesce(${stringParam('medium')}, traffic_source.medium) AS medium,
          row_number() OVER (PARTITION BY user_pseudo_id ORDER BY event_timestamp) AS touch_number,
          count(*) OVER (PARTITION BY user_pseudo_id) AS total_touches,
          max(CASE WHEN event_name = 'purchase'
            THEN (SELECT p.value.float_value FROM (SELECT unnest(event_params) AS p) WHERE p.key = 'value') ELSE 0 END)
            OVER (PARTITION BY user_pseudo_id) AS conversion_value,
          max(CASE WHEN event_name = 'purchase' THEN 1 ELSE 0 END) OVER (PARTITION BY user_pseudo_id) AS is_converting
        FROM events_all WHERE event_name IN ('session_start', 'purchase'))
      SELECT source, medium, count(*) AS converting_users, sum(conversion_value) AS first_touch_value,
        avg(total_touches) AS avg_touches
      FROM touchpoints WHERE touch_number = 1 AND is_converting = 1 GROUP BY source, medium
      ORDER BY first_touch_value DESC NULLS LAST, source ASC NULLS FIRST`,
  },
  {
    endpoint: 'ga4.stitched-sessions',
    params: { start_suffix: '20240330', end_suffix: '20240401', idle_minutes: '30', top: '10' },
    types: { user_pseudo_id: 'STRING', sessions: 'INT64', events: 'INT64', first_seen: 'TIMESTAMP' },
    ordered: true,
    oracle: () => `WITH flagged AS (
        SELECT user_pseudo_id, event_timestamp,
          CASE WHEN lag(event_timestamp) OVER w IS NULL THEN 1
            WHEN event_timestamp - lag(event_timestamp) OVER w > 30 * 60 * 1000000 THEN 1
            WHEN ${stringParam('source')} IS NOT NULL AND ${stringParam('source')} <> coalesce(lag(${stringParam('source')}) OVER w, '') THEN 1
            ELSE 0 END AS is_new_session
        FROM events_all WINDOW w AS (PARTITION BY user_pseudo_id ORDER BY event_timestamp))
      SELECT user_pseudo_id, sum(is_new_session) AS sessions, count(*) AS events, min(event_timestamp) AS first_seen
      FROM flagged GROUP BY user_pseudo_id ORDER BY sessions DESC, user_pseudo_id LIMIT 10`,
  },
  {
    endpoint: 'ga4.event-gaps',
    params: { day: '20240331', user: busyUser },
    types: {
      user_pseudo_id: 'STRING',
      event_name: 'STRING',
      Time: 'STRING',
      Next_event: 'STRING',
      Next_time: 'STRING',
      Diff_time: 'INT64',
    },
    ordered: true,
    oracle:
      () => `SELECT user_pseudo_id, event_name, strftime(make_timestamp(event_timestamp), '%H:%M:%S') AS Time,
        lead(event_name) OVER w AS Next_event,
        lead(strftime(make_timestamp(event_timestamp), '%H:%M:%S')) OVER w AS Next_time,
        (lead(event_timestamp) OVER w - event_timestamp) // 1000000 AS Diff_time
      FROM events_20240331 WHERE user_pseudo_id = '${busyUser}'
      WINDOW w AS (PARTITION BY user_pseudo_id ORDER BY event_timestamp) ORDER BY event_timestamp`,
  },
  {
    endpoint: 'ga4.active-users',
    params: { start_suffix: '20240331', end_suffix: '20240401' },
    types: { exact_active_user_count: 'INT64', approx_active_user_count: 'INT64' },
    ordered: true,
    // AND binds tighter than OR: the suffix range applies to the session_engaged branch only.
    oracle: () => `SELECT count(DISTINCT user_pseudo_id) AS exact_active_user_count,
        count(DISTINCT user_pseudo_id) AS approx_active_user_count
      FROM events_all WHERE ${intParam('engagement_time_msec')} > 0
        OR (${stringParam('session_engaged')} = '1' AND event_date BETWEEN '20240331' AND '20240401')`,
  },
  {
    endpoint: 'ga4.days-to-purchase',
    params: { max_days: '1' },
    types: {
      user_pseudo_id: 'STRING',
      first_visit_date: 'DATE',
      first_purchase_date: 'DATE',
      days_to_purchase: 'INT64',
      first_purchase_revenue: 'FLOAT64',
    },
    ordered: true,
    oracle:
      () => `WITH v AS (SELECT user_pseudo_id, min(${eventDate}) AS d FROM events_all WHERE event_name = 'first_visit' GROUP BY 1),
        p AS (SELECT user_pseudo_id, min(${eventDate}) AS d, arg_min(ecommerce.purchase_revenue, event_timestamp) AS revenue
          FROM events_all WHERE event_name = 'purchase' GROUP BY 1)
      SELECT v.user_pseudo_id, v.d AS first_visit_date, p.d AS first_purchase_date,
        p.d - v.d AS days_to_purchase, p.revenue AS first_purchase_revenue
      FROM v JOIN p ON v.user_pseudo_id = p.user_pseudo_id WHERE p.d - v.d <= 1
      ORDER BY days_to_purchase, v.user_pseudo_id`,
  },
  {
    endpoint: 'ga4.local-hours',
    params: { time_zone: 'Europe/Copenhagen' },
    types: { local_hour: 'INT64', utc_hour: 'INT64', page_views: 'INT64' },
    ordered: true,
    oracle:
      () => `SELECT hour(${civil('Europe/Copenhagen')}) AS local_hour, hour(make_timestamp(event_timestamp)) AS utc_hour,
        count(*) AS page_views
      FROM events_all WHERE event_name = 'page_view' GROUP BY ALL ORDER BY local_hour, utc_hour`,
  },
  {
    endpoint: 'ga4.calendar-parts',
    types: {
      native_date: 'DATE',
      dayofweek: 'INT64',
      day: 'INT64',
      dayofyear: 'INT64',
      week: 'INT64',
      week_monday: 'INT64',
      isoweek: 'INT64',
      users: 'INT64',
    },
    ordered: true,
    // BigQuery numbers WEEK(<day>) weeks from the year's first <day> (days before it are week
    // 0): the count of <day>s from 1 January to the date. WEEK is WEEK(SUNDAY).
    oracle: () => `WITH d AS (SELECT ${eventDate} AS x, user_pseudo_id FROM events_all)
      SELECT x AS native_date, isodow(x) % 7 + 1 AS dayofweek, day(x) AS day, dayofyear(x) AS dayofyear,
        (dayofyear(x) - isodow(x) % 7 + 6) // 7 AS week, (dayofyear(x) - (isodow(x) - 1) + 6) // 7 AS week_monday,
        weekofyear(x) AS isoweek, count(DISTINCT user_pseudo_id) AS users
      FROM d GROUP BY ALL ORDER BY native_date`,
  },
  {
    endpoint: 'ga4.event-keys',
    params: { day: '20240331', user: wholeValueUser },
    types: {
      event_date_dt: 'DATE',
      event_timestamp: 'INT64',
      event_timestamp_dt: 'DATETIME',
      event_name: 'STRING',
      device_category: 'STRING',
      geo_country: 'STRING',
      session_engaged: 'INT64',
      client_key: 'STRING',
      session_key: 'STRING',
      event_key: 'STRING',
      page_hostname: 'STRING',
      page_query_string: 'STRING',
      page_path_only: 'STRING',
    },
    ordered: true,
    oracle: () => {
      const page = stringParam('page_location');
      const md5Base64 = (text: string) => `to_base64(unhex(md5(${text})))`;
      // TO_JSON_STRING(event_params) as BigQuery writes it: DuckDB's to_json writes these params
      // (ASCII strings, integers below 2^53, NULLs) as BigQuery does, and their doubles too but
      // for the whole ones (40, 7), which DuckDB writes 40.0 and BigQuery's %.15g 40.
      const eventParamsJson = `regexp_replace(CAST(to_json(event_params) AS VARCHAR), '([0-9])\\.0([,}])', '\\1\\2', 'g')`;
      return `SELECT ${eventDate} AS event_date_dt, event_timestamp,
          strftime(${civil('Europe/Berlin')}, '%Y-%m-%dT%H:%M:%S.%f') AS event_timestamp_dt,
          lower(replace(trim(event_name), ' ', '_')) AS event_name, device.category AS device_category,
          geo.country AS geo_country,
          coalesce(${intParam('session_engaged')}, CASE WHEN ${stringParam('session_engaged')} = '1' THEN 1 END) AS session_engaged,
          ${md5Base64('user_pseudo_id || stream_id')} AS client_key,
          ${md5Base64(`${md5Base64('user_pseudo_id || stream_id')} || CAST(${sessionId} AS VARCHAR)`)} AS session_key,
          ${md5Base64(`${md5Base64(`${md5Base64('user_pseudo_id || stream_id')} || CAST(${sessionId} AS VARCHAR)`)} || lower(replace(trim(event_name), ' ', '_')) || CAST(event_timestamp AS VARCHAR) || ${eventParamsJson}`)} AS event_key,
          regexp_extract(${page}, '(?:http[s]?://)?(?:www\\.)?(.*?)(?:(?:/|:)(?:.)*|$)', 1) AS page_hostname,
          CASE WHEN regexp_matches(${page}, '\\?(.+)') THEN regexp_extract(${page}, '\\?(.+)', 1) END AS page_query_string,
          regexp_replace(${page}, '(\\?|&|#).*', '', 'g') AS page_path_only
        FROM events_20240331 WHERE user_pseudo_id = '${wholeValueUser}' ORDER BY event_timestamp`;
    },
  },
  {
    endpoint: 'ga4.session-pages',
    types: {
      session_key: 'STRING',
      user_pseudo_id: 'STRING',
      first_event_timestamp: 'INT64',
      landing_page: 'STRING',
      exit_page: 'STRING',
    },
    ordered: true,
    oracle:
      () => `SELECT DISTINCT to_base64(unhex(md5(user_pseudo_id || stream_id || CAST(${sessionId} AS VARCHAR)))) AS session_key,
        user_pseudo_id, first_value(event_timestamp) OVER w AS first_event_timestamp,
        first_value(${stringParam('page_location')}) OVER w AS landing_page,
        last_value(${stringParam('page_location')}) OVER w AS exit_page
      FROM events_all WHERE event_name = 'page_view'
      WINDOW w AS (PARTITION BY user_pseudo_id, ${sessionId} ORDER BY event_timestamp
        ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
      ORDER BY first_event_timestamp`,
  },
  {
    endpoint: 'ga4.channel-users',
    params: { start_suffix: '20240330', end_suffix: '20240401' },
    types: { default_channel_grouping: 'STRING', users: 'INT64', known_users: 'INT64' },
    ordered: true,
    oracle: () => {
      const source = 'traffic_source.source';
      const medium = 'traffic_source.medium';
      const social = `'^(facebook|instagram|pinterest|reddit|twitter|linkedin)'`;
      const email = `'email|e-mail|e_mail|e mail'`;
      return `SELECT CASE
          WHEN ${source} IS NULL AND ${medium} IS NULL THEN NULL
          WHEN ${source} = '(direct)' AND ${medium} IN ('(none)', '(not set)') THEN 'Direct'
          WHEN ${medium} = 'organic' THEN 'Organic Search'
          WHEN regexp_matches(${source}, ${social}) AND regexp_matches(${medium}, '^(cpc|ppc|paid)') THEN 'Paid Social'
          WHEN regexp_matches(${source}, ${social})
            OR regexp_matches(${medium}, '^(social|social-network|social-media|sm|social network|social media)') THEN 'Organic Social'
          WHEN regexp_matches(${medium}, ${email}) OR regexp_matches(${source}, ${email}) THEN 'Email'
          WHEN regexp_matches(${medium}, 'affiliate|affiliates') THEN 'Affiliates'
          WHEN ${medium} = 'referral' THEN 'Referral'
          WHEN regexp_matches(${medium}, '^(cpc|ppc|paidsearch)$') THEN 'Paid Search'
          WHEN regexp_matches(${medium}, '^(display|cpm|banner)$') THEN 'Display'
          WHEN regexp_matches(${medium}, '^(cpv|cpa|cpp|content-text)$') THEN 'Other Advertising'
          ELSE '(Other)' END AS default_channel_grouping,
          count(DISTINCT user_pseudo_id) AS users, count(DISTINCT user_id) AS known_users
        FROM events_all GROUP BY 1 ORDER BY users DESC, 1 ASC NULLS FIRST`;
    },
  },
  {
    endpoint: 'ga4.exit-pages',
    params: { start_suffix: '20240330', end_suffix: '20240331' },
    types: { exit_page: 'STRING', sessions: 'INT64', single_page_sessions: 'INT64' },
    ordered: true,
    oracle: () => `WITH e AS (
        SELECT user_pseudo_id || '.' || CAST(${sessionId} AS VARCHAR) AS session__key, event_timestamp,
          CASE WHEN event_name = 'page_view' THEN ${stringParam('page_location')} END AS page__path
        FROM ${days('20240330', '20240331')}),
      s AS (SELECT DISTINCT session__key,
          first_value(page__path IGNORE NULLS) OVER w AS landing_page, last_value(page__path IGNORE NULLS) OVER w AS exit_page
        FROM e WINDOW w AS (PARTITION BY session__key ORDER BY event_timestamp
          ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))
      SELECT exit_page, count(*) AS sessions, count(*) FILTER (WHERE landing_page = exit_page) AS single_page_sessions
      FROM s WHERE exit_page IS NOT NULL GROUP BY exit_page ORDER BY sessions DESC, exit_page`,
  },
  {
    endpoint: 'ga4.user-tiers',
    params: { start_suffix: '20240330', end_suffix: '20240401', country: 'Germany' },
    types: {
      tier: 'STRING',
      device_category: 'STRING',
      users: 'INT64',
      max_lifetime_orders: 'INT64',
      revenue: 'FLOAT64',
    },
    ordered: true,
    oracle: () => {
      const property = (key: string, field: string) =>
        `(SELECT p.value.${field} FROM (SELECT unnest(user_properties) AS p) WHERE p.key = '${key}')`;
      return `SELECT ${property('tier', 'string_value')} AS tier, device.category AS device_category,
          count(DISTINCT user_pseudo_id) AS users, max(${property('lifetime_orders', 'int_value')}) AS max_lifetime_orders,
          sum(ecommerce.purchase_revenue) AS revenue
        FROM events_all WHERE geo.country = 'Germany' GROUP BY ALL ORDER BY tier ASC NULLS FIRST, device_category`;
    },
  },
  {
    endpoint: 'ga4.brand-revenue',
    params: { start_suffix: '20240330', end_suffix: '20240401' },
    types: {
      item_brand: 'STRING',
      transactions: 'INT64',
      units: 'INT64',
      item_revenue: 'FLOAT64',
      revenue_per_unit: 'FLOAT64',
      coupons: 'STRING',
    },
    ordered: true,
    oracle:
      () => `SELECT i.item_brand, count(DISTINCT transaction_id) AS transactions, sum(i.quantity) AS units,
        round(sum(i.item_revenue), 2) AS item_revenue, round(sum(i.item_revenue) / nullif(sum(i.quantity), 0), 2) AS revenue_per_unit,
        string_agg(DISTINCT i.coupon, ', ' ORDER BY i.coupon) AS coupons
      FROM (SELECT ecommerce.transaction_id, unnest(items) AS i FROM events_all WHERE event_name = 'purchase')
      GROUP BY ALL ORDER BY item_revenue DESC NULLS LAST`,
  },
  {
    endpoint: 'ga4.pageview-paths',
    params: { start_suffix: '20240330', end_suffix: '20240331' },
    types: {
      event_date: 'DATE',
      event_timestamp: 'INT64',
      user_pseudo_id: 'STRING',
      user_type: 'STRING',
      ga_session_id: 'INT64',
      ga_session_number: 'INT64',
      session_engaged: 'INT64',
      page_location: 'STRING',
      session_event_order: 'INT64',
      first_path: 'STRING',
      last_path: 'STRING',
      prev_path: 'STRING',
      next_path: 'STRING',
      utm_source: 'STRING',
      utm_medium: 'STRING',
      device_category: 'STRING',
      geo_country: 'STRING',
    },
    ordered: true,
    // Every page view is its own group (no two share a timestamp). LAST_VALUE over a window with
    // ORDER BY and no frame ends at the current row: the page view's own page_location.
    oracle: () => `WITH p AS (
        SELECT ${eventDate} AS event_date, event_timestamp, user_pseudo_id, user_first_touch_timestamp,
          device.category AS device_category, geo.country AS geo_country, ${sessionId} AS ga_session_id,
          ${intParam('ga_session_number')} AS ga_session_number, CAST(${stringParam('session_engaged')} AS BIGINT) AS session_engaged,
          ${stringParam('page_location')} AS page_location, ${stringParam('source')} AS utm_source, ${stringParam('medium')} AS utm_medium
        FROM ${days('20240330', '20240331')} WHERE event_name = 'page_view' AND len(event_params) > 0)
      SELECT event_date, event_timestamp, user_pseudo_id,
        CASE WHEN first_value(event_timestamp) OVER w = user_first_touch_timestamp THEN 'New' ELSE 'Returning' END AS user_type,
        ga_session_id, ga_session_number, session_engaged, page_location, row_number() OVER w AS session_event_order,
        first_value(page_location) OVER w AS first_path, page_location AS last_path, lag(page_location) OVER w AS prev_path,
        lead(page_location) OVER w AS next_path, first_value(utm_source) OVER w AS utm_source,
        first_value(utm_medium) OVER w AS utm_medium, device_category, geo_country
      FROM p WINDOW w AS (PARTITION BY user_pseudo_id, ga_session_id ORDER BY event_timestamp)
      ORDER BY user_pseudo_id, event_timestamp`,
  },
  {
    endpoint: 'ga4.step-pairs',
    params: { day: '20240331' },
    types: { step_1: 'STRING', step_2: 'STRING', path_count: 'INT64' },
    ordered: true,
    oracle: () => `WITH e AS (SELECT user_pseudo_id, ${sessionId} AS session_id, event_name, event_timestamp
          FROM events_20240331 WHERE event_name NOT IN ('user_engagement', 'scroll')),
        s AS (SELECT *, row_number() OVER (PARTITION BY user_pseudo_id, session_id ORDER BY event_timestamp) AS step FROM e)
      SELECT e1.event_name AS step_1, e2.event_name AS step_2, count(*) AS path_count
      FROM s AS e1 JOIN s AS e2 ON e1.user_pseudo_id = e2.user_pseudo_id AND e1.session_id = e2.session_id AND e2.step = e1.step + 1
      GROUP BY ALL ORDER BY path_count DESC, step_1, step_2`,
  },
  {
    endpoint: 'ga4.channel-paths',
    params: { min_sessions: '2' },
    types: { user_pseudo_id: 'STRING', session_starts: 'STRING', channel_path: 'STRING', sessions: 'INT64' },
    ordered: true,
    oracle: () => `WITH t1 AS (SELECT DISTINCT user_pseudo_id, ${sessionId} AS session_id, event_timestamp
          FROM events_all WHERE event_name = 'session_start'),
        t2 AS (SELECT user_pseudo_id, session_id, source, medium FROM (
          SELECT user_pseudo_id, ${sessionId} AS session_id, coalesce(${stringParam('source')}, '(direct)') AS source,
            coalesce(${stringParam('medium')}, '(none)') AS medium,
            row_number() OVER (PARTITION BY user_pseudo_id, ${sessionId} ORDER BY event_timestamp) AS n
          FROM events_all WHERE event_name = 'page_view' AND ${intParam('ga_session_number')} IS NOT NULL) WHERE n = 1)
      SELECT t1.user_pseudo_id, string_agg(${timestampText('t1.event_timestamp')}, ' > ' ORDER BY t1.event_timestamp) AS session_starts,
        string_agg(t2.source || ' / ' || t2.medium, ' > ' ORDER BY t1.event_timestamp) AS channel_path, count(*) AS sessions
      FROM t1 JOIN t2 ON t1.user_pseudo_id = t2.user_pseudo_id AND t1.session_id = t2.session_id
      GROUP BY t1.user_pseudo_id HAVING count(*) >= 2 ORDER BY sessions DESC, t1.user_pseudo_id`,
  },
  {
    endpoint: 'ga4.session-sources',
    params: { start_suffix: '20240330', end_suffix: '20240401' },
    types: { source: 'STRING', medium: 'STRING', sessions: 'INT64' },
    ordered: true,
    // A session's first event carrying a source, its source and medium; (direct) / (none) when none does.
    oracle: () => `WITH s AS (
        SELECT user_pseudo_id, ${sessionId} AS session_id,
          arg_min({'source': ${stringParam('source')}, 'medium': ${stringParam('medium')}}, event_timestamp)
            FILTER (WHERE ${stringParam('source')} IS NOT NULL) AS first_touch
        FROM events_all GROUP BY 1, 2)
      SELECT coalesce(first_touch.source, '(direct)') AS source, coalesce(first_touch.medium, '(none)') AS medium,
        count(*) AS sessions
      FROM s GROUP BY 1, 2 ORDER BY sessions DESC, source`,
  },
  {
    endpoint: 'ga4.latest-sessions',
    params: { start_suffix: '20240330', end_suffix: '20240401' },
    types: { user_pseudo_id: 'STRING', ga_session_id: 'INT64', ga_session_number: 'INT64' },
    ordered: true,
    oracle: () => `SELECT user_pseudo_id, arg_max(${sessionId}, event_timestamp) AS ga_session_id,
        arg_max(${intParam('ga_session_number')}, event_timestamp) AS ga_session_number
      FROM events_all GROUP BY 1 ORDER BY 1`,
  },
  {
    endpoint: 'ga4.newest-events',
    params: { day: '20240331' },
    types: { user_pseudo_id: 'STRING', event_name: 'STRING', event_timestamp: 'INT64', country: 'STRING' },
    ordered: true,
    oracle: () => `SELECT user_pseudo_id, arg_max(event_name, event_timestamp) AS event_name,
        max(event_timestamp) AS event_timestamp, arg_max(geo.country, event_timestamp) AS country
      FROM events_20240331 GROUP BY 1 ORDER BY 1`,
  },
  {
    endpoint: 'ga4.purchase-items-json',
    params: { day: '20240331' },
    types: { transaction_id: 'STRING', items_json: 'STRING' },
    ordered: true,
    // BigQuery's JSON of each item: the fields in order, INT64 as a number, the prices (89.9,
    // 120, 12.5, 19.99) as their shortest round-trip text, whole ones without a fraction.
    oracle: () => `SELECT ecommerce.transaction_id AS transaction_id,
        '[' || array_to_string(list_transform(list_sort([{'id': i.item_id, 'q': i.quantity, 'p': i.price} FOR i IN items]),
          x -> '{"item_id":"' || x.id || '","quantity":' || x.q || ',"price":' ||
            CASE WHEN x.p = floor(x.p) THEN CAST(CAST(x.p AS BIGINT) AS VARCHAR) ELSE CAST(x.p AS VARCHAR) END || '}'), ',') || ']' AS items_json
      FROM events_20240331 WHERE event_name = 'purchase' ORDER BY 1`,
  },
  {
    endpoint: 'ga4.page-hosts',
    params: { first_day: '20240330', last_day: '20240401' },
    types: { host: 'STRING', events: 'INT64' },
    ordered: true,
    // The export's pages are plain http(s) URLs: the host is what follows the scheme, up to a
    // port, path, query or fragment (NET.HOST's result for them); events without a page have none.
    oracle:
      () => `SELECT regexp_extract(${stringParam('page_location')}, '^https?://([^/:?#]+)', 1) AS host, count(*) AS events
      FROM events_all GROUP BY host ORDER BY events DESC, host NULLS FIRST`,
  },
];
