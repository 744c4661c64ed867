import { raiseSql } from '../raised-errors.js';
import { type RuleTable, rule } from './rule.js';

/** IF, IFNULL, NULLIF, COALESCE, ERROR (CASE is a form, in translate.ts). */
export const conditionalRules: RuleTable = {
  if: rule(
    3,
    3,
    ([condition, then, otherwise]) => `CASE WHEN ${condition} THEN ${then} ELSE ${otherwise} END`,
  ),
  ifnull: rule(2, 2, (args) => `coalesce(${args.join(', ')})`),
  nullif: rule(2, 2, (args) => `nullif(${args.join(', ')})`),
  coalesce: rule(1, Number.POSITIVE_INFINITY, (args) => `coalesce(${args.join(', ')})`),
  // ERROR(message) fails the query with the message where it is evaluated: a branch no row takes
  // (IF(x = 0, ERROR('zero'), 1 / x) over x = 2) raises nothing, as DuckDB's error() does not.
  error: rule(1, 1, ([message]) => raiseSql(`CAST(${message} AS VARCHAR)`)),
};
