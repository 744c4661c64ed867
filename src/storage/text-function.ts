import {
  type DuckDBConnection,
  DuckDBScalarFunction,
  type DuckDBVarCharVector,
  VARCHAR,
} from '@duckdb/node-api';

/**
 * Makes `name(VARCHAR) → VARCHAR` known to the connection's whole DuckDB instance (a function
 * registered through the C API goes into the instance's catalog, as registerFarmFingerprint's
 * does), running `convert` in JavaScript on each text of a chunk of at most 2048 rows; a NULL
 * gives NULL.
 */
export function registerTextFunction(
  connection: DuckDBConnection,
  name: string,
  convert: (text: string) => string,
): void {
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name,
      returnType: VARCHAR,
      parameterTypes: [VARCHAR],
      mainFunction: (_info, input, output) => {
        const values = input.getColumnVector(0) as DuckDBVarCharVector;
        const results = output as DuckDBVarCharVector;
        for (let row = 0; row < input.rowCount; row++) {
          const text = values.getItem(row);
          results.setItem(row, text === null ? null : convert(text));
        }
        results.flush();
      },
    }),
  );
}
