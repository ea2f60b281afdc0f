// The pure parts of the unspent-output pages: the cursor's text, and the merge of per-script reads
// that holds at most about a page (issue 33: one script of 400,000 outputs among others).
import { describe, expect, it } from 'vitest';
import { cursorText, mergeSorted, parseCursor, type SortedRead } from './unspent-page.ts';
import { BadCursor, pageOfList } from '../chains/backend.ts';

describe('the cursor', () => {
  it('reads back what it wrote, for a confirmed and a mempool place', () => {
    for (const c of [{ confirmed: true as const, txnum: 204 * 2 ** 20 + 17, vout: 2999 }, { confirmed: false as const, firstSeen: 1_795_914_499, txid: 'ab'.repeat(32), vout: 0 }]) {
      expect(parseCursor(cursorText(c))).toEqual(c);
    }
  });

  it('is null for text no page gave', () => {
    for (const text of ['', 'c', 'c1', 'c1.', 'c1.x', 'c-1.0', `c${'9'.repeat(17)}.0`, 'c1.4294967296', 'm1.abc.0', `m1.${'AB'.repeat(32)}.0`, 'o5', ' c1.0', 'c1.0 ']) expect(parseCursor(text), text).toBeNull();
  });
});

describe('mergeSorted', () => {
  const source = (values: number[], reads: { n: number }[]): SortedRead<number> => async (after, n) => {
    reads.push({ n });
    return values.filter((v) => after === null || v > after).slice(0, n);
  };

  it('answers the first rows of the union in order, reading one script of many rows a growing chunk at a time', async () => {
    const big = Array.from({ length: 400_000 }, (_, i) => 2 * i + 1); // odd numbers
    const smalls = Array.from({ length: 199 }, (_, k) => [4 * k, 4 * k + 2000]);
    const reads: { n: number }[] = [];
    const page = await mergeSorted([source(big, reads), ...smalls.map((s) => source(s, reads))], (a, b) => a - b, 1001);
    const expected = [...big.slice(0, 3000), ...smalls.flat()].sort((a, b) => a - b).slice(0, 1001);
    expect(page).toEqual(expected);
    // never a read beyond the page, and the rows read in all stay within a few pages
    expect(Math.max(...reads.map((r) => r.n))).toBeLessThanOrEqual(1001);
    expect(reads.reduce((s, r) => s + r.n, 0)).toBeLessThan(4 * 1001 + 199 * 16);
  });

  it('reads a single source once, with the limit', async () => {
    const reads: { n: number }[] = [];
    expect(await mergeSorted([source([1, 2, 3], reads)], (a, b) => a - b, 2)).toEqual([1, 2]);
    expect(reads).toEqual([{ n: 2 }]);
  });

  it('ends when every source is read out', async () => {
    const reads: { n: number }[] = [];
    expect(await mergeSorted([source([1, 5], reads), source([2], reads), source([], reads)], (a, b) => a - b, 10)).toEqual([1, 2, 5]);
  });
});

describe('pageOfList', () => {
  it('cuts a whole list into pages whose cursors follow on, and refuses a cursor it did not give', () => {
    const rows = Array.from({ length: 5 }, (_, i) => i);
    expect(pageOfList(rows, { limit: 2 })).toEqual({ rows: [0, 1], next: 'o2' });
    expect(pageOfList(rows, { limit: 2, after: 'o4' })).toEqual({ rows: [4], next: null });
    expect(() => pageOfList(rows, { limit: 2, after: 'c1.0' })).toThrow(BadCursor);
  });
});
