import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { writeWarehouse } from '../../examples/warehouse/generate.js';
import type { DuckDbConnector } from '../../src/backends/duckdb/engine.js';
import { readSourceDeclarations } from '../../src/endpoints/sources.js';
import type { TableSource } from '../../src/endpoints/table-source.js';
import { openDatabase } from '../../src/storage/database.js';
import { importTableFiles } from '../../src/storage/table-import.js';
import { ensureWarehouseTables } from '../../src/storage/warehouse-tables.js';

/** The example directory the warehouse tests serve, as a user would. */
export const warehouseDir = join(import.meta.dirname, '..', '..', 'examples', 'warehouse');

export interface WarehouseFixture {
  /** The export files of the GA4 family, one per day (`events_20201201.ndjson`, ...). */
  readonly eventFiles: readonly string[];
  readonly ordersFile: string;
  /** The table sources of examples/warehouse/sources.yaml. */
  readonly ga4: TableSource;
  readonly orders: TableSource;
}

/** Writes the seeded example data into `dir` (small: a few thousand events). */
export function writeWarehouseFixture(dir: string): WarehouseFixture {
  const written = writeWarehouse(dir, { events: 1500, orders: 120, days: 3, seed: 19 });
  const { tables } = readSourceDeclarations(warehouseDir);
  const table = (name: string) => {
    const found = tables.find((source) => source.name === name);
    if (!found) throw new Error(`examples/warehouse declares no ${name}`);
    return found;
  };
  return {
    eventFiles: written.events,
    ordersFile: written.orders,
    ga4: table('ga4_events'),
    orders: table('orders'),
  };
}

/** Loads the fixture into a store through `querygate import`'s own path. */
export async function importWarehouseFixture(
  database: DuckDbConnector,
  fixture: WarehouseFixture,
): Promise<void> {
  const connection = await database.connect();
  try {
    await ensureWarehouseTables(connection, [fixture.ga4, fixture.orders]);
    await importTableFiles(connection, fixture.ga4, fixture.eventFiles);
    await importTableFiles(connection, fixture.orders, [fixture.ordersFile]);
  } finally {
    connection.closeSync();
  }
}

/** A `prepare` for startQuerygateUnderTest: the fixture loaded into the data dir's store file. */
export function prepareWarehouseStore(fixture: WarehouseFixture): (dataDir: string) => Promise<void> {
  return async (dataDir) => {
    const database = await openDatabase(join(dataDir, 'querygate.duckdb'));
    try {
      await importWarehouseFixture(database, fixture);
    } finally {
      database.close();
    }
  };
}

// The oracle's own reading of the export files: DuckDB types written here by hand, for the
// fields the queries read, independently of querygate's type map.
const eventColumns = `{
  event_date: 'VARCHAR', event_timestamp: 'BIGINT', event_name: 'VARCHAR', user_pseudo_id: 'VARCHAR',
  event_params: 'STRUCT(key VARCHAR, value STRUCT(string_value VARCHAR, int_value BIGINT, float_value DOUBLE, double_value DOUBLE))[]',
  items: 'STRUCT(item_id VARCHAR, item_name VARCHAR, item_category VARCHAR, quantity BIGINT, item_revenue DOUBLE)[]',
  traffic_source: 'STRUCT(name VARCHAR, medium VARCHAR, source VARCHAR)',
  geo: 'STRUCT(country VARCHAR)', device: 'STRUCT(category VARCHAR)',
  ecommerce: 'STRUCT(purchase_revenue_in_usd DOUBLE)'
}`;
const orderColumns = `{
  order_id: 'VARCHAR', customer_id: 'VARCHAR', created_at: 'VARCHAR', order_date: 'DATE', status: 'VARCHAR', total: 'DECIMAL(12, 2)', tags: 'VARCHAR[]', currency: 'VARCHAR',
  is_gift: 'BOOLEAN', attributes: 'JSON',
  shipping: 'STRUCT(method VARCHAR, address STRUCT(city VARCHAR, country VARCHAR, postal_code VARCHAR), shipped_at VARCHAR, window_start VARCHAR)'
}`;

export interface Oracle {
  /** Rows of plain DuckDB SQL over the fixture laid out as BigQuery holds it, as JSON values. */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  close(): void;
}

/**
 * The fixture as BigQuery holds it: one table per day of the GA4 family (`events_20201201`, ...)
 * and `orders`, read straight from the export files by DuckDB. Expected answers are computed
 * over these with plain DuckDB SQL, never through querygate.
 */
export async function createOracle(fixture: WarehouseFixture): Promise<Oracle> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  for (const file of fixture.eventFiles) {
    const table = (file.split('/').at(-1) as string).replace('.ndjson', '');
    await connection.run(
      `CREATE TABLE ${table} AS SELECT * FROM read_json('${file}', format = 'newline_delimited', columns = ${eventColumns})`,
    );
  }
  await connection.run(
    `CREATE TABLE orders AS SELECT * FROM read_json('${fixture.ordersFile}', format = 'newline_delimited', columns = ${orderColumns})`,
  );
  return oracleOn(instance, connection);
}

/** The Oracle reading an in-memory DuckDB whose tables the caller has made. */
export function oracleOn(instance: DuckDBInstance, connection: DuckDBConnection): Oracle {
  return {
    async rows(sql) {
      return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
    },
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** The day tables of the fixture between two suffixes, as a UNION ALL BigQuery's wildcard stands for. */
export function daysBetween(dir: string, first: string, last: string): string {
  const days = readdirSync(dir)
    .filter((file) => /^events_\d{8}\.ndjson$/.test(file))
    .map((file) => file.slice(7, 15))
    .filter((day) => day >= first && day <= last);
  return `(${days.map((day) => `SELECT * FROM events_${day}`).join(' UNION ALL ')})`;
}
