import type { BigQuery, Job } from '@google-cloud/bigquery';
import type { ParameterContract } from '../../endpoints/contract.js';
import { type EndpointRegistry, loadEndpointRegistry } from '../../endpoints/registry.js';
import { readSources } from '../../endpoints/sources.js';
import { queryableTable } from '../../endpoints/table-source.js';
import type { ParameterValues } from '../../engines/query-engine.js';
import { queriesDir as defaultQueriesDir } from '../../paths.js';
import { type BigQueryConfig, bigQueryTables, tableParts } from './config.js';
import { bigQueryNaming, createBigQueryClient, queryJobRequest } from './engine.js';
import { bigQueryMessage, bigQueryReason, bigQueryStatus, toQuerygateError } from './errors.js';
import { qualifyForBigQuery } from './qualify.js';
import { sourceTableDdl, sourceTableDescription, sourceTableSchema } from './tables.js';
import { readBigQueryUdfs } from './udfs.js';

/** What both `querygate bigquery` commands take. */
export interface BigQueryCommandOptions {
  readonly config: BigQueryConfig;
  /**
   * The served queries directory: its endpoints and its `sources.yaml` (the UDFs always come
   * from the package's own queries/). @default the package's queries/
   */
  readonly queriesDir?: string;
  /** @default createBigQueryClient(config), with application-default credentials */
  readonly client?: BigQuery;
  /** Where lines of output go. @default process.stdout */
  readonly print?: (line: string) => void;
}

export interface BigQuerySetupOptions extends BigQueryCommandOptions {
  /** Print the DDL instead of running it (`--print`); nothing is sent to BigQuery. */
  readonly printOnly?: boolean;
  /** Also create the queries directory's source tables, partitioned by day on `timestamp` (`--tables`). */
  readonly tables?: boolean;
}

const writeLine = (line: string) => {
  process.stdout.write(`${line}\n`);
};

/**
 * `querygate bigquery setup [--print] [--tables]`: creates the UDFs in the configured dataset
 * (`CREATE OR REPLACE FUNCTION`, so running it again is harmless) and, with `--tables`, every
 * source's table that does not exist yet (an existing table is left as it is). With `--print`
 * it prints the DDL instead. The dataset itself must exist.
 */
export async function runBigQuerySetup(options: BigQuerySetupOptions): Promise<void> {
  const { config } = options;
  const print = options.print ?? writeLine;
  const queriesDir = options.queriesDir ?? defaultQueriesDir;
  // The UDFs are querygate's own, shipped beside its queries, whichever directory is served.
  const udfs = readBigQueryUdfs(defaultQueriesDir, config);
  // The directory's sources.yaml says which sources exist; a mapping of any other is refused here.
  const sources = readSources(queriesDir);
  const qualifiedOf = bigQueryTables(config, sources);
  const tables = options.tables
    ? sources.map((source) => ({ source, qualified: qualifiedOf[source.name] as string }))
    : [];
  if (options.printOnly) {
    for (const udf of udfs) print(`${udf.ddl.trim()}\n`);
    for (const { source, qualified } of tables) print(`${sourceTableDdl(source, qualified)}\n`);
    return;
  }
  const client = options.client ?? createBigQueryClient(config);
  for (const udf of udfs) {
    try {
      const [job] = await client.createQueryJob({
        query: udf.ddl,
        useLegacySql: false,
        labels: { querygate_setup: 'udf' },
        ...(config.location ? { location: config.location } : {}),
      });
      await untilDone(job, config.timeoutMs);
    } catch (error) {
      throw setupError(error, `Creating the function ${udf.qualifiedName}`, config);
    }
    print(`Created function ${udf.qualifiedName}`);
  }
  for (const { source, qualified } of tables) {
    const [project, dataset, table] = tableParts(qualified);
    try {
      await client.dataset(dataset, { projectId: project }).createTable(table, {
        schema: { fields: sourceTableSchema(source) },
        timePartitioning: { type: 'DAY', field: 'timestamp' },
        description: sourceTableDescription(source),
      });
      print(`Created table ${qualified} for ${source.name} (partitioned by day on timestamp)`);
    } catch (error) {
      if (bigQueryStatus(error) === 409) {
        print(`Table ${qualified} for ${source.name} exists; left as it is`);
        continue;
      }
      throw setupError(error, `Creating the table ${qualified}`, config);
    }
  }
}

/**
 * Polls jobs.get until the (DDL) job is done; a failed job throws its error. A job still running
 * after `timeoutMs` (the job timeout queries get) is cancelled and throws: setup never hangs.
 */
async function untilDone(job: Job, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [metadata] = await job.getMetadata();
    const status = metadata?.status;
    if (status?.errorResult) {
      throw Object.assign(new Error(status.errorResult.message ?? 'the job failed'), {
        errors: [status.errorResult],
      });
    }
    if (status?.state === 'DONE') return;
    const left = deadline - Date.now();
    if (left <= 0) {
      await job.cancel().catch(() => undefined);
      const message = `job ${job.id} was still running after ${timeoutMs} ms (QUERYGATE_BIGQUERY_TIMEOUT_MS) and was cancelled`;
      throw Object.assign(new Error(message), { errors: [{ reason: 'timeout', message }] });
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(500, left)));
  }
}

function setupError(error: unknown, subject: string, config: BigQueryConfig): Error {
  if (bigQueryStatus(error) === 404 || bigQueryReason(error) === 'notFound') {
    return new Error(
      `${subject} failed: ${bigQueryMessage(error)}. Does the dataset exist? Create it with ` +
        `\`bq mk --dataset ${config.location ? `--location=${config.location} ` : ''}${config.projectId}:${config.dataset}\``,
    );
  }
  return new Error(toQuerygateError(error, { subject }).message);
}

export interface BigQueryCheckOptions extends BigQueryCommandOptions {
  /** @default the registry of queriesDir */
  readonly registry?: EndpointRegistry;
}

/** How one endpoint fared in a dry run. */
export interface EndpointCheck {
  readonly name: string;
  /** The values the dry run bound (see `representativeValues`). */
  readonly parameters: ParameterValues;
  readonly ok: boolean;
  /** Bytes the query would scan, when it compiles. */
  readonly bytes?: bigint;
  readonly message?: string;
}

/** What `check` binds a required parameter without declared values to. */
const checkPlaceholder = 'querygate-check';

/**
 * A value for each parameter as a call could bind it: its first declared value, else NULL when
 * it is optional and `checkPlaceholder` when it is required. So the dry run plans a query a call
 * could send, not the all-NULL one no call sends (a required parameter is never NULL).
 */
function representativeValues(parameters: readonly ParameterContract[]): ParameterValues {
  return Object.fromEntries(
    parameters.map((parameter) => [
      parameter.name,
      parameter.values?.[0] ?? (parameter.required ? checkPlaceholder : null),
    ]),
  );
}

/** `project="querygate-check", function_id=NULL` */
function describeValues(values: ParameterValues): string {
  return Object.entries(values)
    .map(([name, value]) => `${name}=${value === null ? 'NULL' : JSON.stringify(value)}`)
    .join(', ');
}

/**
 * `querygate bigquery check`: dry-runs every endpoint as it would run (qualified names, STRING
 * parameters with representative values, its maximumBytesBilled) and prints whether it compiles,
 * how many bytes it would scan and the values it bound, flagging an endpoint whose scan is over
 * its cap. Dry runs are free. Resolves to whether every endpoint compiles and fits its cap (the
 * CLI exits 1 otherwise).
 */
export async function runBigQueryCheck(
  options: BigQueryCheckOptions,
): Promise<{ ok: boolean; endpoints: EndpointCheck[] }> {
  const { config } = options;
  const print = options.print ?? writeLine;
  const queriesDir = options.queriesDir ?? defaultQueriesDir;
  const registry = options.registry ?? loadEndpointRegistry(queriesDir);
  const client = options.client ?? createBigQueryClient(config);
  const naming = bigQueryNaming(
    config,
    [...registry.sources, ...registry.tables.map(queryableTable)],
    defaultQueriesDir,
  );
  const results: EndpointCheck[] = [];
  for (const endpoint of registry.endpoints) {
    const qualified = qualifyForBigQuery(endpoint.sql, naming);
    const parameters = representativeValues(endpoint.parameters);
    const request = queryJobRequest(endpoint, qualified, parameters, config);
    try {
      const [, response] = await client.createQueryJob({ ...request, dryRun: true });
      const bytes = BigInt(response?.statistics?.totalBytesProcessed ?? '0');
      const cap = request.maximumBytesBilled;
      const overCap = cap !== undefined && bytes > BigInt(cap);
      results.push({
        name: endpoint.name,
        parameters,
        ok: !overCap,
        bytes,
        ...(overCap ? { message: `scans more than its cap of ${cap} bytes; calls would answer 400` } : {}),
      });
      print(
        overCap
          ? `✗ ${endpoint.name}: compiles, but would scan ${formatBytes(bytes)}, more than its cap of ${cap} bytes: calls would answer 400`
          : `✓ ${endpoint.name}: compiles, would scan ${formatBytes(bytes)}${cap ? ` (cap ${cap} bytes)` : ''}`,
      );
    } catch (error) {
      const { message } = toQuerygateError(error, { subject: endpoint.name });
      results.push({ name: endpoint.name, parameters, ok: false, message });
      print(`✗ ${message}`);
    }
    if (endpoint.parameters.length > 0) print(`  dry-run with ${describeValues(parameters)}`);
  }
  return { ok: results.every((result) => result.ok), endpoints: results };
}

/** `1048576` → `1.0 MiB (1048576 bytes)`. */
export function formatBytes(bytes: bigint): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = Number(bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]} (${bytes} bytes)`;
}
