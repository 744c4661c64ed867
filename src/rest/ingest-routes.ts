import type { FastifyInstance, FastifyRequest } from 'fastify';
import { didYouMean } from '../endpoints/likely-meant.js';
import type { LogSink } from '../endpoints/log-record.js';
import { findLogSourceByNameOrId, type LogSource } from '../endpoints/sources.js';
import type { StoringCost } from '../endpoints/storing-cost.js';
import type { TableSink, TableSource } from '../endpoints/table-source.js';
import { badParameter, QuerygateError } from '../errors.js';
import { allowMethods } from '../http/allow-methods.js';
import { allMethods } from '../http/app.js';
import { readBodiesAsBytes } from '../http/read-bodies.js';
import { toJson } from '../http/respond.js';
import type { Metrics } from '../metrics/metrics.js';
import { createIngestBudget, type HeldBytes } from './ingest-budget.js';
import { fromLogflareEvent } from './logflare-event.js';
import { readLogEvents } from './read-log-events.js';
import { sourceList } from './source-list.js';

export interface IngestRoutesOptions {
  readonly logs: LogSink;
  /** Table sources that take rows over HTTP, as they are (no `event_message`), and their sink. */
  readonly tables?: { readonly names: readonly string[]; readonly sink: TableSink } | undefined;
  /** The log sources of the queries directory served. */
  readonly sources: readonly LogSource[];
  /** Its table sources, listed by `GET /api/sources` whether or not this backend ingests them. */
  readonly tableSources?: readonly TableSource[] | undefined;
  /** The most bytes of a body, on the wire and after decompression. */
  readonly maxBodyBytes: number;
  /** The most body bytes (decompressed) of the requests in flight together (ingest-budget.ts). */
  readonly maxInFlightBytes: number;
  /** Where each committed request is counted. */
  readonly metrics: Pick<Metrics, 'ingested'>;
}

// Every path Logflare's clients post logs to: one handler. `/json` and `/vector` are Logflare's
// generic JSON and Vector endpoints; `/cloudflare` is Logpush, which sends NDJSON as text/plain.
const basePaths = ['/logs', '/api/logs', '/api/events'];
const subPaths = ['', '/json', '/vector', '/cloudflare'];

type Query = Record<string, string | string[] | undefined>;

/**
 * Log ingestion in every form Logflare accepts, and `GET /api/sources`. The source is named by
 * `source_name` or `source` (its name or UUID) in the query string, the `x-source` header, or a
 * JSON body's top level. A request is stored whole or not at all.
 */
export function ingestRoutes(options: IngestRoutesOptions) {
  const { sources } = options;
  const listed = sourceList(sources, options.tableSources ?? [], options.tables !== undefined);
  const budget = createIngestBudget(options.maxInFlightBytes);
  // Each request's share of the budget, held from before its body is read until it is answered
  // and its records are committed (an answer may come first, see storage/log-writer.ts).
  const held = new WeakMap<FastifyRequest, HeldBytes>();
  const committing = new WeakMap<FastifyRequest, Promise<void>>();
  return async function routes(app: FastifyInstance) {
    readBodiesAsBytes(app, options.maxBodyBytes);

    for (const base of basePaths) {
      for (const sub of subPaths) {
        app.route({
          method: [...allMethods],
          url: `${base}${sub}`,
          config: { scope: 'ingest' },
          // Before the body is read: a body declared too large for the bytes in flight is refused unread.
          onRequest: async (request, reply) => {
            const share = budget.hold();
            held.set(request, share);
            // 'close' comes once the answer is sent or the connection is lost, whichever path answered.
            reply.raw.once('close', () => {
              const stored = committing.get(request);
              if (stored) void stored.then(share.release, share.release);
              else share.release();
            });
            // A body declared beyond the body limit is refused 413 unread by the body reader: it
            // must not be told to come again (503) because other requests are in flight.
            const declared = Number(request.headers['content-length'] ?? 0) || 0;
            if (declared <= options.maxBodyBytes) share.grow(declared);
          },
          handler: async (request, reply) => {
            allowMethods(request, ['POST']);
            const body = request.body as Buffer | undefined;
            const share = held.get(request);
            const { events, envelope } = await readLogEvents(request.headers, body, {
              maxBytes: options.maxBodyBytes,
              plainTextIsNdjson: sub === '/cloudflare',
              admit: (bytes) => share?.grow(bytes),
            });
            const source = sourceOf(request, envelope, sources, options.tables?.names ?? []);
            const stored =
              envelope && !Array.isArray(envelope.batch) ? [withoutSourceFields(envelope)] : events;
            const writing = performance.now();
            const isTable = options.tables?.names.includes(source) === true;
            const replace = replaceMode(request, isTable);
            // A table source's rows are stored as sent; a log source's as Logflare reads events.
            const admit = (cost: StoringCost) => admitStoring(source, cost, options.maxInFlightBytes, share);
            admit({ records: stored.length, columns: 0, bytes: stored.length * parsedRecordBytes });
            const { ingested } =
              isTable && options.tables
                ? await options.tables.sink.write(source, stored, { replace, admit })
                : await options.logs.write(source, stored.map(fromLogflareEvent), { admit });
            const commits = isTable ? undefined : options.logs.committed?.();
            if (commits) committing.set(request, commits);
            options.metrics.ingested(
              source,
              ingested,
              body?.length ?? 0,
              (performance.now() - writing) / 1000,
            );
            return reply
              .type('application/json; charset=utf-8')
              .send(toJson({ message: 'Logged!', ingested }));
          },
        });
      }
    }

    app.route({
      method: [...allMethods],
      url: '/api/sources',
      // The names and UUIDs an ingesting client sends to: an ingest-only key may read them.
      config: { scope: 'ingest' },
      handler: async (request, reply) => {
        allowMethods(request, ['GET', 'HEAD']);
        return reply.type('application/json; charset=utf-8').send(toJson({ result: listed }));
      },
    });
  };
}

/**
 * `?mode=replace` (a table source only): the rows take the place of the table's, or of the day
 * tables they hold for a wildcard family, as a load job with WRITE_TRUNCATE. `append`, the
 * default, adds them.
 */
function replaceMode(request: FastifyRequest, isTable: boolean): boolean {
  const mode = (request.query as Query).mode;
  if (mode === undefined || mode === 'append') return false;
  if (mode !== 'replace')
    throw new QuerygateError('BAD_PARAMETER', `Parameter 'mode' must be append or replace`, {
      details: { parameter: 'mode' },
    });
  if (!isTable)
    throw new QuerygateError(
      'BAD_PARAMETER',
      `Parameter 'mode': only a table source's rows may be replaced`,
      {
        details: { parameter: 'mode' },
      },
    );
  return true;
}

const sourceFields = ['source_name', 'source', 'collection_name', 'collection'];

/** The name of the source a request names; 400 naming the valid ones when it names none or an unknown one. */
function sourceOf(
  request: FastifyRequest,
  envelope: Readonly<Record<string, unknown>> | undefined,
  sources: readonly LogSource[],
  tables: readonly string[],
): string {
  const query = request.query as Query;
  const header = request.headers['x-source'];
  const candidates: Array<[string, unknown]> = [
    ...sourceFields.map((field): [string, unknown] => [field, query[field]]),
    ['x-source', Array.isArray(header) ? header[0] : header],
    ...sourceFields.map((field): [string, unknown] => [field, envelope?.[field]]),
  ];
  const named = candidates.find(([, value]) => value !== undefined && value !== '');
  const valid = [...sources.map((source) => `${source.name} (${source.id})`), ...tables].join(', ');
  if (!named) {
    throw new QuerygateError(
      'BAD_PARAMETER',
      `Parameter 'source_name' is required (or 'source', the x-source header). Valid sources: ${valid}`,
      { details: { parameter: 'source_name' } },
    );
  }
  const [field, value] = named;
  // Two sources named in one place: storing the batch in the first would be a guess.
  if (Array.isArray(value) && value.length > 1) throw badParameter(field, 'is given more than once');
  const reference = Array.isArray(value) ? value[0] : value;
  if (typeof reference === 'string' && tables.includes(reference)) return reference;
  const source = typeof reference === 'string' ? findLogSourceByNameOrId(reference, sources) : undefined;
  if (!source) {
    throw new QuerygateError(
      'BAD_PARAMETER',
      `Parameter '${field}' names no source: '${String(reference).slice(0, 200)}'${didYouMean(String(reference), [...sources.map((source) => source.name), ...tables])}. Valid sources: ${valid}`,
      { details: { parameter: field } },
    );
  }
  return source.name;
}

/**
 * Counts a request at what storing its records takes (when more than its body), in the same
 * bound as the bodies in flight: a 12 KB gzip body of 230,000 bare events into a source whose
 * `metadata` has 500 fields is 1.8 GB to store, and three such requests at once took a server to
 * 2 GB and held every query and ingestion for minutes (a table source's rows of `{}` likewise).
 * A request that alone exceeds the bound can never be taken, so it is answered 413 saying how
 * many records to send at once, not 503.
 */
function admitStoring(source: string, cost: StoringCost, maxBytes: number, share: HeldBytes | undefined) {
  if (cost.bytes > maxBytes) {
    const most = Math.max(1, Math.floor(maxBytes / (cost.bytes / cost.records)));
    const width = cost.columns > 0 ? ` (${cost.columns} typed columns and fields each)` : '';
    throw new QuerygateError(
      'PAYLOAD_TOO_LARGE',
      `These ${cost.records} records would count about ${Math.ceil(cost.bytes / 2 ** 20)} MiB to take in and store in source '${source}'${width}, more than QUERYGATE_INGEST_INFLIGHT_BYTES (${maxBytes}): send at most ${most} records per request; nothing of it was stored`,
      { details: { records: cost.records, maxRecords: most } },
    );
  }
  share?.grow(cost.bytes);
}

/**
 * What a record counts in the bound once parsed, however short its JSON: the bound's bytes are a
 * body's, which cost some six times as much memory while taken in, but each record also costs
 * some 700 bytes of its own (its object, id, timestamp and checked copy: measured 610 for
 * `{"event_message":"a"}`, 21 bytes of JSON), so 450,000 such records in a 24 KB gzip body held
 * about 490 MB before anything was stored.
 */
const parsedRecordBytes = 128;

/** A one-event body without the fields that only named its source. */
function withoutSourceFields(event: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const copy = { ...event };
  for (const field of sourceFields) delete copy[field];
  return copy;
}
