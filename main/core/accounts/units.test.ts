import { describe, expect, it } from 'vitest';
import { tokenGweiToRaw } from '../../../shared/coins/ethereum-tx.ts';
import { etherToGwei, tokenToGwei } from './units.ts';

describe('amounts to the service units', () => {
  it('takes Ether in whole GWEI', () => {
    expect(etherToGwei(15n * 10n ** 17n)).toBe(1_500_000_000n);
    expect(() => etherToGwei(10n ** 9n + 1n)).toThrow(/0\.000000001000000001 ETH has more than 9 decimals/);
  });

  it.each([18, 9, 6, 0])('inverts the service tokenGweiToRaw at %i decimals', (decimals) => {
    for (const gwei of [1n, 7_000n, 123_456_789_000_000n]) {
      const raw = tokenGweiToRaw(gwei * (decimals < 9 ? 10n ** BigInt(9 - decimals) : 1n), decimals);
      expect(tokenGweiToRaw(tokenToGwei(raw, decimals, 'T'), decimals)).toBe(raw);
    }
  });

  it('refuses token amounts finer than the service takes', () => {
    expect(() => tokenToGwei(1n, 18, 'DSK')).toThrow(/0\.000000000000000001 DSK has more than 9 decimals/);
    expect(tokenToGwei(7n, 6, 'SIX')).toBe(7_000n);
  });
});
