import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { TableSink } from '../endpoints/table-source.js';
import { QuerygateError } from '../errors.js';
import { allMethods } from '../http/app.js';
import { readBodiesAsBytes } from '../http/read-bodies.js';
import { operatorRequest } from './operator-request.js';

/** Where `querygate import` hands this server the table files it copied to its staging directory. */
export const storeImportPath = '/api/store-import';

const requestBody = z.object({
  source: z.string().min(1),
  // Names in the staging directory, never paths: no separator, no leading dot.
  files: z.array(z.string().regex(/^[\w-][\w.-]*$/, 'a file name in the staging directory')),
  format: z.enum(['ndjson', 'parquet', 'csv']).optional(),
  mode: z.enum(['append', 'replace', 'truncate']).optional(),
});

/** The body `querygate import` sends. */
export type StoreImportRequest = z.infer<typeof requestBody>;

/**
 * `POST /api/store-import`: `querygate import` of a table source's files (NDJSON, Parquet or
 * CSV as BigQuery exports them) run by the server that holds the DuckDB file, all files in one
 * transaction as the command does on the file itself. The command copies them into
 * `stagingDir` first: the locked-down DuckDB reads nothing else. Like `/api/store-query`, it is
 * the operator's tool: a query key and a client on this machine. `mode` is `loadTableFiles`'s
 * (append, idempotent by file content; replace; truncate).
 */
export function storeImportRoute(options: {
  readonly tables: TableSink;
  readonly stagingDir: string;
  readonly maxBodyBytes: number;
}) {
  return async function routes(app: FastifyInstance) {
    readBodiesAsBytes(app, options.maxBodyBytes);
    app.route({
      method: [...allMethods],
      url: storeImportPath,
      handler: async (request, reply) => {
        const { source, files, format, mode } = operatorRequest(
          request,
          requestBody,
          '{"source", "files", "format"?, "mode"?}',
        );
        if (!options.tables.importFiles) throw new QuerygateError('NOT_FOUND', 'This store loads no files');
        if (files.length === 0 && mode !== 'truncate')
          throw new QuerygateError('BAD_REQUEST', 'files: name at least one file (only truncate takes none)');
        const loaded = await options.tables.importFiles(
          source,
          files.map((file) => join(options.stagingDir, file)),
          { format, mode },
        );
        // The staged names mean nothing to the caller: it is told which of its files were skipped by index.
        const skipped = (loaded.skipped ?? []).map((path) =>
          files.indexOf(path.slice(options.stagingDir.length + 1)),
        );
        return reply.send({ ...loaded, skipped });
      },
    });
  };
}
