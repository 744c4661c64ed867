import { resolve } from 'node:path';
import { z } from 'zod';
import {
  type BackendChoice,
  type BackendKind,
  backendKinds,
  backends,
  defaultBackendKind,
  isBackendKind,
} from './backends/registry.js';
import { likelyMeant } from './endpoints/likely-meant.js';
import { queriesDir as shippedQueriesDir } from './paths.js';

const flag = z
  .enum(['0', '1', 'true', 'false', 'on', 'off', 'yes', 'no'], {
    message: 'must be 0/1, true/false, on/off or yes/no',
  })
  .transform((value) => ['1', 'true', 'on', 'yes'].includes(value));

// DuckDB's spelling of a size: KB, MB, ... are powers of 1000, KiB, MiB, ... of 1024.
const sizePattern = /^(\d+(?:\.\d+)?)\s*(K|M|G|T)(i?)B$/i;

/** Bytes of a size as DuckDB reads it (`512MB`, `1GiB`). */
export function sizeBytes(size: string): number {
  const [, amount, unit, binary] = sizePattern.exec(size.trim()) ?? [];
  const power = 'KMGT'.indexOf((unit ?? '').toUpperCase()) + 1;
  return Math.floor(Number(amount) * (binary ? 1024 : 1000) ** power);
}

const keyList = z
  .string()
  .optional()
  .transform((value) =>
    value
      ?.split(',')
      .map((key) => key.trim())
      .filter(Boolean),
  )
  .refine((keys) => keys === undefined || keys.every((key) => key.length >= 16), {
    message: 'every key must be at least 16 characters long',
  });

const environmentSchema = z
  .object({
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65535).default(4000),
    QUERYGATE_DATA_DIR: z.string().min(1).default('./data'),
    QUERYGATE_QUERIES_DIR: z.string().min(1).optional(),
    QUERYGATE_API_KEYS: keyList,
    QUERYGATE_INGEST_KEYS: keyList,
    // HS256 with a shorter secret is guessable offline from any one token: RFC 7518 asks for a
    // key at least as long as the hash, 256 bits.
    QUERYGATE_JWT_SECRET: z
      .string()
      .min(32, { message: 'must be at least 32 characters (HS256 needs a 256-bit secret)' })
      .optional(),
    QUERYGATE_JWT_PUBLIC_KEY_FILE: z.string().min(1).optional(),
    QUERYGATE_JWKS_FILE: z.string().min(1).optional(),
    QUERYGATE_DEMO: flag.default(true),
    QUERYGATE_STRICT: flag.default(false),
    QUERYGATE_ENGINE: z.enum(backendKinds).default(defaultBackendKind),
    QUERYGATE_QUERY_TIMEOUT_MS: z.coerce.number().int().positive().default(25_000),
    QUERYGATE_DUCKDB_CONNECTIONS: z.coerce.number().int().min(1).max(256).default(4),
    QUERYGATE_DUCKDB_MEMORY_LIMIT: z
      .string()
      .trim()
      .regex(sizePattern, { message: 'must be a size such as 1GB, 768MiB or 2GB' })
      .default('256MB'),
    QUERYGATE_DUCKDB_THREADS: z.coerce.number().int().min(1).max(256).optional(),
    QUERYGATE_RETENTION_DAYS: z.coerce.number().int().min(0).default(90),
    QUERYGATE_SCHEMA_CHANGE_INTERVAL_MS: z.coerce.number().int().min(0).default(10_000),
    // Test-only: makes the embedded store fail as it would in production, to test recovery.
    QUERYGATE_FAULT_INJECTION: z.enum(['checkpoint']).optional(),
    // BigQuery runs a project's queries with a concurrency it computes itself and queues the rest
    // (up to 1,000 interactive queries per project and region), shared with every other user of the
    // project. Keeping a modest number of jobs in flight keeps the queue here, where calls are shared
    // fairly between endpoints and clients, rather than in BigQuery's, where they are not.
    QUERYGATE_BIGQUERY_CONCURRENT_JOBS: z.coerce.number().int().min(1).max(1000).default(16),
    QUERYGATE_ENDPOINT_CONNECTIONS: z.coerce.number().int().min(1).optional(),
    QUERYGATE_ENDPOINT_QUEUE: z.coerce.number().int().min(0).default(8),
    QUERYGATE_CLIENT_ENGINE_CALLS: z.coerce.number().int().min(1).optional(),
    QUERYGATE_CLIENT_QUEUE: z.coerce.number().int().min(0).default(16),
    QUERYGATE_GRAPHQL_OPERATION_CONCURRENCY: z.coerce.number().int().min(1).default(2),
    QUERYGATE_ADHOC_CALLS: z.coerce.number().int().min(2).max(256).default(4),
    QUERYGATE_ADHOC_LONG_CALLS: z.coerce.number().int().min(1).default(2),
    QUERYGATE_ADHOC_SHORT_MS: z.coerce.number().int().positive().default(3_000),
    QUERYGATE_ADHOC_MEMORY_CEILING: z
      .string()
      .trim()
      .regex(sizePattern, { message: 'must be a size such as 512MiB or 1GB' })
      .default('512MiB'),
    QUERYGATE_MAX_BODY_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(10 * 1024 * 1024),
    QUERYGATE_INGEST_INFLIGHT_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(32 * 1024 * 1024),
    QUERYGATE_CACHE_MAX_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(64 * 1024 * 1024),
    // Replicas: one cache, one warm schedule and one run per key across processes (README,
    // "Running several replicas"). The URL may carry a password, so it is never logged.
    QUERYGATE_REDIS_URL: z
      .url({
        protocol: /^rediss?$/,
        message: 'must be a redis:// or rediss:// URL such as redis://cache:6379',
      })
      .optional(),
    QUERYGATE_REDIS_TIMEOUT_MS: z.coerce.number().int().positive().default(1_000),
    QUERYGATE_REDIS_LEASE_MS: z.coerce.number().int().min(300).default(10_000),
    // HTTP limits: a client that is slow to send its headers or body, or that holds idle
    // connections, is cut off instead of holding a socket (and a file descriptor) for minutes.
    QUERYGATE_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    QUERYGATE_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
    QUERYGATE_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
    QUERYGATE_MAX_CONNECTIONS: z.coerce.number().int().positive().default(4_096),
    QUERYGATE_CORS_ORIGINS: z
      .string()
      .optional()
      .transform((value) =>
        (value ?? '')
          .split(',')
          .map((origin) => origin.trim())
          .filter(Boolean),
      )
      .refine((origins) => origins.every((origin) => origin === '*' || /^https?:\/\/[^/\s]+$/.test(origin)), {
        message: "must be '*' or comma-separated origins such as https://dash.example.com",
      }),
    QUERYGATE_GRAPHQL_MAX_BATCH: z.coerce.number().int().min(1).max(100).default(10),
    QUERYGATE_MAX_METADATA_FIELDS: z.coerce.number().int().positive().max(10_000).default(500),
    QUERYGATE_MAX_METADATA_DEPTH: z.coerce.number().int().positive().max(30).default(15),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  // Quick ad-hoc queries are sure of a turn only while long ones cannot hold them all.
  .refine((env) => env.QUERYGATE_ADHOC_LONG_CALLS < env.QUERYGATE_ADHOC_CALLS, {
    message: 'must be fewer than QUERYGATE_ADHOC_CALLS, so quick ad-hoc queries always have a turn',
    path: ['QUERYGATE_ADHOC_LONG_CALLS'],
  })
  // A DuckDB store belongs to one process: replicas over their own stores hold different data, and
  // one would answer another's calls with results of logs it never received.
  .refine((env) => env.QUERYGATE_REDIS_URL === undefined || env.QUERYGATE_ENGINE !== 'duckdb', {
    message:
      'shares a cache between replicas of one engine, and each DuckDB store belongs to one process: ' +
      'set QUERYGATE_ENGINE=bigquery, or leave QUERYGATE_REDIS_URL unset',
    path: ['QUERYGATE_REDIS_URL'],
  })
  // A key in both lists would have two scopes; which one wins must not be a guess.
  .refine((env) => !env.QUERYGATE_INGEST_KEYS?.some((key) => env.QUERYGATE_API_KEYS?.includes(key)), {
    message: 'a key is also in QUERYGATE_API_KEYS; give each key one scope',
    path: ['QUERYGATE_INGEST_KEYS'],
  });

/** Everything querygate reads from its environment, parsed once at start-up. */
export interface Config extends BackendChoice {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** The saved queries served: `<name>.sql` + `<name>.yaml` each, and `sources.yaml`. */
  readonly queriesDir: string;
  /** Keys from QUERYGATE_API_KEYS; when unset, one is generated and kept in the data dir. */
  readonly apiKeys: readonly string[] | undefined;
  /**
   * Keys from QUERYGATE_INGEST_KEYS: they may ingest (and list the sources) but not query, so the
   * key in a log shipper's config (Supabase's LOGFLARE_PUBLIC_ACCESS_TOKEN) cannot read the logs.
   */
  readonly ingestKeys: readonly string[];
  /**
   * Where signed tokens' keys come from (README, "Signed tokens"): QUERYGATE_JWT_SECRET for
   * HS256, QUERYGATE_JWT_PUBLIC_KEY_FILE (PEM, RS256 or ES256) and QUERYGATE_JWKS_FILE for
   * tokens signed elsewhere. Undefined when none is set: only keys are accepted.
   */
  readonly signedTokens:
    | {
        readonly secret: string | undefined;
        readonly publicKeyFile: string | undefined;
        readonly jwksFile: string | undefined;
      }
    | undefined;
  readonly demo: boolean;
  /**
   * Refuse to serve (at start) or to reload when any endpoint is refused, for deploy pipelines.
   * Otherwise the endpoints that pass serve and each refused one is reported (log, `/health`).
   * @default false (QUERYGATE_STRICT)
   */
  readonly strict: boolean;
  readonly engine: BackendKind;
  /** Deadline of an engine call, from asking for a connection to its last row. */
  readonly queryTimeoutMs: number;
  /** DuckDB connections running queries side by side. */
  readonly duckdbConnections: number;
  /** DuckDB's memory_limit, as written: its buffer pool stays within it (see database.ts). */
  readonly duckdbMemoryLimit: string;
  /** The same in bytes. */
  readonly duckdbMemoryLimitBytes: number;
  /** DuckDB's worker threads; undefined leaves DuckDB's default (one per core). */
  readonly duckdbThreads: number | undefined;
  /** Days the embedded store keeps a source's records unless sources.yaml says; 0 keeps them for ever. */
  readonly retentionDays: number;
  /** Least time between two schema changes of one source; new fields wait in `_extra` meanwhile. */
  readonly schemaChangeIntervalMs: number;
  /**
   * Test-only fault injection (QUERYGATE_FAULT_INJECTION): `checkpoint` makes every checkpoint of
   * the embedded store's first opening fail fatally, invalidating the database, so tests see the
   * server recover by itself. Never set in production. @default none
   */
  readonly faultInjection: 'checkpoint' | undefined;
  /**
   * Calls the engine runs at once, shared fairly between endpoints: the DuckDB connections, or
   * on BigQuery QUERYGATE_BIGQUERY_CONCURRENT_JOBS (16 unless set).
   */
  readonly engineCalls: number;
  /** Engine calls one endpoint may have running at once (half the engine's calls unless set). */
  readonly endpointConnections: number;
  /** Calls of one endpoint that may wait for a turn; beyond it they get 503 ENGINE_BUSY. */
  readonly endpointQueue: number;
  /**
   * Engine calls one client (API key + remote address) may have under way at once, across every
   * endpoint (one less than the engine's calls unless set, so one client never holds them all);
   * its further calls wait for a turn. Cache hits and joins never count.
   */
  readonly clientEngineCalls: number;
  /** Calls of one client that may wait for a turn; beyond it they get 503 ENGINE_BUSY. */
  readonly clientQueue: number;
  /** Engine calls one GraphQL operation runs at once; its other calls wait their turn. */
  readonly graphqlOperationConcurrency: number;
  /**
   * The ad-hoc lane (caller SQL of sandboxed endpoints, see resolve/fair-engine.ts): its calls at
   * once (on DuckDB its own connections), how many of them may run longer than `shortMs`.
   */
  readonly adhoc: {
    readonly calls: number;
    readonly longCalls: number;
    readonly shortMs: number;
    /** DuckDB: resident bytes past which the longest-running caller query is stopped. */
    readonly memoryCeilingBytes: number;
  };
  readonly maxBodyBytes: number;
  /**
   * Body bytes (decompressed) of the ingestion requests in flight together; a request beyond it
   * answers 503 with Retry-After (rest/ingest-budget.ts).
   */
  readonly maxIngestInFlightBytes: number;
  /** Approximate bytes of query results the resolver layer keeps (LRU beyond it). */
  readonly cacheMaxBytes: number;
  /**
   * The shared cache of replicas (QUERYGATE_REDIS_URL, on BigQuery only): command timeout and key
   * lease in milliseconds. @default none: this process caches, warms and runs alone
   */
  readonly redis: { readonly url: string; readonly timeoutMs: number; readonly leaseMs: number } | undefined;
  /** HTTP: how long a client may take to send its headers, and its whole request. */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  /** HTTP: how long an idle kept-alive connection stays open. */
  readonly keepAliveTimeoutMs: number;
  /** HTTP: open connections beyond this are refused at accept. */
  readonly maxConnections: number;
  /** Origins allowed to call from a browser (`*` for any); empty: no CORS headers at all. */
  readonly corsOrigins: readonly string[];
  /** Operations one batched GraphQL request (a JSON array) may carry. */
  readonly graphqlMaxBatch: number;
  /**
   * How far each source's typed `metadata` may grow: fields at every level, and levels of
   * objects. What lies beyond is kept in `_extra` by path, never dropped, never a schema change.
   */
  readonly schemaLimits: { readonly maxFields: number; readonly maxDepth: number };
  readonly logLevel: z.infer<typeof environmentSchema>['LOG_LEVEL'];
  /**
   * One line per `QUERYGATE_*` variable querygate does not read (a misspelling, most often),
   * naming the variable probably meant; logged as a warning at start.
   */
  readonly warnings: readonly string[];
  // And, under the engine's kind (`bigquery`), that backend's own variables: parsed, and
  // required, only when it is the engine chosen (see BackendOwnSettings).
}

function optionalPath(path: string | undefined): string | undefined {
  return path === undefined ? undefined : resolve(path);
}

/** Parses the environment; each bad variable gets one line naming it and what is wrong. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const parsed = environmentSchema.safeParse(environment);
  // The chosen backend's own variables, checked beside the others so every problem is listed.
  const kind = environment.QUERYGATE_ENGINE ?? defaultBackendKind;
  const own = isBackendKind(kind) ? backends[kind].environment?.safeParse(environment) : undefined;
  const issues = [
    ...(parsed.success ? [] : parsed.error.issues),
    ...(own && !own.success ? own.error.issues : []),
  ];
  if (!parsed.success || issues.length > 0) {
    const lines = issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  // The chosen backend names which variable bounds its engine's calls.
  const engineCalls = Number(env[backends[env.QUERYGATE_ENGINE].engineCallsVariable as keyof typeof env]);
  return Object.freeze({
    host: env.HOST,
    port: env.PORT,
    dataDir: resolve(env.QUERYGATE_DATA_DIR),
    queriesDir:
      env.QUERYGATE_QUERIES_DIR === undefined ? shippedQueriesDir : resolve(env.QUERYGATE_QUERIES_DIR),
    apiKeys: env.QUERYGATE_API_KEYS?.length ? Object.freeze(env.QUERYGATE_API_KEYS) : undefined,
    ingestKeys: Object.freeze(env.QUERYGATE_INGEST_KEYS ?? []),
    signedTokens:
      env.QUERYGATE_JWT_SECRET === undefined &&
      env.QUERYGATE_JWT_PUBLIC_KEY_FILE === undefined &&
      env.QUERYGATE_JWKS_FILE === undefined
        ? undefined
        : Object.freeze({
            secret: env.QUERYGATE_JWT_SECRET,
            publicKeyFile: optionalPath(env.QUERYGATE_JWT_PUBLIC_KEY_FILE),
            jwksFile: optionalPath(env.QUERYGATE_JWKS_FILE),
          }),
    demo: env.QUERYGATE_DEMO,
    strict: env.QUERYGATE_STRICT,
    engine: env.QUERYGATE_ENGINE,
    queryTimeoutMs: env.QUERYGATE_QUERY_TIMEOUT_MS,
    duckdbConnections: env.QUERYGATE_DUCKDB_CONNECTIONS,
    duckdbMemoryLimit: env.QUERYGATE_DUCKDB_MEMORY_LIMIT,
    duckdbMemoryLimitBytes: sizeBytes(env.QUERYGATE_DUCKDB_MEMORY_LIMIT),
    duckdbThreads: env.QUERYGATE_DUCKDB_THREADS,
    retentionDays: env.QUERYGATE_RETENTION_DAYS,
    schemaChangeIntervalMs: env.QUERYGATE_SCHEMA_CHANGE_INTERVAL_MS,
    faultInjection: env.QUERYGATE_FAULT_INJECTION,
    engineCalls,
    endpointConnections: Math.min(
      env.QUERYGATE_ENDPOINT_CONNECTIONS ?? Math.ceil(engineCalls / 2),
      engineCalls,
    ),
    endpointQueue: env.QUERYGATE_ENDPOINT_QUEUE,
    clientEngineCalls: env.QUERYGATE_CLIENT_ENGINE_CALLS ?? Math.max(1, engineCalls - 1),
    clientQueue: env.QUERYGATE_CLIENT_QUEUE,
    graphqlOperationConcurrency: env.QUERYGATE_GRAPHQL_OPERATION_CONCURRENCY,
    adhoc: Object.freeze({
      calls: env.QUERYGATE_ADHOC_CALLS,
      longCalls: env.QUERYGATE_ADHOC_LONG_CALLS,
      shortMs: env.QUERYGATE_ADHOC_SHORT_MS,
      memoryCeilingBytes: sizeBytes(env.QUERYGATE_ADHOC_MEMORY_CEILING),
    }),
    maxBodyBytes: env.QUERYGATE_MAX_BODY_BYTES,
    maxIngestInFlightBytes: env.QUERYGATE_INGEST_INFLIGHT_BYTES,
    cacheMaxBytes: env.QUERYGATE_CACHE_MAX_BYTES,
    redis:
      env.QUERYGATE_REDIS_URL === undefined
        ? undefined
        : Object.freeze({
            url: env.QUERYGATE_REDIS_URL,
            timeoutMs: env.QUERYGATE_REDIS_TIMEOUT_MS,
            leaseMs: env.QUERYGATE_REDIS_LEASE_MS,
          }),
    headersTimeoutMs: Math.min(env.QUERYGATE_HEADERS_TIMEOUT_MS, env.QUERYGATE_REQUEST_TIMEOUT_MS),
    requestTimeoutMs: env.QUERYGATE_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: env.QUERYGATE_KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: env.QUERYGATE_MAX_CONNECTIONS,
    corsOrigins: Object.freeze(env.QUERYGATE_CORS_ORIGINS),
    graphqlMaxBatch: env.QUERYGATE_GRAPHQL_MAX_BATCH,
    schemaLimits: Object.freeze({
      maxFields: env.QUERYGATE_MAX_METADATA_FIELDS,
      maxDepth: env.QUERYGATE_MAX_METADATA_DEPTH,
    }),
    logLevel: env.LOG_LEVEL,
    warnings: Object.freeze(unknownVariableWarnings(environment)),
    [env.QUERYGATE_ENGINE]: own?.success ? Object.freeze(own.data) : undefined,
  });
}

/** The variables querygate reads: the schema's and every backend's own (set or not, whichever engine runs). */
function knownVariables(): string[] {
  const names = (schema: z.core.$ZodType): string[] =>
    schema instanceof z.ZodObject
      ? Object.keys(schema.shape)
      : schema instanceof z.ZodPipe
        ? names(schema.in)
        : [];
  return [
    ...names(environmentSchema),
    ...Object.values(backends).flatMap((backend) => (backend.environment ? names(backend.environment) : [])),
  ];
}

/**
 * `QUERYGATE_PROT is not a querygate variable and is ignored (did you mean PORT?)` for each
 * `QUERYGATE_*` variable that querygate does not read: a misspelt variable would otherwise be
 * ignored in silence. The variable meant is the known one fewest edits away (HOST, PORT and
 * LOG_LEVEL compared as if they had the prefix), when it is close enough to be a misspelling.
 */
function unknownVariableWarnings(environment: NodeJS.ProcessEnv): string[] {
  const prefix = 'QUERYGATE_';
  const known = knownVariables();
  // HOST, PORT and LOG_LEVEL are compared as if they had the prefix.
  const unprefixed = new Map(
    known.map((name) => [name.startsWith(prefix) ? name.slice(prefix.length) : name, name]),
  );
  return Object.keys(environment)
    .filter((name) => name.startsWith(prefix) && !known.includes(name))
    .sort()
    .map((name) => {
      const nearest = likelyMeant(name.slice(prefix.length), unprefixed.keys(), { leastDistance: 2 });
      const meant = nearest === undefined ? '' : ` (did you mean ${unprefixed.get(nearest)}?)`;
      return `${name} is not a querygate variable and is ignored${meant}`;
    });
}
