import type { DemoFunction } from './catalog.js';
import type { Rng, Weighted } from './random.js';

/** What a source's builder makes of one event: the rest (id, time, project) the sampler sets. */
export interface DemoEventBody {
  event_message: string;
  metadata: Record<string, unknown>;
}

/** What a builder draws one event from. */
export interface EventContext {
  readonly rng: Rng;
  readonly project: string;
  readonly functions: Weighted<DemoFunction>;
  readonly timestamp: string;
  /** Fills `{project}`, `{ip}` and `{n}` (a number from 1 to 999) in a message template. */
  readonly fill: (template: string) => string;
  /**
   * A weighted choice. The n-th call of the events of one minute follows a low-discrepancy
   * sequence, so that even a few minutes of traffic hold every row of some weight.
   */
  readonly choose: <T>(table: Weighted<T>) => T;
}

/** How one log source's demo traffic is made. */
export interface DemoSource {
  /** Events per hour per project in each of the sampler's age bands (up to 5 minutes, an hour, a day, older). */
  readonly rates: readonly [number, number, number, number];
  readonly build: (ctx: EventContext) => DemoEventBody;
}
