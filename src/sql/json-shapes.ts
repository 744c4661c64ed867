import { compoundParts } from './ast.js';
import { type Ast, calledName, variant } from './bigquery-ast.js';
import { type JsonShape, unsupported } from './rules/rule.js';
import { isListSqlType, isStructSqlType, type SqlType, unknownType } from './table-schema.js';
import { castTypeOf, type FormContext } from './value-forms.js';

/**
 * What TO_JSON_STRING needs of its argument's type (rules/json-encoding.ts): the fields of a STRUCT
 * in order, with their names (an anonymous one named ''), and the elements of an ARRAY, down to
 * scalars, whose DuckDB type picks their JSON text when the query runs. Read from the text for
 * STRUCT(...), tuples and array literals, and from the store's schema for names and paths.
 */
export function jsonShapeOf(expression: Ast, context: FormContext): JsonShape {
  const [kind, node] = variant(expression);
  if (kind === 'Nested') return jsonShapeOf(node, context);
  if (kind === 'Struct' && (node.fields as Ast[]).length === 0) {
    return {
      fields: (node.values as Ast[]).map((value) => {
        const [valueKind, item] = variant(value);
        return valueKind === 'Named'
          ? { name: item.name.value as string, shape: jsonShapeOf(item.expr, context) }
          : { name: compoundParts(value)?.at(-1) ?? '', shape: jsonShapeOf(value, context) };
      }),
    };
  }
  if (kind === 'Tuple')
    return { fields: (node as Ast[]).map((value) => ({ name: '', shape: jsonShapeOf(value, context) })) };
  if (kind === 'Array') {
    const [first] = node.elem as Ast[];
    return { list: first === undefined ? { scalar: undefined } : jsonShapeOf(first, context) };
  }
  // ARRAY_AGG(x) is an array of x's (JSON_OBJECT(ARRAY_AGG(k), ARRAY_AGG(v)), the docs' way to
  // make an object of a group's rows).
  const aggregated =
    calledName(expression) === 'array_agg' ? node.args?.List?.args?.[0]?.Unnamed?.Expr : undefined;
  if (aggregated !== undefined) return { list: jsonShapeOf(aggregated, context) };
  // The row of a table, CTE or subquery (`TO_JSON_STRING(t)`): BigQuery writes the columns BigQuery's
  // table or query has, which a stored table's (its table-suffix column, its evolved fields) and a
  // select list's unknown types do not tell. Refused at load rather than failing each call.
  if (context.rangeVariable(expression))
    throw unsupported(
      "TO_JSON_STRING of a whole row (TO_JSON_STRING(t)): the row's columns and their BigQuery types are not known here; name the columns, as TO_JSON_STRING(STRUCT(a, b))",
    );
  if (isBytesValued(expression)) return { scalar: 'BLOB' };
  return shapeOfType(literalType(expression) ?? context.valueType(expression));
}

/** A literal's type: a number with a point or exponent is FLOAT64, as the translator reads it. */
function literalType(expression: Ast): string | undefined {
  const [kind, node] = variant(expression);
  // A typed literal is translated as a CAST (expression-sql.ts), so its type is the CAST's.
  if (kind === 'TypedString') return castTypeOf(node.data_type);
  if (kind !== 'Value' || node.value === 'Null') return undefined;
  const [literal, payload] = variant(node.value);
  if (literal === 'Number') return /[.eE]/.test(String(payload[0])) ? 'DOUBLE' : 'BIGINT';
  if (literal === 'Boolean') return 'BOOLEAN';
  return /QuotedString|RawStringLiteral/.test(literal) ? 'VARCHAR' : undefined;
}

/** The functions that return BYTES, whose DuckDB forms are BLOBs. */
const bytesFunctions = new Set([
  'from_base64',
  'from_hex',
  'md5',
  'sha1',
  'sha256',
  'net.ip_from_string',
  'net.safe_ip_from_string',
  'net.ip_net_mask',
  'net.ip_trunc',
  'net.ipv4_from_int64',
]);

/** A BYTES literal (`b'...'`), a CAST to BYTES or a function returning BYTES. */
function isBytesValued(expression: Ast): boolean {
  const [kind, node] = variant(expression);
  if (kind === 'Value') {
    const [literal] = node.value === 'Null' ? ['Null'] : variant(node.value);
    return literal === 'SingleQuotedByteStringLiteral' || literal === 'DoubleQuotedByteStringLiteral';
  }
  if (kind === 'Cast') return variant(node.data_type)[0] === 'Bytes';
  if (kind === 'Function') {
    const name = (node.name as Ast[])
      .map((part) => variant(part)[1].value)
      .join('.')
      .toLowerCase();
    return bytesFunctions.has(name.replace(/^safe\./, ''));
  }
  return false;
}

function shapeOfType(type: SqlType | undefined): JsonShape {
  if (type === undefined || type === unknownType) return { scalar: undefined };
  if (typeof type === 'string') return { scalar: type };
  if (isListSqlType(type)) return { list: shapeOfType(type.list) };
  if (!isStructSqlType(type)) return { scalar: undefined };
  if (type.element)
    throw unsupported(
      "TO_JSON_STRING of a repeated record element taken whole (BigQuery's text lists every field of Logflare's table schema, in its order, which the store does not hold)",
    );
  // Logflare's BigQuery table holds every object as a repeated record whose fields are those its
  // schema gained, in the order it gained them; the store's STRUCT holds the fields ingestion has
  // seen, in its own order. BigQuery's text lists every field of the schema, so it is not known here.
  if (type.repeated)
    throw unsupported(
      "TO_JSON_STRING of a log source's record (BigQuery's text lists every field of Logflare's table schema, in its order, which the store does not hold)",
    );
  return {
    fields: Object.entries(type.struct).map(([name, field]) => ({ name, shape: shapeOfType(field) })),
  };
}
