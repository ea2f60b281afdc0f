import { describe, expect, it } from 'vitest';
import { addressToScript, encodeAddress } from '../../shared/coins/address.ts';
import { chainParams } from '../../shared/coins/coin-table.ts';
import { unitsToDecimal } from '../../shared/coins/units.ts';
import { human, parseAddressList } from './context.ts';

const litecoin = { params: chainParams('litecoin', 'regtest') };
const litecoinMain = { params: chainParams('litecoin', 'mainnet') };
const bitcoinMain = { params: chainParams('bitcoin', 'mainnet') };

function p2pkh(params: typeof litecoin.params, n: number): string {
  const hash = new Uint8Array(20);
  new DataView(hash.buffer).setUint32(0, n);
  return encodeAddress(params, { type: 'p2pkh', hash });
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(Error); // ApiError or CoinError: both answer 400
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('parseAddressList', () => {
  it('one address, trimmed, with its script', () => {
    const a = p2pkh(litecoin.params, 1);
    expect(parseAddressList(litecoin, ` ${a} `)).toEqual([{ address: a, script: addressToScript(litecoin.params, a) }]);
  });

  it('a list keeps order, drops empty entries and counts one script once', () => {
    const [a, b] = [p2pkh(litecoin.params, 1), p2pkh(litecoin.params, 2)];
    expect(parseAddressList(litecoin, `${a},,${b}, ${a}`).map((q) => q.address)).toEqual([a, b]);
  });

  it('remembers addresses per chain: a litecoin address is not valid for bitcoin afterwards', () => {
    const a = p2pkh(litecoinMain.params, 3);
    parseAddressList(litecoinMain, a);
    expect(refusal(() => parseAddressList(bitcoinMain, a))).toMatch(/address/);
  });

  it('refuses an empty list, an invalid address and too many addresses with the field name', () => {
    expect(refusal(() => parseAddressList(litecoin, ' ', 'address'))).toBe('address is empty');
    expect(refusal(() => parseAddressList(litecoin, ' , '))).toBe('addresses is empty');
    expect(refusal(() => parseAddressList(litecoin, 'not-an-address', 'address'))).toMatch(/address/);
    const many = Array.from({ length: 201 }, (_, i) => p2pkh(litecoin.params, i + 10)).join(',');
    expect(refusal(() => parseAddressList(litecoin, many))).toMatch(/lists 201 addresses; at most 200/);
  });
});

describe('human', () => {
  // The reference: the exact decimal text, parsed once.
  const viaText = (units: bigint, decimals: number) => Number(unitsToDecimal(units, decimals));

  it('equals the parsed exact decimal text at the edges of the fast path', () => {
    const limit = 2n ** 53n;
    const edges = [0n, 1n, -1n, 9n, 10n, 99_999_999n, 100_000_000n, 123_456_789n, 2_100_000_000_000_000n, limit - 1n, -(limit - 1n), limit, -limit, limit + 1n, 10n ** 30n + 7n];
    for (const decimals of [0, 1, 2, 8, 18, 22, 23, 30]) {
      for (const units of edges) expect(human(units, decimals), `${units} / 10^${decimals}`).toBe(viaText(units, decimals));
    }
  });

  it('equals the parsed exact decimal text for 100,000 pseudo-random amounts', () => {
    let state = 0x2545f4914f6cdd1dn;
    const next = () => {
      // xorshift64: reproducible, no seed to record
      state ^= (state << 13n) & 0xffffffffffffffffn;
      state ^= state >> 7n;
      state ^= (state << 17n) & 0xffffffffffffffffn;
      return state;
    };
    for (let i = 0; i < 100_000; i++) {
      const r = next();
      const units = (r >> BigInt(Number(r & 63n))) * (r & 1n ? -1n : 1n);
      const decimals = [0, 2, 6, 8, 18][i % 5]!;
      expect(human(units, decimals)).toBe(viaText(units, decimals));
    }
  });
});
