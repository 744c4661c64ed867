import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BigQuery } from '@google-cloud/bigquery';
import type { Logger } from 'pino';
import { loadOrCreateApiKey } from './api-key-file.js';
import { openBackend } from './backends/registry.js';
import type { Config } from './config.js';
import type { DemoSeedOutcome } from './demo/seed.js';
import { loadEndpointRegistry } from './endpoints/registry.js';
import { createServedEndpoints, type ReloadOutcome } from './endpoints/reload.js';
import { type Snapshot, snapshotOf } from './endpoints/snapshot.js';
import type { QueryEngine } from './engines/query-engine.js';
import { graphqlRoutes } from './graphql/graphql-routes.js';
import { createResponseReplay } from './graphql/response-replay.js';
import { schemaFor } from './graphql/schema.js';
import { createQuerygateYoga } from './graphql/yoga.js';
import { createApiKeyCheck } from './http/api-keys.js';
import { createHttpApp } from './http/app.js';
import { createLogger } from './logger.js';
import { openApiFor, openApiPath } from './openapi/document.js';
import { createClientAdmission } from './resolve/client-admission.js';
import { createFairEngine } from './resolve/fair-engine.js';
import { createResolver, type Resolver } from './resolve/resolver.js';
import { endpointRoutes } from './rest/endpoint-routes.js';
import { ingestRoutes } from './rest/ingest-routes.js';
import { loadSqlParser } from './sql/bigquery-ast.js';
import type { Timers } from './timers.js';

export interface Querygate {
  readonly server: Server;
  /** `http://host:port`, with the port actually bound (config port 0 picks a free one). */
  readonly url: string;
  readonly apiKeys: readonly string[];
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
  close(): Promise<void>;
}

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

/** Composes the store, the engine, the resolver layer and the faces, and starts listening. */
export async function startQuerygate(config: Config, options: StartOptions = {}): Promise<Querygate> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const now = options.now ?? (() => new Date());
  const apiKeys = config.apiKeys ?? [loadOrCreateApiKey(config.dataDir).key];
  await loadSqlParser();
  const registry = loadEndpointRegistry(config.queriesDir);

  // The store or warehouse, its engine and its log sink: whichever backend QUERYGATE_ENGINE names.
  const backend = await openBackend(config, {
    sources: registry.sources,
    tables: registry.tables,
    queries: registry.endpoints,
    now,
    timers: options.timers,
    logger,
    client: options.bigQueryClient,
  });
  const baseEngine = backend.engine;
  const { logs, demo, tables } = backend;
  // Whichever engine runs them, its calls are shared fairly between endpoints before they reach it.
  const fairEngine = createFairEngine(baseEngine, {
    engineCalls: config.engineCalls,
    callsPerEndpoint: config.endpointConnections,
    queuePerEndpoint: config.endpointQueue,
    timeoutMs: backend.timeoutMs,
  });
  const engine = options.wrapEngine ? options.wrapEngine(fairEngine) : fairEngine;
  await engine.ready();
  // One memory budget for everything cached: results with their encodings, and an eighth of it
  // for the GraphQL responses kept for replay.
  const replayBytes = Math.floor(config.cacheMaxBytes / 8);
  const resolver = createResolver({
    engine,
    now,
    ...(options.timers ? { timers: options.timers } : {}),
    maxCacheBytes: config.cacheMaxBytes - replayBytes,
    clientAdmission: createClientAdmission({
      maxRunsPerClient: config.clientEngineCalls,
      // One endpoint's calls hold no more of a client's turns than of the engine's calls.
      maxRunsPerClientEndpoint: config.endpointConnections,
      maxQueuedPerClient: config.clientQueue,
      // Node's timers, as the engine's deadlines use: a test's manual clock moves cache time only.
      maxWaitMs: config.queryTimeoutMs,
    }),
    onWarmError: (error, endpoint) =>
      logger.warn({ err: error, endpoint: endpoint.name }, 'cache warm run failed'),
  });
  const replay = createResponseReplay({ resolver, maxBytes: replayBytes });
  // The endpoints served, checked in full (shapes from the engine, the GraphQL schema, the
  // OpenAPI document) before use: every face is built from a snapshot before it serves.
  const check = (snapshot: Snapshot) => {
    schemaFor(snapshot);
    openApiFor(snapshot);
  };
  const initial = await snapshotOf(registry, config.queriesDir, engine);
  check(initial);
  const served = createServedEndpoints({
    initial,
    engine,
    logger,
    check,
    // Results (with their warm timers) and the engine's plans of changed or removed endpoints go;
    // the others stay. Kept GraphQL answers all go: any of them may show the old schema.
    onSwap: (next, gone) => {
      resolver.retain((endpoint) => !gone(endpoint));
      replay.clear();
      // The engine's plans of the old texts (requests still running on them keep theirs).
      baseEngine.retain?.(next.endpoints);
    },
  });
  const current = served.current;
  // One yoga over a schema factory: each operation gets the schema of the snapshot it began on.
  const yoga = createQuerygateYoga({
    snapshot: current,
    resolver,
    logger,
    maxBatch: config.graphqlMaxBatch,
    operationConcurrency: config.graphqlOperationConcurrency,
    // Node's timers, as the engine's deadlines use: a test's manual clock moves cache time only.
    operationTimeoutMs: config.queryTimeoutMs,
  });
  const app = await createHttpApp({
    logger,
    isAuthorised: createApiKeyCheck(apiKeys),
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
    maxConnections: config.maxConnections,
    maxBodyBytes: config.maxBodyBytes,
    corsOrigins: config.corsOrigins,
  });
  // One plugin per face: each owns its routes and how it reads bodies. A new face (or route)
  // is one more `app.register` here; the registry and yoga are read per request, so a reload
  // can swap them.
  app.get('/health', { config: { isPublic: () => true } }, async (_request, reply) =>
    reply.send({ status: 'ok', engine: engine.kind }),
  );
  // The OpenAPI document of the snapshot served, behind the key like the API it describes.
  app.get(openApiPath, async (_request, reply) => reply.send(openApiFor(current())));
  await app.register(endpointRoutes({ registry: current, resolver }));
  await app.register(
    ingestRoutes({
      logs,
      sources: registry.sources,
      tables: tables && { names: registry.tables.map((table) => table.name), sink: tables },
      maxBodyBytes: config.maxBodyBytes,
    }),
  );
  await app.register(
    graphqlRoutes({
      yoga,
      snapshot: current,
      replay,
      maxBodyBytes: config.maxBodyBytes,
    }),
  );
  await app.listen({ port: config.port, host: config.host });
  const server = app.server;
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    server,
    url: `http://${host}:${address.port}`,
    apiKeys,
    get registry() {
      return current();
    },
    reload: served.reload,
    watch: served.watch,
    engine,
    resolver,
    logger,
    demoEvents: demo && demo.atStart.kind !== 'not-demo' ? demo.atStart.written : 0,
    demo: demo?.atStart,
    async close() {
      served.close();
      await demo?.close();
      // Closing waits for every connection to end; kept-alive ones would hold it for seconds,
      // so they are closed at once (their requests' runs are abandoned below).
      const closed = app.close();
      server.closeAllConnections();
      await closed;
      await resolver.close();
      await engine.close();
      await backend.close();
    },
  };
}
