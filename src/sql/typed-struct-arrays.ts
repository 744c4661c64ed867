import type { Ast } from './bigquery-ast.js';
import { unsupported } from './unsupported.js';

/**
 * The array literal a rewritten header stands for (typed-struct-array-header.ts, where the parser's
 * reading of BigQuery's typed arrays of STRUCTs is told), each element a
 * STRUCT of the declared type, as BigQuery coerces it: a tuple `(1, 'foo')` (or one value in
 * parentheses, of a STRUCT of one field) and `STRUCT(1)` give their values to the declared
 * fields in order, cast to the declared types; a NULL stays NULL. Undefined for any other node.
 * With `empty`, the declared type's STRUCT of NULLs, for an empty array of that element type.
 */
export function typedStructArray(node: Ast): { elements: Ast[]; empty: Ast } | undefined {
  const binary = node.BinaryOp;
  const struct = binary?.left?.Struct;
  const array = binary?.right?.Array;
  if (binary?.op !== 'Gt' || !struct || !array) return undefined;
  const declared = struct.fields as Ast[];
  const values = struct.values as Ast[];
  if (declared.length === 0 || values.length !== 1 || values[0]?.Value?.value?.Number?.[0] !== '0')
    return undefined;
  const typed = (items: readonly Ast[]): Ast => ({ Struct: { fields: declared, values: items } });
  const element = (item: Ast): Ast => {
    if (item.Value?.value === 'Null') return item;
    if (Array.isArray(item.Tuple)) return typed(item.Tuple);
    if (item.Nested !== undefined) {
      const inner = item.Nested;
      return inner.Tuple || (inner.Struct && declared.length > 1) ? element(inner) : typed([inner]);
    }
    if (item.Struct && (item.Struct.fields as Ast[]).length === 0)
      return typed((item.Struct.values as Ast[]).map((value) => value.Named?.expr ?? value));
    throw unsupported('an element of ARRAY<STRUCT<...>>[...] other than a tuple, STRUCT(...) or NULL');
  };
  return {
    elements: (array.elem as Ast[]).map(element),
    empty: typed(declared.map(() => ({ Value: { value: 'Null' } }))),
  };
}
