import { describe, expect, it } from 'vitest';
import { formatUnits, parseUnits } from './format.ts';

describe('amount formatting', () => {
  it('shows exact decimals from bigint units', () => {
    expect(formatUnits(300_000_000n, 8)).toBe('3.00');
    expect(formatUnits(174_980_000n, 8)).toBe('1.7498');
    expect(formatUnits(-1n, 8)).toBe('−0.00000001');
    expect(formatUnits(123_456_789_000_000_000_000_000n, 18)).toBe('123,456.789');
  });
  it('parses what a treasurer types, refusing more decimals than the coin has', () => {
    expect(parseUnits('1.25', 8)).toBe(125_000_000n);
    expect(parseUnits('0,0002', 8)).toBe(20_000n);
    expect(parseUnits('.5', 8)).toBe(50_000_000n);
    expect(parseUnits('1.000000001', 8)).toBeNull();
    expect(parseUnits('1e3', 8)).toBeNull();
    expect(parseUnits('', 8)).toBeNull();
  });
});
