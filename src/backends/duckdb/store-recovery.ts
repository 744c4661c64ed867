import type { LogSink } from '../../endpoints/log-record.js';
import type { TableSink } from '../../endpoints/table-source.js';
import type { QueryEngine, SavedQuery } from '../../engines/query-engine.js';
import { QuerygateError } from '../../errors.js';
import { isFatalStoreError } from '../../storage/database.js';
import { systemTimers, type Timers } from '../../timers.js';
import type { StoreState } from '../backend.js';

/**
 * One opening of the DuckDB store: the instance and everything holding its connections (engine,
 * log writer, table writer, memory trim, retention, demo traffic). All of it goes together.
 */
export interface StoreOpening {
  readonly engine: QueryEngine;
  readonly logs: LogSink;
  readonly tables: TableSink;
  /** Closes every part, then the instance (which releases the file). */
  close(): Promise<void>;
}

/** What the recovering store gives the parts of each opening. */
export interface StoreHooks {
  /** Reports an error the parts do not throw to a caller (a failed checkpoint's). */
  readonly failed: (error: unknown) => void;
  /**
   * Closes the store and opens it again, as after a fatal error, whatever the error: the log
   * writer asks for it when DuckDB refused records it had acknowledged, which the ingest journal
   * holds and the opening stores.
   */
  readonly reopen: (error: unknown) => void;
  /**
   * Runs `work` with no query using DuckDB: queries arriving meanwhile answer 503 with
   * Retry-After, those running are waited for (at most the drain time) first.
   */
  readonly runAlone: <T>(work: () => Promise<T>) => Promise<T>;
}

export interface RecoveringStoreOptions<O extends StoreOpening> {
  /**
   * Opens the store: `attempt` 0 at start, then 1, 2, ... for each reopening. `failed` is for
   * the parts to report an error they do not throw to a caller (a checkpoint's).
   */
  open(attempt: number, hooks: StoreHooks): Promise<O>;
  readonly log: {
    error(details: object, message: string): void;
    info(details: object, message: string): void;
  };
  /** How long a reopening waits for the calls still running on the invalidated store. @default 10 s */
  readonly drainMs?: number;
}

export interface RecoveringStore<O extends StoreOpening> {
  /** The engine, log sink and table sink of whichever opening is current. */
  readonly engine: QueryEngine;
  readonly logs: LogSink;
  readonly tables: TableSink;
  /** The opening made at start (its demo traffic's seed outcome is what the server reports). */
  readonly first: O;
  state(): StoreState;
  /** Runs `use` on the current opening, as its engine and sinks do (503 while it reopens). */
  guarded<T>(use: (opening: O) => Promise<T>): Promise<T>;
  /** Resolves once the store is open again after a fatal error (at once when it is open). */
  reopened(): Promise<void>;
  close(): Promise<void>;
}

/** What clients are told to wait before trying again while the store reopens. */
const retryAfterSeconds = 1;
/** What queries are told to wait while a large schema change runs alone. */
const schemaChangeRetrySeconds = 2;
/** Waits between failed attempts to reopen: 1 s, doubling, at most 30 s. */
const firstRetryMs = 1000;
const lastRetryMs = 30_000;

/**
 * Keeps the store reachable through a fatal DuckDB error. DuckDB invalidates a database after a
 * fatal error (a checkpoint failing half way, as one out of memory does): from then on every
 * statement on every connection fails until the instance is closed and the file opened again.
 * Here the first call or checkpoint that meets such an error closes the whole opening and opens
 * the file again (DuckDB replays its WAL; the log writer replays its ingest journal, so every
 * acknowledged record is back), retrying with backoff if that fails. In between, `state()` says
 * so (`/health` answers 503) and every call answers 503 NOT_READY with Retry-After, never 502.
 */
export async function openRecoveringStore<O extends StoreOpening>(
  options: RecoveringStoreOptions<O>,
): Promise<RecoveringStore<O>> {
  // Real time, whatever clock the server was given: a test's manual clock must not stall recovery.
  const timers = systemTimers;
  const drainMs = options.drainMs ?? 10_000;
  interface Live {
    readonly opening: O;
    /** Calls running on it, awaited before it is closed. */
    readonly running: Set<Promise<unknown>>;
    /** The queries among them, awaited before work that must run alone. */
    readonly queries: Set<Promise<unknown>>;
  }
  let live: Live | undefined;
  let down: { readonly reason: string; readonly since: number } | undefined;
  let reopening: Promise<void> = Promise.resolve();
  let closed = false;
  let attempts = 0;
  let retained: readonly SavedQuery[] | undefined;
  /** Work running alone (a large schema change): queries and writes are told to come back. */
  let alone = 0;

  const unavailable = () =>
    new QuerygateError(
      'NOT_READY',
      closed
        ? 'The store is closed'
        : 'The store is reopening after DuckDB failed; nothing acknowledged was lost, try again shortly',
      { details: { retryAfterSeconds } },
    );

  const changingSchema = () =>
    new QuerygateError(
      'NOT_READY',
      'A schema change too large to share the store with queries is running; try again shortly',
      { details: { retryAfterSeconds: schemaChangeRetrySeconds } },
    );

  const failedOn = (failing: Live) => (error: unknown) => {
    if (isFatalStoreError(error)) reopen(failing, error, 'DuckDB invalidated the store');
  };

  const reopen = (failing: Live, error: unknown, why: string) => {
    if (live !== failing || closed) return;
    live = undefined;
    down = { reason: `${why}; the store is reopening`, since: Date.now() };
    options.log.error({ err: error }, `${why}; closing the store and opening it again`);
    reopening = recover(failing);
  };

  const openLive = async (): Promise<Live> => {
    const holder: { live?: Live } = {};
    const running = new Set<Promise<unknown>>();
    const queries = new Set<Promise<unknown>>();
    const opening = await options.open(attempts++, {
      failed: (error) => {
        if (holder.live) failedOn(holder.live)(error);
      },
      reopen: (error) => {
        if (holder.live) reopen(holder.live, error, 'DuckDB refused acknowledged records');
      },
      runAlone: async (work) => {
        alone++;
        try {
          await settledWithin([...queries], drainMs, timers);
          return await work();
        } finally {
          alone--;
        }
      },
    });
    holder.live = { opening, running, queries };
    if (retained) opening.engine.retain?.(retained);
    return holder.live;
  };

  const recover = async (failing: Live) => {
    await settledWithin([...failing.running], drainMs, timers);
    await failing.opening
      .close()
      .catch((error) => options.log.error({ err: error }, 'closing the invalidated store failed'));
    for (let waitMs = firstRetryMs; !closed; waitMs = Math.min(waitMs * 2, lastRetryMs)) {
      try {
        const next = await openLive();
        if (closed) {
          await next.opening.close();
          return;
        }
        const downMs = Date.now() - (down?.since ?? Date.now());
        live = next;
        down = undefined;
        options.log.info({ downMs }, 'the store is open again');
        return;
      } catch (error) {
        options.log.error({ err: error, retryInMs: waitMs }, 'reopening the store failed; trying again');
        await new Promise<void>((done) => timers.setTimeout(done, waitMs));
      }
    }
  };

  /** Runs `use` on the current opening; a fatal error starts recovery and answers 503. */
  const guarded = async <T>(use: (opening: O) => Promise<T>, query = false): Promise<T> => {
    const current = live;
    if (!current) throw unavailable();
    // Writes too: they would wait behind the change in the writer's queue, past a client's timeout.
    if (alone > 0) throw changingSchema();
    const call = use(current.opening);
    current.running.add(call);
    if (query) current.queries.add(call);
    try {
      return await call;
    } catch (error) {
      if (!isFatalStoreError(error)) throw error;
      failedOn(current)(error);
      throw unavailable();
    } finally {
      current.running.delete(call);
      current.queries.delete(call);
    }
  };

  const first = await openLive();
  live = first;

  const engine: QueryEngine = {
    kind: first.opening.engine.kind,
    ready: () => guarded((opening) => opening.engine.ready()),
    run: (query, params, runOptions) =>
      guarded((opening) => opening.engine.run(query, params, runOptions), true),
    describe: (query) => guarded((opening) => opening.engine.describe(query), true),
    retain(queries) {
      retained = queries;
      live?.opening.engine.retain?.(queries);
    },
    plans: () => live?.opening.engine.plans?.() ?? { texts: 0, statements: 0 },
    // The opening closes its engine with the rest of it (close below).
    close: async () => {},
  };

  return {
    engine,
    logs: {
      write: (source, events, options) => guarded((opening) => opening.logs.write(source, events, options)),
      committed: () => live?.opening.logs.committed?.(),
    },
    tables: {
      write: (source, rows, options) => guarded((opening) => opening.tables.write(source, rows, options)),
      importFiles: (source, files, options) =>
        guarded((opening) => {
          if (!opening.tables.importFiles) throw new QuerygateError('NOT_FOUND', 'This store loads no files');
          return opening.tables.importFiles(source, files, options);
        }),
    },
    first: first.opening,
    guarded: (use) => guarded(use),
    state: () => (down ? { ok: false, reason: down.reason, retryAfterSeconds } : { ok: true }),
    reopened: () => reopening,
    async close() {
      closed = true;
      await reopening;
      const current = live;
      live = undefined;
      if (current) {
        await settledWithin([...current.running], drainMs, timers);
        await current.opening.close();
      }
    },
  };
}

/** Waits for the promises to settle, or `ms`, whichever comes first. */
async function settledWithin(
  promises: readonly Promise<unknown>[],
  ms: number,
  timers: Timers,
): Promise<void> {
  if (promises.length === 0) return;
  let handle: unknown;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise<void>((done) => {
      handle = timers.setTimeout(done, ms);
    }),
  ]);
  timers.clearTimeout(handle);
}
