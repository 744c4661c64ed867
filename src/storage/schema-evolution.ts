import {
  duckdbType,
  type FieldType,
  isListType,
  isStructType,
  quoteIdent,
  type ScalarType,
  type StructType,
} from '../endpoints/field-type.js';

/**
 * How a source table's `metadata` STRUCT follows the JSON that arrives. Types only ever grow:
 * a field that appears for the first time is added with the type inferred from its value, and
 * a value that does not fit a field's existing type is kept aside in `_extra` under its path
 * rather than widening the column (which would rewrite the table and change what queries see).
 * Everything here is pure; the writer applies the result on its own queue.
 */

/** A field to add to a STRUCT column, as `ALTER TABLE ... ADD COLUMN` names it. */
export interface FieldAddition {
  /** Field names from the column down to the new field; `element` steps into a list's elements. */
  readonly path: readonly string[];
  readonly type: FieldType;
}

export interface ReconciledMetadata {
  /** The metadata ready to store: field names spelled as the type spells them, conflicts removed. */
  readonly value: Record<string, unknown> | null;
  /** The column's type with every field this value brought in; the same object when nothing was new. */
  readonly type: StructType;
  /** Values that conflict with their field's type, keyed by path, e.g. `metadata.response.status_code`. */
  readonly extra: Readonly<Record<string, unknown>>;
}

// BIGINT's range, as the nearest doubles: JSON numbers beyond it cannot be stored as BIGINT.
const minBigint = -(2 ** 63);
const maxBigintExclusive = 2 ** 63;

function isBigintNumber(value: number): boolean {
  return Number.isInteger(value) && value >= minBigint && value < maxBigintExclusive;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// DuckDB struct field names are case-insensitive, so `Status` and `status` are one field. A lone
// UTF-16 surrogate cannot be stored in a name, so it becomes U+FFFD.
function fieldKey(key: string): string {
  // The first test is cheap and almost always false; only then are surrogates checked for pairs.
  return /[\uD800-\uDFFF]/.test(key) ? key.replace(/\p{Cs}/gu, '\uFFFD') : key;
}

// An empty name is refused by DuckDB's parser and a NUL would cut the SQL text short.
function isFieldName(key: string): boolean {
  return key !== '' && !key.includes('\u0000');
}

const lowerCaseNames = new WeakMap<StructType, Map<string, string>>();

/** The name under which `type` already holds `key` (DuckDB compares field names case-insensitively). */
function existingName(type: StructType, key: string): string | undefined {
  if (Object.hasOwn(type.struct, key)) return key;
  let names = lowerCaseNames.get(type);
  if (!names) {
    names = new Map(Object.keys(type.struct).map((name) => [name.toLowerCase(), name]));
    lowerCaseNames.set(type, names);
  }
  return names.get(key.toLowerCase());
}

function fieldOf(type: StructType, name: string): FieldType {
  return type.struct[name] as FieldType;
}

/**
 * The type a JSON value would be stored as: object → STRUCT, array → LIST of its elements'
 * merged type, integer → BIGINT, other number → DOUBLE. `undefined` when the value holds nothing
 * typed (null, `{}`, `[]`, or only those): such a field is not added until a real value comes.
 */
export function inferFieldType(value: unknown): FieldType | undefined {
  switch (typeof value) {
    case 'string':
      return 'VARCHAR';
    case 'boolean':
      return 'BOOLEAN';
    case 'number':
      return isBigintNumber(value) ? 'BIGINT' : 'DOUBLE';
  }
  if (Array.isArray(value)) {
    let element: FieldType | undefined;
    for (const item of value) {
      const itemType = inferFieldType(item);
      if (itemType) element = element ? widenType(element, itemType) : itemType;
    }
    return element && { list: element };
  }
  if (!isPlainObject(value)) return undefined;
  const fields = new Map<string, FieldType>();
  const seen = new Set<string>();
  for (const [rawKey, child] of Object.entries(value)) {
    const key = fieldKey(rawKey);
    const childType = inferFieldType(child);
    // A second spelling of a name already seen is a conflict that reconcileMetadata moves to _extra.
    if (!isFieldName(key) || !childType || seen.has(key.toLowerCase())) continue;
    seen.add(key.toLowerCase());
    fields.set(key, childType);
  }
  return fields.size > 0 ? { struct: Object.fromEntries(fields) } : undefined;
}

/**
 * The type that holds values of both `a` and `b`, used to merge a JSON array's elements:
 * BIGINT and DOUBLE make DOUBLE, STRUCTs take the union of their fields. Where the two cannot
 * meet (a string and an object), `a` wins and the values of `b` become conflicts.
 */
export function widenType(a: FieldType, b: FieldType): FieldType {
  if (a === b) return a;
  if (typeof a === 'string' || typeof b === 'string') {
    const numbers: readonly ScalarType[] = ['BIGINT', 'DOUBLE'];
    return typeof a === 'string' && typeof b === 'string' && numbers.includes(a) && numbers.includes(b)
      ? 'DOUBLE'
      : a;
  }
  if (isListType(a) && isListType(b)) {
    const element = widenType(a.list, b.list);
    return element === a.list ? a : { list: element };
  }
  if (isStructType(a) && isStructType(b)) return mergeStructs(a, b, widenType);
  return a;
}

/**
 * `current` with every field of `wanted` that it lacks; fields it has keep their type. Used to
 * bring a table created from an older seed up to the current seed without touching its data.
 */
export function withMissingFields(current: StructType, wanted: StructType): StructType {
  return mergeStructs(current, wanted, keepMissing);
}

function keepMissing(a: FieldType, b: FieldType): FieldType {
  if (isStructType(a) && isStructType(b)) return mergeStructs(a, b, keepMissing);
  if (isListType(a) && isListType(b)) {
    const element = keepMissing(a.list, b.list);
    return element === a.list ? a : { list: element };
  }
  return a;
}

function mergeStructs(
  a: StructType,
  b: StructType,
  merge: (a: FieldType, b: FieldType) => FieldType,
): StructType {
  const merged = new Map(Object.entries(a.struct));
  let changed = false;
  for (const [key, bType] of Object.entries(b.struct)) {
    const name = existingName(a, key);
    const aType = name === undefined ? undefined : merged.get(name);
    const next = aType === undefined ? bType : merge(aType, bType);
    if (next === aType) continue;
    merged.set(name ?? key, next);
    changed = true;
  }
  return changed ? { struct: Object.fromEntries(merged) } : a;
}

/**
 * Fits one event's `metadata` to the column type. New fields extend the returned type; values
 * that conflict with their field's type (a string into BIGINT, an object into VARCHAR, a
 * fraction into BIGINT) move to `extra` by path and are stored as NULL in the typed value. An
 * integer into DOUBLE fits. In lists a conflicting element is stored as NULL so the others keep
 * their positions, and its path carries the index: `metadata.tags[2]`.
 */
export function reconcileMetadata(
  metadata: Readonly<Record<string, unknown>> | null | undefined,
  type: StructType,
  column = 'metadata',
): ReconciledMetadata {
  const extra = new Map<string, unknown>();
  if (metadata === null || metadata === undefined) return { value: null, type, extra: {} };
  const fitted = fitStruct(metadata, type, column, extra);
  return { value: fitted.value, type: fitted.type, extra: Object.fromEntries(extra) };
}

interface Fitted<T, V> {
  readonly value: V;
  readonly type: T;
}

function fitValue(
  value: unknown,
  type: FieldType | undefined,
  path: string,
  extra: Map<string, unknown>,
): Fitted<FieldType | undefined, unknown> {
  if (value === null || value === undefined) return { value: null, type };
  const target = type ?? inferFieldType(value);
  // Nothing typed inside (e.g. `{"a": null}` for a new field): there is no column to hold it.
  if (target === undefined) return { value: null, type };
  if (isStructType(target)) {
    if (isPlainObject(value)) return fitStruct(value, target, path, extra);
  } else if (isListType(target)) {
    if (Array.isArray(value)) return fitList(value, target, path, extra);
  } else if (fitsScalar(value, target)) {
    return { value, type: target };
  }
  extra.set(path, value);
  return { value: null, type: target };
}

function fitsScalar(value: unknown, type: ScalarType): boolean {
  switch (type) {
    case 'VARCHAR':
      return typeof value === 'string';
    case 'BOOLEAN':
      return typeof value === 'boolean';
    case 'BIGINT':
      return typeof value === 'number' && isBigintNumber(value);
    case 'DOUBLE':
      return typeof value === 'number' && Number.isFinite(value);
  }
}

function fitStruct(
  value: Readonly<Record<string, unknown>>,
  type: StructType,
  path: string,
  extra: Map<string, unknown>,
): Fitted<StructType, Record<string, unknown>> {
  const fields: Record<string, unknown> = {};
  let changes: Map<string, FieldType> | undefined;
  for (const rawKey of Object.keys(value)) {
    const child = value[rawKey];
    const key = fieldKey(rawKey);
    const name = existingName(type, key) ?? changedName(changes, key) ?? key;
    // A second spelling of a name (`Status` beside `status`) would be the same field twice.
    if (!isFieldName(key) || Object.hasOwn(fields, name)) {
      extra.set(`${path}.${key}`, child);
      continue;
    }
    const current =
      changes?.get(name) ?? (Object.hasOwn(type.struct, name) ? fieldOf(type, name) : undefined);
    // The common case, a scalar that fits its field, needs neither a path nor a recursion.
    if (typeof current === 'string' && typeof child !== 'object' && fitsScalar(child, current)) {
      setField(fields, name, child);
      continue;
    }
    const fitted = fitValue(child, current, `${path}.${key}`, extra);
    // A new field holding only nulls has no type yet, so no column to go to.
    if (fitted.type === undefined) continue;
    if (fitted.type !== current) {
      changes ??= new Map();
      changes.set(name, fitted.type);
    }
    setField(fields, name, fitted.value);
  }
  const evolved = changes ? { struct: { ...type.struct, ...Object.fromEntries(changes) } } : type;
  return { value: fields, type: evolved };
}

function setField(fields: Record<string, unknown>, name: string, value: unknown): void {
  // Plain assignment of "__proto__" would set the object's prototype instead of a field.
  if (name === '__proto__')
    Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
  else fields[name] = value;
}

function changedName(changes: Map<string, FieldType> | undefined, key: string): string | undefined {
  if (!changes) return undefined;
  const lower = key.toLowerCase();
  for (const name of changes.keys()) if (name.toLowerCase() === lower) return name;
  return undefined;
}

function fitList(
  value: readonly unknown[],
  type: { readonly list: FieldType },
  path: string,
  extra: Map<string, unknown>,
): Fitted<FieldType, unknown[]> {
  let element = type.list;
  const items = value.map((item, index) => {
    const fitted = fitValue(item, element, `${path}[${index}]`, extra);
    if (fitted.type !== undefined) element = fitted.type;
    return fitted.value;
  });
  return { value: items, type: element === type.list ? type : { list: element } };
}

/** The fields `after` has and `before` lacks, each at the shallowest level it is missing. */
export function fieldAdditions(before: StructType, after: StructType): FieldAddition[] {
  const additions: FieldAddition[] = [];
  collectAdditions(before, after, [], additions);
  return additions;
}

function collectAdditions(before: FieldType, after: FieldType, path: string[], out: FieldAddition[]): void {
  if (isStructType(before) && isStructType(after)) {
    for (const [name, type] of Object.entries(after.struct)) {
      if (Object.hasOwn(before.struct, name))
        collectAdditions(fieldOf(before, name), type, [...path, name], out);
      else out.push({ path: [...path, name], type });
    }
  } else if (isListType(before) && isListType(after)) {
    collectAdditions(before.list, after.list, [...path, 'element'], out);
  }
}

/**
 * `ALTER TABLE "t" ADD COLUMN "metadata"."request"."new_field" VARCHAR`. DuckDB (since 1.3) adds
 * a field to a STRUCT column in place, also inside lists of structs through the `element` step,
 * and existing rows read NULL for it: no rewrite of the table.
 */
export function addFieldStatement(table: string, column: string, addition: FieldAddition): string {
  const target = [column, ...addition.path].map(quoteIdent).join('.');
  return `ALTER TABLE ${quoteIdent(table)} ADD COLUMN ${target} ${duckdbType(addition.type)}`;
}

/**
 * `ALTER TABLE "t" ALTER "metadata" TYPE STRUCT(...)`: the whole column to an evolved type.
 * DuckDB casts STRUCT to STRUCT by field name (inside lists too), so a superset keeps every
 * value. Each ALTER rewrites the column (measured ~0.25-0.5 s per million rows, plus the same
 * again at the next checkpoint), and this one costs about two ADD COLUMNs however many fields
 * it adds, so the writer uses it when a batch brings more than one new field.
 */
export function changeColumnTypeStatement(table: string, column: string, type: FieldType): string {
  return `ALTER TABLE ${quoteIdent(table)} ALTER ${quoteIdent(column)} TYPE ${duckdbType(type)}`;
}
