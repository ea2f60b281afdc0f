import { describe, expect, test } from 'vitest';
import { ByteReader, ByteWriter, bytesToHex, concatBytes, encodeCompactSize, equalBytes, hexToBytes, reverseBytes } from './bytes.ts';
import { CoinError } from './errors.ts';

describe('hex', () => {
  test('round-trips, either case in, lower case out', () => {
    expect(bytesToHex(hexToBytes('00ffAb10'))).toBe('00ffab10');
    expect(hexToBytes('')).toEqual(new Uint8Array(0));
  });

  test('is strict, with a clear message', () => {
    expect(() => hexToBytes('abc', 'pubkey')).toThrow('field "pubkey" is not valid hex: odd number of digits (3)');
    expect(() => hexToBytes('0xab')).toThrow(/remove the 0x prefix/);
    expect(() => hexToBytes('ab cd')).toThrow(CoinError);
    expect(() => hexToBytes('zz')).toThrow(/only 0-9 and a-f/);
  });
});

describe('byte helpers', () => {
  test('concat, equal, reverse (a copy)', () => {
    const a = Uint8Array.of(1, 2);
    expect(concatBytes(a, Uint8Array.of(3), new Uint8Array(0))).toEqual(Uint8Array.of(1, 2, 3));
    expect(equalBytes(a, Uint8Array.of(1, 2))).toBe(true);
    expect(equalBytes(a, Uint8Array.of(1))).toBe(false);
    expect(reverseBytes(a)).toEqual(Uint8Array.of(2, 1));
    expect(a).toEqual(Uint8Array.of(1, 2));
  });

  test('compact size boundaries', () => {
    const cases: [number | bigint, string][] = [
      [0, '00'],
      [0xfc, 'fc'],
      [0xfd, 'fdfd00'],
      [0xffff, 'fdffff'],
      [0x10000, 'fe00000100'],
      [0xffffffff, 'feffffffff'],
      [0x100000000, 'ff0000000001000000'],
      [0xffffffffffffffffn, 'ffffffffffffffffff'],
    ];
    for (const [n, hex] of cases) {
      expect(bytesToHex(encodeCompactSize(n))).toBe(hex);
      if (BigInt(n) <= BigInt(Number.MAX_SAFE_INTEGER)) expect(new ByteReader(hexToBytes(hex)).readVarInt()).toBe(Number(n));
    }
    expect(() => encodeCompactSize(-1)).toThrow(CoinError);
  });
});

describe('ByteReader / ByteWriter', () => {
  test('write then read every width', () => {
    const w = new ByteWriter().writeU8(7).writeU32LE(0xdeadbeef).writeI32LE(-2).writeU64LE(2n ** 63n).writeVarBytes(Uint8Array.of(9, 9));
    for (let i = 0; i < 100; i++) w.writeBytes(new Uint8Array(10)); // grows past the initial buffer
    const r = new ByteReader(w.toBytes(), 'test data');
    expect(r.readU8()).toBe(7);
    expect(r.readU32LE()).toBe(0xdeadbeef);
    expect(r.readI32LE()).toBe(-2);
    expect(r.readU64LE()).toBe(2n ** 63n);
    expect(r.readVarBytes()).toEqual(Uint8Array.of(9, 9));
    expect(r.remaining()).toBe(1000);
    r.readBytes(1000);
    expect(r.done()).toBe(true);
  });

  test('reading past the end names what is truncated', () => {
    const r = new ByteReader(Uint8Array.of(1, 2), 'transaction');
    expect(() => r.readU32LE()).toThrow('transaction is truncated: needed 4 more byte(s) at offset 0, only 2 left');
  });

  test('non-canonical compact sizes are refused', () => {
    expect(() => new ByteReader(hexToBytes('fd1000')).readVarInt()).toThrow(/non-canonical/);
    expect(() => new ByteReader(hexToBytes('fe00010000')).readVarInt()).toThrow(/non-canonical/);
    expect(() => new ByteReader(hexToBytes('ff0000000001000000')).readVarInt()).not.toThrow();
    expect(() => new ByteReader(hexToBytes('ffffffffffffffffff')).readVarInt()).toThrow(/impossible length/);
  });

  test('the writer refuses out-of-range integers instead of wrapping', () => {
    expect(() => new ByteWriter().writeU8(256)).toThrow(CoinError);
    expect(() => new ByteWriter().writeU32LE(-1)).toThrow(CoinError);
    expect(() => new ByteWriter().writeI32LE(2 ** 31)).toThrow(CoinError);
    expect(() => new ByteWriter().writeU64LE(-1n)).toThrow(CoinError);
  });
});
