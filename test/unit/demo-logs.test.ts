import { describe, expect, it } from 'vitest';
import { type DemoLogEvent, demoProjects, generateDemoLogs } from '../../src/demo/sampler.js';
import type { FieldType } from '../../src/endpoints/field-type.js';
import { logSources } from '../helpers/shipped-sources.js';

const now = new Date('2026-05-15T12:34:56.789Z');
const nowMicros = now.getTime() * 1000;
const MINUTE_US = 60e6;
const HOUR_US = 60 * MINUTE_US;
const DAY_US = 24 * HOUR_US;
const logs = generateDemoLogs({ now });

function eventsOf(source: string): DemoLogEvent[] {
  const events = logs.get(source);
  if (!events) throw new Error(`no events for ${source}`);
  return events;
}

// Microseconds since the epoch, read independently of the generator: Date keeps milliseconds only.
function micros(timestamp: string): number {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})(\d{3})Z$/.exec(timestamp);
  if (!match) throw new Error(`not ISO 8601 UTC with microseconds: ${timestamp}`);
  return Date.parse(`${match[1]}Z`) * 1000 + Number(match[2]);
}

function ageOf(event: DemoLogEvent): number {
  return nowMicros - micros(event.timestamp);
}

function projectOf(event: DemoLogEvent): unknown {
  return event.project ?? event.metadata.project_ref;
}

function field(value: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value);
}

// The JSON type a seed field of sources.ts needs, so that ingestion infers the declared column type.
function hasJsonType(value: unknown, type: FieldType): boolean {
  if (type === 'VARCHAR') return typeof value === 'string';
  if (type === 'BIGINT') return Number.isInteger(value);
  if (type === 'DOUBLE') return typeof value === 'number';
  if (type === 'BOOLEAN') return typeof value === 'boolean';
  if ('list' in type) return Array.isArray(value) && value.every((item) => hasJsonType(item, type.list));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const object = value as Record<string, unknown>;
  return Object.entries(type.struct).every(([key, fieldType]) => hasJsonType(object[key], fieldType));
}

describe('generateDemoLogs', () => {
  it('returns the same events for the same now and seed, and other events for another seed', () => {
    // JSON text compares 30k events far faster than a deep toEqual.
    expect(JSON.stringify([...generateDemoLogs({ now })])).toBe(JSON.stringify([...logs]));
    const reseeded = generateDemoLogs({ now, seed: 2 });
    expect(reseeded.get('cloudflare.logs.prod')?.[0]).not.toEqual(eventsOf('cloudflare.logs.prod')[0]);
  });

  it('fills each of the nine sources, about 20-40k events in all by default', () => {
    expect([...logs.keys()].sort()).toEqual(logSources.map((source) => source.name).sort());
    for (const source of logSources) expect(eventsOf(source.name).length, source.name).toBeGreaterThan(100);
    const total = [...logs.values()].reduce((sum, events) => sum + events.length, 0);
    expect(total).toBeGreaterThan(20_000);
    expect(total).toBeLessThan(40_000);
  });

  it('keeps every timestamp within [now - days, now], in time order, with unique UUID-shaped ids', () => {
    for (const days of [3, 0.5]) {
      for (const [source, events] of generateDemoLogs({ now, days })) {
        const ages = events.map(ageOf);
        expect(Math.min(...ages), source).toBeGreaterThanOrEqual(0);
        expect(Math.max(...ages), source).toBeLessThanOrEqual(days * DAY_US);
        expect(
          ages.every((age, i) => i === 0 || age <= (ages[i - 1] ?? 0)),
          source,
        ).toBe(true);
      }
    }
    const ids = [...logs.values()].flat().map((event) => event.id);
    expect(
      ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)),
    ).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every event the seed fields of its source with their JSON types, and its project', () => {
    // One assertion over the list of offenders: 30k expect() calls would take seconds.
    const offenders: string[] = [];
    const check = (ok: boolean, what: string, event: DemoLogEvent) => {
      if (!ok && offenders.length < 5) offenders.push(`${what}: ${JSON.stringify(event)}`);
    };
    for (const source of logSources) {
      for (const event of eventsOf(source.name)) {
        check(typeof event.event_message === 'string', 'event_message', event);
        check(hasJsonType(event.metadata, source.metadata), `${source.name} seed fields`, event);
        check(demoProjects.includes(projectOf(event) as string), 'project or project_ref', event);
        check(source.hasProject === (typeof event.project === 'string'), 'top-level project', event);
        if ('project' in source.metadata.struct)
          check(event.metadata.project === event.project, 'project', event);
      }
    }
    for (const event of eventsOf('cloudflare.logs.prod')) {
      const [url, path] = [field(event.metadata, 'request', 'url'), field(event.metadata, 'request', 'path')];
      check(
        String(url).startsWith(`https://${event.project}.supabase.co${path}`),
        'request url and path',
        event,
      );
    }
    for (const event of eventsOf('deno-relay-logs')) {
      check((event.metadata.execution_time_ms as number) > 0, 'execution_time_ms', event);
    }
    expect(offenders).toEqual([]);
  });

  it('puts edge requests of all four API areas, and of none, in the last 60 minutes of each project', () => {
    for (const project of demoProjects) {
      const lastHour = eventsOf('cloudflare.logs.prod').filter(
        (event) => event.project === project && ageOf(event) < HOUR_US,
      );
      const paths = lastHour.map((event) => field(event.metadata, 'request', 'path') as string);
      for (const area of ['/rest', '/storage', '/auth', '/realtime']) {
        expect(
          paths.some((path) => path.includes(area)),
          `${project} ${area}`,
        ).toBe(true);
      }
      expect(paths.some((path) => !/\/(rest|storage|auth|realtime)/.test(path))).toBe(true);
      const minutes = new Set(lastHour.map((event) => Math.floor(ageOf(event) / MINUTE_US)));
      expect(minutes.size, project).toBeGreaterThanOrEqual(50);
    }
  });

  it('puts relay records of each project and function in the last 5 minutes, with some errors', () => {
    const relay = eventsOf('deno-relay-logs');
    for (const project of demoProjects) {
      const functionIds = new Set(
        relay.filter((e) => projectOf(e) === project).map((e) => e.metadata.function_id),
      );
      const recent = relay.filter((event) => projectOf(event) === project && ageOf(event) < 5 * MINUTE_US);
      expect(recent.length, project).toBeGreaterThan(30);
      expect(new Set(recent.map((event) => event.metadata.function_id))).toEqual(functionIds);
      expect(
        recent.some((event) => (field(event.metadata, 'response', 'status_code') as number) >= 400),
      ).toBe(true);
    }
  });

  it('covers every hour of the last day and every day of the range for each project', () => {
    for (const source of ['cloudflare.logs.prod', 'deno-relay-logs']) {
      for (const project of demoProjects) {
        const events = eventsOf(source).filter((event) => projectOf(event) === project);
        const hours = new Set(
          events.filter((e) => ageOf(e) < DAY_US).map((e) => Math.floor(ageOf(e) / HOUR_US)),
        );
        expect(hours.size, `${source} ${project}`).toBe(24);
        expect(new Set(events.map((event) => Math.floor(ageOf(event) / DAY_US))).size).toBe(3);
      }
    }
  });

  it('draws execution times from a long-tailed distribution', () => {
    const times = eventsOf('deno-relay-logs')
      .map((event) => event.metadata.execution_time_ms as number)
      .sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] ?? 0;
    expect(times.at(-1)).toBeGreaterThan(20 * median);
    expect(times[Math.floor(times.length * 0.99)]).toBeGreaterThan(5 * median);
  });

  it('writes the fields real Supabase logs carry and the Logs Explorer templates read', () => {
    const edge = eventsOf('cloudflare.logs.prod');
    const present = (events: DemoLogEvent[], ...path: string[]) =>
      events.every((event) => field(event.metadata, ...path) !== undefined);
    for (const path of [
      ['request', 'search'],
      ['request', 'headers', 'x_real_ip'],
      ['request', 'headers', 'cf_ray'],
      ['request', 'cf', 'country'],
      ['response', 'headers', 'cf_cache_status'],
      ['response', 'headers', 'content_length'],
    ]) {
      expect(present(edge, ...path), path.join('.')).toBe(true);
    }
    // The search is the query string of the url, as the gateway logs it.
    expect(
      edge.every((event) =>
        String(field(event.metadata, 'request', 'url')).endsWith(
          `${field(event.metadata, 'request', 'path')}${field(event.metadata, 'request', 'search')}`,
        ),
      ),
    ).toBe(true);
    const cacheStatuses = new Set(
      edge.map((event) => field(event.metadata, 'response', 'headers', 'cf_cache_status')),
    );
    expect(cacheStatuses).toEqual(new Set(['HIT', 'MISS', 'DYNAMIC']));

    const postgres = eventsOf('postgres.logs');
    expect(present(postgres, 'parsed', 'sql_state_code')).toBe(true);
    const states = new Map(
      postgres.map((event) => [
        field(event.metadata, 'parsed', 'error_severity'),
        field(event.metadata, 'parsed', 'sql_state_code'),
      ]),
    );
    expect(states.get('LOG')).toBe('00000');
    expect(postgres.some((event) => field(event.metadata, 'parsed', 'sql_state_code') === '23505')).toBe(
      true,
    );

    const relay = eventsOf('deno-relay-logs');
    expect(present(relay, 'response', 'headers', 'x_sb_edge_region')).toBe(true);
    const auth = eventsOf('gotrue.logs.prod');
    const actions = new Set(
      auth.map((event) => field(JSON.parse(event.event_message), 'auth_event', 'action')),
    );
    expect(actions).toEqual(new Set([undefined, 'login', 'user_signedup']));
  });

  it('takes its projects and volume from the options', () => {
    const custom = generateDemoLogs({ now, projects: ['solo'], scale: 0.1 });
    const events = [...custom.values()].flat();
    expect(new Set(events.map(projectOf))).toEqual(new Set(['solo']));
    expect(events.length).toBeGreaterThan(200);
    expect(events.length).toBeLessThan(2_000);
  });
});

describe('generateDemoLogs over a range (after, now]', () => {
  const [HOUR_MS, DAY_MS] = [HOUR_US / 1000, DAY_US / 1000];
  type Timed = { id: string; ms: number };

  // Every event of every source with its instant, read once: the checks below filter them often.
  function timed(events: Map<string, DemoLogEvent[]>): Timed[] {
    return [...events.values()].flat().map((event) => ({ id: event.id, ms: micros(event.timestamp) / 1000 }));
  }

  function within(events: Timed[], fromMs: number, toMs: number): Timed[] {
    return events.filter((event) => event.ms > fromMs && event.ms <= toMs);
  }

  const ids = (events: Timed[]) => new Set(events.map((event) => event.id));

  it('gives exactly the events of a full run up to now that are later than after', () => {
    for (const gap of [30_000, 2 * HOUR_MS, 5 * DAY_MS]) {
      const after = new Date(now.getTime() - gap);
      const topUp = generateDemoLogs({ now, after });
      for (const source of logSources) {
        const expected = eventsOf(source.name).filter(
          (event) => micros(event.timestamp) > after.getTime() * 1000,
        );
        expect(JSON.stringify(topUp.get(source.name)), `${source.name} after ${gap} ms`).toBe(
          JSON.stringify(expected),
        );
      }
    }
  });

  it('keeps (a, b] then (b, c] in their ranges, fresh near c and about as dense as a fresh (a, c]', () => {
    const fresh = timed(logs);
    const c = now.getTime();
    const a = c - 3 * DAY_MS;
    // A restart two hours later, and one step of the periodic top-up.
    for (const [gap, most] of [
      [2 * HOUR_MS, 1.25],
      [30_000, 1.01],
    ] as const) {
      const b = c - gap;
      const seeded = timed(generateDemoLogs({ now: new Date(b) }));
      const toppedUp = timed(generateDemoLogs({ now: new Date(c), after: new Date(b) }));
      expect(within(seeded, b - 3 * DAY_MS, b)).toHaveLength(seeded.length);
      expect(within(toppedUp, b, c)).toHaveLength(toppedUp.length);
      // (b, c] holds the fresh seed's own events, so every window near c looks fresh.
      expect(ids(toppedUp)).toEqual(ids(within(fresh, b, c)));
      // Before b the seed is denser only where b was recent; every fresh event is there.
      const seededIds = ids(seeded);
      expect(within(fresh, a, b).every((event) => seededIds.has(event.id))).toBe(true);
      const ratio = (within(seeded, a, b).length + toppedUp.length) / fresh.length;
      expect(ratio, `gap ${gap} ms`).toBeGreaterThanOrEqual(1);
      expect(ratio, `gap ${gap} ms`).toBeLessThan(most);
      // Hours away from the recent part of b hold the fresh seed's events.
      for (const hours of [2, 6, 12, 30, 60]) {
        const [from, to] = [b - (hours + 1) * HOUR_MS, b - hours * HOUR_MS];
        expect(ids(within(seeded, from, to)), `${hours} h before b`).toEqual(ids(within(fresh, from, to)));
      }
    }
  });
});
