import type { BigQuery } from '@google-cloud/bigquery';
import type { LogSource } from '../../endpoints/sources.js';
import { queryableTable, type TableSink, type TableSource } from '../../endpoints/table-source.js';
import { QuerygateError } from '../../errors.js';
import { refuseBadRows } from '../../storage/table-row-check.js';
import { type BigQueryConfig, bigQueryTables, tablePartsIn } from './config.js';
import { bigQueryStatus, toQuerygateError } from './errors.js';
import { firstRefusedRow } from './log-sink.js';

export interface BigQueryTableSinkOptions {
  readonly config: BigQueryConfig;
  readonly client: BigQuery;
  /** The sources of the served queries directory: its log sources, for the table mapping's check. */
  readonly sources: readonly LogSource[];
  /** Its table sources, the ones this sink writes. */
  readonly tables: readonly TableSource[];
}

/** Rows per insertAll request; BigQuery recommends at most 500. */
const batchSize = 500;

/**
 * Rows posted to a table source on the BigQuery engine, streamed with tabledata.insertAll into
 * the table its saved SQL reads: its warehouse name (or where QUERYGATE_BIGQUERY_TABLES maps
 * it). For a wildcard family (`analytics_123456.events_*`) each row goes to the day table its
 * suffix column names (`event_date` 20240131 → `events_20240131`), as the GA4 export writes
 * them. Rows are checked against the declared columns first, in the same words as on DuckDB, and
 * sent as they came: insertAll reads BigQuery's JSON forms (INT64 digits, NUMERIC text, BYTES
 * base64, TIMESTAMP text), the forms a table source takes. The tables are the team's own, so
 * nothing here creates or alters one. Each batch is stored whole or not at all
 * (skipInvalidRows false), but a request of several batches or day tables may be stored in part.
 * A `replace` is a load job per table instead (WRITE_TRUNCATE), each table swapped whole.
 */
export function createBigQueryTableSink(options: BigQueryTableSinkOptions): TableSink {
  // Where the engine reads each table source, so rows land where the saved SQL looks.
  const tableNames = bigQueryTables(options.config, [
    ...options.sources,
    ...options.tables.map(queryableTable),
  ]);

  return {
    async write(sourceName, rows, { replace = false } = {}) {
      const source = options.tables.find((table) => table.name === sourceName);
      if (!source) throw new QuerygateError('BAD_PARAMETER', `No table source named ${sourceName}`);
      refuseBadRows(source.columns, rows);
      const qualified = tableNames[source.name] as string;
      const byTable = rowsByTable(source, qualified, rows);
      if (!replace) {
        for (const [table, indexed] of byTable) await insert(source.name, table, indexed);
        return { ingested: rows.length, replaced: false };
      }
      // An empty replace of a single table empties it; a family's replaces only the days sent.
      if (byTable.size === 0 && !qualified.endsWith('*')) byTable.set(qualified, []);
      for (const [table, indexed] of byTable)
        await loadTruncating(
          source.name,
          table,
          indexed.map(([, row]) => row),
        );
      const family = qualified.endsWith('*');
      return {
        ingested: rows.length,
        replaced: true,
        replacedSuffixes: family
          ? [...byTable.keys()].map((table) => table.slice(qualified.length - 1))
          : undefined,
      };
    },
  };

  /**
   * A load job with WRITE_TRUNCATE of NDJSON rows into one table (a family's day table by its
   * own name, `events_20240725`, as the GA4 export shards by day): BigQuery swaps the table's
   * contents when the job succeeds, and leaves them when it fails.
   */
  async function loadTruncating(sourceName: string, qualified: string, rows: readonly unknown[]) {
    const [project, dataset, table] = tablePartsIn(options.config, qualified);
    const target = options.client.dataset(dataset, { projectId: project }).table(table);
    try {
      await new Promise<void>((resolve, reject) => {
        const stream = target.createWriteStream({
          sourceFormat: 'NEWLINE_DELIMITED_JSON',
          writeDisposition: 'WRITE_TRUNCATE',
          createDisposition: 'CREATE_NEVER',
        });
        stream.on('error', reject);
        stream.on('complete', () => resolve());
        stream.end(rows.map((row) => JSON.stringify(row)).join('\n'));
      });
    } catch (error) {
      if (bigQueryStatus(error) === 404)
        throw missingTable(sourceName, `${project}.${dataset}.${table}`, error);
      throw toQuerygateError(error, { subject: `Loading into ${project}.${dataset}.${table}` });
    }
  }

  async function insert(
    sourceName: string,
    qualified: string,
    rows: readonly (readonly [number, unknown])[],
  ): Promise<void> {
    const [project, dataset, table] = tablePartsIn(options.config, qualified);
    const target = options.client.dataset(dataset, { projectId: project }).table(table);
    for (let start = 0; start < rows.length; start += batchSize) {
      const batch = rows.slice(start, start + batchSize).map(([, row]) => ({ json: row }));
      try {
        await target.insert(batch, {
          raw: true,
          partialRetries: 0,
          skipInvalidRows: false,
          ignoreUnknownValues: false,
        });
      } catch (error) {
        if (bigQueryStatus(error) === 404)
          throw missingTable(sourceName, `${project}.${dataset}.${table}`, error);
        const refused = firstRefusedRow(error, batch);
        if (refused) {
          const index = rows[start + refused.index]?.[0] ?? start + refused.index;
          throw new QuerygateError('BAD_REQUEST', `Row ${index}: BigQuery refused it: ${refused.message}`, {
            cause: error,
            details: { index, reason: refused.message },
          });
        }
        throw toQuerygateError(error, { subject: `Inserting into ${project}.${dataset}.${table}` });
      }
    }
  }
}

function missingTable(sourceName: string, table: string, cause: unknown): QuerygateError {
  return new QuerygateError(
    'NOT_FOUND',
    `The BigQuery table ${table} of table source '${sourceName}' does not exist; querygate never creates a team's own tables`,
    { cause, details: { table } },
  );
}

/** The rows (with their index in the request) by the table each goes to. */
function rowsByTable(
  source: TableSource,
  qualified: string,
  rows: readonly unknown[],
): Map<string, [number, unknown][]> {
  const byTable = new Map<string, [number, unknown][]>();
  const suffixColumn = source.tableSuffix?.column;
  rows.forEach((row, index) => {
    let table = qualified;
    if (qualified.endsWith('*') && suffixColumn) {
      const suffix = suffixOf(row as Record<string, unknown>, suffixColumn);
      // The suffix names a table: only the characters a table id takes.
      if (typeof suffix !== 'string' || !/^[A-Za-z0-9_]+$/.test(suffix))
        throw new QuerygateError(
          'BAD_REQUEST',
          `Row ${index}, column ${suffixColumn}: names the day table of ${qualified} (its _TABLE_SUFFIX), so it must be letters, digits or _, got ${JSON.stringify(suffix ?? null)}; nothing was stored`,
          { details: { index, column: suffixColumn } },
        );
      table = `${qualified.slice(0, -1)}${suffix}`;
    }
    const list = byTable.get(table) ?? [];
    list.push([index, row]);
    byTable.set(table, list);
  });
  return byTable;
}

/** Column names are case-insensitive, as on BigQuery. */
function suffixOf(row: Record<string, unknown>, column: string): unknown {
  const key = Object.keys(row).find((name) => name.toLowerCase() === column.toLowerCase());
  return key === undefined ? undefined : row[key];
}
