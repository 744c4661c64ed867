import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BIGINT,
  BOOLEAN,
  DOUBLE,
  DuckDBTimestampValue,
  type DuckDBType,
  TIMESTAMP,
  VARCHAR,
} from '@duckdb/node-api';
import type { BigQueryOptions } from '@google-cloud/bigquery';
import { parse } from '@guanmingchiu/sqlparser-ts';
import { renameObjects } from '../../src/backends/bigquery/qualify.js';
import { readTableSchemas } from '../../src/backends/duckdb/table-schemas.js';
import { inBigQueryWords } from '../../src/backends/duckdb/value-errors.js';
import type { LogSource } from '../../src/endpoints/sources.js';
import { queryableTable, type TableSource } from '../../src/endpoints/table-source.js';
import { isoMicros } from '../../src/engines/iso-micros.js';
import { type Ast, variant } from '../../src/sql/bigquery-ast.js';
import { raisedMessage } from '../../src/sql/raised-errors.js';
import { nowParameter, translateToDuckDb } from '../../src/sql/translate.js';
import type { Database } from '../../src/storage/database.js';
import { seedTableSchema } from '../../src/storage/log-tables.js';
import { type FakeLoadJob, runLoadJob, uploadParts } from './fake-bigquery-load-jobs.js';
import { insertWarehouseRows, warehouseTarget } from './fake-bigquery-warehouse-rows.js';
import {
  encodeRows,
  encodeSchema,
  type FakeField,
  type FakeRow,
  type StructWire,
  type TimestampFormat,
} from './fake-bigquery-wire.js';
import { logSources } from './shipped-sources.js';

/**
 * A BigQuery REST API on loopback, enough of it for @google-cloud/bigquery to run querygate's
 * jobs: jobs.insert (queries, dry runs, CREATE FUNCTION DDL), jobs.get, jobs.getQueryResults
 * (long-poll, pageToken paging), jobs.cancel, jobs.query, tables.get/insert, tabledata.insertAll,
 * routines.get, and load jobs sent as media uploads (fake-bigquery-load-jobs.ts). Queries are answered by mapping the fully-qualified names back to the logical
 * ones, translating with the project's BigQuery→DuckDB translator and running on `database`.
 *
 * `CURRENT_TIMESTAMP()` reads the fake's own clock (`now`), as real BigQuery reads the server's:
 * a test fixes it to the instant it gives the DuckDB engine in RunOptions.
 */

export type FakeApi =
  | 'jobs.insert'
  | 'jobs.get'
  | 'jobs.getQueryResults'
  | 'jobs.cancel'
  | 'jobs.query'
  | 'tables.get'
  | 'tables.insert'
  | 'tabledata.insertAll'
  | 'jobs.insert (upload)'
  | 'routines.get'
  | 'datasets.get';

export interface RecordedRequest {
  readonly api: FakeApi;
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are asserted on freely in tests
  readonly body: any;
  readonly authorization: string | undefined;
}

export interface InjectedFailure {
  readonly api: FakeApi;
  readonly status: number;
  readonly reason: string;
  readonly message: string;
  /** How many matching requests fail. @default 1 */
  times?: number;
  /**
   * Do the work, then answer with the failure: a request that got through although its caller
   * saw an error (as a retried jobs.insert finds its job already created).
   */
  readonly afterHandling?: boolean;
}

export interface FakeBigQueryOptions {
  readonly projectId: string;
  /** A DuckDB with a table per source under its logical name, and the UDF macro. */
  readonly database: Database;
  /** `project.dataset.table` by logical source name, as the engine's configuration has them. */
  readonly tables: Readonly<Record<string, string>>;
  /** `project.dataset.routine` by UDF name. */
  readonly routines: Readonly<Record<string, string>>;
  /** The clock `CURRENT_TIMESTAMP()` reads. @default () => new Date() */
  readonly now?: () => Date;
  /** The sources `database` has tables of. @default the nine shipped ones */
  readonly sources?: readonly LogSource[];
  /** Most rows one results page holds, whatever maxResults asks. @default 100000 */
  readonly pageSize?: number;
  /**
   * The warehouse's own tables (table sources), whose rows `database` holds under their source
   * names: queries name them by their warehouse names (wildcard families too), as on BigQuery.
   */
  readonly warehouseTables?: readonly TableSource[];
}

interface ErrorProto {
  readonly reason: string;
  readonly message: string;
  readonly location?: string;
}

interface FakeJob {
  readonly id: string;
  readonly projectId: string;
  readonly location: string;
  // biome-ignore lint/suspicious/noExplicitAny: the job resource as the client sent it
  readonly configuration: any;
  state: 'RUNNING' | 'DONE';
  readyAt: number;
  error?: ErrorProto;
  schema?: FakeField[];
  /** The rows with TIMESTAMPs as integer microseconds, and as float seconds. */
  rows?: FakeRow[];
  floatRows?: FakeRow[];
  totalBytesProcessed: string;
  /** Wakes long-polls when the job is cancelled. */
  readonly changed: EventTarget;
}

export interface FakeBigQuery {
  /** The API root to give the client as `apiEndpoint`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Jobs (queries and DDL) wait this long before they are done. */
  queryDelayMs: number;
  /**
   * Where a job runs when its request names no location, as BigQuery picks the dataset's. As on
   * BigQuery, a job outside the US and EU multi-regions is found only by a request naming its
   * location. @default 'US'
   */
  defaultLocation: string;
  /** Longest a results call waits for its job (BigQuery's long-poll, 10 s unless timeoutMs asks less). */
  longPollMs: number;
  /** Bytes every query "scans", checked against its maximumBytesBilled. */
  bytesProcessed: number;
  /** Overrides the client's `formatOptions.useInt64Timestamp`: write TIMESTAMPs this way. */
  timestampFormat: TimestampFormat | undefined;
  /** Tables that exist, with their schemas, by `project.dataset.table`. */
  // biome-ignore lint/suspicious/noExplicitAny: table resources as sent by the client
  readonly createdTables: Map<string, any>;
  /** Routines that exist, by `project.dataset.routine`. */
  readonly routines: Map<string, string>;
  /** Load jobs received as media uploads, in order (see fake-bigquery-load-jobs.ts). */
  readonly loadJobs: FakeLoadJob[];
  /** Rows received by insertAll, by `project.dataset.table`. */
  // biome-ignore lint/suspicious/noExplicitAny: rows as sent by the client
  readonly insertedRows: Map<string, any[]>;
  inject(failure: InjectedFailure): void;
  /**
   * Query jobs run (dry runs and CREATE FUNCTION excluded): what BigQuery would bill. Also
   * answered over HTTP at `GET /fake/jobs` as `{"queryJobs": n, "byProject": {...}}`, for a fake
   * in its own process.
   */
  readonly queryJobs: number;
  /** The query jobs by the value of their `project` parameter, where they have one. */
  readonly jobsByProject: Map<string, number>;
  /** Recorded requests of one API. */
  calls(api: FakeApi): RecordedRequest[];
  close(): Promise<void>;
}

/** An auth client for the library that hands out a fixed token: no credentials, no network. */
export function fakeAuthClient(token = 'fake-token'): BigQueryOptions['authClient'] {
  const client = {
    getRequestHeaders: async () => new Headers({ authorization: `Bearer ${token}` }),
    getProjectId: async () => 'fake-project',
  };
  return client as unknown as BigQueryOptions['authClient'];
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly proto: ErrorProto,
  ) {
    super(proto.message);
  }
}

/** The parameter types the fake binds, with how BigQuery reads each value's text. */
const parameterTypes = {
  STRING: { duckdb: VARCHAR, read: (text: string): unknown => text },
  INT64: { duckdb: BIGINT, read: (text: string): unknown => BigInt(text) },
  FLOAT64: { duckdb: DOUBLE, read: (text: string): unknown => Number(text) },
  BOOL: { duckdb: BOOLEAN, read: (text: string): unknown => text.toLowerCase() === 'true' },
  TIMESTAMP: {
    duckdb: TIMESTAMP,
    read: (text: string): unknown => new DuckDBTimestampValue(isoMicros(text)),
  },
} as const;

const dryRunValues = { INT64: '0', FLOAT64: '0', BOOL: 'false', TIMESTAMP: '1970-01-01T00:00:00Z' } as const;

const invalidQuery = (message: string) => new HttpFailure(400, { reason: 'invalidQuery', message });

export async function startFakeBigQuery(options: FakeBigQueryOptions): Promise<FakeBigQuery> {
  const now = options.now ?? (() => new Date());
  const pageSize = options.pageSize ?? 100_000;
  const jobs = new Map<string, FakeJob>();
  const requests: RecordedRequest[] = [];
  const failures: InjectedFailure[] = [];
  let queryJobs = 0;
  const warehouseTables = options.warehouseTables ?? [];
  const setup = await options.database.connect();
  // BigQuery sorts NULLs first in ascending order and last in descending order; DuckDB's default
  // is last in both, so the fake answers `ORDER BY x` as BigQuery does.
  await setup.run(`SET GLOBAL default_null_order = 'nulls_first_on_asc_last_on_desc'`);
  const seedTables = [
    ...(options.sources ?? logSources).map(seedTableSchema),
    ...(await readTableSchemas(setup, warehouseTables.map(queryableTable))),
  ];
  setup.closeSync();
  const warehouseNames = new Set(warehouseTables.map((table) => table.name));
  // A query over the warehouse's tables only writes STRUCTs as BigQuery writes a STRUCT column.
  const structsOf = (translation: { tables: readonly string[] }): StructWire =>
    translation.tables.length > 0 && translation.tables.every((table) => warehouseNames.has(table))
      ? 'objects'
      : 'repeated';
  const logicalTables = new Map(
    Object.entries(options.tables).map(([logical, qualified]) => [qualified, `\`${logical}\``]),
  );
  const logicalFunctions = new Map(
    Object.entries(options.routines).map(([name, qualified]) => [qualified, name]),
  );
  const fake: FakeBigQuery = {
    url: '',
    requests,
    queryDelayMs: 0,
    defaultLocation: 'US',
    longPollMs: 10_000,
    bytesProcessed: 1_048_576,
    timestampFormat: undefined,
    createdTables: new Map(),
    routines: new Map(),
    insertedRows: new Map(),
    loadJobs: [],
    inject: (failure) => failures.push({ ...failure, times: failure.times ?? 1 }),
    get queryJobs() {
      return queryJobs;
    },
    jobsByProject: new Map(),
    calls: (api) => requests.filter((request) => request.api === api),
    close: async () => {},
  };

  function takeFailure(api: FakeApi): InjectedFailure | undefined {
    const index = failures.findIndex((failure) => failure.api === api);
    const failure = failures[index];
    if (!failure) return undefined;
    failure.times = (failure.times ?? 1) - 1;
    if (failure.times <= 0) failures.splice(index, 1);
    return failure;
  }

  /** The received SQL with the logical names back, translated to DuckDB. */
  function translate(sql: string) {
    let logical: string;
    try {
      logical = renameObjects(sql, { tables: logicalTables, functions: logicalFunctions });
      return translateToDuckDb(logical, { tables: seedTables });
    } catch (error) {
      // BigQuery places every error it finds in the text before running it: `... at [3:7]`.
      const at = (error as { details?: { line?: unknown; column?: unknown } }).details;
      throw invalidQuery(
        `Syntax error: ${(error as Error).message} at [${at?.line ?? 1}:${at?.column ?? 1}]`,
      );
    }
  }

  /**
   * The DuckDB values and types of a query's named parameters, as BigQuery reads them: each of
   * its declared type, an absent value a NULL of that type.
   */
  // biome-ignore lint/suspicious/noExplicitAny: query configuration as sent by the client
  function bindings(translation: ReturnType<typeof translate>, queryConfig: any, withValues: boolean) {
    const values: Record<string, unknown> = {};
    const types: Record<string, DuckDBType> = {};
    const supplied = new Map<string, { type: string; value: string | null }>(
      // biome-ignore lint/suspicious/noExplicitAny: query parameters as sent by the client
      (queryConfig.queryParameters ?? []).map((parameter: any) => {
        const type = String(parameter.parameterType?.type);
        if (!(type in parameterTypes))
          throw invalidQuery(`The fake does not know parameters of type ${type}`);
        return [parameter.name, { type, value: parameter.parameterValue?.value ?? null }];
      }),
    );
    for (const name of translation.parameters) {
      const parameter = supplied.get(name);
      if (!parameter) throw invalidQuery(`Query parameter '${name}' not found`);
      const { duckdb, read } = parameterTypes[parameter.type as keyof typeof parameterTypes];
      // DuckDB binds a NULL without a type: a dry run binds a value of the type instead (text
      // stays NULL, as the saved queries read an unset one).
      values[name] = withValues
        ? parameter.value === null
          ? null
          : read(parameter.value)
        : parameter.type === 'STRING'
          ? null
          : read(dryRunValues[parameter.type as keyof typeof dryRunValues]);
      types[name] = duckdb;
    }
    if (translation.usesNow) {
      values[nowParameter.slice(1)] = new DuckDBTimestampValue(BigInt(now().getTime()) * 1000n);
      types[nowParameter.slice(1)] = TIMESTAMP;
    }
    return { values, types };
  }

  /** A dry run's schema: the translated query run with NULL parameters under LIMIT 0. */
  // biome-ignore lint/suspicious/noExplicitAny: query configuration as sent by the client
  async function dryRunSchema(queryConfig: any): Promise<FakeField[]> {
    const translation = translate(String(queryConfig.query ?? ''));
    const { values, types } = bindings(translation, queryConfig, false);
    const connection = await options.database.connect();
    try {
      const prepared = await connection.prepare(`SELECT * FROM (${translation.sql}) AS described LIMIT 0`);
      // biome-ignore lint/suspicious/noExplicitAny: DuckDB's bind takes its own value union
      prepared.bind(values as any, types);
      return encodeSchema(await prepared.runAndReadAll(), structsOf(translation));
    } catch (error) {
      if (error instanceof HttpFailure) throw error;
      throw invalidQuery((error as Error).message);
    } finally {
      connection.closeSync();
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: query configuration as sent by the client
  async function execute(job: FakeJob, queryConfig: any, jobTimeoutMs: number): Promise<void> {
    const translation = translate(String(queryConfig.query));
    const { values, types } = bindings(translation, queryConfig, true);
    const connection = await options.database.connect();
    // BigQuery ends a job at its jobTimeoutMs; a runaway here would otherwise hold the fake's
    // DuckDB until the test process ends.
    const timer = setTimeout(() => connection.interrupt(), jobTimeoutMs);
    try {
      const prepared = await connection.prepare(translation.sql).catch((error: Error) => {
        // Found before the run: placed in the text, as BigQuery places what it cannot compile.
        throw invalidQuery(`${error.message.split('\n', 1)[0]} at [1:1]`);
      });
      // biome-ignore lint/suspicious/noExplicitAny: DuckDB's bind takes its own value union
      prepared.bind(values as any, types);
      const reader = await prepared.runAndReadAll();
      const structs = structsOf(translation);
      job.schema = encodeSchema(reader, structs);
      job.rows = encodeRows(reader, 'int64', structs);
      job.floatRows = encodeRows(reader, 'float', structs);
    } catch (error) {
      if (error instanceof HttpFailure) throw error;
      // An error raised while running: BigQuery's words, placed nowhere (`select 1 / 0` answers
      // 400 "division by zero", ibis-project/ibis#1390).
      throw invalidQuery(raisedMessage(error) ?? inBigQueryWords((error as Error).message));
    } finally {
      clearTimeout(timer);
      connection.closeSync();
    }
  }

  function jobResource(job: FakeJob) {
    return {
      kind: 'bigquery#job',
      id: `${job.projectId}:${job.location}.${job.id}`,
      jobReference: { projectId: job.projectId, jobId: job.id, location: job.location },
      configuration: job.configuration,
      status: {
        state: job.state,
        ...(job.state === 'DONE' && job.error ? { errorResult: job.error, errors: [job.error] } : {}),
      },
      statistics: {
        totalBytesProcessed: job.totalBytesProcessed,
        query: { totalBytesProcessed: job.totalBytesProcessed, statementType: 'SELECT' },
      },
    };
  }

  /** Settles the job if its time has come; a failed job settles to its error. */
  function refresh(job: FakeJob): void {
    if (job.state === 'RUNNING' && Date.now() >= job.readyAt) job.state = 'DONE';
  }

  /** Waits until the job is done, or `timeoutMs` has passed (BigQuery's long-poll). */
  async function waitFor(job: FakeJob, timeoutMs: number): Promise<void> {
    refresh(job);
    if (job.state === 'DONE') return;
    const wait = Math.max(0, Math.min(job.readyAt - Date.now(), timeoutMs));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, wait);
      function done() {
        clearTimeout(timer);
        job.changed.removeEventListener('change', done);
        resolve();
      }
      job.changed.addEventListener('change', done);
    });
    refresh(job);
  }

  /** A page of a finished job, as jobs.getQueryResults and jobs.query answer. */
  function resultsPage(job: FakeJob, query: Record<string, string>, maxResults: number | undefined) {
    if (job.state !== 'DONE') {
      return {
        kind: 'bigquery#getQueryResultsResponse',
        jobReference: { projectId: job.projectId, jobId: job.id, location: job.location },
        jobComplete: false,
      };
    }
    // A failed job answers its results call with the job's error, as an HTTP error.
    if (job.error) throw new HttpFailure(400, job.error);
    const useInt64 =
      fake.timestampFormat === undefined
        ? query['formatOptions.useInt64Timestamp'] === 'true'
        : fake.timestampFormat === 'int64';
    const all = (useInt64 ? job.rows : job.floatRows) ?? [];
    const start = query.pageToken ? Number(Buffer.from(query.pageToken, 'base64url').toString()) : 0;
    const size = Math.min(maxResults ?? Number.POSITIVE_INFINITY, pageSize);
    const rows = all.slice(start, start + size);
    const next = start + rows.length;
    return {
      kind: 'bigquery#getQueryResultsResponse',
      jobReference: { projectId: job.projectId, jobId: job.id, location: job.location },
      schema: { fields: job.schema ?? [] },
      totalRows: String(all.length),
      ...(rows.length > 0 ? { rows } : {}),
      ...(next < all.length ? { pageToken: Buffer.from(String(next)).toString('base64url') } : {}),
      totalBytesProcessed: job.totalBytesProcessed,
      jobComplete: true,
      cacheHit: false,
    };
  }

  /** Creates a job for a query configuration; it is done after the delay. */
  // biome-ignore lint/suspicious/noExplicitAny: job resources as sent by the client
  async function createJob(projectId: string, jobId: string, location: string, configuration: any) {
    const queryConfig = configuration?.query ?? {};
    const job: FakeJob = {
      id: jobId,
      projectId,
      location,
      configuration,
      state: 'RUNNING',
      readyAt: Date.now() + fake.queryDelayMs,
      totalBytesProcessed: String(fake.bytesProcessed),
      changed: new EventTarget(),
    };
    const ddl = createdFunction(String(queryConfig.query ?? ''));
    if (ddl) {
      // The routine exists at once; the job still takes queryDelayMs to report DONE.
      fake.routines.set(ddl, String(queryConfig.query));
      job.totalBytesProcessed = '0';
    } else {
      queryJobs += 1;
      // biome-ignore lint/suspicious/noExplicitAny: query parameters as the client sent them
      const project = queryConfig.queryParameters?.find((parameter: any) => parameter.name === 'project');
      const value = project?.parameterValue?.value;
      if (typeof value === 'string') fake.jobsByProject.set(value, (fake.jobsByProject.get(value) ?? 0) + 1);
      try {
        await execute(job, queryConfig, Number(configuration?.jobTimeoutMs ?? 30_000));
        const cap = queryConfig.maximumBytesBilled;
        if (cap !== undefined && BigInt(cap) < BigInt(fake.bytesProcessed)) {
          // BigQuery plans the query, then fails the job before reading: nothing is billed.
          job.error = {
            reason: 'bytesBilledLimitExceeded',
            message: `Query exceeded limit for bytes billed: ${cap}. ${fake.bytesProcessed} or higher required.`,
          };
        }
      } catch (error) {
        if (!(error instanceof HttpFailure)) throw error;
        // An invalid query is a job that failed at once, as BigQuery reports it from jobs.insert.
        job.error = error.proto;
        job.state = 'DONE';
      }
    }
    jobs.set(jobId, job);
    return job;
  }

  /** A job as jobs.get, jobs.cancel and jobs.getQueryResults find it, `location` being theirs. */
  function findJob(projectId: string, id: string, location: string | undefined): FakeJob {
    const found = jobs.get(id);
    const visible =
      location === undefined ? ['US', 'EU'].includes(found?.location ?? '') : found?.location === location;
    if (!found || !visible) {
      throw new HttpFailure(404, {
        reason: 'notFound',
        message: `Not found: Job ${projectId}:${location ?? 'US'}.${id}`,
      });
    }
    return found;
  }

  async function route(
    req: IncomingMessage,
    url: URL,
    body: Ast,
  ): Promise<[FakeApi, () => Promise<unknown>]> {
    const path = url.pathname.replace(/^\/bigquery\/v2/, '');
    const query = Object.fromEntries(url.searchParams);
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    const [projects, projectId = '', collection, id, sub, subId, action] = parts;
    if (projects !== 'projects')
      throw new HttpFailure(404, { reason: 'notFound', message: `No route ${path}` });
    const method = req.method ?? 'GET';
    if (collection === 'jobs' && method === 'POST' && id === undefined) {
      return [
        'jobs.insert',
        async () => {
          const configuration = body.configuration ?? {};
          const location = body.jobReference?.location ?? fake.defaultLocation;
          if (configuration.dryRun) {
            const queryConfig = configuration.query ?? {};
            const schema = createdFunction(String(queryConfig.query ?? ''))
              ? []
              : await dryRunSchema(queryConfig);
            return {
              kind: 'bigquery#job',
              jobReference: { projectId, location },
              configuration,
              status: { state: 'DONE' },
              statistics: {
                totalBytesProcessed: String(fake.bytesProcessed),
                query: {
                  totalBytesProcessed: String(fake.bytesProcessed),
                  statementType: 'SELECT',
                  schema: { fields: schema },
                },
              },
            };
          }
          const jobId = body.jobReference?.jobId ?? randomUUID();
          if (jobs.has(jobId))
            throw new HttpFailure(409, {
              reason: 'duplicate',
              message: `Already Exists: Job ${projectId}:${location}.${jobId}`,
            });
          return jobResource(await createJob(projectId, jobId, location, configuration));
        },
      ];
    }
    if (collection === 'jobs' && id !== undefined) {
      const job = () => findJob(projectId, id, query.location);
      if (method === 'POST' && sub === 'cancel') {
        return [
          'jobs.cancel',
          async () => {
            const found = job();
            refresh(found);
            if (found.state !== 'DONE') {
              found.state = 'DONE';
              found.error = {
                reason: 'stopped',
                message: 'Job execution was cancelled: User requested cancellation',
              };
              found.changed.dispatchEvent(new Event('change'));
            }
            return { kind: 'bigquery#jobCancelResponse', job: jobResource(found) };
          },
        ];
      }
      if (method === 'GET' && sub === undefined) {
        return [
          'jobs.get',
          async () => {
            const found = job();
            refresh(found);
            return jobResource(found);
          },
        ];
      }
    }
    if (collection === 'queries' && method === 'GET' && id !== undefined) {
      return [
        'jobs.getQueryResults',
        async () => {
          const found = findJob(projectId, id, query.location);
          await waitFor(found, Math.min(fake.longPollMs, query.timeoutMs ? Number(query.timeoutMs) : 10_000));
          return resultsPage(found, query, query.maxResults ? Number(query.maxResults) : undefined);
        },
      ];
    }
    if (collection === 'queries' && method === 'POST' && id === undefined) {
      return [
        'jobs.query',
        async () => {
          const queryConfig = {
            query: body.query,
            queryParameters: body.queryParameters,
            maximumBytesBilled: body.maximumBytesBilled,
          };
          if (body.dryRun) {
            translate(String(body.query));
            return {
              kind: 'bigquery#queryResponse',
              jobComplete: true,
              totalBytesProcessed: String(fake.bytesProcessed),
              schema: { fields: [] },
            };
          }
          const location = body.location ?? fake.defaultLocation;
          const jobId = `job_${randomUUID()}`;
          // jobs.query reports an invalid query as an HTTP error, not as a failed job.
          translate(String(body.query));
          const created = await createJob(projectId, jobId, location, {
            query: queryConfig,
            labels: body.labels,
          });
          await waitFor(created, body.timeoutMs ?? 10_000);
          const formatQuery: Record<string, string> = body.formatOptions?.useInt64Timestamp
            ? { 'formatOptions.useInt64Timestamp': 'true' }
            : {};
          return { ...resultsPage(created, formatQuery, body.maxResults), kind: 'bigquery#queryResponse' };
        },
      ];
    }
    if (collection === 'datasets' && id !== undefined) {
      const qualified = `${projectId}.${id}.${subId ?? ''}`;
      if (sub === undefined && method === 'GET') {
        return [
          'datasets.get',
          async () => ({ kind: 'bigquery#dataset', datasetReference: { projectId, datasetId: id } }),
        ];
      }
      if (sub === 'routines' && method === 'GET' && subId !== undefined) {
        return [
          'routines.get',
          async () => {
            const ddl = fake.routines.get(qualified);
            if (ddl === undefined)
              throw new HttpFailure(404, { reason: 'notFound', message: `Not found: Routine ${qualified}` });
            return {
              routineReference: { projectId, datasetId: id, routineId: subId },
              routineType: 'SCALAR_FUNCTION',
            };
          },
        ];
      }
      if (sub === 'tables' && method === 'POST' && subId === undefined) {
        return [
          'tables.insert',
          async () => {
            const tableId = body.tableReference?.tableId;
            const name = `${projectId}.${id}.${tableId}`;
            if (fake.createdTables.has(name)) {
              throw new HttpFailure(409, {
                reason: 'duplicate',
                message: `Already Exists: Table ${projectId}:${id}.${tableId}`,
              });
            }
            fake.createdTables.set(name, body);
            return { kind: 'bigquery#table', ...body };
          },
        ];
      }
      if (sub === 'tables' && subId !== undefined && method === 'GET' && action === undefined) {
        return [
          'tables.get',
          async () => {
            const table = fake.createdTables.get(qualified);
            if (!table) {
              throw new HttpFailure(404, {
                reason: 'notFound',
                message: `Not found: Table ${projectId}:${id}.${subId}`,
              });
            }
            return { kind: 'bigquery#table', ...table };
          },
        ];
      }
      if (sub === 'tables' && subId !== undefined && method === 'POST' && action === 'insertAll') {
        return [
          'tabledata.insertAll',
          async () => {
            const warehouse = warehouseTarget(warehouseTables, qualified);
            if (warehouse) return insertIntoWarehouse(warehouse, body);
            const table = fake.createdTables.get(qualified);
            if (!table) {
              throw new HttpFailure(404, {
                reason: 'notFound',
                message: `Not found: Table ${projectId}:${id}.${subId}`,
              });
            }
            // biome-ignore lint/suspicious/noExplicitAny: insertAll rows as sent by the client
            const rows: any[] = body.rows ?? [];
            const insertErrors = rows.flatMap((row, index) => {
              const unknown = unknownFields(row.json, table.schema?.fields ?? [], '');
              return unknown.length === 0
                ? []
                : [
                    {
                      index,
                      errors: [
                        { reason: 'invalid', location: unknown[0], message: `no such field: ${unknown[0]}.` },
                      ],
                    },
                  ];
            });
            if (insertErrors.length > 0 && !body.skipInvalidRows) {
              // Without skipInvalidRows nothing is inserted; the valid rows are reported as stopped.
              const failed = new Set(insertErrors.map((error) => error.index));
              const stopped = rows
                .map((_, index) => index)
                .filter((index) => !failed.has(index))
                .map((index) => ({ index, errors: [{ reason: 'stopped', message: '' }] }));
              return {
                kind: 'bigquery#tableDataInsertAllResponse',
                insertErrors: [...insertErrors, ...stopped],
              };
            }
            const stored = fake.insertedRows.get(qualified) ?? [];
            stored.push(...rows);
            fake.insertedRows.set(qualified, stored);
            return {
              kind: 'bigquery#tableDataInsertAllResponse',
              ...(insertErrors.length ? { insertErrors } : {}),
            };
          },
        ];
      }
    }
    throw new HttpFailure(404, { reason: 'notFound', message: `The fake has no ${method} ${path}` });
  }

  /** insertAll into a table of the warehouse: unknown fields refused per row, the rest stored. */
  // biome-ignore lint/suspicious/noExplicitAny: the insertAll request as sent by the client
  async function insertIntoWarehouse(target: ReturnType<typeof warehouseTarget> & {}, body: any) {
    // biome-ignore lint/suspicious/noExplicitAny: insertAll rows as sent by the client
    const rows: any[] = body.rows ?? [];
    const insertErrors = rows.flatMap((row, index) => {
      const unknown = unknownFields(row.json, [...target.source.columns], '');
      return unknown.length === 0
        ? []
        : [
            {
              index,
              errors: [{ reason: 'invalid', location: unknown[0], message: `no such field: ${unknown[0]}.` }],
            },
          ];
    });
    if (insertErrors.length > 0) {
      const failed = new Set(insertErrors.map((error) => error.index));
      const stopped = rows
        .map((_, index) => index)
        .filter((index) => !failed.has(index))
        .map((index) => ({ index, errors: [{ reason: 'stopped', message: '' }] }));
      return { kind: 'bigquery#tableDataInsertAllResponse', insertErrors: [...insertErrors, ...stopped] };
    }
    try {
      await insertWarehouseRows(
        options.database,
        target,
        rows.map((row) => row.json),
      );
    } catch (error) {
      throw new HttpFailure(400, { reason: 'invalid', message: (error as Error).message });
    }
    return { kind: 'bigquery#tableDataInsertAllResponse' };
  }

  /** A load job sent as a media upload: run at once, answered as a job that is DONE. */
  async function upload(req: IncomingMessage, url: URL, bytes: Buffer) {
    const projectId = decodeURIComponent(url.pathname.split('/')[5] ?? '');
    const { metadata, data } = uploadParts(String(req.headers['content-type']), bytes);
    const load = metadata.configuration?.load ?? {};
    const table = load.destinationTable ?? {};
    const job: FakeLoadJob = {
      destination: `${table.projectId}.${table.datasetId}.${table.tableId}`,
      writeDisposition: load.writeDisposition ?? 'WRITE_APPEND',
      sourceFormat: load.sourceFormat ?? 'CSV',
      rows: data.split('\n').filter((line) => line.trim() !== '').length,
    };
    requests.push({
      api: 'jobs.insert (upload)',
      method: req.method ?? 'POST',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: metadata,
      authorization: req.headers.authorization,
    });
    fake.loadJobs.push(job);
    const jobId = metadata.jobReference?.jobId ?? randomUUID();
    const found: FakeJob = {
      id: jobId,
      projectId,
      location: metadata.jobReference?.location ?? fake.defaultLocation,
      configuration: metadata.configuration,
      state: 'DONE',
      readyAt: Date.now(),
      totalBytesProcessed: '0',
      changed: new EventTarget(),
    };
    try {
      await runLoadJob(options.database, warehouseTables, job, data);
    } catch (error) {
      // A failed load is a job that is DONE with its error, as BigQuery reports it when polled.
      found.error = { reason: 'invalid', message: (error as Error).message };
    }
    jobs.set(jobId, found);
    return jobResource(found);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    if (url.pathname === '/fake/jobs')
      return send(res, 200, { queryJobs, byProject: Object.fromEntries(fake.jobsByProject) });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (url.pathname.startsWith('/upload/bigquery/v2/projects/')) {
      send(res, 200, await upload(req, url, Buffer.concat(chunks)));
      return;
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? JSON.parse(text) : undefined;
    let api: FakeApi | undefined;
    try {
      const [matched, answer] = await route(req, url, body);
      api = matched;
      requests.push({
        api,
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body,
        authorization: req.headers.authorization,
      });
      const failure = takeFailure(api);
      if (failure?.afterHandling) await answer();
      if (failure)
        throw new HttpFailure(failure.status, { reason: failure.reason, message: failure.message });
      send(res, 200, await answer());
    } catch (error) {
      if (!(error instanceof HttpFailure)) {
        send(res, 500, errorBody(500, { reason: 'internalError', message: (error as Error).message }));
        return;
      }
      send(res, error.status, errorBody(error.status, error.proto));
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent)
        send(res, 500, errorBody(500, { reason: 'internalError', message: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

/** Google's JSON error body: `{error: {code, message, errors: [ErrorProto], status}}`. */
function errorBody(status: number, proto: ErrorProto) {
  return {
    error: {
      code: status,
      message: proto.message,
      errors: [{ ...proto, domain: 'global' }],
      status:
        status === 400
          ? 'INVALID_ARGUMENT'
          : status === 403
            ? 'PERMISSION_DENIED'
            : status === 404
              ? 'NOT_FOUND'
              : 'UNKNOWN',
    },
  };
}

/** The routine a `CREATE [OR REPLACE] FUNCTION` statement creates, or undefined for anything else. */
function createdFunction(sql: string): string | undefined {
  let statements: Ast[];
  try {
    statements = parse(sql, 'bigquery') as Ast[];
  } catch {
    return undefined;
  }
  if (statements.length !== 1) return undefined;
  const [kind, node] = variant(statements[0]);
  if (kind !== 'CreateFunction') return undefined;
  return (node.name as Ast[]).map((part) => variant(part)[1].value).join('.');
}

/** Paths of fields in `value` that `fields` (a table schema) does not have, e.g. `metadata.foo`. */
// biome-ignore lint/suspicious/noExplicitAny: JSON rows and schemas
function unknownFields(value: any, fields: any[], prefix: string): string[] {
  if (value === null || typeof value !== 'object') return [];
  const found: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const field = fields.find((candidate) => String(candidate.name).toLowerCase() === key.toLowerCase());
    const path = prefix ? `${prefix}.${key}` : key;
    if (!field) {
      found.push(path);
      continue;
    }
    if (field.type === 'RECORD' || field.type === 'STRUCT') {
      const items = Array.isArray(child) ? child : [child];
      for (const item of items) found.push(...unknownFields(item, field.fields ?? [], path));
    }
  }
  return found;
}
