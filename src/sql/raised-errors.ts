/**
 * The errors the translation raises at run time in BigQuery's own words (a division by zero, an
 * array index out of bounds, a refusal of a value it does not translate, the ERROR() a query
 * calls) are the query's fault or its values', which BigQuery answers with HTTP 400 (reason
 * invalidQuery), never a failure of the engine. Each carries `mark` at the start of its text:
 * DuckDB reports `error('...')` and a registered function's throw as `Invalid Input Error: <text>`
 * unchanged, so one test tells them from DuckDB's own errors, whatever the words.
 *
 * A query can put the mark at the start of a DuckDB error only through error() (ERROR() is
 * translated to a marked one; DuckDB's own errors start with their own words, and the registered
 * functions' with ours), so a forged mark reaches nothing but the query's own message.
 */
const mark = 'BQ: ';

/**
 * DuckDB's error() of `message` (SQL for a STRING, NULL raising nothing), marked. The mark goes
 * into a leading string literal, so the translated SQL grows by its four characters alone.
 */
export function raiseSql(message: string): string {
  const literal = /^E?'/.exec(message)?.[0];
  if (literal) return `error(${literal}${mark}${message.slice(literal.length)})`;
  return `error('${mark}' || ${message})`;
}

/** What a registered JavaScript function throws for BigQuery's error `message`, marked. */
export function raisedError(message: string): Error {
  return new Error(`${mark}${message}`);
}

/** The message of an error the translation raised, without DuckDB's prefix and the mark; else undefined. */
export function raisedMessage(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : undefined;
  const prefix = `Invalid Input Error: ${mark}`;
  return message?.startsWith(prefix) ? message.slice(prefix.length) : undefined;
}
