// The per-script summaries of the LevelDB index: a refresh adds only the rows above its block and
// settles only the outputs it held unspent; the cache keeps to its byte budget, least used first.
import { describe, expect, it } from 'vitest';
import { type Funding, Summaries } from './level-summaries.ts';

const out = (txnum: number, vout: number, amount: bigint, coinbase = false): Funding => ({ txnum, vout, amount, coinbase, txid: Buffer.alloc(32, txnum) });

describe('script summaries', () => {
  it('builds history, balance and unspent outputs, then refreshes them from the newer rows only', () => {
    const a = out(10, 0, 50n);
    const b = out(20, 1, 7n);
    // built at block 1: a spent by tx 30, b unspent
    const first = Summaries.advance(undefined, 1, 'h1', [a, b], [{ spent: 30, dropped: false }, { spent: null, dropped: false }]);
    expect(first.history).toEqual([
      { txnum: 30, delta: -50n },
      { txnum: 20, delta: 7n },
      { txnum: 10, delta: 50n },
    ]);
    expect(first.confirmed).toBe(7n);
    expect(first.unspent).toEqual([b]);
    // refreshed at block 2: b spent by tx 41, which also pays the script 3 (one row, net -4)
    const c = out(41, 0, 3n);
    const next = Summaries.advance(first, 2, 'h2', [c], [{ spent: 41, dropped: false }, { spent: null, dropped: false }]);
    expect(next.history.slice(0, 1)).toEqual([{ txnum: 41, delta: -4n }]);
    expect(next.history).toHaveLength(4);
    expect(next.confirmed).toBe(3n);
    expect(next.unspent).toEqual([c]);
    expect(first.history).toHaveLength(3); // the base is not changed
  });

  it('keeps an output a repeated txid overwrote (BIP30) in the balance, not in the unspent outputs', () => {
    const s = Summaries.advance(undefined, 2, 'h2', [out(1, 0, 50n, true), out(2 ** 20, 0, 7n, true)], [{ spent: null, dropped: true }, { spent: null, dropped: false }]);
    expect(s.confirmed).toBe(57n);
    expect(s.unspent.map((u) => u.amount)).toEqual([7n]);
  });

  it('keeps to its byte budget, dropping the least recently used first', () => {
    const one = (n: number) => Summaries.advance(undefined, 1, 'h', Array.from({ length: n }, (_, i) => out(i, 0, 1n)), Array.from({ length: n }, () => ({ spent: null, dropped: false })));
    const cache = new Summaries(10_000);
    cache.set('a', one(20));
    cache.set('b', one(20));
    expect(cache.get('a')).toBeDefined(); // a is now the most recently used
    cache.set('c', one(20));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.stats().bytes).toBeLessThanOrEqual(10_000);
    cache.set('huge', one(1000)); // larger than the whole budget: not kept
    expect(cache.get('huge')).toBeUndefined();
    cache.clear();
    expect(cache.stats()).toEqual({ scripts: 0, bytes: 0 });
  });
});
