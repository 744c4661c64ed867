import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { EndpointRegistry } from '../endpoints/registry.js';
import { createBigQueryClient, createBigQueryEngine } from '../engines/bigquery-engine.js';
import { createDuckDbEngine } from '../engines/duckdb-engine.js';
import type { QueryEngine } from '../engines/query-engine.js';
import { queriesDir } from '../paths.js';
import { createFairEngine } from '../resolve/fair-engine.js';
import type { LogSink } from '../rest/ingest-routes.js';
import { createBigQueryLogSink } from '../storage/bigquery-log-sink.js';
import { type Database, openDatabase } from '../storage/database.js';
import { createLogWriter, type LogWriter } from '../storage/log-writer.js';

/** The local store a DuckDB backend writes to (demo traffic takes the same path as ingestion). */
export interface LocalStore {
  readonly database: Database;
  readonly writer: LogWriter;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The engine every endpoint runs on (wrapped by `StartOptions.wrapEngine` when given). */
    readonly engine: QueryEngine;
    /** Where ingested log events go. */
    readonly logs: LogSink;
    /** The DuckDB store; undefined when the warehouse holds the logs. */
    readonly localStore: LocalStore | undefined;
  }
}

export interface BackendPluginOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly now: () => Date;
  /** The registry loaded at start: its sources make the store's tables and the engine's views. */
  readonly registry: EndpointRegistry;
  readonly wrapEngine?: ((engine: QueryEngine) => QueryEngine) | undefined;
  /** The BigQuery client when engine is 'bigquery'. @default from config */
  readonly bigQueryClient?: BigQuery | undefined;
}

/**
 * The store, the engine and the log sink of the configured backend; closes the engine, then the
 * store. Keeps the engine's plans to the endpoints a reload serves.
 */
export const backendPlugin = fp<BackendPluginOptions>(
  async (app, options) => {
    const { config, registry, now, logger } = options;
    let baseEngine: QueryEngine;
    let logs: LogSink;
    let localStore: LocalStore | undefined;
    if (config.engine === 'bigquery') {
      // The warehouse holds the logs: no local store, no demo data.
      if (!config.bigquery)
        throw new Error('QUERYGATE_ENGINE=bigquery needs the QUERYGATE_BIGQUERY_* variables');
      const client = options.bigQueryClient ?? createBigQueryClient(config.bigquery);
      baseEngine = await createBigQueryEngine({
        config: config.bigquery,
        queries: registry.endpoints,
        sources: registry.sources,
        queriesDir,
        client,
      });
      logs = createBigQueryLogSink({ config: config.bigquery, client, sources: registry.sources, now });
    } else {
      const database = await openDatabase(join(config.dataDir, 'querygate.duckdb'));
      const writer = createLogWriter(database, {
        now,
        schemaLimits: config.schemaLimits,
        log: logger,
        sources: registry.sources,
      });
      localStore = { database, writer };
      // Registered before anything below can fail, so a failed start still closes the store.
      app.addHook('onClose', async () => {
        await writer.close();
        database.close();
      });
      await writer.ready();
      baseEngine = await createDuckDbEngine({
        database,
        sources: registry.sources,
        queries: registry.endpoints,
        queriesDir,
        timeoutMs: config.queryTimeoutMs,
        connections: config.duckdbConnections,
      });
      logs = writer;
    }
    // Whichever engine runs them, its calls are shared fairly between endpoints before they reach it.
    const fairEngine = createFairEngine(baseEngine, {
      engineCalls: config.engineCalls,
      callsPerEndpoint: config.endpointConnections,
      queuePerEndpoint: config.endpointQueue,
      timeoutMs: config.bigquery?.timeoutMs ?? config.queryTimeoutMs,
    });
    const engine = options.wrapEngine ? options.wrapEngine(fairEngine) : fairEngine;
    // onClose hooks of one plugin run last-added first: the engine closes before the store.
    app.addHook('onClose', () => engine.close());
    await engine.ready();
    // The engine's plans of the old texts go (requests still running on them keep theirs).
    app.swaps.subscribe((next) => baseEngine.retain?.(next.endpoints));
    app.decorate('engine', engine);
    app.decorate('logs', logs);
    app.decorate('localStore', localStore);
  },
  { name: 'querygate-backend' },
);
