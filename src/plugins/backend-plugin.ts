import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { StoreState } from '../backends/backend.js';
import { openBackend } from '../backends/registry.js';
import type { Config } from '../config.js';
import type { DemoSeedOutcome } from '../demo/seed.js';
import type { LogSink } from '../endpoints/log-record.js';
import type { EndpointRegistry } from '../endpoints/registry.js';
import type { TableSink, TableSource } from '../endpoints/table-source.js';
import type { QueryEngine } from '../engines/query-engine.js';
import { createFairEngine } from '../resolve/fair-engine.js';
import type { Timers } from '../timers.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The engine every endpoint runs on (wrapped by `StartOptions.wrapEngine` when given). */
    readonly engine: QueryEngine;
    /** Where ingested log events go. */
    readonly logs: LogSink;
    /** Where rows posted to table sources go; undefined where the warehouse holds them. */
    readonly tableRows: TableSink | undefined;
    /** What the start did with demo traffic; `atStart` undefined when the backend keeps none. */
    readonly demoTraffic: { readonly atStart: DemoSeedOutcome | undefined };
    /** Bytes the store takes on disk now; undefined where the backend keeps none (BigQuery). */
    readonly storeBytes: () => number | undefined;
    /** Whether the store can serve now; always so where the backend keeps none (BigQuery). */
    readonly storeState: () => StoreState;
    /** The backend's migration of table sources whose columns changed (OpenBackend.migrateTables). */
    readonly migrateTables: ((tables: readonly TableSource[]) => Promise<string[]>) | undefined;
  }
}

export interface BackendPluginOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly timers?: Timers | undefined;
  /** The registry loaded at start: its sources make the store's tables and the engine's views. */
  readonly registry: EndpointRegistry;
  readonly wrapEngine?: ((engine: QueryEngine) => QueryEngine) | undefined;
  /** A client made for the backend (tests point BigQuery's at the fake). @default its own */
  readonly client?: unknown;
}

/**
 * Whichever backend QUERYGATE_ENGINE names (see `backends/registry.ts`): its store, engine, log
 * sink and demo traffic, with the engine's calls shared fairly between endpoints. Closes the demo
 * traffic, then the engine, then the store. Keeps the engine's plans to the endpoints a reload serves.
 */
export const backendPlugin = fp<BackendPluginOptions>(
  async (app, options) => {
    const { config, registry } = options;
    const backend = await openBackend(config, {
      sources: registry.sources,
      tables: registry.tables,
      // Strict: the engine translates every query at start, and one that cannot run stops it.
      // Else each is checked on its own when the snapshot describes it, and a refused one is
      // reported (served-endpoints-plugin.ts).
      queries: config.strict ? registry.endpoints : [],
      now: options.now,
      timers: options.timers,
      logger: options.logger,
      client: options.client,
    });
    // onClose hooks of one plugin run last-added first: demo, then the engine, then the store.
    // Registered before anything below can fail, so a failed start still closes the store.
    app.addHook('onClose', () => backend.close());
    // Whichever engine runs them, its calls are shared fairly between endpoints before they reach it.
    const fairEngine = createFairEngine(backend.engine, {
      engineCalls: config.engineCalls,
      callsPerEndpoint: config.endpointConnections,
      queuePerEndpoint: config.endpointQueue,
      timeoutMs: backend.timeoutMs,
      adhoc: config.adhoc,
      onRan: (query, runMs, waitedMs) => app.metrics.endpoint(query.name).ran(runMs / 1000, waitedMs / 1000),
    });
    const engine = options.wrapEngine ? options.wrapEngine(fairEngine) : fairEngine;
    app.addHook('onClose', () => engine.close());
    const { demo } = backend;
    if (demo) app.addHook('onClose', () => demo.close());
    await engine.ready();
    // The engine's plans of the old texts go (requests still running on them keep theirs).
    app.swaps.subscribe((next) => backend.engine.retain?.(next.endpoints));
    app.decorate('engine', engine);
    app.decorate('logs', backend.logs);
    app.decorate('tableRows', backend.tables);
    app.decorate('demoTraffic', { atStart: demo?.atStart });
    app.decorate('storeBytes', () => backend.storeBytes?.());
    app.decorate('storeState', () => backend.storeState?.() ?? { ok: true });
    app.decorate('migrateTables', backend.migrateTables?.bind(backend));
  },
  { name: 'querygate-backend', dependencies: ['querygate-metrics'] },
);
