/**
 * One memory budget for everything cached: results with their encodings, and an eighth of it for
 * the GraphQL responses kept for replay.
 */
export function splitCacheBudget(maxBytes: number): { readonly results: number; readonly replay: number } {
  const replay = Math.floor(maxBytes / 8);
  return { results: maxBytes - replay, replay };
}
