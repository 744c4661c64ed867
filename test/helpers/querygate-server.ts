import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Querygate, startQuerygate } from '../../src/server.js';
import { type FixtureEvent, toIngestEvent } from '../fixtures/spec-fixture.js';
import { readContractFiles } from './contract-files.js';

/**
 * The real querygate on port 0 with a temporary data directory, a fixed clock and one API key,
 * plus small HTTP helpers that record every response (so a test file can check, at its end, that
 * nothing answered 5xx or leaked a stack trace). Start one per test file in `beforeAll` and call
 * `close()` in `afterAll`: it stops the server and removes the directory.
 */
export interface QuerygateUnderTest {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly apiKey: string;
  /** Every response this helper received, in order. */
  readonly responses: readonly HttpResult[];
  /** GET with the API key; `params` in order, repeated names allowed. */
  get(path: string, params?: QueryParams): Promise<HttpResult>;
  /** Any request; the API key is sent unless `apiKey` says otherwise (`null`: no header). */
  request(method: string, path: string, options?: RequestOptions): Promise<HttpResult>;
  /** POST /api/logs?source_name=... with `{"batch": events}`. */
  ingest(source: string, events: readonly unknown[]): Promise<HttpResult>;
  /** The resolver layer's counters: runs (misses) and hits, to tell which calls shared a cache entry. */
  resolverStats(): ReturnType<Querygate['resolver']['stats']>;
  close(): Promise<void>;
}

export type QueryParams = Readonly<Record<string, string>> | ReadonlyArray<readonly [string, string]>;

export interface RequestOptions {
  readonly params?: QueryParams;
  /** @default the server's key */
  readonly apiKey?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array<ArrayBuffer>;
}

export interface HttpResult {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly headers: Headers;
  /** The raw body. */
  readonly text: string;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  readonly body: unknown;
  /** What the request sent: its target, decoded, and its body. */
  readonly sent: string;
}

/** A key of at least 16 characters, as the configuration requires. */
export const testApiKey = 'querygate-test-key-0123456789';

/**
 * The configuration of a server under test: port 0, no demo data, `testApiKey`, silent, and the
 * ad-hoc lane's memory ceiling at 4 GiB. The ceiling reads the resident memory of the whole
 * process, and test files may share one (vitest's `isolate: false`): at its default 512 MiB it
 * stopped the Logs Explorer's queries of later files for memory earlier files held (400s, and
 * before the engine checked its streams, 200s with some of the rows). 4 GiB still stops a
 * runaway attack query; tests of the ceiling set their own.
 */
export function testConfig(dataDir: string, environment: Readonly<Record<string, string>> = {}) {
  return loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    QUERYGATE_DATA_DIR: dataDir,
    QUERYGATE_DEMO: '0',
    QUERYGATE_API_KEYS: testApiKey,
    LOG_LEVEL: 'silent',
    QUERYGATE_ADHOC_MEMORY_CEILING: '4GiB',
    ...environment,
  });
}

/** Starts the server with `now` as its clock and ingests `events` over HTTP, one batch per source. */
export async function startQuerygateUnderTest(options: {
  readonly now: Date;
  readonly events?: readonly FixtureEvent[];
  /** More environment variables, e.g. QUERYGATE_CORS_ORIGINS. */
  readonly environment?: Readonly<Record<string, string>>;
  /** Fills the data directory before the server opens it (e.g. a `querygate import`). */
  readonly prepare?: (dataDir: string) => Promise<void>;
}): Promise<QuerygateUnderTest> {
  const dataDir = await mkdtemp(join(tmpdir(), 'querygate-rest-'));
  let app: Awaited<ReturnType<typeof startQuerygate>> | undefined;
  try {
    await options.prepare?.(dataDir);
    const config = testConfig(dataDir, options.environment);
    const fixedNow = options.now.getTime();
    app = await startQuerygate(config, { now: () => new Date(fixedNow) });
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const started = app;
  const responses: HttpResult[] = [];

  const request = async (method: string, path: string, requestOptions: RequestOptions = {}) => {
    const target = new URL(path, started.url);
    for (const [name, value] of entries(requestOptions.params)) target.searchParams.append(name, value);
    const apiKey = requestOptions.apiKey === undefined ? testApiKey : requestOptions.apiKey;
    const response = await fetch(target, {
      method,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        ...(apiKey === null ? {} : { 'x-api-key': apiKey }),
        ...requestOptions.headers,
      },
      ...(requestOptions.body === undefined ? {} : { body: requestOptions.body }),
    });
    const text = await response.text();
    const result: HttpResult = {
      method,
      path: `${target.pathname}${target.search}`,
      status: response.status,
      headers: response.headers,
      text,
      body: parseJson(text),
      sent: `${decodedTarget(target)} ${requestOptions.body ?? ''}`,
    };
    responses.push(result);
    return result;
  };

  const service: QuerygateUnderTest = {
    url: started.url,
    apiKey: testApiKey,
    responses,
    get: (path, params) => request('GET', path, params === undefined ? {} : { params }),
    request,
    ingest: (source, events) =>
      request('POST', '/api/logs', {
        params: { source_name: source },
        body: JSON.stringify({ batch: events }),
      }),
    resolverStats: () => started.resolver.stats(),
    async close() {
      try {
        await started.close();
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };

  try {
    const bySource = new Map<string, FixtureEvent[]>();
    for (const event of options.events ?? []) {
      bySource.set(event.source, [...(bySource.get(event.source) ?? []), event]);
    }
    for (const [source, events] of bySource) {
      const result = await service.ingest(source, events.map(toIngestEvent));
      if (result.status !== 200)
        throw new Error(`ingesting ${source} failed: ${result.status} ${result.text}`);
    }
  } catch (error) {
    await service.close();
    throw error;
  }
  return service;
}

function entries(params: QueryParams | undefined): ReadonlyArray<readonly [string, string]> {
  if (params === undefined) return [];
  return Array.isArray(params)
    ? (params as ReadonlyArray<readonly [string, string]>)
    : Object.entries(params);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// --- The endpoints' paths --------------------------------------------------------------------------

export type EndpointName = 'logs.all' | 'functions.invocation-stats' | 'usage.api-counts';

/** The fixed UUIDs, read from the saved queries' contract files (data, not code under test). */
export const endpointIds: Readonly<Record<EndpointName, string>> = (() => {
  const ids = Object.fromEntries(readContractFiles().map((endpoint) => [endpoint.name, endpoint.id]));
  for (const name of ['logs.all', 'functions.invocation-stats', 'usage.api-counts']) {
    if (typeof ids[name] !== 'string') throw new Error(`queries/ has no contract with an id for ${name}`);
  }
  return ids as Record<EndpointName, string>;
})();

/** `/api/endpoints/<name>` */
export function byName(name: EndpointName): string {
  return `/api/endpoints/${name}`;
}

/** `/api/endpoints/query/<uuid>` */
export function byId(name: EndpointName): string {
  return `/api/endpoints/query/${endpointIds[name]}`;
}

/**
 * Whether a body shows a stack trace (`at fn (file:line:col)` frames, `node:internal`,
 * `file.ts:12:3`) or a path of the server's files: the servers under test keep their data under
 * the temporary directory, so a path there the request did not itself send (`sent`: a caller's
 * SQL naming a file is answered naming it) is the server's.
 */
export function leaksInternals(text: string, sent = ''): boolean {
  if (/\n\s+at |\bat \S+ \([^)]*:\d+:\d+\)|node:internal|\.[cm]?[jt]s:\d+:\d+/.test(text)) return true;
  const paths = text.match(serverPaths) ?? [];
  return paths.some((path) => !sent.includes(path));
}

/** A request's target as its parameters were given (as sent where it does not decode). */
function decodedTarget(target: URL): string {
  const sent = `${target.pathname}${target.search}`;
  try {
    return decodeURIComponent(sent);
  } catch {
    return sent;
  }
}

const serverPaths = new RegExp(`${tmpdir().replaceAll('/', '\\/')}\\/[^\\s"'\\\\)]+`, 'g');

/**
 * One server for the whole test file: started in `beforeAll`, closed in `afterAll`. Returns the
 * running server (call it inside tests).
 */
export function serveDuringFile(
  options: Parameters<typeof startQuerygateUnderTest>[0],
): () => QuerygateUnderTest {
  let service: QuerygateUnderTest | undefined;
  beforeAll(async () => {
    service = await startQuerygateUnderTest(options);
  });
  afterAll(async () => {
    await service?.close();
  });
  return () => {
    if (!service) throw new Error('the server is not started yet');
    return service;
  };
}

/** Checks that no response a server gave was a 5xx or carried a stack trace or path. */
export function expectNoServerErrors(service: QuerygateUnderTest): void {
  const offenders = service.responses
    .filter((response) => response.status >= 500 || leaksInternals(response.text, response.sent))
    .map(
      (response) => `${response.status} ${response.method} ${response.path}: ${response.text.slice(0, 200)}`,
    );
  expect(offenders).toEqual([]);
}
