// The per-script summaries of the LevelDB index: a refresh adds only the rows above its block and
// settles only the outputs it held unspent; the columns hold what the objects held; the cache keeps
// to its byte budget, least used first.
import { describe, expect, it } from 'vitest';
import { type Funding, outputAt, type Settled, Summaries, type Summary, SummaryBuilder, sizeOf } from './level-summaries.ts';

const out = (txnum: number, vout: number, amount: bigint, coinbase = false): Funding => ({ txnum, vout, amount, coinbase, txid: Buffer.alloc(32, txnum) });
const withHash = (f: Funding) => ({ ...f, hash: Buffer.alloc(12, f.txnum % 256) });

/** `base` moved to block `height`: its unspent outputs settled by the first settled entries, then `funded` by the rest. */
function advance(base: Summary | undefined, height: number, hash: string, funded: Funding[], settled: Settled[]): Summary {
  const b = new SummaryBuilder(base);
  const held = base?.unspent.length ?? 0;
  for (let i = 0; i < held; i++) b.settleBase(i, settled[i]!);
  funded.forEach((f, i) => b.fund(withHash(f), settled[held + i]!));
  return b.finish(height, hash);
}

const history = (s: Summary) => Array.from(s.history.txnums.subarray(0, s.history.length), (txnum, i) => ({ txnum, delta: s.history.deltas[i] }));
const unspent = (s: Summary) => Array.from({ length: s.unspent.length }, (_, i) => outputAt(s.unspent, i)).map(({ txnum, vout, amount, coinbase }) => ({ txnum, vout, amount, coinbase }));
const plain = ({ txnum, vout, amount, coinbase }: Funding) => ({ txnum, vout, amount, coinbase });

describe('script summaries', () => {
  it('builds history, balance and unspent outputs, then refreshes them from the newer rows only', () => {
    const a = out(10, 0, 50n);
    const b = out(20, 1, 7n);
    // built at block 1: a spent by tx 30, b unspent
    const first = advance(undefined, 1, 'h1', [a, b], [{ spent: 30, dropped: false }, { spent: null, dropped: false }]);
    expect(history(first)).toEqual([
      { txnum: 30, delta: -50n },
      { txnum: 20, delta: 7n },
      { txnum: 10, delta: 50n },
    ]);
    expect(first.confirmed).toBe(7n);
    expect(unspent(first)).toEqual([plain(b)]);
    expect(Buffer.from(outputAt(first.unspent, 0).hash).equals(Buffer.alloc(12, 20))).toBe(true); // its txid hash, kept for the refresh
    // refreshed at block 2: b spent by tx 41, which also pays the script 3 (one row, net -4)
    const c = out(41, 0, 3n);
    const next = advance(first, 2, 'h2', [c], [{ spent: 41, dropped: false }, { spent: null, dropped: false }]);
    expect(history(next).slice(0, 1)).toEqual([{ txnum: 41, delta: -4n }]);
    expect(history(next)).toHaveLength(4);
    expect(next.confirmed).toBe(3n);
    expect(unspent(next)).toEqual([plain(c)]);
    expect(history(first)).toHaveLength(3); // the base is not changed
  });

  it('nets a tx that pays the script and spends two of its outputs into one entry, whatever the order the spends come in', () => {
    const rows = [out(5, 0, 10n), out(6, 0, 20n), out(9, 2, 1n), out(9, 4, 2n)];
    const s = advance(undefined, 3, 'h3', rows, [{ spent: 9, dropped: false }, { spent: 7, dropped: false }, { spent: null, dropped: false }, { spent: null, dropped: false }]);
    expect(history(s)).toEqual([
      { txnum: 9, delta: -7n },
      { txnum: 7, delta: -20n },
      { txnum: 6, delta: 20n },
      { txnum: 5, delta: 10n },
    ]);
    expect(s.confirmed).toBe(3n);
    expect(unspent(s).map((u) => u.vout)).toEqual([2, 4]);
  });

  it('keeps an output a repeated txid overwrote (BIP30) in the balance, not in the unspent outputs', () => {
    const s = advance(undefined, 2, 'h2', [out(1, 0, 50n, true), out(2 ** 20, 0, 7n, true)], [{ spent: null, dropped: true }, { spent: null, dropped: false }]);
    expect(s.confirmed).toBe(57n);
    expect(unspent(s).map((u) => u.amount)).toEqual([7n]);
    expect(unspent(s)[0]!.coinbase).toBe(true);
  });

  it('holds 250,000 outputs in a few MB of columns', () => {
    const n = 250_000;
    const b = new SummaryBuilder(undefined);
    for (let i = 0; i < n; i++) b.fund(withHash(out(i, 0, 1n)), i % 2 === 0 ? { spent: n + i, dropped: false } : { spent: null, dropped: false });
    const s = b.finish(1, 'h');
    expect(s.history.length).toBe(n + n / 2);
    expect(s.unspent.length).toBe(n / 2);
    expect(s.confirmed).toBe(BigInt(n / 2));
    expect(sizeOf(s)).toBeLessThan(12 << 20); // 16 bytes an entry, 33 an unspent output
  });

  it('keeps to its byte budget, dropping the least recently used first', () => {
    const one = (n: number) => advance(undefined, 1, 'h', Array.from({ length: n }, (_, i) => out(i, 0, 1n)), Array.from({ length: n }, () => ({ spent: null, dropped: false })));
    const cache = new Summaries(10_000);
    cache.set('a', one(80));
    cache.set('b', one(80));
    expect(cache.get('a')).toBeDefined(); // a is now the most recently used
    cache.set('c', one(80));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.stats().bytes).toBeLessThanOrEqual(10_000);
    cache.set('huge', one(1000)); // larger than the whole budget: not kept
    expect(cache.get('huge')).toBeUndefined();
    cache.clear();
    expect(cache.stats()).toEqual({ scripts: 0, bytes: 0 });
  });
});
