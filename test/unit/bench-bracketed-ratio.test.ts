import { describe, expect, it } from 'vitest';
import { bracketedRatio } from '../../bench/cached-load.js';

// The peer table's ratio: each round's figure over the floor loaded just before and just after
// it. Expected values here are worked out by hand from the made-up loads.
describe('bench: a ratio taken against the floor loads either side of each round', () => {
  it('recovers a constant ratio while the machine slows down over the run', () => {
    // The floor loses 10% a round; the target runs at 0.9 of the floor at its own moment, which
    // lies halfway (in time) between the floor's loads before and after it.
    const floor = [100, 90, 81, 72.9];
    const target = [0.9 * Math.sqrt(100 * 90), 0.9 * Math.sqrt(90 * 81), 0.9 * Math.sqrt(81 * 72.9)];
    expect(bracketedRatio(target, floor)).toBeCloseTo(0.9, 10);
    // A ratio of the two medians (81 over about 76.5) would report the drift as a gap: 0.94.
  });

  it('takes the median round, so one disturbed round does not move it', () => {
    const floor = [100, 100, 100, 100, 100, 100];
    const target = [95, 96, 40, 94, 97];
    expect(bracketedRatio(target, floor)).toBe(0.95);
  });

  it('refuses a floor without its closing load', () => {
    expect(() => bracketedRatio([1, 1], [1, 1])).toThrow(/one more/);
  });
});
