import {
  BIGINT,
  BLOB,
  type DuckDBBigIntVector,
  type DuckDBBlobVector,
  type DuckDBConnection,
  DuckDBScalarFunction,
  type DuckDBType,
  type DuckDBVarCharVector,
  type DuckDBVector,
  VARCHAR,
} from '@duckdb/node-api';
import { farmFingerprintFunction } from '../sql/rules/rule.js';

/*
 * BigQuery's FARM_FINGERPRINT is FarmHash's Fingerprint64, which farmhash.cc defines as
 * farmhashna::Hash64, read as a signed INT64
 * (https://cloud.google.com/bigquery/docs/reference/standard-sql/hash_functions#farm_fingerprint).
 * DuckDB has no such hash, so it runs here, in JavaScript, as a function DuckDB calls a chunk of
 * rows at a time (registerFarmFingerprint). Arithmetic is on 64-bit unsigned integers that wrap,
 * as C's uint64_t does: every sum and product is cut back to 64 bits.
 */

const mask = (1n << 64n) - 1n;
// farmhash's "primes between 2^63 and 2^64".
const k0 = 0xc3a5c85c97cb3127n;
const k1 = 0xb492b66fbe98f273n;
const k2 = 0x9ae16a3b2f90404fn;

const add = (a: bigint, b: bigint): bigint => (a + b) & mask;
const mul = (a: bigint, b: bigint): bigint => (a * b) & mask;
const rotate = (value: bigint, shift: bigint): bigint => ((value >> shift) | (value << (64n - shift))) & mask;
const shiftMix = (value: bigint): bigint => value ^ (value >> 47n);

/** The input's bytes, read as little-endian words wherever they lie. */
class Words {
  private readonly view: DataView;
  constructor(bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  at64(offset: number): bigint {
    return this.view.getBigUint64(offset, true);
  }
  at32(offset: number): bigint {
    return BigInt(this.view.getUint32(offset, true));
  }
}

/** Murmur-style mixing of two words into one. */
function mix16(u: bigint, v: bigint, multiplier: bigint): bigint {
  const a = shiftMix(mul(u ^ v, multiplier));
  const b = shiftMix(mul(v ^ a, multiplier));
  return mul(b, multiplier);
}

function upTo16(bytes: Uint8Array, words: Words): bigint {
  const length = bytes.length;
  const size = BigInt(length);
  if (length >= 8) {
    const multiplier = add(k2, size * 2n);
    const a = add(words.at64(0), k2);
    const b = words.at64(length - 8);
    const c = add(mul(rotate(b, 37n), multiplier), a);
    const d = mul(add(rotate(a, 25n), b), multiplier);
    return mix16(c, d, multiplier);
  }
  if (length >= 4) {
    const multiplier = add(k2, size * 2n);
    return mix16(add(size, words.at32(0) << 3n), words.at32(length - 4), multiplier);
  }
  if (length > 0) {
    const first = BigInt(bytes[0] ?? 0);
    const middle = BigInt(bytes[length >> 1] ?? 0);
    const last = BigInt(bytes[length - 1] ?? 0);
    // 32-bit sums in farmhash (they cannot overflow 32 bits at these sizes).
    const y = first + (middle << 8n);
    const z = size + (last << 2n);
    return mul(shiftMix(mul(y, k2) ^ mul(z, k0)), k2);
  }
  return k2;
}

/**
 * The two words farmhash mixes from the first and last 16 bytes of 17 to 64, the first word
 * multiplied by `first` (k1 up to 32 bytes, k2 above).
 */
function ends(length: number, words: Words, first: bigint) {
  const multiplier = add(k2, BigInt(length) * 2n);
  const a = mul(words.at64(0), first);
  const b = words.at64(8);
  const c = mul(words.at64(length - 8), multiplier);
  const d = mul(words.at64(length - 16), k2);
  const u = add(add(rotate(add(a, b), 43n), rotate(c, 30n)), d);
  const v = add(add(a, rotate(add(b, k2), 18n)), c);
  return { multiplier, a, u, v };
}

function from17To32(length: number, words: Words): bigint {
  const { multiplier, u, v } = ends(length, words, k1);
  return mix16(u, v, multiplier);
}

function from33To64(length: number, words: Words): bigint {
  const { multiplier, a, u: y, v } = ends(length, words, k2);
  const z = mix16(y, v, multiplier);
  const e = mul(words.at64(16), multiplier);
  const f = words.at64(24);
  const g = mul(add(y, words.at64(length - 32)), multiplier);
  const h = mul(add(z, words.at64(length - 24)), multiplier);
  return mix16(
    add(add(rotate(add(e, f), 43n), rotate(g, 30n)), h),
    add(add(e, rotate(add(f, a), 18n)), g),
    multiplier,
  );
}

/** Two words from the 32 bytes at `offset` and two seeds. */
function weak32(words: Words, offset: number, seedA: bigint, seedB: bigint): [bigint, bigint] {
  const w = words.at64(offset);
  const x = words.at64(offset + 8);
  const y = words.at64(offset + 16);
  const z = words.at64(offset + 24);
  let a = add(seedA, w);
  let b = rotate(add(add(seedB, a), z), 21n);
  const c = a;
  a = add(add(a, x), y);
  b = add(b, rotate(a, 44n));
  return [add(a, z), add(b, c)];
}

/** Inputs over 64 bytes: 64 at a time, then the last 64 (which may overlap the ones before). */
function over64(length: number, words: Words): bigint {
  const seed = 81n;
  let x = add(mul(seed, k2), words.at64(0));
  let y = add(mul(seed, k1), 113n);
  let z = mul(shiftMix(add(mul(y, k2), 113n)), k2);
  let v: [bigint, bigint] = [0n, 0n];
  let w: [bigint, bigint] = [0n, 0n];
  const end = Math.floor((length - 1) / 64) * 64;
  for (let at = 0; at < end; at += 64) {
    x = mul(rotate(add(add(add(x, y), v[0]), words.at64(at + 8)), 37n), k1);
    y = mul(rotate(add(add(y, v[1]), words.at64(at + 48)), 42n), k1);
    x ^= w[1];
    y = add(y, add(v[0], words.at64(at + 40)));
    z = mul(rotate(add(z, w[0]), 33n), k1);
    v = weak32(words, at, mul(v[1], k1), add(x, w[0]));
    w = weak32(words, at + 32, add(z, w[1]), add(y, words.at64(at + 16)));
    [z, x] = [x, z];
  }
  const multiplier = add(k1, (z & 0xffn) << 1n);
  const last = length - 64;
  w[0] = add(w[0], BigInt((length - 1) & 63));
  v[0] = add(v[0], w[0]);
  w[0] = add(w[0], v[0]);
  x = mul(rotate(add(add(add(x, y), v[0]), words.at64(last + 8)), 37n), multiplier);
  y = mul(rotate(add(add(y, v[1]), words.at64(last + 48)), 42n), multiplier);
  x ^= mul(w[1], 9n);
  y = add(y, add(mul(v[0], 9n), words.at64(last + 40)));
  z = mul(rotate(add(z, w[0]), 33n), multiplier);
  v = weak32(words, last, mul(v[1], multiplier), add(x, w[0]));
  w = weak32(words, last + 32, add(z, w[1]), add(y, words.at64(last + 16)));
  [z, x] = [x, z];
  return mix16(
    add(add(mix16(v[0], w[0], multiplier), mul(shiftMix(y), k0)), z),
    add(mix16(v[1], w[1], multiplier), x),
    multiplier,
  );
}

/** FARM_FINGERPRINT of these bytes: FarmHash Fingerprint64 as a signed 64-bit integer. */
export function farmFingerprint(bytes: Uint8Array): bigint {
  const words = new Words(bytes);
  const length = bytes.length;
  const hash =
    length <= 16
      ? upTo16(bytes, words)
      : length <= 32
        ? from17To32(length, words)
        : length <= 64
          ? from33To64(length, words)
          : over64(length, words);
  return BigInt.asIntN(64, hash);
}

/**
 * Makes `bigquery_farm_fingerprint(VARCHAR | BLOB) → BIGINT` known to the connection's whole
 * DuckDB instance (a function registered through the C API goes into the instance's catalog, not
 * the file): every connection opened on it, before or after, can call it. The hash runs on the
 * JavaScript thread, a chunk of at most 2048 rows per call, so other work interleaves between
 * chunks and an interrupt stops the query between them; a NULL gives NULL.
 */
export function registerFarmFingerprint(connection: DuckDBConnection): void {
  connection.registerScalarFunction(
    fingerprintOf(BLOB, (input) => {
      const values = input as DuckDBBlobVector;
      return (row) => values.getItemBytes(row);
    }),
  );
  // A STRING is hashed as its UTF-8 bytes, as BigQuery does.
  const utf8 = new TextEncoder();
  let buffer = new Uint8Array(256);
  connection.registerScalarFunction(
    fingerprintOf(VARCHAR, (input) => {
      const values = input as DuckDBVarCharVector;
      return (row) => {
        const text = values.getItem(row);
        if (text === null) return null;
        if (buffer.length < text.length * 3) buffer = new Uint8Array(text.length * 3);
        return buffer.subarray(0, utf8.encodeInto(text, buffer).written);
      };
    }),
  );
}

/** The function's overload for one argument type, reading each row's bytes as `bytesOf` says. */
function fingerprintOf(
  type: DuckDBType,
  bytesOf: (input: DuckDBVector) => (row: number) => Uint8Array | null,
): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name: farmFingerprintFunction,
    returnType: BIGINT,
    parameterTypes: [type],
    mainFunction: (_info, input, output) => {
      const bytesAt = bytesOf(input.getColumnVector(0));
      const hashes = output as DuckDBBigIntVector;
      for (let row = 0; row < input.rowCount; row++) {
        const bytes = bytesAt(row);
        hashes.setItem(row, bytes === null ? null : farmFingerprint(bytes));
      }
      hashes.flush();
    },
  });
}
