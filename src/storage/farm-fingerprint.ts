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
 * rows at a time (registerFarmFingerprint).
 *
 * Its arithmetic is on 64-bit unsigned integers that wrap, as C's uint64_t does. Each is held as
 * two 32-bit halves (high, low) in plain numbers: BigInt arithmetic cut back to 64 bits took 5 to
 * 10 times as long a value. Every operation leaves its result in the hasher's register (`h`, `l`).
 */

// farmhash's "primes between 2^63 and 2^64", as halves.
const k0h = 0xc3a5c85c;
const k0l = 0x97cb3127;
const k1h = 0xb492b66f;
const k1l = 0xbe98f273;
const k2h = 0x9ae16a3b;
const k2l = 0x2f90404f;

/** One hasher: its register and the words of the input being hashed. */
class Fingerprint64 {
  private h = 0;
  private l = 0;
  private view: DataView = new DataView(new ArrayBuffer(0));
  // What ends() and weak32() answer besides the register.
  private mh = 0;
  private ml = 0;
  private ah = 0;
  private al = 0;
  private vh = 0;
  private vl = 0;
  private w0h = 0;
  private w0l = 0;
  private w1h = 0;
  private w1l = 0;

  /** FARM_FINGERPRINT of these bytes: Fingerprint64 as a signed 64-bit integer. */
  of(bytes: Uint8Array): bigint {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const length = bytes.length;
    if (length <= 16) this.upTo16(bytes, length);
    else if (length <= 32) {
      this.ends(length, k1h, k1l);
      this.mix16(this.h, this.l, this.vh, this.vl, this.mh, this.ml);
    } else if (length <= 64) this.from33To64(length);
    else this.over64(length);
    return BigInt.asIntN(64, (BigInt(this.h) << 32n) | BigInt(this.l));
  }

  /** The little-endian word at `offset`: its high and low halves. */
  private hi(offset: number): number {
    return this.view.getUint32(offset + 4, true);
  }
  private lo(offset: number): number {
    return this.view.getUint32(offset, true);
  }

  /** a * b, the low 64 bits: the low halves' product in 16-bit pieces, the cross terms mod 2^32. */
  private mul(ah: number, al: number, bh: number, bl: number): void {
    const a0 = al & 0xffff;
    const a1 = al >>> 16;
    const b0 = bl & 0xffff;
    const b1 = bl >>> 16;
    const p00 = a0 * b0;
    const p01 = a0 * b1;
    const p10 = a1 * b0;
    const middle = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
    this.l = ((middle & 0xffff) * 0x10000 + (p00 & 0xffff)) >>> 0;
    const carried =
      a1 * b1 + Math.floor(p01 / 0x10000) + Math.floor(p10 / 0x10000) + Math.floor(middle / 0x10000);
    this.h = (carried + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
  }

  private add(ah: number, al: number, bh: number, bl: number): void {
    const low = al + bl;
    this.l = low >>> 0;
    this.h = (ah + bh + (low > 0xffffffff ? 1 : 0)) >>> 0;
  }

  /** Rotation right by 0 < shift < 64: by 32 or more, the halves swap places first. */
  private rotate(h: number, l: number, shift: number): void {
    const swap = shift >= 32;
    const high = swap ? l : h;
    const low = swap ? h : l;
    const by = swap ? shift - 32 : shift;
    if (by === 0) {
      this.h = high;
      this.l = low;
      return;
    }
    this.l = ((low >>> by) | (high << (32 - by))) >>> 0;
    this.h = ((high >>> by) | (low << (32 - by))) >>> 0;
  }

  /** value ^ (value >> 47). */
  private shiftMix(h: number, l: number): void {
    this.h = h;
    this.l = (l ^ (h >>> 15)) >>> 0;
  }

  /** farmhash's HashLen16(u, v, mul): Murmur-style mixing of two words into one. */
  private mix16(uh: number, ul: number, vh: number, vl: number, mh: number, ml: number): void {
    this.mul((uh ^ vh) >>> 0, (ul ^ vl) >>> 0, mh, ml);
    this.shiftMix(this.h, this.l);
    const ah = this.h;
    const al = this.l;
    this.mul((vh ^ ah) >>> 0, (vl ^ al) >>> 0, mh, ml);
    this.shiftMix(this.h, this.l);
    this.mul(this.h, this.l, mh, ml);
  }

  private upTo16(bytes: Uint8Array, length: number): void {
    if (length >= 8) {
      this.add(k2h, k2l, 0, length * 2);
      const mh = this.h;
      const ml = this.l;
      this.add(this.hi(0), this.lo(0), k2h, k2l);
      const ah = this.h;
      const al = this.l;
      const bh = this.hi(length - 8);
      const bl = this.lo(length - 8);
      this.rotate(bh, bl, 37);
      this.mul(this.h, this.l, mh, ml);
      this.add(this.h, this.l, ah, al);
      const ch = this.h;
      const cl = this.l;
      this.rotate(ah, al, 25);
      this.add(this.h, this.l, bh, bl);
      this.mul(this.h, this.l, mh, ml);
      this.mix16(ch, cl, this.h, this.l, mh, ml);
    } else if (length >= 4) {
      this.add(k2h, k2l, 0, length * 2);
      const mh = this.h;
      const ml = this.l;
      const a = this.lo(0);
      // length + (a << 3), a being a 32-bit word.
      this.add(a >>> 29, (a << 3) >>> 0, 0, length);
      this.mix16(this.h, this.l, 0, this.view.getUint32(length - 4, true), mh, ml);
    } else if (length > 0) {
      const y = (bytes[0] ?? 0) + ((bytes[length >> 1] ?? 0) << 8);
      const z = length + ((bytes[length - 1] ?? 0) << 2);
      this.mul(0, y, k2h, k2l);
      const yh = this.h;
      const yl = this.l;
      this.mul(0, z, k0h, k0l);
      this.shiftMix((yh ^ this.h) >>> 0, (yl ^ this.l) >>> 0);
      this.mul(this.h, this.l, k2h, k2l);
    } else {
      this.h = k2h;
      this.l = k2l;
    }
  }

  /**
   * What HashLen17to32 and HashLen33to64 mix first from the first and last 16 bytes, the first
   * word multiplied by `first` (k1 up to 32 bytes, k2 above): the multiplier (mh, ml), that
   * product (ah, al), and two words, the register's and (vh, vl).
   */
  private ends(length: number, fh: number, fl: number): void {
    this.add(k2h, k2l, 0, length * 2);
    const mh = this.h;
    const ml = this.l;
    this.mul(this.hi(0), this.lo(0), fh, fl);
    const ah = this.h;
    const al = this.l;
    const bh = this.hi(8);
    const bl = this.lo(8);
    this.mul(this.hi(length - 8), this.lo(length - 8), mh, ml);
    const ch = this.h;
    const cl = this.l;
    this.mul(this.hi(length - 16), this.lo(length - 16), k2h, k2l);
    const dh = this.h;
    const dl = this.l;
    this.add(bh, bl, k2h, k2l);
    this.rotate(this.h, this.l, 18);
    this.add(this.h, this.l, ah, al);
    this.add(this.h, this.l, ch, cl);
    this.vh = this.h;
    this.vl = this.l;
    this.add(ah, al, bh, bl);
    this.rotate(this.h, this.l, 43);
    const th = this.h;
    const tl = this.l;
    this.rotate(ch, cl, 30);
    this.add(this.h, this.l, th, tl);
    this.add(this.h, this.l, dh, dl);
    this.mh = mh;
    this.ml = ml;
    this.ah = ah;
    this.al = al;
  }

  private from33To64(length: number): void {
    this.ends(length, k2h, k2l);
    const mh = this.mh;
    const ml = this.ml;
    const ah = this.ah;
    const al = this.al;
    const yh = this.h;
    const yl = this.l;
    this.mix16(yh, yl, this.vh, this.vl, mh, ml);
    const zh = this.h;
    const zl = this.l;
    this.mul(this.hi(16), this.lo(16), mh, ml);
    const eh = this.h;
    const el = this.l;
    const fh = this.hi(24);
    const fl = this.lo(24);
    this.add(yh, yl, this.hi(length - 32), this.lo(length - 32));
    this.mul(this.h, this.l, mh, ml);
    const gh = this.h;
    const gl = this.l;
    this.add(zh, zl, this.hi(length - 24), this.lo(length - 24));
    this.mul(this.h, this.l, mh, ml);
    const hh = this.h;
    const hl = this.l;
    this.add(eh, el, fh, fl);
    this.rotate(this.h, this.l, 43);
    const th = this.h;
    const tl = this.l;
    this.rotate(gh, gl, 30);
    this.add(this.h, this.l, th, tl);
    this.add(this.h, this.l, hh, hl);
    const uh = this.h;
    const ul = this.l;
    this.add(fh, fl, ah, al);
    this.rotate(this.h, this.l, 18);
    this.add(this.h, this.l, eh, el);
    this.add(this.h, this.l, gh, gl);
    this.mix16(uh, ul, this.h, this.l, mh, ml);
  }

  /** WeakHashLen32WithSeeds of the 32 bytes at `offset` and seeds a, b: two words, w0 and w1. */
  private weak32(offset: number, sah: number, sal: number, sbh: number, sbl: number): void {
    this.add(sah, sal, this.hi(offset), this.lo(offset));
    let ah = this.h;
    let al = this.l;
    this.add(sbh, sbl, ah, al);
    this.add(this.h, this.l, this.hi(offset + 24), this.lo(offset + 24));
    this.rotate(this.h, this.l, 21);
    let bh = this.h;
    let bl = this.l;
    const ch = ah;
    const cl = al;
    this.add(ah, al, this.hi(offset + 8), this.lo(offset + 8));
    this.add(this.h, this.l, this.hi(offset + 16), this.lo(offset + 16));
    ah = this.h;
    al = this.l;
    this.rotate(ah, al, 44);
    this.add(this.h, this.l, bh, bl);
    bh = this.h;
    bl = this.l;
    this.add(ah, al, this.hi(offset + 24), this.lo(offset + 24));
    this.w0h = this.h;
    this.w0l = this.l;
    this.add(bh, bl, ch, cl);
    this.w1h = this.h;
    this.w1l = this.l;
  }

  /** Inputs over 64 bytes: 64 at a time, then the last 64 (which may overlap the ones before). */
  private over64(length: number): void {
    // x = 81 * k2 + word 0; y = 81 * k1 + 113; z = ShiftMix(y * k2 + 113) * k2.
    this.mul(0, 81, k2h, k2l);
    this.add(this.h, this.l, this.hi(0), this.lo(0));
    let xh = this.h;
    let xl = this.l;
    this.mul(0, 81, k1h, k1l);
    this.add(this.h, this.l, 0, 113);
    let yh = this.h;
    let yl = this.l;
    this.mul(yh, yl, k2h, k2l);
    this.add(this.h, this.l, 0, 113);
    this.shiftMix(this.h, this.l);
    this.mul(this.h, this.l, k2h, k2l);
    let zh = this.h;
    let zl = this.l;
    let v0h = 0;
    let v0l = 0;
    let v1h = 0;
    let v1l = 0;
    let w0h = 0;
    let w0l = 0;
    let w1h = 0;
    let w1l = 0;
    // One round over the 64 bytes at `at`, multiplying by (mh, ml); the last round adds more.
    const round = (at: number, mh: number, ml: number, last: boolean) => {
      this.add(xh, xl, yh, yl);
      this.add(this.h, this.l, v0h, v0l);
      this.add(this.h, this.l, this.hi(at + 8), this.lo(at + 8));
      this.rotate(this.h, this.l, 37);
      this.mul(this.h, this.l, mh, ml);
      xh = this.h;
      xl = this.l;
      this.add(yh, yl, v1h, v1l);
      this.add(this.h, this.l, this.hi(at + 48), this.lo(at + 48));
      this.rotate(this.h, this.l, 42);
      this.mul(this.h, this.l, mh, ml);
      yh = this.h;
      yl = this.l;
      // x ^= w.second (times 9 in the last round); y += v.first (times 9) + word 40.
      this.mul(w1h, w1l, 0, last ? 9 : 1);
      xh = (xh ^ this.h) >>> 0;
      xl = (xl ^ this.l) >>> 0;
      this.mul(v0h, v0l, 0, last ? 9 : 1);
      this.add(this.h, this.l, this.hi(at + 40), this.lo(at + 40));
      this.add(this.h, this.l, yh, yl);
      yh = this.h;
      yl = this.l;
      this.add(zh, zl, w0h, w0l);
      this.rotate(this.h, this.l, 33);
      this.mul(this.h, this.l, mh, ml);
      zh = this.h;
      zl = this.l;
      this.mul(v1h, v1l, mh, ml);
      const sah = this.h;
      const sal = this.l;
      this.add(xh, xl, w0h, w0l);
      this.weak32(at, sah, sal, this.h, this.l);
      v0h = this.w0h;
      v0l = this.w0l;
      v1h = this.w1h;
      v1l = this.w1l;
      this.add(zh, zl, w1h, w1l);
      const tah = this.h;
      const tal = this.l;
      this.add(yh, yl, this.hi(at + 16), this.lo(at + 16));
      this.weak32(at + 32, tah, tal, this.h, this.l);
      w0h = this.w0h;
      w0l = this.w0l;
      w1h = this.w1h;
      w1l = this.w1l;
      const swappedH = zh;
      const swappedL = zl;
      zh = xh;
      zl = xl;
      xh = swappedH;
      xl = swappedL;
    };
    const end = Math.floor((length - 1) / 64) * 64;
    for (let at = 0; at < end; at += 64) round(at, k1h, k1l, false);
    this.add(k1h, k1l, 0, (zl & 0xff) << 1);
    const mh = this.h;
    const ml = this.l;
    this.add(w0h, w0l, 0, (length - 1) & 63);
    w0h = this.h;
    w0l = this.l;
    this.add(v0h, v0l, w0h, w0l);
    v0h = this.h;
    v0l = this.l;
    this.add(w0h, w0l, v0h, v0l);
    w0h = this.h;
    w0l = this.l;
    round(length - 64, mh, ml, true);
    // HashLen16(HashLen16(v.first, w.first) + ShiftMix(y) * k0 + z, HashLen16(v.second, w.second) + x).
    this.mix16(v0h, v0l, w0h, w0l, mh, ml);
    const ah = this.h;
    const al = this.l;
    this.shiftMix(yh, yl);
    this.mul(this.h, this.l, k0h, k0l);
    this.add(this.h, this.l, ah, al);
    this.add(this.h, this.l, zh, zl);
    const uh = this.h;
    const ul = this.l;
    this.mix16(v1h, v1l, w1h, w1l, mh, ml);
    this.add(this.h, this.l, xh, xl);
    this.mix16(uh, ul, this.h, this.l, mh, ml);
  }
}

/** A FARM_FINGERPRINT of bytes, with a hasher of its own (a hasher is not shared between threads). */
export function createFarmFingerprint(): (bytes: Uint8Array) => bigint {
  const hasher = new Fingerprint64();
  return (bytes) => hasher.of(bytes);
}

/**
 * Makes `bigquery_farm_fingerprint(VARCHAR | BLOB) → BIGINT` known to the connection's whole
 * DuckDB instance (a function registered through the C API goes into the instance's catalog, not
 * the file): every connection opened on it, before or after, can call it. The hash runs on the
 * JavaScript thread, a chunk of at most 2048 rows per call, so other work interleaves between
 * chunks and an interrupt stops the query between them; a NULL gives NULL.
 */
export function registerFarmFingerprint(connection: DuckDBConnection): void {
  const fingerprint = createFarmFingerprint();
  connection.registerScalarFunction(
    fingerprintOf(fingerprint, BLOB, (input) => {
      const values = input as DuckDBBlobVector;
      return (row) => values.getItemBytes(row);
    }),
  );
  // A STRING is hashed as its UTF-8 bytes, as BigQuery does.
  const utf8 = new TextEncoder();
  let buffer = new Uint8Array(256);
  connection.registerScalarFunction(
    fingerprintOf(fingerprint, VARCHAR, (input) => {
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
  fingerprint: (bytes: Uint8Array) => bigint,
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
        hashes.setItem(row, bytes === null ? null : fingerprint(bytes));
      }
      hashes.flush();
    },
  });
}
