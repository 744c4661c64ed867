/**
 * A seeded generator of data shaped as the GA4 BigQuery export (`events_YYYYMMDD`, one file per
 * day) and an orders table, written as BigQuery exports a table to newline-delimited JSON:
 * INT64 as strings of digits, TIMESTAMP as `YYYY-MM-DD HH:MM:SS.ffffff UTC`, BYTES as base64,
 * NUMERIC as decimal text, a NULL record omitted. Events come in sessions as GA4 logs them: a
 * session_start first, then events a few seconds to minutes apart sharing its `ga_session_id`
 * (the start's Unix seconds), `ga_session_number` and `session_engaged`; the first page_view is the
 * entrance (`entrances` 1, with the campaign's `source` and `medium`). The same seed always writes
 * the same bytes, so tests can compute their expected answers from the files.
 *
 *   npx tsx examples/warehouse/generate.ts --out /tmp/warehouse [--events 5000] [--seed 19] [--days 3]
 *
 * Then: querygate import --queries examples/warehouse --source ga4_events /tmp/warehouse/events_*.ndjson
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface GenerateOptions {
  /** Events in all, spread over the days. @default 2000 */
  readonly events?: number;
  /** Orders. @default 200 */
  readonly orders?: number;
  /** Days of events, from 2020-12-01 (the GA4 sample's first day). @default 3 */
  readonly days?: number;
  /** @default 19 */
  readonly seed?: number;
}

export interface GeneratedWarehouse {
  /** File name (`events_20201201.ndjson`) → NDJSON text. */
  readonly eventFiles: ReadonlyMap<string, string>;
  readonly ordersFile: string;
}

type Json = null | string | number | boolean | Json[] | { [key: string]: Json };

interface Item {
  [key: string]: Json;
  item_id: string;
  item_name: string;
  item_category: string;
  price: number;
  price_in_usd: number;
  quantity: string;
  item_revenue: number | null;
  item_revenue_in_usd: number | null;
}

/**
 * A user's current session, as GA4 keeps one: `ga_session_id` is the start's Unix seconds, shared
 * by every event of the session, `ga_session_number` counts the user's sessions, and a session
 * is engaged (`session_engaged` '1') or not for all its events.
 */
interface Session {
  readonly id: number;
  readonly number: number;
  readonly day: number;
  /** The time of its latest event, in microseconds. */
  at: bigint;
  readonly engaged: boolean;
  pageViews: number;
}

/** mulberry32: small, fast and seeded; good enough for test data, never for anything secret. */
export function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
  };
}

// What a session does after its session_start (GA4 logs that one itself, first).
const eventNames = [
  'page_view',
  'page_view',
  'scroll',
  'user_engagement',
  'view_item_list',
  'view_item',
  'add_to_cart',
  'begin_checkout',
  'purchase',
];
const pages = ['/', '/store', '/store/apparel', '/store/drinkware', '/basket', '/checkout'];
const products = [
  { id: 'GGOEGXXX0001', name: 'Google Navy Speckled Tee', category: 'Apparel', price: 19.99 },
  { id: 'GGOEGXXX0002', name: 'Google Campus Bike', category: 'Lifestyle', price: 299.0 },
  { id: 'GGOEGXXX0003', name: 'Google Leather Strap Hat', category: 'Apparel', price: 24.5 },
  { id: 'GGOEGXXX0004', name: 'Google Water Bottle', category: 'Drinkware', price: 8.75 },
  { id: 'GGOEGXXX0005', name: 'Android Iconic Sock', category: 'Apparel', price: 12.0 },
];
const countries = [
  { country: 'United States', continent: 'Americas', city: 'Mountain View' },
  { country: 'Germany', continent: 'Europe', city: 'Berlin' },
  { country: 'Japan', continent: 'Asia', city: 'Tokyo' },
  { country: 'Brazil', continent: 'Americas', city: '(not set)' },
];
const mediums = [
  { source: 'google', medium: 'organic', name: '(organic)' },
  { source: '(direct)', medium: '(none)', name: '(direct)' },
  { source: 'newsletter', medium: 'email', name: 'winter_sale' },
];

const dayMicros = 86_400_000_000n;
// 2020-12-01T00:00:00Z in microseconds: past 2^31 by far, as every GA4 event_timestamp is.
const firstDayMicros = 1_606_780_800_000_000n;

function dateSuffix(day: number): string {
  const date = new Date(Number((firstDayMicros + BigInt(day) * dayMicros) / 1000n));
  return date.toISOString().slice(0, 10).replaceAll('-', '');
}

function param(key: string, value: string | number, kind: 'string' | 'int' | 'double'): Json {
  return {
    key,
    value: {
      string_value: kind === 'string' ? String(value) : null,
      int_value: kind === 'int' ? String(value) : null,
      float_value: null,
      double_value: kind === 'double' ? value : null,
    },
  };
}

/** The rows of every file, as text; see the module comment for the format. */
export function generateWarehouse(options: GenerateOptions = {}): GeneratedWarehouse {
  const random = createRandom(options.seed ?? 19);
  const days = options.days ?? 3;
  const total = options.events ?? 2000;
  const users = Array.from({ length: Math.max(5, Math.floor(total / 20)) }, (_, i) => ({
    id: `${1000 + i}.${random.int(1_000_000_000, 1_999_999_999)}`,
    geo: random.pick(countries),
    device: random.pick(['desktop', 'mobile', 'tablet']),
    traffic: random.chance(0.1) ? null : random.pick(mediums),
    firstTouch: firstDayMicros - BigInt(random.int(0, 30)) * dayMicros,
    tier: random.chance(0.3) ? 'gold' : null,
  }));
  const eventFiles = new Map<string, string[]>();
  // Each user's session under way; a local of one run, as the generator is seeded per call.
  const sessions = new Map<string, Session>();
  for (let i = 0; i < total; i++) {
    const day = Math.floor((i * days) / total);
    const suffix = dateSuffix(day);
    const dayEnd = firstDayMicros + BigInt(day + 1) * dayMicros;
    const user = random.pick(users);
    // A session goes on (a few seconds to minutes later, the same day) or a new one starts.
    const current = sessions.get(user.id);
    const next = current ? current.at + BigInt(random.int(1_000_000, 300_000_000)) : 0n;
    const goesOn = current !== undefined && current.day === day && next < dayEnd && random.chance(0.8);
    let session: Session;
    let name: string;
    if (goesOn) {
      session = current;
      session.at = next;
      name = random.pick(eventNames);
    } else {
      const at = firstDayMicros + BigInt(day) * dayMicros + BigInt(random.int(0, 86_000_000_000));
      session = {
        id: Number(at / 1_000_000n),
        number: (current?.number ?? 0) + 1,
        day,
        at,
        engaged: random.chance(0.6),
        pageViews: 0,
      };
      sessions.set(user.id, session);
      name = 'session_start';
    }
    const micros = session.at;
    const params: Json[] = [
      param('ga_session_id', session.id, 'int'),
      param('ga_session_number', session.number, 'int'),
      param('page_location', `https://shop.example.com${random.pick(pages)}`, 'string'),
      param('page_title', random.pick(['Home', 'Store', 'Basket', 'Checkout']), 'string'),
      // GA4 writes session_engaged as an integer on session_start and as text elsewhere.
      name === 'session_start'
        ? param('session_engaged', session.engaged ? 1 : 0, 'int')
        : param('session_engaged', session.engaged ? '1' : '0', 'string'),
    ];
    // The session's first page_view is its entrance, carrying the session's campaign source.
    if (name === 'page_view' && session.pageViews++ === 0) {
      params.push(param('entrances', 1, 'int'));
      if (user.traffic) {
        params.push(param('source', user.traffic.source, 'string'));
        params.push(param('medium', user.traffic.medium, 'string'));
      }
    }
    if (name === 'user_engagement')
      params.push(param('engagement_time_msec', random.int(100, 60_000), 'int'));
    if (name === 'scroll') params.push(param('percent_scrolled', 90, 'int'));
    if (random.chance(0.2)) params.push(param('value', random.int(1, 500) / 4, 'double'));
    const bought = ['purchase', 'add_to_cart', 'view_item', 'view_item_list', 'begin_checkout'].includes(
      name,
    );
    const items: Item[] = bought
      ? Array.from({ length: random.int(1, 3) }, () => {
          const product = random.pick(products);
          const quantity = random.int(1, 4);
          const revenue = name === 'purchase' ? Math.round(product.price * quantity * 100) / 100 : null;
          return {
            item_id: product.id,
            item_name: product.name,
            item_category: product.category,
            price: product.price,
            price_in_usd: product.price,
            quantity: String(quantity),
            item_revenue: revenue,
            item_revenue_in_usd: revenue,
          };
        })
      : [];
    const revenue = items.reduce((sum, item) => sum + (item.item_revenue ?? 0), 0);
    const row: Record<string, Json> = {
      event_date: suffix,
      event_timestamp: String(micros),
      event_name: name,
      event_params: params,
      user_pseudo_id: user.id,
      user_properties: user.tier
        ? [{ key: 'tier', value: { string_value: user.tier, set_timestamp_micros: String(user.firstTouch) } }]
        : [],
      user_first_touch_timestamp: String(user.firstTouch),
      device: {
        category: user.device,
        operating_system: user.device === 'desktop' ? 'Windows' : 'Android',
        language: 'en-us',
        is_limited_ad_tracking: 'No',
        web_info: { browser: 'Chrome', hostname: 'shop.example.com' },
      },
      geo: user.geo,
      platform: 'WEB',
      stream_id: '2100450278',
      items,
    };
    if (user.traffic) row.traffic_source = user.traffic;
    // GA4 fills ecommerce only on ecommerce events: elsewhere the record is NULL.
    if (name === 'purchase')
      row.ecommerce = {
        transaction_id: `T${String(i).padStart(6, '0')}`,
        purchase_revenue: Math.round(revenue * 100) / 100,
        purchase_revenue_in_usd: Math.round(revenue * 100) / 100,
        total_item_quantity: String(items.reduce((sum, item) => sum + Number(item.quantity), 0)),
        unique_items: String(items.length),
      };
    const file = `events_${suffix}.ndjson`;
    const lines = eventFiles.get(file) ?? [];
    lines.push(JSON.stringify(row));
    eventFiles.set(file, lines);
  }
  const orderLines: string[] = [];
  for (let i = 0; i < (options.orders ?? 200); i++) {
    const micros =
      firstDayMicros + BigInt(random.int(0, days * 86_399)) * 1_000_000n + BigInt(random.int(0, 999_999));
    const created = new Date(Number(micros / 1000n));
    const fraction = String(micros % 1_000_000n).padStart(6, '0');
    const lines = Array.from({ length: random.int(1, 3) }, () => {
      const product = random.pick(products);
      return { sku: product.id, quantity: String(random.int(1, 5)), unit_price: product.price.toFixed(2) };
    });
    const total =
      lines.reduce((sum, line) => sum + Number(line.quantity) * Number(line.unit_price) * 100, 0) / 100;
    const shipped = random.chance(0.7);
    const order: Record<string, Json> = {
      order_id: `O-${String(i).padStart(5, '0')}`,
      customer_id: random.chance(0.9) ? `C-${random.int(1, 60)}` : null,
      created_at: `${created.toISOString().slice(0, 19).replace('T', ' ')}.${fraction} UTC`,
      order_date: created.toISOString().slice(0, 10),
      status: random.pick(['placed', 'shipped', 'delivered', 'refunded']),
      total: total.toFixed(2),
      currency: random.pick(['USD', 'EUR']),
      is_gift: random.chance(0.15),
      tags: random.chance(0.5) ? [random.pick(['vip', 'first', 'promo'])] : [],
      lines,
      attributes: { channel: random.pick(['web', 'app']), coupon: random.chance(0.2) ? 'WINTER' : null },
      receipt: Buffer.from(`receipt ${i}`).toString('base64'),
    };
    // An order not shipped yet has no shipping record at all: NULL, not an empty one.
    if (shipped)
      order.shipping = {
        method: random.pick(['standard', 'express']),
        address: {
          city: random.pick(countries).city,
          country: random.pick(countries).country,
          postal_code: String(random.int(10000, 99999)),
        },
        shipped_at: `${new Date(created.getTime() + 86_400_000).toISOString().slice(0, 19)}`,
        window_start: `${String(random.int(8, 17)).padStart(2, '0')}:00:00`,
      };
    orderLines.push(JSON.stringify(order));
  }
  return {
    eventFiles: new Map([...eventFiles].map(([file, lines]) => [file, `${lines.join('\n')}\n`])),
    ordersFile: `${orderLines.join('\n')}\n`,
  };
}

/** Writes the files of `generateWarehouse` into `dir`; returns their paths. */
export function writeWarehouse(
  dir: string,
  options: GenerateOptions = {},
): { events: string[]; orders: string } {
  mkdirSync(dir, { recursive: true });
  const generated = generateWarehouse(options);
  const events = [...generated.eventFiles].map(([file, text]) => {
    writeFileSync(join(dir, file), text);
    return join(dir, file);
  });
  const orders = join(dir, 'orders.ndjson');
  writeFileSync(orders, generated.ordersFile);
  return { events, orders };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const flag = (name: string) => {
    const at = process.argv.indexOf(`--${name}`);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const out = flag('out');
  if (!out) {
    console.error('usage: generate.ts --out <dir> [--events N] [--orders N] [--days N] [--seed N]');
    process.exit(2);
  }
  const number = (name: string) => (flag(name) === undefined ? undefined : Number(flag(name)));
  const written = writeWarehouse(out, {
    events: number('events'),
    orders: number('orders'),
    days: number('days'),
    seed: number('seed'),
  });
  console.log(`Wrote ${written.events.length} event files and ${written.orders}`);
}
