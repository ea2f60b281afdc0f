import { describe, expect, it } from 'vitest';
import { formatUnits, readAmount, readAsWords } from './format.ts';

describe('amount formatting', () => {
  it('says how an amount was read when it is not written as read', () => {
    const ltc = { ticker: 'LTC', decimals: 8, smallest: 'litoshi' };
    const said = (text: string) => readAsWords(text, readAmount(text, ltc).units, ltc);
    expect(['1.250', '.5', '1.25', ' 2 ', '1000.5', ''].map(said)).toEqual(['read as 1.25 LTC', 'read as 0.5 LTC', null, null, null, null]);
  });
  it('shows exact decimals from bigint units', () => {
    expect(formatUnits(300_000_000n, 8)).toBe('3.00');
    expect(formatUnits(174_980_000n, 8)).toBe('1.7498');
    expect(formatUnits(-1n, 8)).toBe('−0.00000001');
    expect(formatUnits(123_456_789_000_000_000_000_000n, 18)).toBe('123,456.789');
  });
  it('reads what a treasurer types with the one amount reader: units, words, or nothing yet', () => {
    const ltc = { ticker: 'LTC', decimals: 8, smallest: 'litoshi' };
    expect(readAmount('1.25', ltc)).toEqual({ units: 125_000_000n, error: null });
    expect(readAmount('  ', ltc)).toEqual({ units: null, error: null });
    expect(readAmount('0,0002', ltc)).toEqual({ units: null, error: '"0,0002" has a comma: use no thousands separators, and a point for decimals; type 0.0002' });
    expect(readAmount('1.0000000001', { ticker: 'ETH', decimals: 18, smallest: 'wei', places: 9 }).error).toBe('"1.0000000001" has 10 decimals: an amount of ETH has at most 9');
  });
});
