import { describe, expect, it } from 'vitest';
import { basicFilterElements, basicFilterHeader, basicFilterMatchesAny, encodeBasicFilter, siphash24 } from './block-filter.ts';
import { bytesToHex, hexToBytes, reverseBytes } from './bytes.ts';
import { loadJson } from './fixtures/load-json.ts';
import { decodeBitcoinBlockTxs } from './tx.ts';

type Row = [number, string, string, string[], string, string, string, string];
const rows = ((await loadJson(new URL('./fixtures/vectors/bip158-blockfilters.json', import.meta.url))) as unknown[][]).filter((r) => r.length > 1) as Row[];

describe('BIP158 basic block filters', () => {
  it('SipHash-2-4 gives the reference implementation\'s first test vector', () => {
    // The SipHash paper's key 00..0f and the empty message, then 00..0e (15 bytes).
    const k0 = 0x0706050403020100n;
    const k1 = 0x0f0e0d0c0b0a0908n;
    expect(siphash24(k0, k1, new Uint8Array(0))).toBe(0x726fdb47dd0e0e31n);
    expect(siphash24(k0, k1, Uint8Array.from({ length: 15 }, (_, i) => i))).toBe(0xa129ca6149be45e5n);
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
