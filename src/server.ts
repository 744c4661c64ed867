import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BigQuery } from '@google-cloud/bigquery';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { loadOrCreateApiKey } from './api-key-file.js';
import type { Config } from './config.js';
import type { DemoSeedOutcome } from './demo/seed.js';
import { type EndpointRegistry, loadEndpointRegistry } from './endpoints/registry.js';
import type { ReloadOutcome } from './endpoints/reload.js';
import type { Snapshot } from './endpoints/snapshot.js';
import { createSnapshotSwaps } from './endpoints/snapshot-swaps.js';
import type { QueryEngine } from './engines/query-engine.js';
import { graphqlFace } from './graphql/graphql-face.js';
import { createKeyScopeCheck } from './http/api-keys.js';
import { createHttpApp } from './http/app.js';
import { healthRoute } from './http/health-route.js';
import { createTokenVerifier } from './http/signed-tokens.js';
import { createLogger } from './logger.js';
import { openApiRoute } from './openapi/openapi-route.js';
import { backendPlugin } from './plugins/backend-plugin.js';
import { metricsPlugin } from './plugins/metrics-plugin.js';
import { resolverPlugin } from './plugins/resolver-plugin.js';
import { servedEndpointsPlugin } from './plugins/served-endpoints-plugin.js';
import { splitCacheBudget } from './resolve/cache-budget.js';
import { dropResultsOnReplace } from './resolve/replaced-tables.js';
import type { Resolver } from './resolve/resolver.js';
import { endpointRoutes } from './rest/endpoint-routes.js';
import { ingestRoutes } from './rest/ingest-routes.js';
import { metricsRoutes } from './rest/metrics-routes.js';
import { storeImportRoute } from './rest/store-import-route.js';
import { storeQueryRoute } from './rest/store-query-route.js';
import { importStagingDir, removeServerFile, writeServerFile } from './server-file.js';
import { loadSqlParser } from './sql/bigquery-ast.js';
import type { Timers } from './timers.js';

export interface Querygate {
  readonly server: Server;
  /** `http://host:port`, with the port actually bound (config port 0 picks a free one). */
  readonly url: string;
  readonly apiKeys: readonly string[];
  /**
   * Where the key came from: QUERYGATE_API_KEYS, or the key file in the data dir (`created` on
   * the start that generated it). The welcome text names it rather than printing the key.
   */
  readonly keyOrigin: KeyOrigin;
  /** The endpoints served right now. */
  readonly registry: Snapshot;
  /** Loads the queries directory again; the old set keeps serving unless the new one passes every check. */
  reload(): Promise<ReloadOutcome>;
  /** Reloads on every change in the queries directory (`serve --watch`). */
  watch(): void;
  readonly engine: QueryEngine;
  /** The resolver layer both faces share (its counters feed metrics). */
  readonly resolver: Resolver;
  readonly logger: Logger;
  /** How many demo events were written at start (0 when the store holds other data or demo is off). */
  readonly demoEvents: number;
  /** What the start did with demo traffic; undefined when demo is off or the engine is BigQuery. */
  readonly demo: DemoSeedOutcome | undefined;
  /**
   * Stops accepting, closes idle connections and lets requests under way finish for up to
   * `graceMs` (0: cut them at once, as tests want), then closes the store, which lets queued writes
   * commit and checkpoints.
   */
  close(options?: { readonly graceMs?: number }): Promise<void>;
}

export type KeyOrigin =
  | { readonly kind: 'environment' }
  | { readonly kind: 'file'; readonly file: string; readonly created: boolean };

export interface StartOptions {
  /** The clock for `CURRENT_TIMESTAMP()` and caching; tests fix it. @default () => new Date() */
  readonly now?: () => Date;
  /** The timers cache warming waits with; tests pass manual ones with `now`. @default Node's */
  readonly timers?: Timers;
  /** Wraps the engine (tests count the calls that reach it). */
  readonly wrapEngine?: (engine: QueryEngine) => QueryEngine;
  readonly logger?: Logger;
  /** The BigQuery client when engine is 'bigquery'; tests point one at the fake. @default from config */
  readonly bigQueryClient?: BigQuery;
}

/**
 * Composes querygate as Fastify plugins registered in order, each closing itself in `onClose`
 * (Fastify closes them last-registered first): the metrics every part counts into, the backend
 * (store, engine, log sink and demo traffic), the resolver layer, the endpoints served, then the
 * faces. Then it listens.
 */
export async function startQuerygate(config: Config, options: StartOptions = {}): Promise<Querygate> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const now = options.now ?? (() => new Date());
  for (const warning of config.warnings) logger.warn(warning);
  const generated = config.apiKeys === undefined ? loadOrCreateApiKey(config.dataDir) : undefined;
  const apiKeys = generated ? [generated.key] : (config.apiKeys ?? []);
  const keyOrigin: KeyOrigin = generated
    ? { kind: 'file', file: generated.file, created: generated.created }
    : { kind: 'environment' };
  await loadSqlParser();
  // A refused endpoint is reported and the others serve, unless strict (then any refusal stops).
  const registry = loadEndpointRegistry(config.queriesDir, {
    refusals: config.strict ? 'strict' : 'partial',
  });
  const app = await createHttpApp({
    logger,
    keyScope: createKeyScopeCheck({ all: apiKeys, ingest: config.ingestKeys }),
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
    maxConnections: config.maxConnections,
    maxBodyBytes: config.maxBodyBytes,
    corsOrigins: config.corsOrigins,
    tokens: config.signedTokens && createTokenVerifier(config.signedTokens),
  });
  try {
    await registerParts(app, config, options, { logger, now, registry });
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // The parts registered so far close themselves (the store above all).
    await app.close();
    throw error;
  }
  const handle = handleOf(app, apiKeys, keyOrigin);
  // Where `querygate query` and `import` find this server while it holds the store.
  if (config.engine === 'duckdb') writeServerFile(config.dataDir, handle.url);
  return handle;
}

async function registerParts(
  app: FastifyInstance,
  config: Config,
  options: StartOptions,
  { logger, now, registry }: { logger: Logger; now: () => Date; registry: EndpointRegistry },
): Promise<void> {
  const { queriesDir } = config;
  app.decorate('swaps', createSnapshotSwaps());
  await app.register(metricsPlugin);
  await app.register(backendPlugin, {
    config,
    logger,
    now,
    registry,
    timers: options.timers,
    wrapEngine: options.wrapEngine,
    client: options.bigQueryClient,
  });
  // The resolver reads the system clock itself unless a test set one: a cached hit asks for the time.
  await app.register(resolverPlugin, { config, logger, now: options.now, timers: options.timers });
  await app.register(servedEndpointsPlugin, {
    registry,
    queriesDir,
    logger,
    refusals: config.strict ? 'strict' : 'partial',
  });
  // The faces, one plugin each, owning their routes and how they read bodies. The snapshot is
  // read per request, so a reload swaps what they serve.
  const { resolver, served, metrics } = app;
  // Rows replaced or loaded in bulk drop the cached results of the endpoints reading them.
  const tableRows = app.tableRows && dropResultsOnReplace(app.tableRows, resolver, registry.tables);
  await app.register(
    healthRoute({
      engine: app.engine.kind,
      snapshot: served.current,
      conditions: [served.refusedReload, app.sharedResults.condition],
      store: app.storeState,
    }),
  );
  await app.register(openApiRoute({ snapshot: served.current }));
  await app.register(endpointRoutes({ registry: served.current, resolver, metrics }));
  await app.register(
    ingestRoutes({
      logs: app.logs,
      sources: registry.sources,
      tableSources: registry.tables,
      tables: tableRows && { names: registry.tables.map((table) => table.name), sink: tableRows },
      maxBodyBytes: config.maxBodyBytes,
      maxInFlightBytes: config.maxIngestInFlightBytes,
      metrics,
    }),
  );
  await app.register(
    graphqlFace({
      snapshot: served.current,
      swaps: app.swaps,
      resolver,
      metrics,
      logger,
      maxBodyBytes: config.maxBodyBytes,
      replayBytes: splitCacheBudget(config.cacheMaxBytes).replay,
      maxBatch: config.graphqlMaxBatch,
      operationConcurrency: config.graphqlOperationConcurrency,
      operationTimeoutMs: config.queryTimeoutMs,
    }),
  );
  await app.register(metricsRoutes(metrics));
  if (config.engine === 'duckdb') {
    // `querygate query` while this server holds the DuckDB file (BigQuery's commands need no server).
    await app.register(storeQueryRoute({ engine: app.engine, maxBodyBytes: config.maxBodyBytes }));
    // `querygate import` of a table source's files while this server holds the DuckDB file.
    if (tableRows)
      await app.register(
        storeImportRoute({
          tables: tableRows,
          stagingDir: importStagingDir(config.dataDir),
          maxBodyBytes: config.maxBodyBytes,
        }),
      );
    // Registered once the store is this server's (its lock held), so a start that failed to get
    // the lock never removes the file of the server that has it.
    app.addHook('onClose', async () => removeServerFile(config.dataDir));
  }
}

/** What tests and the CLI hold of a started server. */
function handleOf(app: FastifyInstance, apiKeys: readonly string[], keyOrigin: KeyOrigin): Querygate {
  const { server, served } = app;
  const demo = app.demoTraffic.atStart;
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${host}:${address.port}`,
    apiKeys,
    keyOrigin,
    get registry() {
      return served.current();
    },
    reload: served.reload,
    watch: served.watch,
    engine: app.engine,
    resolver: app.resolver,
    logger: app.log as Logger,
    demoEvents: demo && demo.kind !== 'not-demo' ? demo.written : 0,
    demo,
    async close({ graceMs = 0 } = {}) {
      // Closing waits for every connection to end. Fastify closes the idle kept-alive ones; one
      // whose request finishes during the grace goes idle and is closed on the next tick of the
      // interval; what is still under way at its end is cut (its run abandoned as the resolver
      // closes). The store closes after the server: what was acknowledged is committed.
      const closed = app.close();
      const sweep = setInterval(() => server.closeIdleConnections(), 100);
      const cut = setTimeout(() => server.closeAllConnections(), graceMs);
      try {
        await closed;
      } finally {
        clearInterval(sweep);
        clearTimeout(cut);
      }
    },
  };
}
