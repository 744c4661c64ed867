import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createRandom } from '../examples/warehouse/generate.js';
import { campaigns as fixtureCampaigns } from '../test/helpers/ga4-export-fixture.js';

/**
 * A GA4 export of a busy web property at any volume, written to disk as `bq extract` writes the
 * daily tables (`events_20240301.ndjson` ..., INT64 as text, NULL records omitted) a day at a
 * time and a few megabytes at a time: 5M events are some 5 GB of NDJSON, never held at once.
 * Seeded, so a size is the same bytes every run. The shape follows what GA4 logs for a web
 * stream (https://support.google.com/analytics/answer/9234069 and the export schema,
 * https://support.google.com/analytics/answer/7029846): users come back over the month
 * (`user_pseudo_id`, a first_visit only on their first day), each active day holds one or two
 * sessions of a session_start, page_views each followed by user_engagement and often scroll, and
 * for some an ecommerce path ending in a purchase with items; every event carries ga_session_id,
 * ga_session_number, page_location, page_title and session_engaged among some ten parameters.
 * About 22 events per active user a day: 50k users a day are some 1.1M events a day.
 */
export interface Ga4Volume {
  readonly files: readonly string[];
  readonly events: number;
  readonly days: readonly string[];
  /** The user with the most events on `busyDay`, for the queries about one user's day. */
  readonly busyUser: string;
  readonly busyDay: string;
  readonly seconds: number;
}

const eventsPerUserDay = 22;
// 1 March 2024, a 31-day month; UTC midnight in seconds.
const firstDaySeconds = Date.UTC(2024, 2, 1) / 1000;

const hosts = ['https://www.shop.example', 'https://shop.example', 'https://blog.shop.example'];
const paths = [
  '/',
  '/shoes',
  '/shoes?color=red',
  '/jackets',
  '/jackets?size=m&utm_source=newsletter',
  '/socks',
  '/caps',
  '/basket',
  '/checkout',
  '/checkout#payment',
  '/post/trail-running',
  '/post/rain-gear?gclid=abc123',
  '/about',
  '/search?q=shoe',
];
const titles = ['Home', 'Shoes', 'Jackets', 'Socks', 'Caps', 'Basket', 'Checkout', 'Blog', 'About', 'Search'];
// The test export's campaigns, and paid search beside them.
const campaigns = [...fixtureCampaigns, { source: 'google', medium: 'cpc', name: 'brand' }];
const places = [
  { country: 'Germany', continent: 'Europe', city: 'Berlin', region: 'Berlin' },
  { country: 'Denmark', continent: 'Europe', city: 'Copenhagen', region: 'Capital Region' },
  { country: 'United States', continent: 'Americas', city: 'Austin', region: 'Texas' },
  { country: 'United Kingdom', continent: 'Europe', city: 'London', region: 'England' },
  { country: 'Japan', continent: 'Asia', city: 'Tokyo', region: 'Tokyo' },
];
const devices = [
  { category: 'desktop', operating_system: 'Macintosh', browser: 'Chrome' },
  { category: 'desktop', operating_system: 'Windows', browser: 'Edge' },
  { category: 'mobile', operating_system: 'iOS', browser: 'Safari' },
  { category: 'mobile', operating_system: 'Android', browser: 'Chrome' },
  { category: 'tablet', operating_system: 'iOS', browser: 'Safari' },
];
const products = [
  { id: 'SKU-1', name: 'Trail shoe', brand: 'Peak', category: 'Shoes', price: 89.9 },
  { id: 'SKU-2', name: 'Rain jacket', brand: 'Peak', category: 'Jackets', price: 120 },
  { id: 'SKU-3', name: 'Wool sock', brand: null, category: 'Socks', price: 12.5 },
  { id: 'SKU-4', name: 'Cap', brand: 'Brim', category: 'Caps', price: 19.99 },
  { id: 'SKU-5', name: 'Running vest', brand: 'Brim', category: 'Jackets', price: 45 },
];

interface User {
  readonly pseudo: string;
  readonly id: string | null;
  readonly firstTouch: number;
  readonly traffic: (typeof campaigns)[number] | null;
  readonly place: (typeof places)[number];
  readonly device: (typeof devices)[number];
  readonly tier: string | null;
  sessions: number;
  seen: boolean;
}

// bq extract leaves a NULL field out of its NDJSON: a parameter's value holds its one typed field.
const text = (key: string, v: string) => `{"key":"${key}","value":{"string_value":${JSON.stringify(v)}}}`;
const int = (key: string, v: number) => `{"key":"${key}","value":{"int_value":"${v}"}}`;
const float = (key: string, v: number) => `{"key":"${key}","value":{"float_value":${v}}}`;
const double = (key: string, v: number) => `{"key":"${key}","value":{"double_value":${v}}}`;

/** Writes `events` events over `days` daily files into `dir`, a day's share each. */
export function writeGa4Volume(
  dir: string,
  { events, days = 30, seed = 11 }: { events: number; days?: number; seed?: number },
): Ga4Volume {
  const started = performance.now();
  const random = createRandom(seed);
  const perDay = Math.ceil(events / days);
  const activePerDay = Math.max(1, Math.round(perDay / eventsPerUserDay));
  // A month's users are some three days' worth of active ones: most come back on other days.
  const users: User[] = Array.from({ length: activePerDay * 3 }, (_, i) => ({
    pseudo: `${100000 + i}.${1700000000 + random.int(0, 9_999_999)}`,
    id: random.chance(0.2) ? `member-${i}` : null,
    firstTouch: (firstDaySeconds - random.int(0, 90) * 86_400) * 1_000_000,
    traffic: random.chance(0.15) ? null : random.pick(campaigns),
    place: random.pick(places),
    device: random.pick(devices),
    tier: random.chance(0.3) ? random.pick(['gold', 'silver', 'bronze']) : null,
    sessions: 0,
    seen: false,
  }));
  const dayNames: string[] = [];
  const files: string[] = [];
  let written = 0;
  // Every event's microseconds end in a counter of the events written: timestamps seldom meet.
  let tick = 0;
  let busy = { user: '', day: '', events: 0 };
  for (let day = 0; day < days && written < events; day++) {
    const dayStart = firstDaySeconds + day * 86_400;
    const name = new Date(dayStart * 1000).toISOString().slice(0, 10).replaceAll('-', '');
    dayNames.push(name);
    const file = join(dir, `events_${name}.ndjson`);
    files.push(file);
    const fd = openSync(file, 'w');
    let chunk: string[] = [];
    let chunkLength = 0;
    const flush = () => {
      writeSync(fd, chunk.join(''));
      chunk = [];
      chunkLength = 0;
    };
    const target = Math.min(perDay, events - written);
    let dayEvents = 0;
    const midMonth = day === Math.floor(days / 2);
    while (dayEvents < target) {
      const user = users[Math.floor(random.next() ** 1.5 * users.length)] as User;
      const sessionCount = random.chance(0.25) ? 2 : 1;
      let userEvents = 0;
      let seconds = dayStart + random.int(0, 79_000);
      for (let s = 0; s < sessionCount && dayEvents < target; s++) {
        user.sessions += 1;
        const sessionId = seconds;
        const engaged = random.chance(0.65);
        const names: string[] = [];
        if (!user.seen) names.push('first_visit');
        user.seen = true;
        names.push('session_start');
        const views = 1 + Math.floor(random.next() ** 2 * 8);
        for (let v = 0; v < views; v++) {
          names.push('page_view');
          if (random.chance(0.85)) names.push('user_engagement');
          if (random.chance(0.45)) names.push('scroll');
        }
        if (random.chance(0.3)) {
          names.push('view_item');
          if (random.chance(0.4)) {
            names.push('add_to_cart');
            if (random.chance(0.5)) {
              names.push('begin_checkout');
              if (random.chance(0.6)) names.push('purchase');
            }
          }
        }
        let pageViews = 0;
        let page = `${random.pick(hosts)}${random.pick(paths)}`;
        for (const event of names) {
          seconds += random.int(1, 90);
          tick += 1;
          const at = seconds * 1_000_000 + (tick % 1_000_000);
          if (event === 'page_view' && pageViews > 0) page = `${random.pick(hosts)}${random.pick(paths)}`;
          const params = [
            int('ga_session_id', sessionId),
            int('ga_session_number', user.sessions),
            text('page_location', page),
            text('page_title', random.pick(titles)),
            int('batch_page_id', sessionId * 10 + pageViews),
            int('batch_ordering_id', tick % 1000),
            event === 'session_start'
              ? int('session_engaged', engaged ? 1 : 0)
              : text('session_engaged', engaged ? '1' : '0'),
          ];
          if (engaged) params.push(int('engaged_session_event', 1));
          if (random.chance(0.4))
            params.push(text('page_referrer', `${random.pick(hosts)}${random.pick(paths)}`));
          if (event === 'page_view' && pageViews++ === 0) {
            params.push(int('entrances', 1));
            if (user.traffic) {
              params.push(text('source', user.traffic.source), text('medium', user.traffic.medium));
              params.push(text('campaign', user.traffic.name));
            }
          }
          if (event === 'user_engagement' || event === 'scroll')
            params.push(int('engagement_time_msec', random.chance(0.1) ? 0 : random.int(50, 120_000)));
          if (event === 'scroll') params.push(int('percent_scrolled', 90));
          const commerce =
            event === 'view_item' ||
            event === 'add_to_cart' ||
            event === 'begin_checkout' ||
            event === 'purchase';
          const items = commerce
            ? Array.from({ length: random.int(1, 3) }, () => {
                const product = random.pick(products);
                const quantity = random.int(1, 3);
                const revenue =
                  event === 'purchase' ? Math.round(product.price * quantity * 100) / 100 : undefined;
                return {
                  item_id: product.id,
                  item_name: product.name,
                  item_brand: product.brand ?? undefined,
                  item_category: product.category,
                  price: product.price,
                  quantity: String(quantity),
                  item_revenue: revenue,
                  coupon: random.chance(0.2) ? random.pick(['SPRING', 'EASTER']) : undefined,
                };
              })
            : [];
          const revenue =
            Math.round(items.reduce((sum, item) => sum + (item.item_revenue ?? 0), 0) * 100) / 100;
          // GA4 writes a purchase's value as the export's fixture does, in float_value; others in double_value.
          if (event === 'purchase')
            params.push(
              text('transaction_id', `T-${tick}`),
              float('value', revenue),
              text('currency', 'EUR'),
            );
          else if (commerce) params.push(double('value', items.length * 10.5), text('currency', 'EUR'));
          const row: Record<string, unknown> = {
            event_date: name,
            event_timestamp: String(at),
            event_name: event,
            event_params: `@PARAMS@`,
            event_bundle_sequence_id: String(tick % 100_000),
            user_id: user.id ?? undefined,
            user_pseudo_id: user.pseudo,
            privacy_info: { analytics_storage: 'Yes', ads_storage: 'No', uses_transient_token: 'No' },
            user_properties: user.tier
              ? [
                  {
                    key: 'tier',
                    value: { string_value: user.tier, set_timestamp_micros: String(user.firstTouch) },
                  },
                ]
              : [],
            user_first_touch_timestamp: String(user.firstTouch),
            device: {
              category: user.device.category,
              operating_system: user.device.operating_system,
              language: 'en-us',
              is_limited_ad_tracking: 'No',
              web_info: {
                browser: user.device.browser,
                browser_version: '120.0',
                hostname: 'www.shop.example',
              },
            },
            geo: { ...user.place, sub_continent: '(not set)', metro: '(not set)' },
            traffic_source: user.traffic ?? undefined,
            stream_id: '4455667788',
            platform: 'WEB',
            items,
          };
          if (event === 'purchase')
            row.ecommerce = {
              transaction_id: `T-${tick}`,
              purchase_revenue: revenue,
              purchase_revenue_in_usd: revenue,
              total_item_quantity: String(items.reduce((sum, item) => sum + Number(item.quantity), 0)),
              unique_items: String(items.length),
            };
          const line = `${JSON.stringify(row).replace('"@PARAMS@"', `[${params.join(',')}]`)}\n`;
          chunk.push(line);
          chunkLength += line.length;
          if (chunkLength > 4_000_000) flush();
          dayEvents += 1;
          userEvents += 1;
          if (dayEvents >= target) break;
        }
        seconds += random.int(1_800, 7_200);
      }
      if (midMonth && userEvents > busy.events) busy = { user: user.pseudo, day: name, events: userEvents };
    }
    flush();
    closeSync(fd);
    written += dayEvents;
  }
  return {
    files,
    events: written,
    days: dayNames,
    busyUser: busy.user,
    busyDay: busy.day,
    seconds: (performance.now() - started) / 1000,
  };
}
