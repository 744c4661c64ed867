// The fake BigQuery as a process of its own, for querygate processes to share as replicas share
// BigQuery: `node --import tsx test/helpers/fake-bigquery-process.ts [--projects N] [--delay-ms MS]`.
// It prints `listening on <url>`; give that URL to querygate as QUERYGATE_BIGQUERY_API_ENDPOINT
// with QUERYGATE_BIGQUERY_EMULATOR=true, project `querygate-test` and dataset `logs`.
// `GET <url>/fake/jobs` answers `{"queryJobs": n}`, the query jobs run so far. SIGTERM stops it.
import { parseArgs } from 'node:util';
import { parseBigQueryEnvironment } from '../../src/backends/bigquery/config.js';
import { bigQueryNaming } from '../../src/backends/bigquery/engine.js';
import { readBigQueryUdfs } from '../../src/backends/bigquery/udfs.js';
import { queriesDir } from '../../src/paths.js';
import { loadSqlParser } from '../../src/sql/bigquery-ast.js';
import { startFakeBigQuery } from './fake-bigquery-server.js';
import { replicaProjects, testDataset, testProject } from './replica-fixture.js';
import { createScratchEngine } from './scratch-engine.js';
import { logSources } from './shipped-sources.js';

const { values } = parseArgs({
  options: { projects: { type: 'string', default: '8' }, 'delay-ms': { type: 'string', default: '0' } },
});
await loadSqlParser();
const store = await createScratchEngine(logSources);
// Project i of the fixture has i + 1 edge requests (replica-fixture.ts says so for the tests).
for (const [index, project] of replicaProjects(Number(values.projects)).entries()) {
  await store.duckdb(
    `INSERT INTO "cloudflare.logs.prod" (id, timestamp, event_message, project)
     SELECT '${project}-' || i, TIMESTAMP '2026-01-01' + i * INTERVAL 1 SECOND, 'GET /', '${project}'
     FROM range(${index + 1}) AS t(i)`,
  );
}
const config = parseBigQueryEnvironment({
  QUERYGATE_BIGQUERY_PROJECT: testProject,
  QUERYGATE_BIGQUERY_DATASET: testDataset,
});
const naming = bigQueryNaming(config, logSources, queriesDir);
const fake = await startFakeBigQuery({
  projectId: testProject,
  database: store.database,
  tables: naming.tables,
  routines: naming.routines,
  sources: logSources,
});
fake.queryDelayMs = Number(values['delay-ms']);
for (const udf of readBigQueryUdfs(queriesDir, config)) fake.routines.set(udf.qualifiedName, udf.ddl);
process.stdout.write(`listening on ${fake.url}\n`);
process.once('SIGTERM', () => {
  void fake
    .close()
    .then(() => store.close())
    .then(() => process.exit(0));
});
