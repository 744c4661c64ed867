import { describe, expect, it } from 'vitest';
import { createFarmFingerprint } from '../../src/storage/farm-fingerprint.js';

describe('FarmHash Fingerprint64, as FARM_FINGERPRINT computes it', () => {
  it('agrees with FarmHash over every length from 0 to 3200 bytes', () => {
    // Guava's FarmHashFingerprint64Test.testMultipleLengths: fingerprints of prefixes of a buffer
    // that grows from their own values, folded into one number, which Guava's port shares with
    // FarmHash's C++ reference: 0x7a1d67c50ec7e167. Every length class (0-3, 4-7, 8-16, 17-32,
    // 33-64, over 64, whole multiples of 64) is hashed many times over.
    const farmFingerprint = createFarmFingerprint();
    const iterations = 800;
    const buffer = new Uint8Array(iterations * 4);
    let length = 0;
    let h = 0n;
    const remix = (value: bigint) => {
      const unsigned = BigInt.asUintN(64, value);
      return BigInt.asIntN(64, (unsigned ^ (unsigned >> 41n)) * 949921979n);
    };
    const letter = (value: bigint) => 97 + Number((BigInt.asUintN(64, value) & 0xfffffn) % 26n);
    const step = (prefix: number) => {
      h = remix(h ^ farmFingerprint(buffer.subarray(0, prefix)));
      buffer[length++] = letter(h);
    };
    const byteAt = (index: number) => buffer[index] ?? 0;
    for (let i = 0; i < iterations; i++) {
      step(i);
      step((i * i) % length);
      step((i * i * i) % length);
      step(length);
      const [x0, x1, x2, x3] = [
        byteAt(length - 1),
        byteAt(length - 2),
        byteAt(length - 3),
        byteAt(length >> 1),
      ];
      const flip = (index: number, bits: number) => {
        buffer[index] = byteAt(index) ^ bits;
      };
      flip(((x0 << 16) + (x1 << 8) + x2) % length, x3);
      flip(((x1 << 16) + (x2 << 8) + x3) % length, i % 256);
    }
    expect(BigInt.asUintN(64, h)).toBe(0x7a1d67c50ec7e167n);
  });
});
