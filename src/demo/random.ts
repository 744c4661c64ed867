/**
 * The seeded randomness the demo generator draws from: small PRNGs, weighted tables and the
 * shapes of random values (ids, addresses, durations). Nothing here reads a clock or global state,
 * so the same seed always gives the same values.
 */

export type Rng = () => number;
/** Rows of a table with their relative frequency first. */
export type Weighted<T> = readonly (readonly [weight: number, value: T])[];

/** Log-normal around `median` (a long right tail), as a positive integer. */
export function skewed(rng: Rng, median: number): number {
  const normal = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  return Math.max(1, Math.round(median * Math.exp(0.6 * normal)));
}

/** From the documentation ranges of RFC 5737: realistic, and nobody's real address. */
export function ipAddress(rng: Rng): string {
  return `${pick(rng, ['192.0.2', '198.51.100', '203.0.113'])}.${1 + Math.floor(rng() * 254)}`;
}

/** Shaped like a version 4 UUID. */
export function uuid(rng: Rng): string {
  const [h, variant] = [randomHex(rng, 16), '89ab'.charAt(Math.floor(rng() * 4))];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20)}`;
}

export const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

export function randomHex(rng: Rng, bytes: number): string {
  let hex = '';
  for (let i = 0; i < bytes; i++) hex += at(HEX_BYTES, Math.floor(rng() * 256));
  return hex;
}

/** A weighted table from `{ value: weight }`; numeric keys come back as numbers. */
export function weights<K extends string | number>(table: Record<K, number>): Weighted<K> {
  return Object.entries<number>(table).map(([key, weight]) => [
    weight,
    (/^\d+$/.test(key) ? Number(key) : key) as K,
  ]);
}

/** The row of `table` at `fraction` (0 to 1) of its cumulative weight. */
export function weightedAt<T>(table: Weighted<T>, fraction: number): T {
  let r = fraction * table.reduce((sum, [weight]) => sum + weight, 0);
  for (const [weight, value] of table) {
    r -= weight;
    if (r < 0) return value;
  }
  return at(table, table.length - 1)[1];
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return at(items, Math.floor(rng() * items.length));
}

export function at<T>(items: readonly T[], index: number): T {
  return items[index] as T;
}

/** FNV-1a, to seed one PRNG stream per source and project. */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * sfc32 (Chris Doty-Humphrey's small fast counting generator) over three 32-bit words: 96 bits
 * of key, so that every stream, slot and candidate has a sequence of its own (a 32-bit seed per
 * candidate would repeat ids among a few tens of thousands of events). The step is a bijection,
 * so distinct keys never merge; the first outputs are skipped because they mix the key poorly.
 */
export function sfc32(a: number, b: number, c: number): Rng {
  let x = a | 0;
  let y = b | 0;
  let z = c | 0;
  let counter = 1;
  const next = () => {
    const t = (((x + y) | 0) + counter) | 0;
    counter = (counter + 1) | 0;
    x = y ^ (y >>> 9);
    y = (z + (z << 3)) | 0;
    z = (((z << 21) | (z >>> 11)) + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next();
  return next;
}

/** mulberry32: a tiny, fast 32-bit PRNG; plenty for demo data, no dependency. */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
