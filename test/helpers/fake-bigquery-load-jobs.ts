import type { TableSource } from '../../src/endpoints/table-source.js';
import { quoteIdent } from '../../src/sql/table-schema.js';
import type { Database } from '../../src/storage/database.js';
import { insertWarehouseRows, warehouseTarget } from './fake-bigquery-warehouse-rows.js';

/**
 * The fake BigQuery's load jobs from a media upload (`POST /upload/bigquery/v2/projects/p/jobs`,
 * `uploadType=multipart`, as the client's `table.createWriteStream` sends them): the job's
 * metadata part and its NDJSON data part. Into a warehouse table, WRITE_TRUNCATE replaces the
 * table's rows (a day table's: the rows of its suffix) and WRITE_APPEND adds to them; the load
 * is done when the job is created, as a small load on BigQuery is done by its first poll.
 */
export interface FakeLoadJob {
  /** `project.dataset.table` the job loads. */
  readonly destination: string;
  readonly writeDisposition: string;
  readonly sourceFormat: string;
  readonly rows: number;
}

/** The metadata (JSON) and data parts of a multipart/related upload body. */
// biome-ignore lint/suspicious/noExplicitAny: the job resource as the client sent it
export function uploadParts(contentType: string, body: Buffer): { metadata: any; data: string } {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (!boundary) throw new Error(`not a multipart upload: ${contentType}`);
  const parts = body
    .toString('utf8')
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => part.slice(part.indexOf('\r\n\r\n') + 4).replace(/\r\n$/, ''));
  const [metadata, data = ''] = parts;
  return { metadata: JSON.parse(metadata ?? '{}'), data };
}

/** Runs a load job into a warehouse table; throws a message as BigQuery's for a table it lacks. */
export async function runLoadJob(
  database: Pick<Database, 'connect'>,
  tables: readonly TableSource[],
  job: FakeLoadJob,
  data: string,
): Promise<void> {
  const target = warehouseTarget(tables, job.destination);
  if (!target) throw new Error(`Not found: Table ${job.destination}`);
  const rows = data
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  if (job.writeDisposition === 'WRITE_TRUNCATE') {
    const connection = await database.connect();
    try {
      const suffixColumn = target.source.tableSuffix?.column;
      if (target.suffix !== undefined && suffixColumn)
        await connection.run(
          `DELETE FROM ${quoteIdent(target.source.name)} WHERE ${quoteIdent(suffixColumn)} = $1`,
          [target.suffix],
        );
      else await connection.run(`DELETE FROM ${quoteIdent(target.source.name)}`);
    } finally {
      connection.closeSync();
    }
  }
  if (rows.length > 0) await insertWarehouseRows(database, target, rows);
}
