import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { createRandom } from '../../examples/warehouse/generate.js';
import { type Oracle, oracleOver } from './warehouse-fixture.js';

/**
 * A small GA4 export as a property with a web stream would have it, written for the outside
 * check of test/fixtures/ga4-queries: three daily files (`events_20240330.ndjson` ...), as
 * `bq extract --destination_format NEWLINE_DELIMITED_JSON` writes them (INT64 as text). The days
 * hold a week boundary (Saturday to Monday) and Europe's change to summer time (31 March 2024).
 * Seeded, so every run writes the same rows. What it stresses, beside the usual shapes:
 * - the `value` parameter in float_value on purchases and double_value elsewhere, some whole
 *   (40.0), some not exactly representable (0.1 * 3);
 * - user_properties empty for some users, with a STRING `tier` and an INT64 `lifetime_orders`;
 * - items with a NULL brand or coupon, ecommerce NULL outside purchases, traffic_source NULL
 *   for some users, user_id for some;
 * - no two events of the whole export share an event_timestamp, so FIRST_VALUE, LAST_VALUE,
 *   LAG and ROW_NUMBER over event_timestamp have one answer.
 */
export const ga4Days = ['20240330', '20240331', '20240401'] as const;

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

const value = (kind: 'string' | 'int' | 'float' | 'double', v: string | number): Json => ({
  string_value: kind === 'string' ? String(v) : null,
  int_value: kind === 'int' ? String(v) : null,
  float_value: kind === 'float' ? v : null,
  double_value: kind === 'double' ? v : null,
});
const param = (key: string, kind: 'string' | 'int' | 'float' | 'double', v: string | number): Json => ({
  key,
  value: value(kind, v),
});

export const campaigns = [
  { source: 'google', medium: 'organic', name: '(organic)' },
  { source: '(direct)', medium: '(none)', name: '(direct)' },
  { source: 'facebook', medium: 'cpc', name: 'spring_promo' },
  { source: 'newsletter', medium: 'email', name: 'easter' },
  { source: 'partner.example', medium: 'referral', name: '(referral)' },
  { source: 'instagram', medium: 'social', name: '(not set)' },
];
const pages = [
  'https://www.shop.example/',
  'https://www.shop.example/shoes?color=red',
  'https://shop.example/checkout',
  'https://shop.example/basket#top',
  'http://blog.shop.example:8080/post/1?gclid=abc123&utm_source=google',
];
const products = [
  { id: 'SKU-1', name: 'Trail shoe', brand: 'Peak', price: 89.9 },
  { id: 'SKU-2', name: 'Rain jacket', brand: 'Peak', price: 120 },
  { id: 'SKU-3', name: 'Wool sock', brand: null, price: 12.5 },
  { id: 'SKU-4', name: 'Cap', brand: 'Brim', price: 19.99 },
];
const values = [40, 12.5, 0.1 * 3, 1234567.891, 7];

/** Writes the export files into `dir`; returns their paths, one per day. */
export function writeGa4Export(dir: string, seed = 7): string[] {
  const random = createRandom(seed);
  const dayStart = (day: number) => Date.UTC(2024, 2, 30 + day) * 1000;
  const files = ga4Days.map(() => [] as string[]);
  // Every timestamp's microseconds are a counter of the events written: no two are the same.
  let tick = 0;
  for (let u = 0; u < 24; u++) {
    const user = {
      pseudo: `${1000 + u}.${1700000000 + random.int(0, 99999)}`,
      id: random.chance(0.3) ? `member-${u}` : null,
      traffic: random.chance(0.15) ? null : random.pick(campaigns),
      device: random.pick(['desktop', 'mobile', 'tablet']),
      country: random.pick(['Denmark', 'Germany', 'United States']),
      tier: random.chance(0.4) ? random.pick(['gold', 'silver']) : null,
      orders: random.chance(0.5) ? random.int(0, 9) : null,
    };
    const firstTouch = dayStart(0) + random.int(0, 20) * 3_600_000_000;
    const sessionCount = random.int(1, 3);
    for (let s = 0; s < sessionCount; s++) {
      const day = Math.min(2, random.int(0, 2) + (s > 0 ? 1 : 0));
      let seconds = dayStart(day) / 1_000_000 + random.int(0, 22) * 3_600 + random.int(0, 3_599);
      const sessionId = seconds;
      const engaged = random.chance(0.6);
      const names: string[] = [];
      if (u % 3 === 0 || s === 0) names.push(s === 0 ? 'first_visit' : 'session_start');
      if (names[0] === 'first_visit') names.push('session_start');
      const views = random.int(1, 4);
      for (let v = 0; v < views; v++) names.push('page_view');
      names.push('user_engagement');
      if (random.chance(0.5)) names.push('scroll');
      if (random.chance(0.6)) {
        names.push('view_item');
        if (random.chance(0.7)) names.push('add_to_cart');
        if (random.chance(0.6)) names.push('begin_checkout');
        if (random.chance(0.6)) names.push('purchase');
      }
      let pageViews = 0;
      for (const name of names) {
        seconds += random.int(1, 900);
        const at = seconds * 1_000_000 + ++tick;
        const params: Json[] = [
          param('ga_session_id', 'int', sessionId),
          param('ga_session_number', 'int', s + 1),
          param('page_location', 'string', random.pick(pages)),
          name === 'session_start'
            ? param('session_engaged', 'int', engaged ? 1 : 0)
            : param('session_engaged', 'string', engaged ? '1' : '0'),
        ];
        if (name === 'page_view' && pageViews++ === 0 && user.traffic) {
          params.push(param('source', 'string', user.traffic.source));
          params.push(param('medium', 'string', user.traffic.medium));
        }
        if (name === 'user_engagement')
          params.push(param('engagement_time_msec', 'int', random.chance(0.3) ? 0 : random.int(1, 60_000)));
        if (name === 'purchase') params.push(param('value', 'float', random.pick(values)));
        else if (name === 'add_to_cart' || random.chance(0.1))
          params.push(param('value', 'double', random.pick(values)));
        const commerce = ['view_item', 'add_to_cart', 'begin_checkout', 'purchase'].includes(name);
        const items = commerce
          ? Array.from({ length: random.int(1, 3) }, () => {
              const product = random.pick(products);
              const quantity = random.int(1, 3);
              return {
                item_id: product.id,
                item_name: product.name,
                item_brand: product.brand,
                price: product.price,
                quantity: String(quantity),
                item_revenue: name === 'purchase' ? Math.round(product.price * quantity * 100) / 100 : null,
                coupon: random.chance(0.3) ? random.pick(['SPRING', 'EASTER']) : null,
              };
            })
          : [];
        const userProperties: Json[] = [];
        if (user.tier)
          userProperties.push({
            key: 'tier',
            value: { ...(value('string', user.tier) as object), set_timestamp_micros: String(firstTouch) },
          });
        if (user.orders !== null)
          userProperties.push({
            key: 'lifetime_orders',
            value: { ...(value('int', user.orders) as object), set_timestamp_micros: String(firstTouch) },
          });
        const row: Record<string, Json> = {
          event_date: ga4Days[day] as string,
          event_timestamp: String(at),
          event_name: name,
          event_params: params,
          user_id: user.id,
          user_pseudo_id: user.pseudo,
          user_properties: userProperties,
          user_first_touch_timestamp: String(firstTouch),
          device: {
            category: user.device,
            operating_system: user.device === 'desktop' ? 'Macintosh' : 'iOS',
          },
          geo: { country: user.country, continent: user.country === 'United States' ? 'Americas' : 'Europe' },
          traffic_source: user.traffic,
          stream_id: '4455667788',
          platform: 'WEB',
          items,
          ecommerce:
            name === 'purchase'
              ? {
                  transaction_id: `T-${u}-${s}`,
                  purchase_revenue:
                    Math.round(items.reduce((sum, item) => sum + (item.item_revenue ?? 0), 0) * 100) / 100,
                  total_item_quantity: String(items.reduce((sum, item) => sum + Number(item.quantity), 0)),
                  unique_items: String(items.length),
                }
              : null,
        };
        (files[day] as string[]).push(JSON.stringify(row));
      }
    }
  }
  return ga4Days.map((day, index) => {
    const file = join(dir, `events_${day}.ndjson`);
    writeFileSync(file, `${(files[index] as string[]).join('\n')}\n`);
    return file;
  });
}

// The oracle's own reading of the export: DuckDB types written here by hand for the fields the
// queries read, independently of querygate's type map.
const columns = `{
  event_date: 'VARCHAR', event_timestamp: 'BIGINT', event_name: 'VARCHAR', user_id: 'VARCHAR', user_pseudo_id: 'VARCHAR',
  event_params: 'STRUCT(key VARCHAR, value STRUCT(string_value VARCHAR, int_value BIGINT, float_value DOUBLE, double_value DOUBLE))[]',
  user_properties: 'STRUCT(key VARCHAR, value STRUCT(string_value VARCHAR, int_value BIGINT, float_value DOUBLE, double_value DOUBLE, set_timestamp_micros BIGINT))[]',
  user_first_touch_timestamp: 'BIGINT',
  device: 'STRUCT(category VARCHAR, operating_system VARCHAR)', geo: 'STRUCT(country VARCHAR, continent VARCHAR)',
  traffic_source: 'STRUCT(name VARCHAR, medium VARCHAR, source VARCHAR)', stream_id: 'VARCHAR', platform: 'VARCHAR',
  items: 'STRUCT(item_id VARCHAR, item_name VARCHAR, item_brand VARCHAR, price DOUBLE, quantity BIGINT, item_revenue DOUBLE, coupon VARCHAR)[]',
  ecommerce: 'STRUCT(transaction_id VARCHAR, purchase_revenue DOUBLE, total_item_quantity BIGINT, unique_items BIGINT)'
}`;

/**
 * The export as BigQuery holds it, one table per day (`events_20240330` ...) read straight from
 * the files by DuckDB, and `events_all`, the three as the wildcard `events_*` stands for them.
 */
export async function createGa4Oracle(files: readonly string[]): Promise<Oracle> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  for (const file of files) {
    const table = (file.split('/').at(-1) as string).replace('.ndjson', '');
    await connection.run(
      `CREATE TABLE ${table} AS SELECT * FROM read_json('${file}', format = 'newline_delimited', columns = ${columns})`,
    );
  }
  await connection.run(
    `CREATE VIEW events_all AS ${ga4Days.map((day) => `SELECT * FROM events_${day}`).join(' UNION ALL ')}`,
  );
  return oracleOver(instance, connection);
}
