import type { LogSource } from '../endpoints/sources.js';

/** How long each source keeps its records (see retention.ts for how they are deleted). */
export interface RetentionPolicy {
  /** Days a source keeps its records; undefined keeps them for ever. */
  days(source: LogSource): number | undefined;
}

const dayMicros = 86_400_000_000n;

/** `retentionDays` of the source, else `defaultDays` (0 or undefined: for ever). */
export function retentionPolicy(defaultDays: number | undefined): RetentionPolicy {
  return {
    days: (source) => {
      const days = source.retentionDays ?? defaultDays;
      return days && days > 0 ? days : undefined;
    },
  };
}

/** Microseconds since the epoch before which the source's records are expired at `now`. */
export function expiredBefore(policy: RetentionPolicy, source: LogSource, now: Date): bigint | undefined {
  const days = policy.days(source);
  return days === undefined ? undefined : BigInt(now.getTime()) * 1000n - BigInt(days) * dayMicros;
}
