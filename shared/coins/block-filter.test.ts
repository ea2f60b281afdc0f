import { describe, expect, it } from 'vitest';
import { BASIC_FILTER_M, basicFilterElements, basicFilterHeader, basicFilterMatchesAny, encodeBasicFilter, mulHigh64, siphash24 } from './block-filter.ts';
import { bytesToHex, hexToBytes, reverseBytes } from './bytes.ts';
import { basicFilterMatchesAnyBigInt, hashToRangeBigInt, siphash24BigInt } from './fixtures/block-filter-bigint.ts';
import { loadJson } from './fixtures/load-json.ts';
import { decodeBitcoinBlockTxs } from './tx.ts';

type Row = [number, string, string, string[], string, string, string, string];
const sipRows = ((await loadJson(new URL('./fixtures/vectors/siphash24.json', import.meta.url))) as unknown[][]).filter((r) => r.length > 1) as [string, string][];
const rows = ((await loadJson(new URL('./fixtures/vectors/bip158-blockfilters.json', import.meta.url))) as unknown[][]).filter((r) => r.length > 1) as Row[];

describe('BIP158 basic block filters', () => {
  it('SipHash-2-4 gives the 64 tags of the SipHash authors\' vectors.h', () => {
    expect(sipRows).toHaveLength(64);
    const k0 = 0x0706050403020100n;
    const k1 = 0x0f0e0d0c0b0a0908n;
    for (const [message, tag] of sipRows) {
      const want = BigInt(`0x${bytesToHex(reverseBytes(hexToBytes(tag)))}`);
      expect(siphash24(k0, k1, hexToBytes(message))).toBe(want);
      expect(siphash24BigInt(k0, k1, hexToBytes(message))).toBe(want);
    }
  });

  // The 32-bit-halves SipHash and the limb multiply against the first (BigInt) matcher, on inputs
  // of every tail length, top-bit-heavy keys, and element counts up to 2^33 (N * M < 2^53).
  it('gives the BigInt version\'s hashes, ranges and answers on random inputs', () => {
    const rng = seeded(158);
    for (let i = 0; i < 2_000; i++) {
      const k0 = randomU64(rng);
      const k1 = randomU64(rng);
      const data = randomBytes(rng, i % 97);
      expect(siphash24(k0, k1, data)).toBe(siphash24BigInt(k0, k1, data));
      const hash = randomU64(rng);
      const n = i % 3 === 0 ? 1 + Math.floor(rng() * 8_589_934_591) : 1 + Math.floor(rng() * 20_000);
      const f = n * BASIC_FILTER_M;
      expect(mulHigh64(Number(hash & 0xffffffffn), Number(hash >> 32n), f)).toBe(Number((hash * BigInt(f)) >> 64n));
    }
    for (const hash of [0n, (1n << 64n) - 1n, 1n << 63n, 0xffffffffn, 0xffffffff00000000n]) {
      const f = 8_589_934_591 * BASIC_FILTER_M;
      expect(mulHigh64(Number(hash & 0xffffffffn), Number(hash >> 32n), f)).toBe(Number((hash * BigInt(f)) >> 64n));
    }
    for (let b = 0; b < 200; b++) {
      const blockHash = bytesToHex(randomBytes(rng, 32));
      const elements = Array.from({ length: 1 + Math.floor(rng() * 300) }, () => randomBytes(rng, 22 + Math.floor(rng() * 13)));
      const filter = encodeBasicFilter(blockHash, elements);
      const present = elements[Math.floor(rng() * elements.length)]!;
      const absent = Array.from({ length: 40 }, () => randomBytes(rng, 34));
      expect(hashToRangeBigInt(blockHash, present, elements.length)).toBeLessThan(elements.length * BASIC_FILTER_M);
      expect(basicFilterMatchesAny(filter, blockHash, [...absent, present])).toBe(true);
      expect(basicFilterMatchesAny(filter, blockHash, absent)).toBe(basicFilterMatchesAnyBigInt(filter, blockHash, absent));
      expect(basicFilterMatchesAnyBigInt(filter, blockHash, [...absent, present])).toBe(true);
    }
  });

  it.each(rows.map((r) => [r[0], r[7] || `block ${r[0]}`, r] as const))('builds the published filter and header of testnet block %i (%s)', (_height, _note, row) => {
    const [, hash, block, prevScripts, prevHeader, filterHex, headerHex] = row;
    const txs = decodeBitcoinBlockTxs(hexToBytes(block));
    const elements = basicFilterElements(
      txs.flatMap((t) => t.outputs.map((o) => o.script)),
      prevScripts.map((s) => hexToBytes(s)),
    );
    const filter = encodeBasicFilter(hash, elements);
    expect(bytesToHex(filter)).toBe(filterHex);
    expect(bytesToHex(reverseBytes(basicFilterHeader(filter, reverseBytes(hexToBytes(prevHeader)))))).toBe(headerHex);
    // every element matches; a script of no output does not (P=19 makes a false positive ~1e-6)
    for (const e of elements) expect(basicFilterMatchesAny(hexToBytes(filterHex), hash, [e])).toBe(true);
    const stranger = hexToBytes(`0014${'5a'.repeat(20)}`);
    expect(basicFilterMatchesAny(hexToBytes(filterHex), hash, [stranger])).toBe(false);
    if (elements.length > 0) expect(basicFilterMatchesAny(hexToBytes(filterHex), hash, [stranger, elements[elements.length - 1]!])).toBe(true);
  });

  it('refuses a truncated filter in words', () => {
    const row = rows.find((r) => r[3].length > 0)!;
    const filter = hexToBytes(row[5]);
    expect(() => basicFilterMatchesAny(filter.subarray(0, 3), row[1], [hexToBytes(`0014${'5a'.repeat(20)}`)])).toThrow(/truncated/);
  });
});

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomBytes(rng: () => number, length: number): Uint8Array {
  return Uint8Array.from({ length }, () => Math.floor(rng() * 256));
}

function randomU64(rng: () => number): bigint {
  // Every fourth word with its top bits set, where carries and the sign of 32-bit ints bite.
  const hi = rng() < 0.25 ? 0xffff0000 | Math.floor(rng() * 65536) : Math.floor(rng() * 4294967296);
  return (BigInt(hi >>> 0) << 32n) | BigInt(Math.floor(rng() * 4294967296));
}
