import { describe, expect, it } from 'vitest';
import { unitsToDecimal } from '../../shared/coins/units.ts';
import { human } from './amounts.ts';

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
