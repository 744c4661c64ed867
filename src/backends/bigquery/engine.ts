import { randomUUID } from 'node:crypto';
import { BigQuery, type BigQueryOptions, type Job, type Query } from '@google-cloud/bigquery';
import { type CallerFaultOf, callerSqlError } from '../../engines/caller-sql-errors.js';
import { startDeadline } from '../../engines/deadline.js';
import { parameterValueError, type ValueFaultOf } from '../../engines/parameter-value-errors.js';
import { createPlanCache } from '../../engines/plan-cache.js';
import type {
  EngineOptions,
  ParameterValues,
  QueryEngine,
  QueryResult,
  RunOptions,
  SavedQuery,
} from '../../engines/query-engine.js';
import { QuerygateError } from '../../errors.js';
import { systemTimers } from '../../timers.js';
import { type BigQueryConfig, type BigQuerySource, bigQueryTables } from './config.js';
import { bigQueryMessage, bigQueryReason, bigQueryStatus, toQuerygateError } from './errors.js';
import { type BigQueryNaming, type QualifiedQuery, qualifyForBigQuery } from './qualify.js';
import {
  decodeColumns,
  decodeWireRows,
  describeWireSchema,
  type RecordWire,
  type WireRow,
  type WireSchema,
} from './rows.js';
import { readBigQueryUdfs } from './udfs.js';

export interface BigQueryEngineOptions extends EngineOptions {
  readonly config: BigQueryConfig;
  /** The log sources of the served queries directory: each reads its table from `bigQueryTables`. */
  readonly sources: readonly BigQuerySource[];
  /** The client; tests point one at a fake server. @default createBigQueryClient(config) */
  readonly client?: BigQuery;
}

/**
 * Errors the client library retries by itself: transient server failures only. Rate limits are
 * not retried here but answered at once as 429, so the caller backs off instead of waiting on
 * a request that holds one of its connections open.
 */
function isTransient(error: unknown): boolean {
  const status = bigQueryStatus(error);
  if (status !== undefined && [408, 500, 502, 503, 504].includes(status)) return true;
  return bigQueryReason(error) === 'backendError';
}

/** A client for the configured project, with application-default credentials unless `overrides` say else. */
export function createBigQueryClient(config: BigQueryConfig, overrides: BigQueryOptions = {}): BigQuery {
  return new BigQuery({
    projectId: config.projectId,
    ...(config.location ? { location: config.location } : {}),
    ...(config.apiEndpoint ? { apiEndpoint: config.apiEndpoint } : {}),
    ...(config.emulator ? { authClient: withoutCredentials(config.projectId) } : {}),
    userAgent: 'querygate',
    retryOptions: { autoRetry: true, maxRetries: 2, retryableErrorFn: isTransient },
    ...overrides,
  });
}

/**
 * What the client library asks for headers and a project when an emulator is the API: nothing to
 * authorise with, and the configured project, so it never looks for Google credentials.
 */
function withoutCredentials(projectId: string): BigQueryOptions['authClient'] {
  const client = { getRequestHeaders: async () => new Headers(), getProjectId: async () => projectId };
  return client as unknown as BigQueryOptions['authClient'];
}

/**
 * The fully-qualified names of the sources (and their aliases) and UDFs. Throws, naming the
 * valid sources, when QUERYGATE_BIGQUERY_TABLES maps a source that `sources` lacks.
 */
export function bigQueryNaming(
  config: BigQueryConfig,
  sources: readonly BigQuerySource[],
  queriesDir: string,
): BigQueryNaming {
  const tables = bigQueryTables(config, sources);
  // A Logs Explorer name (`edge_logs`) reads the same table as the source it stands for. A
  // table source's warehouse names are renamed only when QUERYGATE_BIGQUERY_TABLES sends the
  // source elsewhere; otherwise they run as written, as every undeclared table of the warehouse.
  const aliases = sources.flatMap((source) => {
    const table = tables[source.name] as string;
    if (source.kind === 'table' && table === source.warehouseName) return [];
    return source.aliases.map((alias) => [alias, table] as const);
  });
  const renamed = Object.fromEntries(
    Object.entries(tables).filter(([name, table]) => name.toLowerCase() !== table.toLowerCase()),
  );
  return {
    tables: { ...renamed, ...Object.fromEntries(aliases) },
    routines: Object.fromEntries(
      readBigQueryUdfs(queriesDir, config).map((udf) => [udf.name, udf.qualifiedName]),
    ),
  };
}

/** Label values may hold lower-case letters, digits, `_` and `-`, at most 63 of them. */
export function labelValue(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '_')
    .slice(0, 63);
}

/** The job configuration of one run of a saved query (also used for dry runs). */
export function queryJobRequest(
  query: SavedQuery,
  qualified: QualifiedQuery,
  params: ParameterValues,
  config: BigQueryConfig,
): Query {
  const maximumBytesBilled = query.maximumBytesBilled ?? config.maximumBytesBilled;
  const request: Query = {
    query: qualified.sql,
    useLegacySql: false,
    labels: { querygate_endpoint: labelValue(query.name), querygate_endpoint_id: labelValue(query.id) },
    // BigQuery stops the job itself after this long, even if querygate's cancel never arrives.
    jobTimeoutMs: config.timeoutMs,
    ...(maximumBytesBilled ? { maximumBytesBilled } : {}),
    ...(config.location ? { location: config.location } : {}),
  };
  if (qualified.parameters.length > 0) {
    // Each parameter is named and of its contract's type (STRING unless it says else, as the
    // shipped queries expect); an unset one is a NULL of that type (a value left out), which
    // `coalesce(@p, '') = ''` reads as absent.
    request.parameterMode = 'NAMED';
    request.queryParameters = qualified.parameters.map((name) => {
      const value = params[name] ?? null;
      const type = query.parameterTypes?.[name] ?? 'STRING';
      return { name, parameterType: { type }, parameterValue: value === null ? {} : { value } };
    });
  }
  return request;
}

/**
 * The production engine: the saved SQL runs on BigQuery as written, but for its source and UDF
 * names, which become the configured fully-qualified ones. Each run is one query job with named
 * STRING parameters, labels naming the endpoint, a maximumBytesBilled cap and a job timeout; the
 * job is cancelled when the timeout passes or the caller's signal fires. Results are read page by
 * page up to the endpoint's max rows and decoded to the same values the DuckDB engine returns.
 *
 * On BigQuery `CURRENT_TIMESTAMP()` is BigQuery's clock: `RunOptions.now` cannot be injected
 * and is not used.
 */
export async function createBigQueryEngine(options: BigQueryEngineOptions): Promise<QueryEngine> {
  const { config, queriesDir } = options;
  const client = options.client ?? createBigQueryClient(config);
  const naming = bigQueryNaming(config, options.sources, queriesDir);
  const timers = options.timers ?? systemTimers;
  const qualified = createPlanCache(options.queries, (query) => qualifyForBigQuery(query.sql, naming));
  const qualifiedOf = (query: SavedQuery): QualifiedQuery =>
    qualified.get(query) ?? qualified.keep(query, qualifyForBigQuery(query.sql, naming));
  const cancellations = new Set<Promise<void>>();
  // The names that read a log source: a query naming none (only tables of the warehouse) answers
  // its STRUCTs as BigQuery does, objects, rather than Logflare's repeated records.
  const logNames = new Set(
    options.sources
      .filter((source) => source.kind !== 'table')
      .flatMap((source) => [source.name, ...source.aliases].map((name) => name.toLowerCase())),
  );
  const wireOf = (prepared: QualifiedQuery): RecordWire =>
    prepared.tables.length > 0 && !prepared.tables.some((table) => logNames.has(table))
      ? 'objects'
      : 'repeated';

  /** Cancels the job once its insert has settled: a cancel racing the insert would find no job. */
  function cancelJob(inserted: Promise<Job>): void {
    const cancelling = inserted
      .then(async (job) => {
        await job.cancel();
      })
      .catch(() => undefined);
    cancellations.add(cancelling);
    void cancelling.finally(() => cancellations.delete(cancelling));
  }

  async function insertJob(request: Query, jobId: string): Promise<Job> {
    try {
      const [job] = await client.createQueryJob({ ...request, jobId });
      return job;
    } catch (error) {
      // A retried insert whose first attempt got through: the job exists, and it is ours.
      if (bigQueryStatus(error) === 409 && bigQueryReason(error) === 'duplicate') {
        const location = config.location ?? reportedLocation(error, jobId);
        return client.job(jobId, location ? { location } : {});
      }
      throw error;
    }
  }

  async function run(
    query: SavedQuery,
    params: ParameterValues,
    runOptions: RunOptions,
  ): Promise<QueryResult> {
    const prepared = qualifiedOf(query);
    if (runOptions.signal?.aborted) throw new QuerygateError('ENGINE_ERROR', `${query.name} was cancelled`);
    const request = queryJobRequest(query, prepared, params, config);
    const started = Date.now();
    const deadline = startDeadline(config.timeoutMs, runOptions, timers);
    const jobId = `querygate_${labelValue(query.name)}_${randomUUID()}`;
    let inserted: Promise<Job> | undefined;
    try {
      inserted = insertJob(request, jobId);
      const job = await untilAborted(inserted, deadline.signal);
      return await readResults(
        client,
        job,
        query.maxRows,
        started + deadline.budgetMs,
        deadline.signal,
        wireOf(prepared),
      );
    } catch (error) {
      if (deadline.timedOut) {
        throw new QuerygateError(
          'ENGINE_TIMEOUT',
          `${query.name} did not finish within ${config.timeoutMs} ms; its BigQuery job was cancelled`,
        );
      }
      if (deadline.signal.aborted) throw new QuerygateError('ENGINE_ERROR', `${query.name} was cancelled`);
      throw (
        parameterValueError(query, params, error, bigQueryValueFault) ??
        callerSqlError(query, error, bigQueryCallerFault) ??
        toQuerygateError(error, {
          subject: query.name,
          maximumBytesBilled: request.maximumBytesBilled,
        })
      );
    } finally {
      deadline.end();
      if (deadline.signal.aborted && inserted) cancelJob(inserted);
    }
  }

  return {
    kind: 'bigquery',
    async ready() {
      // The UDFs are the one thing the saved queries need that `querygate bigquery setup` makes.
      for (const [name, qualifiedName] of Object.entries(naming.routines)) {
        const routine = client.dataset(config.dataset).routine(name);
        try {
          await routine.getMetadata();
        } catch (error) {
          if (bigQueryStatus(error) === 404) {
            throw new QuerygateError(
              'NOT_READY',
              `The BigQuery function ${qualifiedName} does not exist; create it with \`querygate bigquery setup\``,
            );
          }
          throw toQuerygateError(error, { subject: `Looking up ${qualifiedName}` });
        }
      }
    },
    run,
    retain: (queries) => qualified.retain(queries),
    plans: () => ({ texts: qualified.size, statements: 0 }),
    async describe(query) {
      // A dry run with every parameter unset: BigQuery checks the query and says its schema.
      const prepared = qualifiedOf(query);
      const request = queryJobRequest(query, prepared, {}, config);
      try {
        const [, response] = await client.createQueryJob({ ...request, dryRun: true });
        const statistics = response?.statistics as { query?: { schema?: WireSchema } } | undefined;
        return describeWireSchema(statistics?.query?.schema, wireOf(prepared));
      } catch (error) {
        throw toQuerygateError(error, { subject: `${query.name} (dry run)` });
      }
    },
    async close() {
      await Promise.allSettled([...cancellations]);
    },
  };
}

/**
 * Where BigQuery says the existing job runs. Without a configured location BigQuery chose one,
 * and reading or cancelling a job in a single region needs it; the 409 carries no job resource,
 * but its message names the job as `<project>:<location>.<jobId>`. Undefined when it does not,
 * which is still right for jobs in the US and EU multi-regions.
 */
function reportedLocation(error: unknown, jobId: string): string | undefined {
  const message = bigQueryMessage(error);
  const end = message.indexOf(`.${jobId}`);
  const location = end < 0 ? '' : message.slice(message.lastIndexOf(':', end) + 1, end);
  return /^[A-Za-z0-9-]+$/.test(location) ? location : undefined;
}

/** BigQuery's own default wait of a jobs.getQueryResults call for an unfinished job. */
const longPollMs = 10_000;

/** jobs.getQueryResults' answer, as far as it is read here. */
interface QueryResultsPage {
  readonly jobComplete?: boolean;
  readonly schema?: WireSchema;
  readonly rows?: WireRow[];
  readonly pageToken?: string;
  /** How many rows the whole result has, as decimal text. */
  readonly totalRows?: string;
}

/**
 * Reads the job's rows, page after page, until `maxRows` or the last page. A call that comes
 * back with `jobComplete: false` has waited BigQuery's long-poll interval and is repeated. The
 * rows are read from the wire (see bigquery-rows.ts) through the client's authenticated request,
 * with documented parameters only.
 */
async function readResults(
  client: BigQuery,
  job: Job,
  maxRows: number,
  deadline: number,
  signal: AbortSignal,
  wire: RecordWire,
): Promise<QueryResult> {
  const rows: WireRow[] = [];
  let schema: WireSchema | undefined;
  let pageToken: string | undefined;
  let totalRows: string | undefined;
  for (;;) {
    const page = await untilAborted(
      new Promise<QueryResultsPage>((resolve, reject) => {
        client.request(
          {
            uri: `/queries/${encodeURIComponent(job.id ?? '')}`,
            qs: {
              maxResults: maxRows - rows.length,
              'formatOptions.useInt64Timestamp': true,
              // How long BigQuery may hold the call waiting for the job: no longer than the
              // run has left, so no request outlives its run by more than a moment.
              timeoutMs: Math.max(1, Math.min(longPollMs, deadline - Date.now())),
              ...(job.location ? { location: job.location } : {}),
              ...(pageToken ? { pageToken } : {}),
            },
          },
          (error, body) => (error ? reject(error) : resolve((body ?? {}) as QueryResultsPage)),
        );
      }),
      signal,
    );
    if (page.jobComplete === false) continue;
    schema ??= page.schema;
    totalRows ??= page.totalRows;
    rows.push(...(page.rows ?? []));
    pageToken = page.pageToken;
    if (rows.length >= maxRows || !pageToken) break;
  }
  const decoded = {
    columns: decodeColumns(schema, wire),
    rows: decodeWireRows(schema, rows.slice(0, maxRows), wire),
  };
  // Cut at maxRows when BigQuery counts more rows (or, without a count, has a page after them).
  const truncated =
    rows.length >= maxRows &&
    (totalRows === undefined ? pageToken !== undefined : Number(totalRows) > maxRows);
  return truncated ? { ...decoded, truncated } : decoded;
}

/** `promise`, or a rejection as soon as `signal` fires (the request itself runs on, unheard). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * BigQuery's words (its engine's, ZetaSQL's) for what a number the caller sent can cause, each
 * with reason `invalidQuery`: `Limit requires non-negative count and offset`, `int64 overflow:
 * a + b` with the operands, `division by zero: a / b`, `Array index 7 is out of bounds (overflow)`,
 * `Invalid time zone: Mars/Olympus` (ZetaSQL's time_zone_util.cc), text NET.IP_FROM_STRING cannot read.
 */
const bigQueryValueFault: ValueFaultOf = (error) => {
  if (bigQueryReason(error) !== 'invalidQuery') return undefined;
  const message = bigQueryMessage(error);
  if (/requires non-negative count and offset/i.test(message)) return { fault: 'negative-count', message };
  if (/^int64 overflow/i.test(message)) return { fault: 'overflow', message };
  if (/^division by zero/i.test(message)) return { fault: 'division-by-zero', message };
  if (/^Array index -?\d+ is out of bounds/.test(message)) return { fault: 'array-index', message };
  if (/invalid time zone/i.test(message)) return { fault: 'time-zone', message };
  // ZetaSQL's net.cc: `NET.IP_FROM_STRING() encountered an unparseable IP-address: <text>`.
  if (/encountered an unparseable IP-address: /.test(message)) return { fault: 'ip-address', message };
  return undefined;
};

/** BigQuery's verdict on a query it cannot run (an unknown column, a type error) is the caller's. */
const bigQueryCallerFault: CallerFaultOf = (error) =>
  bigQueryReason(error) === 'invalidQuery' ? 'invalid' : undefined;
