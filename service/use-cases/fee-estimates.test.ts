// The BTC/kvB -> units/vbyte conversion of GET /fee_estimates, exact with bigint.
import { describe, expect, it } from 'vitest';
import { coinsPerKvbToUnits } from './fee-estimates.ts';

describe('coinsPerKvbToUnits', () => {
  it('converts coins per 1000 vbytes to units, rounding up to a whole unit', () => {
    expect(coinsPerKvbToUnits('0.00001000', 8)).toEqual({ perKvb: 1000n, perVbyte: 1n });
    expect(coinsPerKvbToUnits('0.00010000', 8)).toEqual({ perKvb: 10_000n, perVbyte: 10n });
    expect(coinsPerKvbToUnits('0.00001234', 8)).toEqual({ perKvb: 1234n, perVbyte: 2n }); // 1.234 -> 2, never underpaying
    expect(coinsPerKvbToUnits('0.00020000', 8)).toEqual({ perKvb: 20_000n, perVbyte: 20n });
    expect(coinsPerKvbToUnits('1', 8)).toEqual({ perKvb: 100_000_000n, perVbyte: 100_000n });
  });

  it('is exact where a float is not: 0.1 + 0.2 style values and exponents', () => {
    // 0.00029 * 1e8 is 28999.999999999996 as a double
    expect(coinsPerKvbToUnits('0.00029', 8)).toEqual({ perKvb: 29_000n, perVbyte: 29n });
    expect(coinsPerKvbToUnits('1e-5', 8)).toEqual({ perKvb: 1000n, perVbyte: 1n });
    expect(coinsPerKvbToUnits('2.5E-4', 8)).toEqual({ perKvb: 25_000n, perVbyte: 25n });
    // more decimals than the coin has: rounded up, not refused
    expect(coinsPerKvbToUnits('0.000010001', 8)).toEqual({ perKvb: 1001n, perVbyte: 2n });
  });

  it('refuses what is no non-negative decimal', () => {
    for (const text of ['', '-0.0001', 'abc', '0x10', '1e999']) expect(coinsPerKvbToUnits(text, 8)).toBeNull();
  });
});
