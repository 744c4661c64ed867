import { readsTableSource } from '../endpoints/reads-table.js';
import type { TableSink, TableSource } from '../endpoints/table-source.js';
import type { Resolver } from './resolver-types.js';

/**
 * The table sink with the resolver's results kept true to it: once a write or load has replaced
 * or deleted rows of a table (replace, truncate) or loaded files into it, the cached results of
 * every endpoint reading that table are dropped, so the next call runs on the new rows instead
 * of answering the old ones for the rest of its cache seconds. Rows appended over HTTP leave the
 * cache alone: a stream of them is what the cache seconds are for.
 */
export function dropResultsOnReplace(
  sink: TableSink,
  resolver: Pick<Resolver, 'retain'>,
  tables: readonly TableSource[],
): TableSink {
  const drop = (sourceName: string) => {
    const source = tables.find((table) => table.name === sourceName);
    if (!source) return;
    // Each text parsed once per drop, however many cached parameter sets it has.
    const reads = new Map<string, boolean>();
    resolver.retain((endpoint) => {
      const key = endpoint.hash ?? endpoint.sql;
      if (!reads.has(key)) reads.set(key, readsTableSource(endpoint, source));
      return !reads.get(key);
    });
  };
  const importFiles = sink.importFiles?.bind(sink);
  return {
    async write(sourceName, rows, options) {
      const written = await sink.write(sourceName, rows, options);
      if (written.replaced) drop(sourceName);
      return written;
    },
    ...(importFiles
      ? {
          async importFiles(sourceName, files, options) {
            const loaded = await importFiles(sourceName, files, options);
            if (loaded.replaced || loaded.ingested > 0) drop(sourceName);
            return loaded;
          },
        }
      : {}),
  };
}
