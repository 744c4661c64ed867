import {
  type FieldType,
  isListType,
  isStructType,
  type ScalarType,
  type StructType,
} from '../endpoints/field-type.js';

/**
 * How a source table's `metadata` STRUCT follows the JSON that arrives. Types only ever grow:
 * a field that appears for the first time is added with the type inferred from its value, and
 * a value that does not fit a field's existing type is kept aside in `_extra` under its path
 * rather than widening the column (which would rewrite the table and change what queries see).
 * The typed schema is bounded (see SchemaLimits): a field beyond the source's field cap or
 * nesting depth is kept in `_extra` under its path too, so whatever keys clients send, a table
 * never grows past the cap and no key is dropped. Everything here is pure; the writer applies
 * the result on its own queue.
 */

/** How far a source's typed `metadata` may grow; beyond it values go to `_extra` by path. */
export interface SchemaLimits {
  /**
   * Fields a source's `metadata` STRUCT may hold, counting every named field at every level
   * (the seed's included). Logflare caps a source's schema at 500 fields on its paid plans.
   * @default 500
   */
  readonly maxFields: number;
  /**
   * Levels of objects a typed field may sit under: `metadata.a` is at depth 1,
   * `metadata.a.b` at 2. BigQuery, and so Logflare, allows 15 levels of nested records.
   * @default 15
   */
  readonly maxDepth: number;
}

export const defaultSchemaLimits: SchemaLimits = Object.freeze({ maxFields: 500, maxDepth: 15 });

export interface ReconciledMetadata {
  /**
   * The metadata ready to store: field names spelled as the type spells them, conflicts removed.
   * The very object given when all of it fits as it is.
   */
  readonly value: Readonly<Record<string, unknown>> | null;
  /** The column's type with every field this value brought in; the same object when nothing was new. */
  readonly type: StructType;
  /** Values that conflict with their field's type, keyed by path, e.g. `metadata.response.status_code`. */
  readonly extra: Readonly<Record<string, unknown>>;
}

// An integer is BIGINT only within ±(2^53 - 1), where a double holds it exactly: JSON.parse has
// already rounded any larger one, and -2^63, the one double that is BIGINT's minimum, prints as
// -9223372036854776000, which DuckDB cannot read back into a BIGINT. The checks in log-event.ts
// refuse larger integers before they get here; DOUBLE takes them from other callers.
function isBigintNumber(value: number): boolean {
  return Number.isSafeInteger(value);
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

/**
 * What fitting works out per STRUCT type: its names by lower case and its field count. Types
 * are immutable, so an answer keyed by the type object stays true; the memo lives as long as
 * its owner (a writer's schema pacing keeps one for every batch it fits), never in the module.
 */
export interface TypeMemo {
  readonly lowerCaseNames: WeakMap<StructType, Map<string, string>>;
  readonly fieldCounts: WeakMap<StructType, number>;
}

export function createTypeMemo(): TypeMemo {
  return { lowerCaseNames: new WeakMap(), fieldCounts: new WeakMap() };
}

/**
 * The name under which `type` already holds `key` (DuckDB compares field names
 * case-insensitively). Without a memo (merging types at open or within one value, both rare)
 * the names are scanned.
 */
function existingName(type: StructType, key: string, memo?: TypeMemo): string | undefined {
  if (Object.hasOwn(type.struct, key)) return key;
  const lower = key.toLowerCase();
  if (!memo) return Object.keys(type.struct).find((name) => name.toLowerCase() === lower);
  let names = memo.lowerCaseNames.get(type);
  if (!names) {
    names = new Map(Object.keys(type.struct).map((name) => [name.toLowerCase(), name]));
    memo.lowerCaseNames.set(type, names);
  }
  return names.get(lower);
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
  limits: SchemaLimits = defaultSchemaLimits,
  column = 'metadata',
  memo: TypeMemo = createTypeMemo(),
): ReconciledMetadata {
  if (metadata === null || metadata === undefined) return { value: null, type, extra: noExtra };
  // Keyed by path (`metadata.…`, never `__proto__`); a plain object costs less than a Map per event.
  const extra: Record<string, unknown> = {};
  const room: Room = { fields: limits.maxFields - countFields(type, memo), maxDepth: limits.maxDepth, memo };
  const fitted = fitStruct(metadata, type, column, extra, room, 1);
  return {
    value: fitted.value,
    type: fitted.type,
    extra: hasKeys(extra) ? extra : noExtra,
  };
}

/** The `extra` of a value from which nothing moved: one frozen empty object, told apart by identity. */
export const noExtra: Readonly<Record<string, unknown>> = Object.freeze({});

function hasKeys(record: Readonly<Record<string, unknown>>): boolean {
  for (const _ in record) return true;
  return false;
}

/** What is left of the limits while one value is fitted: new fields spend `fields`. */
interface Room {
  fields: number;
  readonly maxDepth: number;
  readonly memo: TypeMemo;
}

/** Named fields in a type at every level, as SchemaLimits.maxFields counts them. */
export function countFields(type: FieldType, memo?: TypeMemo): number {
  if (typeof type === 'string') return 0;
  if (isListType(type)) return countFields(type.list, memo);
  let count = memo?.fieldCounts.get(type);
  if (count === undefined) {
    count = 0;
    for (const field of Object.values(type.struct)) count += 1 + countFields(field, memo);
    memo?.fieldCounts.set(type, count);
  }
  return count;
}

/** Levels of objects below a type: 0 for a scalar, 1 for a STRUCT of scalars. */
function structDepth(type: FieldType): number {
  if (typeof type === 'string') return 0;
  if (isListType(type)) return structDepth(type.list);
  let deepest = 0;
  for (const field of Object.values(type.struct)) deepest = Math.max(deepest, structDepth(field));
  return 1 + deepest;
}

interface Fitted<T, V> {
  readonly value: V;
  readonly type: T;
}

/**
 * Fits a value to its field's type, or for a new field (`type` undefined, at `depth`) infers
 * one within the room left. A new object becomes a STRUCT field by field, so as many of its
 * fields as fit are typed and the rest go to `extra`; a new list is typed whole or not at all.
 */
function fitValue(
  value: unknown,
  type: FieldType | undefined,
  path: string,
  extra: Record<string, unknown>,
  room: Room,
  depth: number,
): Fitted<FieldType | undefined, unknown> {
  if (value === null || value === undefined) return { value: null, type };
  if (type === undefined && isPlainObject(value)) {
    if (room.fields < 2 || depth >= room.maxDepth) return overflow(value, path, extra);
    room.fields -= 1;
    const fitted = fitStruct(value, { struct: {} }, path, extra, room, depth + 1);
    // Every field went to extra (or held only nulls): no STRUCT without fields.
    if (Object.keys(fitted.type.struct).length > 0) return fitted;
    room.fields += 1;
    return { value: null, type: undefined };
  }
  const inferred = type ?? inferFieldType(value);
  // Nothing typed inside (e.g. `[null]` for a new field): there is no column to hold it.
  if (inferred === undefined) return { value: null, type };
  if (type === undefined) {
    const cost = 1 + countFields(inferred, room.memo);
    if (cost > room.fields || depth + structDepth(inferred) > room.maxDepth) {
      return overflow(value, path, extra);
    }
    room.fields -= cost;
  }
  const target = inferred;
  if (isStructType(target)) {
    if (isPlainObject(value)) return fitStruct(value, target, path, extra, room, depth + 1);
  } else if (isListType(target)) {
    if (Array.isArray(value)) return fitList(value, target, path, extra, room, depth);
  } else if (fitsScalar(value, target)) {
    return { value, type: target };
  }
  extra[path] = value;
  return { value: null, type: target };
}

/** A new field that does not fit the limits: its whole value is kept in `extra`, no type added. */
function overflow(value: unknown, path: string, extra: Record<string, unknown>): Fitted<undefined, null> {
  extra[path] = value;
  return { value: null, type: undefined };
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
  extra: Record<string, unknown>,
  room: Room,
  depth: number,
): Fitted<StructType, Readonly<Record<string, unknown>>> {
  // Most values fit as they arrived and are stored as that very object (its JSON is the same);
  // a copy is made only from the first field that is renamed, dropped, moved or fitted anew. An
  // object of a class (a Date from a programmatic caller) is always copied: its JSON is its own.
  const prototype = Object.getPrototypeOf(value);
  let fields: Record<string, unknown> | undefined =
    prototype === Object.prototype || prototype === null ? undefined : {};
  let changes: Map<string, FieldType> | undefined;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i += 1) {
    const rawKey = keys[i] as string;
    const child = value[rawKey];
    const key = fieldKey(rawKey);
    const name = existingName(type, key, room.memo) ?? changedName(changes, key) ?? key;
    // Until the copy, every field kept its own name, so none can have taken this one.
    if (fields === undefined && name !== rawKey) fields = fieldsBefore(value, keys, i);
    // A second spelling of a name (`Status` beside `status`) would be the same field twice.
    if (!isFieldName(key) || (fields !== undefined && Object.hasOwn(fields, name))) {
      fields ??= fieldsBefore(value, keys, i);
      extra[`${path}.${key}`] = child;
      continue;
    }
    const current =
      changes?.get(name) ?? (Object.hasOwn(type.struct, name) ? fieldOf(type, name) : undefined);
    // The common case, a scalar that fits its field, needs neither a path nor a recursion.
    if (typeof current === 'string' && typeof child !== 'object' && fitsScalar(child, current)) {
      if (fields !== undefined) setField(fields, name, child);
      continue;
    }
    const fitted = fitValue(child, current, `${path}.${key}`, extra, room, depth);
    // A new field holding only nulls, or kept in extra, has no type: no column to go to.
    if (fitted.type === undefined) {
      fields ??= fieldsBefore(value, keys, i);
      continue;
    }
    if (fitted.type !== current) {
      changes ??= new Map();
      changes.set(name, fitted.type);
    }
    if (fields === undefined && fitted.value !== child) fields = fieldsBefore(value, keys, i);
    if (fields !== undefined) setField(fields, name, fitted.value);
  }
  const evolved = changes ? { struct: { ...type.struct, ...Object.fromEntries(changes) } } : type;
  return { value: fields ?? value, type: evolved };
}

/** A copy of the fields of `value` before `keys[end]`, which were all kept as they came. */
function fieldsBefore(
  value: Readonly<Record<string, unknown>>,
  keys: readonly string[],
  end: number,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (let i = 0; i < end; i += 1) setField(fields, keys[i] as string, value[keys[i] as string]);
  return fields;
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
  extra: Record<string, unknown>,
  room: Room,
  depth: number,
): Fitted<FieldType, readonly unknown[]> {
  let element = type.list;
  // As for a STRUCT: the list that arrived is stored as it is until an element is fitted anew.
  let items: unknown[] | undefined;
  for (let index = 0; index < value.length; index += 1) {
    const item = value[index];
    const fitted = fitValue(item, element, `${path}[${index}]`, extra, room, depth);
    if (fitted.type !== undefined) element = fitted.type;
    if (items === undefined && fitted.value !== item) items = value.slice(0, index);
    items?.push(fitted.value);
  }
  return { value: items ?? value, type: element === type.list ? type : { list: element } };
}
