import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument, visit, YAMLSeq } from 'yaml';
import { readSourceDeclarations, sourcesFileName } from '../endpoints/sources.js';
import { tableColumnsSchema } from '../endpoints/table-columns.js';
import { tableSourceSchema } from '../endpoints/table-source.js';
import { issueLines } from '../endpoints/yaml-file.js';
import { quoteIdent } from '../sql/table-schema.js';
import { openDatabase } from '../storage/database.js';
import { isStoreLocked } from './through-server.js';

export interface AddTableOptions {
  readonly queriesDir: string;
  readonly name: string;
  /** `bq show --schema --format=prettyjson` output (a list of fields), or a whole `bq show` table. */
  readonly schemaFile: string;
  readonly warehouseName?: string | undefined;
  readonly tableSuffixColumn?: string | undefined;
  readonly description?: string | undefined;
}

/**
 * `querygate sources add-table`: declares a table source in `<dir>/sources.yaml` from BigQuery's
 * own schema JSON, so a team's table is declared exactly as the warehouse holds it. The entry is
 * checked as the server will check it before the file is written; the file's comments and other
 * entries are kept. Returns the entry as written.
 */
export function addTableSource(options: AddTableOptions): Record<string, unknown> {
  let schema: unknown;
  try {
    schema = JSON.parse(readFileSync(options.schemaFile, 'utf8'));
  } catch (error) {
    throw new Error(`${options.schemaFile}: is not a readable JSON schema (${(error as Error).message})`);
  }
  // `bq show --format=prettyjson <table>` wraps the fields in { schema: { fields } }.
  const fields = Array.isArray(schema)
    ? schema
    : ((schema as { schema?: { fields?: unknown } })?.schema?.fields ??
      (schema as { fields?: unknown })?.fields);
  const columns = tableColumnsSchema.safeParse(fields);
  if (!columns.success) throw new Error(issueLines(options.schemaFile, columns.error).join('\n'));
  const entry: Record<string, unknown> = {
    kind: 'table',
    name: options.name,
    description: options.description ?? `The warehouse table ${options.warehouseName ?? options.name}`,
    ...(options.warehouseName ? { warehouseName: options.warehouseName } : {}),
    ...(options.tableSuffixColumn ? { tableSuffix: { column: options.tableSuffixColumn } } : {}),
    // Written as bq wrote them (name, type, mode, fields), so a later `bq show` diff reads plainly.
    columns: fields,
  };
  const checked = tableSourceSchema.safeParse(entry);
  if (!checked.success) throw new Error(issueLines(options.name, checked.error).join('\n'));

  const file = join(options.queriesDir, sourcesFileName);
  const document = existsSync(file)
    ? parseDocument(readFileSync(file, 'utf8'))
    : parseDocument('# The sources the saved queries read (see README.md).\nsources: []\n');
  if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message.split('\n')[0]}`);
  const sources = document.get('sources');
  if (!(sources instanceof YAMLSeq)) throw new Error(`${file}: has no sources: list`);
  const taken = sources.items.some(
    (item) => (item as { get?: (key: string) => unknown }).get?.('name') === options.name,
  );
  if (taken) throw new Error(`${file}: already declares a source named ${options.name}`);
  sources.flow = false;
  const node = document.createNode(entry);
  // One line per leaf column, `{ name: x, type: STRING, mode: NULLABLE }`, nested ones opened up.
  visit(node, {
    Map(_key, map) {
      if (map.has('type') && !map.has('fields')) map.flow = true;
    },
  });
  sources.add(node);
  writeFileSync(file, document.toString({ lineWidth: 0 }));
  // The whole file must still load as the server loads it.
  readSourceDeclarations(options.queriesDir);
  return entry;
}

/**
 * `querygate sources drop-table <name>`: drops a table source's table from the store, for a
 * declaration no schema update reaches (a column renamed, dropped, narrowed): the next start or
 * `querygate import` creates it empty under the declared columns. Its rows go, so without `yes`
 * a table holding rows is only counted. Refused while a server holds the store (stop it first: the
 * server keeps the old declaration's table open). Returns the rows the table held.
 */
export async function dropTableSource(options: {
  readonly queriesDir: string;
  readonly dataDir: string;
  readonly name: string;
  readonly yes: boolean;
}): Promise<{ rows: number; dropped: boolean }> {
  const declared = readSourceDeclarations(options.queriesDir);
  if (!declared.tables.some((table) => table.name === options.name))
    throw new Error(
      `${options.name} is not a table source of ${join(options.queriesDir, sourcesFileName)} (only table sources' tables are dropped)`,
    );
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase(join(options.dataDir, 'querygate.duckdb'));
  } catch (error) {
    if (!isStoreLocked(error)) throw error;
    throw new Error(`A server holds the store in ${options.dataDir}: stop it, then drop ${options.name}`);
  }
  try {
    const connection = await database.connect();
    try {
      const found = await connection.runAndReadAll(
        `SELECT 1 FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = $1`,
        [options.name],
      );
      if (found.getRows().length === 0) return { rows: 0, dropped: false };
      const counted = await connection.runAndReadAll(`SELECT count(*) FROM ${quoteIdent(options.name)}`);
      const rows = Number(counted.getRows()[0]?.[0]);
      // An empty table is dropped without asking: nothing is lost.
      if (!options.yes && rows > 0) return { rows, dropped: false };
      await connection.run(`DROP TABLE ${quoteIdent(options.name)}`);
      return { rows, dropped: true };
    } finally {
      connection.closeSync();
    }
  } finally {
    database.close();
  }
}
