import leven from 'leven';

/**
 * The name among `known` closest to `name` by edit distance, compared without case, `_` or `-`
 * (so `minAmountCents` and `min-amount-cents` both mean `min_amount_cents`), when it is close
 * enough to be a slip of the keyboard: at most a third of the name's letters apart, and at least
 * `leastDistance` (1; 2 lets a short name's two swapped letters through, `PROT` for `PORT`).
 * The first of equally close names wins. One rule for every "did you mean": parameters,
 * endpoints, sources, QUERYGATE_* variables.
 */
export function likelyMeant(
  name: string,
  known: Iterable<string>,
  { leastDistance = 1 }: { readonly leastDistance?: number } = {},
): string | undefined {
  const plain = (text: string) => text.toLowerCase().replace(/[-_]/g, '');
  const wanted = plain(name);
  const maxDistance = Math.max(leastDistance, Math.floor(wanted.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = leven(wanted, plain(candidate), { maxDistance: maxDistance + 1 });
    if (distance <= maxDistance && (best === undefined || distance < best.distance)) {
      best = { name: candidate, distance };
    }
  }
  return best?.name;
}

/** ` (did you mean X?)`, or nothing when no known name is close: to end a message with. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const meant = likelyMeant(name, known);
  return meant === undefined ? '' : ` (did you mean ${meant}?)`;
}
