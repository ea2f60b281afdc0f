import { describe, expect, it } from 'vitest';
import { childFee, rateText } from './cpfp.ts';

describe('child pays for parent: the figures', () => {
  it('brings the pair to the target rate: target x (parent + child vsize) - parent fee', () => {
    // Parent 300 vbytes at 1 unit/vbyte, child 200 vbytes, target 20: 20 x 500 - 300.
    expect(childFee(20n, 300, 200, 300n)).toBe(9_700n);
    expect(rateText(300n + 9_700n, 500)).toBe('20.00');
  });
  it('pays at least 1 unit/vbyte of its own when the parent already pays enough', () => {
    expect(childFee(2n, 100, 150, 10_000n)).toBe(150n);
  });
  it('states a rate to two decimals, rounded down', () => {
    expect(rateText(1000n, 3)).toBe('333.33');
    expect(rateText(226n, 226)).toBe('1.00');
  });
});
