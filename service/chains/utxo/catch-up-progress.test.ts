import { describe, expect, it } from 'vitest';
import { catchUpProgress, spokenDuration } from './catch-up-progress.ts';

describe('catchUpProgress', () => {
  it("counts the chain's transactions when the node gives them: early empty blocks do not promise an early end", () => {
    // 500,000 of 1,000,000 blocks, but only 10% of the chain's transactions, in 100 s
    const p = catchUpProgress({ from: 0, to: 999_999, indexedHeight: 499_999, elapsedMs: 100_000, txs: 1_000_000, chainTxs: { before: 0, total: 10_000_000 } });
    expect(p).toEqual({ percent: 10, etaSeconds: 900, basis: 'transactions' });
  });

  it('counts from where the index resumed', () => {
    const p = catchUpProgress({ from: 100, to: 199, indexedHeight: 149, elapsedMs: 10_000, txs: 500, chainTxs: { before: 1_000, total: 2_000 } });
    expect(p).toEqual({ percent: 75, etaSeconds: 10, basis: 'transactions' });
  });

  it("counts blocks without the node's counts", () => {
    expect(catchUpProgress({ from: 0, to: 99, indexedHeight: 24, elapsedMs: 5_000, txs: 0, chainTxs: null })).toEqual({ percent: 25, etaSeconds: 15, basis: 'blocks' });
  });

  it('has no ETA before anything is written, and ends at 100%', () => {
    expect(catchUpProgress({ from: 10, to: 99, indexedHeight: 9, elapsedMs: 0, txs: 0, chainTxs: null }).etaSeconds).toBeNull();
    expect(catchUpProgress({ from: 10, to: 99, indexedHeight: 99, elapsedMs: 1_000, txs: 90, chainTxs: { before: 10, total: 100 } })).toEqual({ percent: 100, etaSeconds: 0, basis: 'transactions' });
  });

  it('rounds the percentage down: 99.99% is not 100%', () => {
    expect(catchUpProgress({ from: 0, to: 9_999, indexedHeight: 9_998, elapsedMs: 1_000, txs: 9_999, chainTxs: { before: 0, total: 10_000 } }).percent).toBe(99.9);
  });
});

describe('spokenDuration', () => {
  it('says hours and minutes, minutes and seconds, or seconds', () => {
    expect(spokenDuration(7_500)).toBe('2 h 05 min');
    expect(spokenDuration(250)).toBe('4 min 10 s');
    expect(spokenDuration(12)).toBe('12 s');
  });
});
