import {
  type DuckDBConnection,
  type DuckDBListVector,
  DuckDBScalarFunction,
  type DuckDBVarCharVector,
  LIST,
  listValue,
  VARCHAR,
} from '@duckdb/node-api';
import { RE2JS } from 're2js';
import { regexpExtractAllFunction } from '../sql/rules/rule.js';

/*
 * BigQuery's REGEXP_EXTRACT_ALL for a pattern that can match empty text, where DuckDB's
 * regexp_extract_all answers otherwise. The steps are those of the reference implementation
 * (ZetaSQL's functions/regexp.cc, RegExp::ExtractAllIterator::Next): search from the position;
 * take the match (or its one capturing group, '' when the group took no part); go on from the
 * match's end, one character further after an empty match; stop once the position reaches the
 * end of the text. DuckDB instead searches again at the end (`REGEXP_EXTRACT_ALL('abc', 'x*')` is
 * three empty strings, DuckDB four) and takes an empty match found after the position twice.
 * The pattern runs on RE2JS, RE2's port to JavaScript (the same syntax and leftmost-first
 * matching as the RE2 BigQuery and DuckDB use); positions are UTF-16 indexes, a character one
 * code point.
 */

/** The matches REGEXP_EXTRACT_ALL takes from `text`, as ExtractAllIterator takes them. */
export function extractAll(pattern: RE2JS, text: string): string[] {
  const group = pattern.groupCount() > 0 ? 1 : 0;
  const matcher = pattern.matcher(text);
  const found: string[] = [];
  let position = 0;
  while (matcher.find(position)) {
    found.push(matcher.group(group) ?? '');
    position = matcher.end();
    if (matcher.start() === position && position < text.length)
      position += (text.codePointAt(position) ?? 0) > 0xffff ? 2 : 1;
    if (position >= text.length) break;
  }
  return found;
}

/**
 * Makes `bigquery_regexp_extract_all(value VARCHAR, pattern VARCHAR) → VARCHAR[]` known to the
 * connection's whole DuckDB instance, as registerFarmFingerprint does. Patterns are compiled once
 * per instance (a few, each a query's literal; the cache is emptied past 64).
 */
export function registerRegexpExtractAll(connection: DuckDBConnection): void {
  const compiled = new Map<string, RE2JS>();
  const compile = (source: string) => {
    let pattern = compiled.get(source);
    if (pattern === undefined) {
      if (compiled.size >= 64) compiled.clear();
      pattern = RE2JS.compile(source);
      compiled.set(source, pattern);
    }
    return pattern;
  };
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: regexpExtractAllFunction,
      returnType: LIST(VARCHAR),
      parameterTypes: [VARCHAR, VARCHAR],
      mainFunction: (_info, input, output) => {
        const values = input.getColumnVector(0) as DuckDBVarCharVector;
        const patterns = input.getColumnVector(1) as DuckDBVarCharVector;
        const results = output as DuckDBListVector;
        for (let row = 0; row < input.rowCount; row++) {
          const text = values.getItem(row);
          const source = patterns.getItem(row);
          results.setItem(
            row,
            text === null || source === null ? null : listValue(extractAll(compile(source), text)),
          );
        }
        results.flush();
      },
    }),
  );
}
