import { ratio, type Timing, timeRuns } from './stats.js';

/** One REST call the fairness measure makes, always past the cache (`no-cache`). */
export interface FairnessCall {
  readonly label: string;
  readonly url: string;
}

export interface FairnessResult {
  readonly slow: string;
  readonly cheap: string;
  readonly slowCallers: number;
  /** The cheap call alone. */
  readonly quietMs: Timing;
  /** The same call while `slowCallers` clients keep calling the slow endpoint. */
  readonly loadedMs: Timing;
  /** loaded median / quiet median: 1 is perfect isolation. */
  readonly ratio: number;
  /** How the slow calls were answered meanwhile, by status. */
  readonly slowStatuses: Record<string, number>;
}

/**
 * The latency of a cheap call of one endpoint while many clients keep calling a slow endpoint,
 * beside its quiet latency. Each slow client calls again as soon as it has an answer; told 503 or
 * 429 it waits the Retry-After it was given, as a well-behaved client would.
 */
export async function measureFairness(
  apiKey: string,
  calls: { slow: FairnessCall; cheap: FairnessCall },
  options: { slowCallers: number; repeat: number },
): Promise<FairnessResult> {
  const headers = { 'x-api-key': apiKey, 'cache-control': 'no-cache' };
  const callOnce = async (url: string) => {
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    return response;
  };
  const cheapCall = async () => {
    const response = await callOnce(calls.cheap.url);
    if (response.status !== 200) throw new Error(`${calls.cheap.url} answered ${response.status}`);
  };
  const quietMs = await timeRuns(2, options.repeat, cheapCall);

  const slowStatuses: Record<string, number> = {};
  let loading = true;
  const slowClient = async () => {
    while (loading) {
      const response = await callOnce(calls.slow.url);
      slowStatuses[response.status] = (slowStatuses[response.status] ?? 0) + 1;
      if (response.status === 503 || response.status === 429) {
        const seconds = Number(response.headers.get('retry-after') ?? 1);
        await new Promise((resolve) => setTimeout(resolve, 1000 * Math.min(Math.max(seconds, 0.1), 5)));
      }
    }
  };
  const clients = Array.from({ length: options.slowCallers }, slowClient);
  // Let every slow client get its first call in before timing.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const loadedMs = await timeRuns(0, options.repeat, cheapCall);
  loading = false;
  await Promise.all(clients);

  return {
    slow: calls.slow.label,
    cheap: calls.cheap.label,
    slowCallers: options.slowCallers,
    quietMs,
    loadedMs,
    ratio: ratio(loadedMs.medianMs, quietMs.medianMs),
    slowStatuses,
  };
}
