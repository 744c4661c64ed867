import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readSources } from '../../src/endpoints/sources.js';
import { expiredBefore, retentionPolicy } from '../../src/storage/retention-policy.js';
import { shippedSourcesWith } from '../helpers/edited-sources.js';

/** `retentionDays` in sources.yaml, as Logflare's source TTL, and the cutoff it gives. */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The shipped sources.yaml with `line` added to its first source (cloudflare.logs.prod). */
function sourcesWith(line: string): string {
  return shippedSourcesWith(line, dirs);
}

describe('retentionDays of a source', () => {
  it('overrides the default for that source only', () => {
    const sources = readSources(sourcesWith('retentionDays: 7'));
    const policy = retentionPolicy(30);
    const edge = sources.find((source) => source.name === 'cloudflare.logs.prod');
    const postgres = sources.find((source) => source.name === 'postgres.logs');
    if (!edge || !postgres) throw new Error('shipped sources missing');
    expect(policy.days(edge)).toBe(7);
    expect(policy.days(postgres)).toBe(30);
    const now = new Date('2026-03-10T12:00:00Z');
    // 7 days before now, in microseconds since the epoch.
    expect(expiredBefore(policy, edge, now)).toBe(BigInt(Date.parse('2026-03-03T12:00:00Z')) * 1000n);
    expect(expiredBefore(retentionPolicy(0), postgres, now)).toBeUndefined();
  });

  it.each(['retentionDays: 0', 'retentionDays: 1.5', 'retentionDays: "a week"'])(
    'refuses %s at load, naming the field',
    (line) => {
      expect(() => readSources(sourcesWith(line))).toThrow(/retentionDays/);
    },
  );
});
