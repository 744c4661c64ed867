import type { Logger } from 'pino';
import { type DemoTraffic, startDemoTraffic } from '../../demo/traffic.js';
import { readSources } from '../../endpoints/sources.js';
import { queriesDir as shippedQueriesDir } from '../../paths.js';
import type { Database } from '../../storage/database.js';
import type { LogWriter } from '../../storage/log-writer.js';
import type { Timers } from '../../timers.js';

export interface ShippedDemoOptions {
  readonly database: Database;
  readonly writer: LogWriter;
  /** The sources served. */
  readonly sources: readonly { readonly name: string }[];
  readonly now: () => Date;
  readonly timers?: Timers | undefined;
  readonly logger: Logger;
  /** The queries directory served, named in the warning. */
  readonly queriesDir: string;
}

/**
 * Seeds or tops up the demo store, then keeps adding traffic until closed. Demo traffic is
 * written to the nine shipped sources; a queries directory without them all gets none.
 */
export async function startShippedDemo(options: ShippedDemoOptions): Promise<DemoTraffic | undefined> {
  const shipped = readSources(shippedQueriesDir);
  const served = new Set(options.sources.map((source) => source.name));
  if (!shipped.every((source) => served.has(source.name))) {
    options.logger.warn(
      `${options.queriesDir}/sources.yaml lacks some of the nine shipped sources: no demo logs`,
    );
    return undefined;
  }
  return startDemoTraffic({
    database: options.database,
    writer: options.writer,
    now: options.now,
    timers: options.timers,
    onError: (error) => options.logger.warn({ err: error }, 'demo top-up failed'),
    onStartProgress: (sent, total) =>
      options.logger.info({ sent, total }, `demo logs: ${sent} of ${total} events written`),
  });
}
