import type { FieldType, StructType } from '../endpoints/field-type.js';
import { isStructType } from '../endpoints/field-type.js';
import type { Ast } from './bigquery-ast.js';

/**
 * What a name in a FROM clause stands for while a SELECT is translated.
 *
 * BigQuery (as Logflare stores logs) keeps every nested object as a repeated record, so queries
 * reach into it with `CROSS JOIN UNNEST(t.metadata) AS m`. The embedded store keeps objects as
 * plain STRUCTs, and DuckDB plans a JOIN UNNEST as a dependent join orders of magnitude slower
 * than field access. An UNNEST over an object therefore binds its alias to a *path* (`m` stands
 * for `t.metadata`), and only UNNESTs over real arrays stay joins.
 */
export type Binding =
  /** A table or CTE; `columns` is known for the log sources, so their objects can be told apart. */
  | { readonly kind: 'relation'; readonly columns?: Readonly<Record<string, FieldType>> }
  /** An UNNEST over an object: the alias is an abbreviation of `path` (DuckDB SQL text). */
  | { readonly kind: 'object'; readonly path: string; readonly type: StructType }
  /** An UNNEST over an array: the alias is a column of the lateral join. */
  | { readonly kind: 'element' }
  /** A constant one-row CTE joined with a comma: `alias.column` stands for the column's expression. */
  | { readonly kind: 'constant'; readonly columns: ReadonlyMap<string, Ast> };

/** The FROM-clause names visible at one point: the current SELECT's, then its enclosing ones. */
export class Scope {
  private readonly bindings = new Map<string, Binding>();

  constructor(private readonly parent?: Scope) {}

  bind(alias: string, binding: Binding): void {
    this.bindings.set(alias.toLowerCase(), binding);
  }

  lookup(name: string): Binding | undefined {
    return this.bindings.get(name.toLowerCase()) ?? this.parent?.lookup(name);
  }

  child(): Scope {
    return new Scope(this);
  }
}

/**
 * The field type a dotted reference stands for, where the scope knows it: `t.metadata` for a
 * log source, `m.response` for an object alias. Undefined means "not known to be an object".
 */
export function typeOfPath(scope: Scope, parts: readonly string[]): FieldType | undefined {
  const [head, ...rest] = parts;
  if (head === undefined) return undefined;
  const binding = scope.lookup(head);
  let type: FieldType | undefined;
  if (binding?.kind === 'object') {
    type = binding.type;
  } else if (binding?.kind === 'relation' && binding.columns && rest.length > 0) {
    type = binding.columns[(rest.shift() as string).toLowerCase()];
  } else {
    return undefined;
  }
  for (const field of rest) {
    if (type === undefined || !isStructType(type)) return undefined;
    type = type.struct[field];
  }
  return type;
}
