// A `querygate import` of table files into a store, run as a child to be killed with SIGKILL:
// with `mid`, prints `ok` once the first file read is in and holds the transaction open (the
// kill lands inside it, whatever the machine's load); with `end`, once the load has committed. Arguments: <store> <source> <mode> <mid|end> <files...>
import { readSourceDeclarations } from '../../src/endpoints/sources.js';
import type { TableLoadMode } from '../../src/endpoints/table-source.js';
import { openDatabase } from '../../src/storage/database.js';
import { loadTableFiles } from '../../src/storage/table-load.js';
import { ensureWarehouseTables } from '../../src/storage/warehouse-tables.js';
import { warehouseDir } from '../helpers/warehouse-fixture.js';

const [store, sourceName, mode, when, ...files] = process.argv.slice(2);
const source = readSourceDeclarations(warehouseDir).tables.find((table) => table.name === sourceName);
if (!store || !source) throw new Error(`usage: <store> <source> <mode> <mid|end> <files...>`);
const database = await openDatabase(store);
const connection = await database.connect();
await ensureWarehouseTables(connection, [source]);
await loadTableFiles(connection, source, files, {
  mode: mode as TableLoadMode,
  onProgress: (progress) => {
    if (when !== 'mid' || progress.percentage !== 100) return;
    process.stdout.write('ok\n');
    // Blocks this thread (DuckDB's statement is done; the transaction is open) until killed.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30_000);
  },
});
if (when === 'end') process.stdout.write('ok\n');
// Held open: the parent kills it before any close or checkpoint.
await new Promise(() => {});
