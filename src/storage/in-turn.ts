/**
 * A queue of asynchronous steps run one at a time, in the order asked for: each step starts once
 * the one before it has settled, and a step's failure fails that step only. The store's writers
 * (log, table, journal, retention) each keep one, so their statements never interleave.
 */
export function stepsInTurn(): <T>(step: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return (step) => {
    const result = queue.then(step);
    queue = result.catch(() => undefined);
    return result;
  };
}
