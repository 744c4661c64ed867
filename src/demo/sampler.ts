import { type LogSource, readSources } from '../endpoints/sources.js';
import { queriesDir as shippedQueriesDir } from '../paths.js';
import { type DemoFunction, demoFunctions } from './catalog.js';
import type { DemoSource } from './demo-source.js';
import { edgeSources } from './edge-sources.js';
import { at, hash, ipAddress, type Rng, sfc32, uuid, type Weighted, weightedAt } from './random.js';
import { serviceSources } from './service-sources.js';

/**
 * Deterministic demo traffic for the nine log sources, shaped like Logflare's Supabase sources
 * and written as the JSON events the ingestion API accepts, so that a fresh store answers all
 * three saved queries for every interval and tier.
 *
 * Events are a function of their time: time is cut into minutes, and the candidates of a minute
 * (their instants and contents) depend only on the seed, the stream and the minute. How many of
 * them exist follows the traffic rate at their age before `now`, the higher rate keeping a
 * superset of the lower. So the events of `(after, now]` are exactly those a full run up to
 * `now` has there, and a store topped up range by range looks like a fresh seed near its `now`.
 */
export interface DemoLogsOptions {
  /** The instant the traffic leads up to: no event is later, and the rates follow the age before it. */
  now: Date;
  /**
   * Only events later than this instant: a top-up of traffic written up to it. The range never
   * reaches further back than `days` before `now`.
   * @default `days` before `now`
   */
  after?: Date;
  /**
   * Only events up to this instant (inclusive): a slice of the traffic leading up to `now`, for
   * writing much of it a slice at a time. @default now
   */
  until?: Date;
  /** How far back the traffic reaches. @default demoDays */
  days?: number;
  /** Projects that get traffic. @default demoProjects */
  projects?: readonly string[];
  /** Seed of the PRNG; the same options give the same events. @default 1 */
  seed?: number;
  /** Multiplies every volume. @default 1 (about 30,000 events for the demo projects over 3 days) */
  scale?: number;
}

export interface DemoLogEvent {
  /** UUID-shaped, drawn from the PRNG. */
  id: string;
  /** ISO 8601 UTC with microseconds, e.g. `2025-01-02T03:04:05.678901Z`. */
  timestamp: string;
  event_message: string;
  /** Set on the sources whose records carry a top-level `project` (`LogSource.hasProject`). */
  project?: string;
  metadata: Record<string, unknown>;
}

export const demoProjects: readonly string[] = ['default', 'acme-prod', 'acme-staging'];
/** How many days of traffic a fresh demo store gets. */
export const demoDays = 3;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/**
 * Upper ages of the bands. Traffic is densest near `now` so that the per-second buckets of
 * `functions.invocation-stats` (5min) and the per-minute ones of `usage.api-counts` (minutely) fill.
 */
const AGE_BANDS = [5 * MINUTE, HOUR, DAY, Number.POSITIVE_INFINITY] as const;
/** Bands from this one on follow {@link dailyCycle}; the last hour stays flat so its minutes fill evenly. */
const FIRST_CYCLING_BAND = 2;
/** The highest value of {@link dailyCycle}. */
const DAILY_CYCLE_PEAK = 1 / 0.6;
/** Candidates are drawn per slot of this length, aligned to the epoch. */
const SLOT = MINUTE;
/**
 * Steps of the sequences behind `choose`, one per call within an event: irrational and
 * independent of one another over the rationals, so that two choices of one event do not correlate.
 */
const CHOICE_STEPS = [(Math.sqrt(5) - 1) / 2, Math.SQRT2 - 1, Math.sqrt(3) - 1];
/** The state of a slot's own generator takes this where a candidate's takes its index. */
const SLOT_STATE = 0xffffffff;
/** Relative volume of the n-th project (cycled), so that projects differ as real ones do. */
const PROJECT_SCALES = [1, 1.5, 0.5];

const demoSources: Record<string, DemoSource> = { ...edgeSources, ...serviceSources };

/**
 * Demo events for every shipped source, keyed by source name, oldest first, in
 * `(after, now]`. The same options always give the same events.
 */
export function generateDemoLogs(options: DemoLogsOptions): Map<string, DemoLogEvent[]> {
  const { now, after, until, days = demoDays, projects = demoProjects, seed = 1, scale = 1 } = options;
  const nowMs = now.getTime();
  const fromMs = Math.max(nowMs - days * DAY, after?.getTime() ?? Number.NEGATIVE_INFINITY);
  const untilMs = Math.min(nowMs, until?.getTime() ?? nowMs);
  const result = new Map<string, DemoLogEvent[]>();
  // The demo is of the nine sources shipped in queries/sources.yaml, whatever directory is served.
  for (const source of readSources(shippedQueriesDir)) {
    const demo = demoSources[source.name];
    if (!demo) continue;
    const events: [us: number, event: DemoLogEvent][] = [];
    projects.forEach((project, p) => {
      // One stream per source and project, so that editing one table leaves the other sources alone.
      const stream: Stream = {
        source,
        demo,
        project,
        functions: demoFunctions(project),
        seed: hash(`${seed}/${source.name}/${project}`),
        volume: scale * at(PROJECT_SCALES, p % PROJECT_SCALES.length),
      };
      for (let slot = Math.floor(fromMs / SLOT); slot * SLOT <= untilMs; slot++) {
        drawSlot(stream, slot, { fromMs, untilMs, nowMs }, events);
      }
    });
    const inTimeOrder = events.sort(([a], [b]) => a - b).map(([, event]) => event);
    result.set(source.name, inTimeOrder);
  }
  return result;
}

interface Stream {
  readonly source: LogSource;
  readonly demo: DemoSource;
  readonly project: string;
  readonly functions: Weighted<DemoFunction>;
  readonly seed: number;
  /** Multiplies the rates of `demo`. */
  readonly volume: number;
}

/**
 * Appends the events of one slot that lie in `(fromMs, untilMs]`. Candidate `index` exists where
 * `index + offset` is below the expected count of the whole slot at the rate of its own instant:
 * on average the rate, and a higher rate keeps every candidate a lower one keeps.
 */
function drawSlot(
  stream: Stream,
  slot: number,
  { fromMs, untilMs, nowMs }: { fromMs: number; untilMs: number; nowMs: number },
  events: [us: number, event: DemoLogEvent][],
): void {
  const { source, demo, project, functions, volume } = stream;
  const startMs = slot * SLOT;
  const perSlot = (volume * SLOT) / HOUR;
  const bound = peakRate(demo.rates, nowMs - startMs - SLOT, nowMs - startMs) * perSlot;
  const slotRng = sfc32(stream.seed, slot, SLOT_STATE);
  const offset = slotRng();
  if (offset >= bound) return;
  const phases = CHOICE_STEPS.map(() => slotRng());
  const [fromUs, untilUs] = [fromMs * 1000, untilMs * 1000];
  for (let index = 0; index + offset < bound; index++) {
    const rng = sfc32(stream.seed, slot, index);
    const us = startMs * 1000 + Math.floor(rng() * SLOT * 1000);
    if (us <= fromUs || us > untilUs) continue;
    const ms = us / 1000;
    if (index + offset >= rateAt(demo.rates, nowMs - ms, ms) * perSlot) continue;
    let calls = 0;
    const choose = <T>(table: Weighted<T>): T => {
      const [step, phase] = [CHOICE_STEPS[calls], phases[calls]];
      calls += 1;
      return weightedAt(
        table,
        step === undefined || phase === undefined ? rng() : (phase + index * step) % 1,
      );
    };
    const fill = (template: string) => fillTemplate(template, rng, project);
    const timestamp = isoMicros(us);
    const { event_message, metadata } = demo.build({ rng, project, functions, timestamp, fill, choose });
    const top = source.hasProject ? { project } : {};
    events.push([us, { id: uuid(rng), timestamp, event_message, ...top, metadata }]);
  }
}

/** Events per hour per unit of volume at an instant `ageMs` before now. */
function rateAt(rates: DemoSource['rates'], ageMs: number, atMs: number): number {
  const band = AGE_BANDS.findIndex((upTo) => ageMs < upTo);
  const rate = at(rates, band);
  return band < FIRST_CYCLING_BAND ? rate : rate * dailyCycle(atMs);
}

/** The highest rate over the ages from `youngestMs` to `oldestMs`: the bound candidates are drawn to. */
function peakRate(rates: DemoSource['rates'], youngestMs: number, oldestMs: number): number {
  let peak = 0;
  AGE_BANDS.forEach((upTo, band) => {
    const lower = band === 0 ? Number.NEGATIVE_INFINITY : at(AGE_BANDS, band - 1);
    if (oldestMs < lower || youngestMs >= upTo) return;
    peak = Math.max(peak, at(rates, band) * (band < FIRST_CYCLING_BAND ? 1 : DAILY_CYCLE_PEAK));
  });
  return peak;
}

/** Relative traffic at an instant's hour of day: 1 on average, peak at 15:00 UTC, a fifth of it at 03:00. */
function dailyCycle(atMs: number): number {
  const hourOfDay = (((atMs % DAY) + DAY) % DAY) / HOUR;
  return (0.6 + 0.4 * Math.cos(((hourOfDay - 15) / 24) * 2 * Math.PI)) * DAILY_CYCLE_PEAK;
}

function fillTemplate(template: string, rng: Rng, project: string): string {
  return template
    .replaceAll('{project}', project)
    .replace(/\{ip\}/g, () => ipAddress(rng))
    .replace(/\{n\}/g, () => String(1 + Math.floor(rng() * 999)));
}

function isoMicros(us: number): string {
  const millis = new Date(Math.floor(us / 1000)).toISOString().slice(0, -1);
  return `${millis}${String(us % 1000).padStart(3, '0')}Z`;
}
