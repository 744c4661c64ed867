import type { BigQuery } from '@google-cloud/bigquery';
import { queryableTable } from '../../endpoints/table-source.js';
import { queriesDir as shippedQueriesDir } from '../../paths.js';
import type { Backend } from '../backend.js';
import { registerBigQueryCommands } from './cli.js';
import { type BigQueryConfig, bigQueryEnvironmentSchema } from './config.js';
import { bigQueryNaming, createBigQueryClient, createBigQueryEngine } from './engine.js';
import { createBigQueryLogSink } from './log-sink.js';
import { qualifyForBigQuery } from './qualify.js';
import { createBigQueryTableSink } from './table-sink.js';

/** Its variables are parsed only with QUERYGATE_ENGINE=bigquery; without them it cannot open. */
function required(own: BigQueryConfig | undefined): BigQueryConfig {
  if (!own) throw new Error('QUERYGATE_ENGINE=bigquery needs the QUERYGATE_BIGQUERY_* variables');
  return own;
}

/**
 * The warehouse backend: the logs live in BigQuery tables (no local store, no demo data), the
 * saved SQL runs there as written but for its source and UDF names. The UDFs are querygate's own,
 * shipped beside its queries, whatever queries directory is served.
 */
export const bigqueryBackend: Backend<BigQueryConfig> = {
  title: 'BigQuery',
  engineCallsVariable: 'QUERYGATE_BIGQUERY_CONCURRENT_JOBS',
  checkedOn: 'BigQuery',
  environment: bigQueryEnvironmentSchema,

  async open({ own, sources, tables = [], queries, now, client }) {
    const config = required(own);
    const bigquery = (client as BigQuery | undefined) ?? createBigQueryClient(config);
    const engine = await createBigQueryEngine({
      config,
      queries,
      sources: [...sources, ...tables.map(queryableTable)],
      queriesDir: shippedQueriesDir,
      client: bigquery,
    });
    const logs = createBigQueryLogSink({ config, client: bigquery, sources, now });
    const tableRows = createBigQueryTableSink({ config, client: bigquery, sources, tables });
    return { engine, logs, tables: tableRows, timeoutMs: config.timeoutMs, close: async () => {} };
  },

  scratch: ({ own, sources, tables = [], client }) =>
    createBigQueryEngine({
      config: required(own),
      queries: [],
      sources: [...sources, ...tables.map(queryableTable)],
      queriesDir: shippedQueriesDir,
      ...(client ? { client: client as BigQuery } : {}),
    }),

  async querySession({ own, sources, tables = [] }) {
    const config = required(own);
    return {
      explain: async (sql) =>
        qualifyForBigQuery(
          sql,
          bigQueryNaming(config, [...sources, ...tables.map(queryableTable)], shippedQueriesDir),
        ).sql,
      engine: () =>
        createBigQueryEngine({
          config,
          queries: [],
          sources: [...sources, ...tables.map(queryableTable)],
          queriesDir: shippedQueriesDir,
        }),
      close: async () => {},
    };
  },

  commands: registerBigQueryCommands,
};
