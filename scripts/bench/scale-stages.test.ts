import { describe, expect, it } from 'vitest';
import { checkpoints, heightReaching, stopHeights } from './scale-stages.ts';

describe('scale bench stages', () => {
  it('finds the first height whose running total reaches a goal', () => {
    expect(heightReaching([1, 10, 10, 10], 11)).toEqual({ txs: 11, toHeight: 1 });
    expect(heightReaching([1, 10, 10, 10], 12)).toEqual({ txs: 21, toHeight: 2 });
    expect(heightReaching([1, 10], 99)).toEqual({ txs: 11, toHeight: 1 });
  });

  it('puts the checkpoints at 100k, 300k and 1M with equal windows of 50k before each', () => {
    const perHeight = [1, ...Array.from({ length: 500 }, () => 2000)]; // 1,000,001 txs
    const points = checkpoints(perHeight);
    expect(points.map((p) => p.txs)).toEqual([100_001, 300_001, 1_000_001]);
    expect(points.map((p) => p.windowTxs)).toEqual([50_000, 50_000, 50_000]);
    expect(stopHeights(points)).toEqual([25, 50, 125, 150, 475, 500]);
  });

  it("keeps the 1M checkpoint on a longer chain and adds the chain's end", () => {
    const perHeight = [1, ...Array.from({ length: 1000 }, () => 2000)]; // 2,000,001 txs
    const points = checkpoints(perHeight);
    expect(points.map((p) => p.txs)).toEqual([100_001, 300_001, 1_000_001, 2_000_001]);
    expect(points.map((p) => p.windowTxs)).toEqual([50_000, 50_000, 50_000, 50_000]);
    expect(stopHeights(points)).toEqual([25, 50, 125, 150, 475, 500, 975, 1000]);
  });

  it('scales the checkpoints down for a smaller chain', () => {
    const perHeight = [1, ...Array.from({ length: 100 }, () => 100)]; // 10,001 txs
    const points = checkpoints(perHeight);
    expect(points.map((p) => p.txs)).toEqual([1_001, 3_001, 10_001]);
    for (const p of points) expect(p.windowTxs).toBe(500);
  });
});
