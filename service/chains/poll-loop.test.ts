import { describe, expect, it } from 'vitest';
import { isNodeRestarting } from './utxo/indexer.ts';
import { RpcError, UpstreamError } from './utxo/rpc-client.ts';
import { BRISK_RETRY_MS, nextDelayMs } from './poll-loop.ts';

describe('the wait before the next pass', () => {
  const o = { pollIntervalMs: 5_000 };
  it('is the poll interval after a success, and backs off to at most 60 s while failing', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((f) => nextDelayMs(o, f, false))).toEqual([5_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000]);
  });
  it('is about a second, however many failures, while the failure passes by itself (a node restarting)', () => {
    expect([1, 5, 50].map((f) => nextDelayMs(o, f, true))).toEqual([BRISK_RETRY_MS, BRISK_RETRY_MS, BRISK_RETRY_MS]);
    expect(nextDelayMs({ pollIntervalMs: 100 }, 3, true)).toBe(100); // never slower than the regular poll
  });
});

describe('a node restarting', () => {
  it('is a node shutting down, not listening yet, or warming up (-28)', () => {
    expect(isNodeRestarting(new UpstreamError('stopping', 'the node is shutting down (HTTP 503)'))).toBe(true);
    expect(isNodeRestarting(new RpcError(-28, 'Loading block index...'))).toBe(true);
    expect(isNodeRestarting(new UpstreamError('unreachable', 'connect ECONNREFUSED 127.0.0.1:1'))).toBe(true);
    expect(isNodeRestarting(new RpcError(-8, 'Block height out of range'))).toBe(false);
    expect(isNodeRestarting(new UpstreamError('auth', 'wrong credentials'))).toBe(false);
    expect(isNodeRestarting(new UpstreamError('timeout', 'no answer in 30 s'))).toBe(false);
    expect(isNodeRestarting(new UpstreamError('bad-response', 'HTTP 503, the node is overloaded'))).toBe(false);
  });
});
