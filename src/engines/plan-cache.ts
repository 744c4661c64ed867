import { planKey, type SavedQuery } from './query-engine.js';

/**
 * An engine's plans of saved queries (DuckDB's translations, BigQuery's qualified texts), keyed
 * by `planKey`, so a changed query is planned anew. It keeps the plans of the queries served
 * only: those given at start until `retain` says which (so a reload refused after describing its
 * texts leaves no plans of them). Without queries at start (scratch engines) it keeps every plan.
 */
export interface PlanCache<Plan> {
  get(query: SavedQuery): Plan | undefined;
  /** Keeps `plan` of `query` if the query is one retained; returns it either way. */
  keep(query: SavedQuery, plan: Plan): Plan;
  /** Whether plans under this key are kept (prepared statements follow it too). */
  isRetained(key: string): boolean;
  /** Keeps the plans of these queries only (see QueryEngine.retain). */
  retain(queries: readonly SavedQuery[]): void;
  readonly size: number;
}

/** The cache, holding a plan of each of `queries` made with `plan` (which throws for one that cannot run). */
export function createPlanCache<Plan>(
  queries: readonly SavedQuery[],
  plan: (query: SavedQuery) => Plan,
): PlanCache<Plan> {
  const plans = new Map(queries.map((query) => [planKey(query), plan(query)]));
  let retained: ReadonlySet<string> | undefined =
    queries.length > 0 ? new Set(queries.map(planKey)) : undefined;
  const isRetained = (key: string) => retained === undefined || retained.has(key);
  return {
    get: (query) => plans.get(planKey(query)),
    keep(query, made) {
      if (isRetained(planKey(query))) plans.set(planKey(query), made);
      return made;
    },
    isRetained,
    retain(kept) {
      retained = new Set(kept.map(planKey));
      for (const key of plans.keys()) if (!isRetained(key)) plans.delete(key);
    },
    get size() {
      return plans.size;
    },
  };
}
