import type { DuckDBConnection } from '@duckdb/node-api';
import {
  type RollupPart,
  type RollupShape,
  rollupIdsColumn,
  rollupRowsColumn,
  type TimeRange,
} from '../../storage/rollups.js';

/**
 * A translated query read from a source's hourly rollup (storage/rollups.ts) instead of its
 * records, where that provably gives the same rows. Works on DuckDB's own parse of the SQL
 * (`json_serialize_sql`), changed and printed back by DuckDB (`json_deserialize_sql`), so what is
 * read is what DuckDB would run. Anything not provably the same is left as it is:
 *
 * - one SELECT over one table with a rollup, or over a CTE that only filters one (logs.all's
 *   `edge_logs`): no join, other CTE, subquery, window, QUALIFY or sample;
 * - grouped or aggregating; every column it reads a dimension, a record along a dimension's path
 *   tested for NULL, `timestamp` only as `date_trunc` to an hour or longer or in a WHERE term
 *   that keeps one interval of time (bounds, BETWEEN, a CASE of those on parameters), `id` only
 *   counted. The hours the interval covers whole are read from the rollup, its ends from the
 *   records;
 * - aggregates the rollup's repeated rows cannot change: `count(*)`, `count(x)` and `count_if(p)`
 *   (added up from the rollup's counts), `count(DISTINCT x)`, `min`, `max`, `bool_and`,
 *   `bool_or`, `approx_count_distinct`; any other aggregate, or a macro, refuses (`any_value`
 *   and `arbitrary` too: they may pick another row). A select-list name that is a rollup column
 *   but not the table's, or an unnamed expression, refuses: either would bind or print apart.
 */
export async function readFromRollup(
  connection: DuckDBConnection,
  sql: string,
  rollupOf: (table: string) => RollupShape | undefined,
  functions: DuckDbFunctions,
): Promise<string | undefined> {
  if (sql.includes(placeholder)) return undefined;
  const parsed = await serialize(connection, sql);
  const node = parsed?.statements?.length === 1 ? parsed.statements[0].node : undefined;
  if (node?.type !== 'SELECT_NODE') return undefined;
  const read = tableRead(node);
  const shape = read && rollupOf(read.table);
  if (!read || !shape) return undefined;
  const qualifier = (node.from_table.alias || node.from_table.table_name) as string;
  let rewritten: Node;
  let times: TimeTerm[];
  const used = new Set<string>();
  try {
    const reader = new Reader(shape, qualifier, functions, used, read.visible);
    const filter = read.filter
      ? splitFilter(read.filter, new Reader(shape, read.qualifier, functions, used))
      : undefined;
    ({ node: rewritten, times } = rewriteSelect(node, reader));
    if (filter) {
      // The CTE's own filter, on the main query's rows: its dimension terms named by the main alias.
      times = [...times, ...filter.times];
      const terms = filter.rows.map((term) => requalified(term, read.qualifier, qualifier));
      rewritten.where_clause = [rewritten.where_clause, ...terms].reduce(both, null);
    }
  } catch (error) {
    if (error instanceof NotFromRollup) return undefined;
    throw error;
  }
  const range = times.length > 0 ? await timeRange(connection, parsed, times) : undefined;
  if (range === null) return undefined;
  // Printed with a stand-in table, whose name the relation's text then takes: one DuckDB call.
  rewritten.from_table = {
    type: 'BASE_TABLE',
    alias: qualifier,
    sample: null,
    schema_name: '',
    table_name: relationStandIn,
    column_name_alias: [],
    catalog_name: '',
    at_clause: null,
  };
  const relation = shape.relation(range, used);
  return (await deserialize(connection, parsed, rewritten)).replace(
    new RegExp(`"?${relationStandIn}"?`),
    () => relation,
  );
}

/**
 * Names no query may hold (one that does is left as it is), which the printed text is cut or
 * filled at: the instant a time filter is evaluated at, the relation read, the printed parts.
 */
const placeholder = '__qg_';
const instant = `${placeholder}instant`;
const relationStandIn = `${placeholder}relation`;
const instantName = new RegExp(`"?${instant}"?`, 'g');

/**
 * The table a SELECT reads: its FROM, or the one table a CTE named in its FROM filters (its
 * columns selected as they are), with that CTE's filter and the columns it lets through.
 */
function tableRead(
  node: Node,
): { table: string; visible?: ReadonlySet<string>; filter?: Node; qualifier: string } | undefined {
  const from = node.from_table;
  if (
    from?.type !== 'BASE_TABLE' ||
    from.schema_name !== '' ||
    from.catalog_name !== '' ||
    from.sample ||
    from.at_clause
  )
    return undefined;
  const ctes: Node[] = node.cte_map?.map ?? [];
  const cte = ctes.find((entry) => String(entry.key).toLowerCase() === String(from.table_name).toLowerCase());
  if (!cte) return ctes.length > 0 ? undefined : { table: from.table_name, qualifier: from.table_name };
  if (ctes.length !== 1 || cte.value?.aliases?.length > 0) return undefined;
  const inner = cte.value?.query?.node;
  const innerFrom = inner?.from_table;
  if (
    inner?.type !== 'SELECT_NODE' ||
    innerFrom?.type !== 'BASE_TABLE' ||
    innerFrom.schema_name !== '' ||
    innerFrom.catalog_name !== '' ||
    innerFrom.sample ||
    innerFrom.at_clause ||
    inner.cte_map?.map?.length > 0 ||
    inner.group_expressions?.length > 0 ||
    inner.having ||
    inner.qualify ||
    inner.sample ||
    inner.modifiers?.length > 0 ||
    inner.aggregate_handling !== 'STANDARD_HANDLING'
  )
    return undefined;
  const qualifier = (innerFrom.alias || innerFrom.table_name) as string;
  const visible = new Set<string>();
  for (const item of inner.select_list as Node[]) {
    // Each column as it is, under its own name: the main query's names are the table's.
    if (item.class !== 'COLUMN_REF') return undefined;
    const names = item.column_names as string[];
    const column =
      names.length === 2 && sameName(names[0], qualifier)
        ? names[1]
        : names.length === 1
          ? names[0]
          : undefined;
    if (column === undefined || (item.alias && !sameName(item.alias, column))) return undefined;
    visible.add(column.toLowerCase());
  }
  return { table: innerFrom.table_name, visible, filter: inner.where_clause ?? undefined, qualifier };
}

/** A WHERE's terms: those on dimensions (checked) and those that keep an interval of time. */
function splitFilter(where: Node, reader: Reader): { rows: Node[]; times: TimeTerm[] } {
  const rows: Node[] = [];
  const times: TimeTerm[] = [];
  for (const term of conjuncts(where)) {
    if (reader.readsTime(term)) {
      if (!reader.interval(term)) refuse();
      times.push({
        atInstant: reader.atInstant(term),
        bounds: reader.bounds(term),
        comparisons: reader.comparisons(term).map((comparison) => reader.atInstant(comparison)),
      });
    } else {
      if (mayFail(term)) refuse();
      rows.push(reader.expression(term, { inAggregate: false, aliasFirst: false }));
    }
  }
  return { rows, times };
}

/** A WHERE term on time: read at a given instant, and the bounds it sets (undefined: not known). */
interface TimeTerm {
  readonly atInstant: Node;
  readonly bounds: Bounds | undefined;
  /** Its comparisons of `timestamp` (at the instant) and its CASE's conditions, one by one. */
  readonly comparisons: readonly Node[];
}

/** Free expressions a term keeps `timestamp` above (or at) and below (or at); absent: none. */
interface Bounds {
  readonly lower?: Node;
  readonly upper?: Node;
}

const nullConstant = {
  class: 'CONSTANT',
  type: 'VALUE_CONSTANT',
  alias: '',
  value: { type: { id: 'NULL', type_info: null }, is_null: true },
};

/**
 * The bounds of all the time terms together, when each side has one term setting it: the range's
 * ends, which tell DuckDB where the records of partial hours can be.
 */
function rangeBounds(times: readonly TimeTerm[]): Bounds | undefined {
  let lower: Node | undefined;
  let upper: Node | undefined;
  for (const { bounds } of times) {
    if (!bounds || (bounds.lower && lower) || (bounds.upper && upper)) return undefined;
    lower ??= bounds.lower;
    upper ??= bounds.upper;
  }
  return { ...(lower ? { lower } : {}), ...(upper ? { upper } : {}) };
}

/**
 * Whether a WHERE term may fail on some values: a CAST to anything but text (`CAST(path AS
 * BIGINT)`). Which rows a filter meets depends on the plan (the records' query may meet records
 * of another project or time before its other terms drop them; the rollup's rows are met after
 * the time filter), so such a term could fail one query and not the other: left to the records.
 */
function mayFail(node: Node): boolean {
  return someNode(node, (n) => n.class === 'CAST' && !n.try_cast && n.cast_type?.id !== 'VARCHAR');
}

/** Whether `node` or anything under it (arrays included) is one `test` holds for. */
function someNode(node: Node, test: (node: Node) => boolean): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (!Array.isArray(node) && test(node)) return true;
  return Object.values(node).some((child) => someNode(child, test));
}

function conjuncts(node: Node): Node[] {
  if (!node) return [];
  if (node.class === 'CONJUNCTION' && node.type === 'CONJUNCTION_AND')
    return (node.children as Node[]).flatMap(conjuncts);
  return [node];
}

/** References qualified by `from` named by `to` instead. */
function requalified(node: Node, from: string, to: string): Node {
  if (node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((item) => requalified(item, from, to));
  if (node.class === 'COLUMN_REF' && node.column_names.length > 1 && sameName(node.column_names[0], from)) {
    return { ...node, column_names: [to, ...node.column_names.slice(1)] };
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, requalified(value, from, to)]));
}

/**
 * The time terms as a range: SQL text over a given instant, and its bounds, printed by DuckDB.
 * Null when the terms hold no parameter and one of their comparisons cannot be evaluated (a bound
 * out of a type's range, `CAST('9999-12-31' AS TIMESTAMP_NS)`, or text that is no timestamp): the
 * records' query fails on such a term only once a record reaches it, after the query's other
 * terms, where the rollup's hours would meet it before them; the query is left to the records,
 * to fail or answer as they do. (A parameter's value is not known before the run; a caller's is
 * checked as a timestamp before it gets here.)
 */
async function timeRange(
  connection: DuckDBConnection,
  parsed: Node,
  times: readonly TimeTerm[],
): Promise<TimeRange | null> {
  const bounds = rangeBounds(times);
  const checked = times.flatMap((time) => (hasParameter(time.atInstant) ? [] : time.comparisons));
  // The filter and its bounds printed by DuckDB in one call (each DuckDB call costs some
  // milliseconds of every new query's first run), each named so the text parts at its name.
  const parts = [
    times.map((time) => time.atInstant).reduce(both, null),
    ...(bounds ? [bounds.lower ?? nullConstant, bounds.upper ?? nullConstant] : []),
    ...checked,
  ].map((expression, i) => ({ ...expression, alias: `${placeholder}part_${i}` }));
  const select = {
    ...parsed.statements[0].node,
    select_list: parts,
    from_table: { type: 'EMPTY', alias: '', sample: null },
    where_clause: null,
    group_expressions: [],
    group_sets: [],
    having: null,
    qualify: null,
    modifiers: [],
    cte_map: { map: [] },
    aggregate_handling: 'STANDARD_HANDLING',
  };
  const printed = (await deserialize(connection, parsed, select)).replace(/^SELECT /, '');
  const texts = printed.split(new RegExp(` AS "?${placeholder}part_\\d+"?(?:, |$)`)).slice(0, parts.length);
  const [text = '', lower = 'NULL', upper = 'NULL'] = texts;
  const at = (value: string) => (sql: string) => sql.replace(instantName, () => value);
  if (checked.length > 0) {
    const comparisons = texts.slice(parts.length - checked.length).map(at("TIMESTAMP '2000-01-01'"));
    try {
      await connection.runAndReadAll(`SELECT ${comparisons.join(', ')}`);
    } catch {
      return null;
    }
  }
  return {
    within: (value) => at(value)(text),
    ...(bounds ? { bounds: { lower, upper } } : {}),
  };
}

function hasParameter(node: Node): boolean {
  return someNode(node, (n) => n.class === 'PARAMETER');
}

async function deserialize(connection: DuckDBConnection, parsed: Node, node: Node): Promise<string> {
  const reader = await connection.runAndReadAll('SELECT json_deserialize_sql($json::JSON)', {
    json: JSON.stringify({ ...parsed, statements: [{ ...parsed.statements[0], node }] }),
  });
  return String(reader.getRows()[0]?.[0]);
}

/** DuckDB's aggregate functions and macros by lower-case name, read once per engine. */
export interface DuckDbFunctions {
  readonly aggregates: ReadonlySet<string>;
  readonly macros: ReadonlySet<string>;
}

export async function readDuckDbFunctions(connection: DuckDBConnection): Promise<DuckDbFunctions> {
  const reader = await connection.runAndReadAll(
    `SELECT DISTINCT lower(function_name), function_type FROM duckdb_functions() WHERE function_type IN ('aggregate', 'macro', 'table_macro')`,
  );
  const aggregates = new Set<string>();
  const macros = new Set<string>();
  for (const [name, type] of reader.getRows()) (type === 'aggregate' ? aggregates : macros).add(String(name));
  return { aggregates, macros };
}

// biome-ignore lint/suspicious/noExplicitAny: DuckDB's JSON parse tree, read field by field below
type Node = any;

class NotFromRollup extends Error {}

function refuse(): never {
  throw new NotFromRollup();
}

/** Aggregates whose answer repeated rows cannot change: kept as written. */
const duplicateBlind = new Set(['min', 'max', 'bool_and', 'bool_or', 'approx_count_distinct']);
/** Units of date_trunc that an hour's start truncates as any instant of the hour. */
const hourOrLonger = new Set(['hour', 'day', 'week', 'month', 'quarter', 'year']);
/** Comparisons that keep one interval of instants when one side is `timestamp` and the other fixed. */
const boundComparisons = new Set([
  'COMPARE_EQUAL',
  'COMPARE_LESSTHAN',
  'COMPARE_GREATERTHAN',
  'COMPARE_LESSTHANOREQUALTO',
  'COMPARE_GREATERTHANOREQUALTO',
]);
/** Scalar functions whose value differs row by row for the same input. */
const volatile = new Set(['random', 'uuid', 'gen_random_uuid', 'nextval', 'currval', 'setseed']);

interface Place {
  /** Inside an aggregate's arguments or filter. */
  readonly inAggregate: boolean;
  /** Names in HAVING and ORDER BY: DuckDB takes a select-list alias before a column. */
  readonly aliasFirst: boolean;
}

class Reader {
  readonly tableColumns: ReadonlySet<string>;
  aliases: ReadonlySet<string> = new Set();
  aggregated = false;

  constructor(
    readonly shape: RollupShape,
    readonly qualifier: string,
    readonly functions: DuckDbFunctions,
    /** The rollup's columns the query reads, added to as they are found (one set per query). */
    readonly used: Set<string>,
    /** The columns the query may read, when a CTE lets fewer than the table's through. */
    readonly visible?: ReadonlySet<string>,
  ) {
    this.tableColumns = new Set(shape.tableColumns.map((name) => name.toLowerCase()));
  }

  /** Whether `node` reads the `timestamp` column anywhere. */
  readsTime(node: Node): boolean {
    if (node === null || typeof node !== 'object') return false;
    if (Array.isArray(node)) return node.some((item) => this.readsTime(item));
    if (node.class === 'COLUMN_REF') return this.isTime(node);
    return Object.values(node).some((value) => this.readsTime(value));
  }

  isTime(node: Node): boolean {
    if (node?.class !== 'COLUMN_REF') return false;
    const path = this.path(node, { inAggregate: false, aliasFirst: false });
    return path !== 'alias' && path.length === 1 && sameName(path[0], 'timestamp');
  }

  /** Whether `node` reads no column and gives the same value on every row. */
  free(node: Node): boolean {
    if (node === null || typeof node !== 'object') return true;
    if (Array.isArray(node)) return node.every((item) => this.free(item));
    if (['COLUMN_REF', 'SUBQUERY', 'WINDOW', 'STAR', 'LAMBDA'].includes(node.class)) return false;
    if (node.class === 'FUNCTION') {
      const name = String(node.function_name).toLowerCase();
      if (volatile.has(name) || this.functions.aggregates.has(name) || this.functions.macros.has(name))
        return false;
    }
    return Object.values(node).every((value) => this.free(value));
  }

  /**
   * Whether the instants `node` (a WHERE term on `timestamp`) keeps form one interval: so that
   * an hour whose first and last microsecond it keeps is kept whole.
   */
  interval(node: Node): boolean {
    if (this.free(node)) return true;
    switch (node.class) {
      case 'CONJUNCTION':
        return (
          node.type === 'CONJUNCTION_AND' && (node.children as Node[]).every((child) => this.interval(child))
        );
      case 'COMPARISON':
        return (
          boundComparisons.has(node.type) &&
          ((this.isTime(node.left) && this.free(node.right)) ||
            (this.isTime(node.right) && this.free(node.left)))
        );
      case 'BETWEEN':
        return this.isTime(node.input) && this.free(node.lower) && this.free(node.upper);
      case 'CASE':
        return (
          (node.case_checks as Node[]).every(
            (check) => this.free(check.when_expr) && this.interval(check.then_expr),
          ) && this.interval(node.else_expr)
        );
      default:
        return false;
    }
  }

  /** The bounds an interval term (see `interval`) sets, or undefined where they are not plain. */
  bounds(node: Node): Bounds | undefined {
    if (this.free(node)) return {};
    switch (node.class) {
      case 'COMPARISON': {
        const timeLeft = this.isTime(node.left);
        const fixed = timeLeft ? node.right : node.left;
        // `t > x` and `x < t` both bound t from below.
        const below = timeLeft
          ? ['COMPARE_GREATERTHAN', 'COMPARE_GREATERTHANOREQUALTO']
          : ['COMPARE_LESSTHAN', 'COMPARE_LESSTHANOREQUALTO'];
        if (node.type === 'COMPARE_EQUAL') return { lower: fixed, upper: fixed };
        return below.includes(node.type) ? { lower: fixed } : { upper: fixed };
      }
      case 'BETWEEN':
        return { lower: node.lower, upper: node.upper };
      case 'CASE': {
        const branches = [...(node.case_checks as Node[]).map((check) => check.then_expr), node.else_expr];
        const each = branches.map((branch) => this.bounds(branch));
        if (each.some((bounds) => bounds === undefined)) return undefined;
        // The same CASE, choosing each branch's bound (NULL where a branch sets none).
        const side = (pick: (bounds: Bounds) => Node | undefined): Node | undefined =>
          each.some((bounds) => bounds && pick(bounds))
            ? {
                ...node,
                case_checks: (node.case_checks as Node[]).map((check, i) => ({
                  ...check,
                  then_expr: pick(each[i] as Bounds) ?? nullConstant,
                })),
                else_expr: pick(each.at(-1) as Bounds) ?? nullConstant,
              }
            : undefined;
        const lower = side((bounds) => bounds.lower);
        const upper = side((bounds) => bounds.upper);
        return { ...(lower ? { lower } : {}), ...(upper ? { upper } : {}) };
      }
      default:
        return undefined;
    }
  }

  /**
   * An interval term's comparisons of `timestamp` (and its CASE's conditions) one by one: each
   * evaluated on its own, none is left out by another being false, as an AND leaves them.
   */
  comparisons(node: Node): Node[] {
    switch (this.free(node) ? 'free' : node.class) {
      case 'CONJUNCTION':
        return (node.children as Node[]).flatMap((child) => this.comparisons(child));
      case 'BETWEEN':
        // Its upper bound is not evaluated where the lower one fails the instant.
        return [
          {
            class: 'COMPARISON',
            type: 'COMPARE_GREATERTHANOREQUALTO',
            alias: '',
            left: node.input,
            right: node.lower,
          },
          {
            class: 'COMPARISON',
            type: 'COMPARE_LESSTHANOREQUALTO',
            alias: '',
            left: node.input,
            right: node.upper,
          },
        ];
      case 'CASE':
        return [
          ...(node.case_checks as Node[]).flatMap((check) => [
            check.when_expr,
            ...this.comparisons(check.then_expr),
          ]),
          ...this.comparisons(node.else_expr),
        ];
      default:
        return [node];
    }
  }

  /** `node` with its `timestamp` read at the instant the time filter's text is given. */
  atInstant(node: Node): Node {
    if (node === null || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map((item) => this.atInstant(item));
    if (this.isTime(node)) return { ...node, column_names: [instant] };
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, this.atInstant(value)]));
  }

  /** The column path a reference names (qualifier dropped), or 'alias' for a select-list name. */
  path(ref: Node, place: Place): string[] | 'alias' {
    const names = ref.column_names as string[];
    if (names.some((name) => name.toLowerCase().startsWith('_qg_'))) refuse();
    if (names.length === 1) {
      const name = (names[0] as string).toLowerCase();
      const isAlias = this.aliases.has(name);
      if (isAlias && (place.aliasFirst || !this.tableColumns.has(name))) return 'alias';
      if (!this.tableColumns.has(name) || (this.visible && !this.visible.has(name))) refuse();
      return names;
    }
    const path = sameName(names[0], this.qualifier) ? names.slice(1) : names;
    if (!this.tableColumns.has(String(path[0]).toLowerCase())) refuse();
    // A column of the table the CTE does not let through: only the rollup would have it.
    if (this.visible && !this.visible.has(String(path[0]).toLowerCase())) refuse();
    return path;
  }

  /** The rollup's column for a dimension a row-level expression reads, or undefined. */
  dimension(path: readonly string[]): RollupPart | undefined {
    return this.shape.parts.find((part) => !part.record && sameList(part.path, path));
  }

  /** The rollup's column for a dimension or a record a NULL test reads, or undefined. */
  tested(path: readonly string[]): RollupPart | undefined {
    return this.shape.parts.find((part) => sameList(part.path, path));
  }

  /** A reference to a part's column. */
  column(node: Node, part: RollupPart | undefined): Node {
    if (!part) refuse();
    this.used.add(part.name);
    return { ...node, column_names: [this.qualifier, part.name] };
  }

  expression(node: Node, place: Place): Node {
    if (node === null || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map((item) => this.expression(item, place));
    switch (node.class) {
      case undefined:
        return this.each(node, place);
      case 'COLUMN_REF': {
        const path = this.path(node, place);
        return path === 'alias' ? node : this.column(node, this.dimension(path));
      }
      case 'OPERATOR':
        if (
          (node.type === 'OPERATOR_IS_NULL' || node.type === 'OPERATOR_IS_NOT_NULL') &&
          node.children?.[0]?.class === 'COLUMN_REF'
        ) {
          const path = this.path(node.children[0], place);
          if (path === 'alias') return node;
          return { ...node, children: [this.column(node.children[0], this.tested(path))] };
        }
        return this.each(node, place);
      case 'FUNCTION':
        return this.call(node, place);
      case 'CONSTANT':
      case 'PARAMETER':
      case 'CAST':
      case 'COMPARISON':
      case 'CONJUNCTION':
      case 'CASE':
      case 'BETWEEN':
      case 'COLLATE':
        return this.each(node, place);
      default:
        // WINDOW, SUBQUERY, STAR, LAMBDA and anything else.
        return refuse();
    }
  }

  each(node: Node, place: Place): Node {
    const copy: Node = {};
    for (const [key, value] of Object.entries(node)) {
      copy[key] =
        value !== null && typeof value === 'object' && key !== 'value' && key !== 'cast_type'
          ? this.expression(value, place)
          : value;
    }
    return copy;
  }

  call(node: Node, place: Place): Node {
    // A count made a sum keeps the name the select list gave the count.
    return { ...this.aggregateOrCall(node, place), alias: node.alias };
  }

  aggregateOrCall(node: Node, place: Place): Node {
    const name = String(node.function_name).toLowerCase();
    if (node.export_state) refuse();
    if (this.functions.macros.has(name) || volatile.has(name)) refuse();
    if ((name === 'date_trunc' || name === 'datetrunc') && node.children?.length === 2) {
      const [unit, value] = node.children;
      if (value?.class === 'COLUMN_REF') {
        const path = this.path(value, place);
        if (path !== 'alias' && path.length === 1 && path[0]?.toLowerCase() === 'timestamp') {
          const text = unit?.class === 'CONSTANT' ? String(unit.value?.value ?? '').toLowerCase() : '';
          if (!hourOrLonger.has(text)) refuse();
          return node;
        }
      }
    }
    if (!this.functions.aggregates.has(name) && name !== 'count_star') return this.each(node, place);
    if (place.inAggregate || node.order_bys?.orders?.length > 0) refuse();
    this.aggregated = true;
    const inside: Place = { inAggregate: true, aliasFirst: false };
    const filter = node.filter ? this.expression(node.filter, inside) : null;
    const children: Node[] = node.children ?? [];
    if (node.distinct) {
      if (name !== 'count' && !duplicateBlind.has(name)) refuse();
      return { ...node, children: this.expression(children, inside), filter };
    }
    if (duplicateBlind.has(name)) {
      if (children.length !== 1) refuse();
      return { ...node, children: this.expression(children, inside), filter };
    }
    if (name === 'count_star' || (name === 'count' && children.length === 0))
      return weighted(rollupRowsColumn, filter);
    if (name === 'count' && children.length === 1) {
      const [child] = children;
      if (child.class === 'COLUMN_REF') {
        const path = this.path(child, inside);
        if (path !== 'alias' && path.length === 1 && path[0]?.toLowerCase() === 'id')
          return weighted(rollupIdsColumn, filter);
      }
      return weighted(rollupRowsColumn, both(filter, isNotNull(this.expression(child, inside))));
    }
    if ((name === 'count_if' || name === 'countif') && children.length === 1) {
      return weighted(rollupRowsColumn, both(filter, this.expression(children[0], inside)));
    }
    return refuse();
  }
}

function rewriteSelect(node: Node, reader: Reader): { node: Node; times: TimeTerm[] } {
  if (node.qualify || node.sample) refuse();
  if (!['STANDARD_HANDLING', 'FORCE_AGGREGATES'].includes(node.aggregate_handling)) refuse();
  // A select-list name that is one of the rollup's columns but not the table's would be found as
  // that column where DuckDB looks for columns first (WHERE, GROUP BY).
  const rollupOnly = new Set(
    reader.shape.parts
      .map((part) => part.name.toLowerCase())
      .filter((name) => !reader.tableColumns.has(name)),
  );
  for (const item of node.select_list as Node[]) {
    const alias = String(item.alias ?? '').toLowerCase();
    if (rollupOnly.has(alias) || alias.startsWith('_qg_')) refuse();
    // Unnamed, an expression is named by its text, which the rollup's columns would change.
    if (!item.alias && item.class !== 'COLUMN_REF') refuse();
  }
  reader.aliases = new Set(
    (node.select_list as Node[])
      .map((item) => String(item.alias ?? '').toLowerCase())
      .filter((alias) => alias !== ''),
  );
  const rowLevel: Place = { inAggregate: false, aliasFirst: false };
  const selectList = (node.select_list as Node[]).map((item) => {
    const rewritten = reader.expression(item, rowLevel);
    // A column unnamed keeps the name DuckDB gives it: a field's as written (`path` for
    // `f.metadata.request.path`), a table column's as the table spells it (`project` for `PROJECT`).
    if (item.class === 'COLUMN_REF' && !item.alias) {
      const names = item.column_names as string[];
      const column =
        names.length === 1
          ? names[0]
          : names.length === 2 && sameName(names[0], reader.qualifier)
            ? names[1]
            : '';
      const table = reader.shape.tableColumns.find((name) => sameName(name, column));
      rewritten.alias = table ?? names.at(-1);
    }
    return rewritten;
  });
  // GROUP BY ALL groups by the select list's columns, and DuckDB adds those HAVING and ORDER BY
  // read (a struct's whole column for one of its fields): other groups over the rollup's flat
  // columns than over the records.
  const readsColumns = (clause: Node) => columnOutsideAggregates(clause, reader);
  if (
    node.aggregate_handling === 'FORCE_AGGREGATES' &&
    (readsColumns(node.having) ||
      (node.modifiers as Node[]).some(
        (modifier) => modifier.type === 'ORDER_MODIFIER' && readsColumns(modifier),
      ))
  )
    refuse();
  const modifiers = (node.modifiers as Node[]).map((modifier) => {
    if (modifier.type === 'LIMIT_MODIFIER') return modifier;
    if (modifier.type === 'ORDER_MODIFIER') {
      return {
        ...modifier,
        orders: (modifier.orders as Node[]).map((order) => ({
          ...order,
          expression: reader.expression(order.expression, { inAggregate: false, aliasFirst: true }),
        })),
      };
    }
    if (modifier.type === 'DISTINCT_MODIFIER') return reader.expression(modifier, rowLevel);
    return refuse();
  });
  const where = splitFilter(node.where_clause, reader);
  const rewritten = {
    ...node,
    // The CTE the query read, if any, is read no more.
    cte_map: { map: [] },
    select_list: selectList,
    where_clause: where.rows.reduce(both, null),
    group_expressions: reader.expression(node.group_expressions, rowLevel),
    having: reader.expression(node.having, { inAggregate: false, aliasFirst: true }),
    modifiers,
  };
  // Rows, not groups: the rollup's rows are not the records.
  if (
    !reader.aggregated &&
    node.group_expressions.length === 0 &&
    node.aggregate_handling !== 'FORCE_AGGREGATES'
  )
    refuse();
  return { node: rewritten, times: where.times };
}

/** Whether `node` reads a column of the table (not a select-list name) outside an aggregate. */
function columnOutsideAggregates(node: Node, reader: Reader): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some((item) => columnOutsideAggregates(item, reader));
  if (node.class === 'FUNCTION' && reader.functions.aggregates.has(String(node.function_name).toLowerCase()))
    return false;
  if (node.class === 'COLUMN_REF')
    return !(
      node.column_names.length === 1 && reader.aliases.has(String(node.column_names[0]).toLowerCase())
    );
  return Object.values(node).some((value) => columnOutsideAggregates(value, reader));
}

/** `CAST(coalesce(sum(column) FILTER (WHERE filter), 0) AS BIGINT)`: a count, from the rollup's. */
function weighted(column: string, filter: Node): Node {
  const sum = {
    class: 'FUNCTION',
    type: 'FUNCTION',
    alias: '',
    function_name: 'sum',
    schema: '',
    catalog: '',
    children: [{ class: 'COLUMN_REF', type: 'COLUMN_REF', alias: '', column_names: [column] }],
    filter,
    order_bys: { type: 'ORDER_MODIFIER', orders: [] },
    distinct: false,
    is_operator: false,
    export_state: false,
  };
  const zero = {
    class: 'CONSTANT',
    type: 'VALUE_CONSTANT',
    alias: '',
    value: { type: { id: 'BIGINT', type_info: null }, is_null: false, value: 0 },
  };
  const coalesce = { class: 'OPERATOR', type: 'OPERATOR_COALESCE', alias: '', children: [sum, zero] };
  return {
    class: 'CAST',
    type: 'OPERATOR_CAST',
    alias: '',
    child: coalesce,
    cast_type: { id: 'BIGINT', type_info: null },
    try_cast: false,
  };
}

function isNotNull(child: Node): Node {
  return { class: 'OPERATOR', type: 'OPERATOR_IS_NOT_NULL', alias: '', children: [child] };
}

function both(a: Node, b: Node): Node {
  if (!a) return b;
  if (!b) return a;
  return { class: 'CONJUNCTION', type: 'CONJUNCTION_AND', alias: '', children: [a, b] };
}

function sameName(a: unknown, b: unknown): boolean {
  return String(a).toLowerCase() === String(b).toLowerCase();
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name.toLowerCase() === (b[i] as string).toLowerCase());
}

async function serialize(connection: DuckDBConnection, sql: string): Promise<Node | undefined> {
  const reader = await connection.runAndReadAll('SELECT json_serialize_sql($sql::VARCHAR)', { sql });
  // Positions in the text are of no use once it is changed, and "none" (2^64 - 1) is more than
  // a JavaScript number holds exactly, which DuckDB would then refuse.
  let parsed: Node;
  try {
    parsed = JSON.parse(String(reader.getRows()[0]?.[0]), (key, value) =>
      key === 'query_location' ? undefined : value,
    );
  } catch {
    // DuckDB writes a double literal beyond the range (1e309) as `Infinity`, which is no JSON:
    // such a query is not read from a rollup, and runs as written.
    return undefined;
  }
  return parsed.error ? undefined : parsed;
}
