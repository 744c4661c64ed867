import {
  type DuckDBConnection,
  DuckDBScalarFunction,
  type DuckDBVarCharVector,
  VARCHAR,
} from '@duckdb/node-api';

/**
 * Makes `name(VARCHAR, ...) → VARCHAR` known to the connection's whole DuckDB instance (a function
 * registered through the C API goes into the instance's catalog, as registerFarmFingerprint's
 * does), running `convert` in JavaScript on the texts of each row of a chunk of at most 2048 rows;
 * a NULL argument gives NULL. It takes as many arguments as `convert` names.
 */
export function registerTextFunction(
  connection: DuckDBConnection,
  name: string,
  convert: (...texts: string[]) => string,
): void {
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name,
      returnType: VARCHAR,
      parameterTypes: Array.from({ length: convert.length }, () => VARCHAR),
      mainFunction: (_info, input, output) => {
        const columns = Array.from(
          { length: convert.length },
          (_, i) => input.getColumnVector(i) as DuckDBVarCharVector,
        );
        const results = output as DuckDBVarCharVector;
        for (let row = 0; row < input.rowCount; row++) {
          const texts = columns.map((column) => column.getItem(row));
          results.setItem(row, texts.includes(null) ? null : convert(...(texts as string[])));
        }
        results.flush();
      },
    }),
  );
}
