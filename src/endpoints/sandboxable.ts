import { sandboxTables } from '../sql/sandbox.js';

/** The name of the parameter that carries a caller's SQL to a sandboxed endpoint (Logflare's). */
export const callerSqlParameter = 'sql';

/**
 * Refuses, at load, a sandboxed contract whose SQL offers a caller no tables (it is not a WITH
 * query) or that declares a parameter named `sql`, which would be read as the caller's query.
 */
export function assertSandboxable(
  contractFile: string,
  sql: string,
  parameterNames: readonly string[],
): void {
  if (parameterNames.includes(callerSqlParameter)) {
    throw new Error(
      `${contractFile}: a sandboxed endpoint cannot declare a parameter named ${callerSqlParameter}; it carries the caller's query`,
    );
  }
  try {
    sandboxTables(sql);
  } catch (error) {
    throw new Error(`${contractFile}: ${(error as Error).message}`);
  }
}
