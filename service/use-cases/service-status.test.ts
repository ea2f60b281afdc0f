// The readiness decision /readyz answers with: pure over the coins' statuses.
import { describe, expect, it } from 'vitest';
import { readinessProblems, type CoinStatus } from './service-status.ts';

describe('readiness decision', () => {
  const coin = (over: Partial<CoinStatus>): CoinStatus => ({ coin: 'litecoin', network: 'mainnet', backend: 'node-rpc', tip_height: 100, indexed_height: 100, lag: 0, mempool_txs: 0, error: null, ...over });

  it('is ready when every coin is within the allowed lag', () => {
    expect(readinessProblems([coin({ lag: 3, indexed_height: 97 }), coin({ coin: 'dash' })], 3)).toEqual([]);
  });

  it('names the coin that lags, and by how much', () => {
    expect(readinessProblems([coin({ lag: 4, indexed_height: 96 }), coin({ coin: 'dash' })], 3)).toEqual([
      "litecoin: the index lags the node's tip by 4 blocks (96 of 100; at most 3 allowed)",
    ]);
  });

  it('is not ready before the first look at the node or the first indexed block', () => {
    expect(readinessProblems([coin({ tip_height: null, lag: null })], 3)).toEqual(["litecoin: the node's tip is not known yet"]);
    expect(readinessProblems([coin({ indexed_height: null, lag: null })], 3)).toEqual(["litecoin: nothing indexed yet (the node's tip is 100)"]);
  });
});
