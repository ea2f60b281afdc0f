import { describe, expect, it } from 'vitest';
import { parseApiJson, stringifyApiJson } from './json.ts';

describe('stringifyApiJson', () => {
  it('writes every bigint with its exact digits, on both sides of 2^53', () => {
    const limit = 2n ** 53n;
    const values = [0n, 1n, -1n, 2_600_906n, 2_100_000_000_000_000n, limit - 1n, limit, limit + 1n, -(limit - 1n), -limit, -(limit + 1n), 10n ** 21n, 10n ** 21n - 1n, 2n ** 256n - 1n];
    for (let shift = 0n; shift < 64n; shift++) values.push((0x9e3779b97f4a7c15n >> shift) * (shift % 2n === 0n ? 1n : -1n));
    for (const v of values) {
      const text = stringifyApiJson({ balance: v, list: [v] });
      expect(text).toBe(`{"balance":${v.toString()},"list":[${v.toString()}]}`);
      expect((parseApiJson(text) as { balance: unknown }).balance).toBe(v); // amounts come back as bigints
    }
  });

  it('leaves numbers, strings and nulls as JSON.stringify writes them', () => {
    const value = { human_balance: 0.02600906, usd_balance: 1e21, txid: '00ff', time: null };
    expect(stringifyApiJson(value)).toBe(JSON.stringify(value));
  });
});
