import { type DuckDBConnection, type DuckDBType, DuckDBTypeId } from '@duckdb/node-api';
import { elementOf, quoteIdent, type SqlType, type TableSchema } from '../../sql/table-schema.js';

/** A table queries may name: its name in the store and the other names it answers to. */
export interface QueryableTable {
  readonly name: string;
  readonly aliases?: readonly string[] | undefined;
  /** A table source (the team's own table) rather than a log source: its STRUCTs are objects. */
  readonly kind?: 'log' | 'table' | undefined;
  /** Of a wildcard family: the column holding `_TABLE_SUFFIX`. */
  readonly tableSuffix?: { readonly column: string } | undefined;
}

/**
 * The columns each table has in the store now, read from DuckDB: what ingestion has evolved
 * `metadata` to, not the seed catalog, so every field of the data can be addressed and a field
 * no record ever had is refused by the translator. A table the store lacks is left out.
 */
export async function readTableSchemas(
  connection: DuckDBConnection,
  tables: readonly QueryableTable[],
  presentRecords?: (table: string) => ReadonlySet<string>,
  integerTexts?: (table: string) => ReadonlySet<string>,
): Promise<TableSchema[]> {
  const schemas: TableSchema[] = [];
  for (const table of tables) {
    let result: Awaited<ReturnType<DuckDBConnection['run']>>;
    try {
      result = await connection.run(`SELECT * FROM ${quoteIdent(table.name)} LIMIT 0`);
    } catch {
      continue;
    }
    const present = presentRecords?.(table.name);
    const known = { present, integers: integerTexts?.(table.name) };
    // A log source's objects are repeated records (Logflare's layout); a table source's STRUCTs are STRUCTs.
    const repeated = table.kind !== 'table';
    const columns = Object.fromEntries(
      result.columnNames().map((name, i) => [name, sqlType(result.columnType(i), repeated, name, known)]),
    );
    const notNull = result.columnNames().filter((name) => present?.has(name));
    schemas.push({
      name: table.name,
      aliases: table.aliases,
      tableSuffix: table.tableSuffix,
      columns,
      notNull,
    });
  }
  return schemas;
}

/**
 * A column's type; a record at `path` that every row has (of `known.present`) is marked so, and
 * its fields whose every value is integer text (of `known.integers`); and every record of a log
 * source (`repeated`) as the repeated record it stands for.
 */
function sqlType(
  type: DuckDBType,
  repeated: boolean,
  path?: string,
  known?: { readonly present?: ReadonlySet<string>; readonly integers?: ReadonlySet<string> },
): SqlType {
  switch (type.typeId) {
    case DuckDBTypeId.STRUCT: {
      const integerTexts = type.entryNames.filter(
        (name, i) =>
          type.entryTypes[i]?.typeId === DuckDBTypeId.VARCHAR &&
          type.entryTypes[i]?.alias !== 'JSON' &&
          known?.integers?.has(`${path}.${name}`),
      );
      return {
        struct: Object.fromEntries(
          type.entryNames.map((name, i) => [
            name,
            sqlType(type.entryTypes[i] as DuckDBType, repeated, path && `${path}.${name}`, known),
          ]),
        ),
        ...(path !== undefined && known?.present?.has(path) ? { present: true } : {}),
        ...(path !== undefined && integerTexts.length > 0 ? { integerTexts: new Set(integerTexts) } : {}),
        ...(repeated ? { repeated: true } : {}),
      };
    }
    case DuckDBTypeId.LIST:
      // A list's elements are its records: their fields are read.
      return { list: elementOf(sqlType(type.valueType, repeated)) };
    default:
      // JSON is DuckDB's VARCHAR under another name; BigQuery's JSON operations need to know it.
      return type.alias === 'JSON' ? 'JSON' : type.toString();
  }
}
