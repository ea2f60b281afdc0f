// A block's LevelDB rows made on a parse thread (one RowBuffer a block, then putRows) are the rows
// the writer makes itself (streamRows over the batch), in the same order; an output spent in two
// blocks of one batch is refused either way, in the same words.
import { describe, expect, it } from 'vitest';
import { encodedOf, type IndexedBlock, type IndexedTx } from './blocks.ts';
import { putRows } from './level-put-rows.ts';
import { fundingIsOf, fundingOfValue, fundingValue, readOrderedVarint, RowBuffer, streamRows, TAG, writeOrderedVarint, type Writes } from './level-rows.ts';
import { scriptHash } from './script-keys.ts';

const txid = (n: number) => n.toString(16).padStart(64, '0');
const A = Uint8Array.from([0x76, 0xa9, 0x14, ...new Array<number>(20).fill(0xaa), 0x88, 0xac]);
const B = Uint8Array.from([0x00, 0x14, ...new Array<number>(20).fill(0xbb)]);

const coinbase = (id: number, to: Uint8Array, amount: bigint): IndexedTx => ({ txid: txid(id), inputs: [], outputs: [{ vout: 0, script: to, amount }] });
const block = (height: number, txs: IndexedTx[]): IndexedBlock => ({ height, hash: `h${height}`, time: 1_600_000_000 + height, txs });
const spend = (id: number, of: number, to: Uint8Array, amount: bigint): IndexedTx => ({ txid: txid(id), inputs: [{ txid: txid(of), vout: 0 }], outputs: [{ vout: 0, script: to, amount }, { vout: 3, script: A, amount: 2n ** 50n }] });

function collect(): Writes & { rows: string[] } {
  const rows: string[] = [];
  return { rows, put: (k, v) => rows.push(`${k.toString('hex')}=${v.toString('hex')}`), del: () => undefined };
}

const threaded = (blocks: IndexedBlock[]) =>
  blocks.map((b) => {
    const rows = new RowBuffer();
    streamRows([encodedOf(b)], rows, true);
    return { ...encodedOf(b), levelRows: rows.finish() };
  });

describe('LevelDB rows made apart, block by block', () => {
  it('are the rows the writer makes, in its order', () => {
    const blocks = [block(1, [coinbase(1, A, 100n)]), block(2, [coinbase(2, B, 50n), spend(3, 1, B, 90n)]), block(3, [coinbase(4, A, 0n), spend(5, 3, A, 80n)])];
    const here = collect();
    streamRows(blocks.map(encodedOf), here, true);
    const apart = collect();
    putRows(threaded(blocks), apart);
    expect(apart.rows).toEqual(here.rows);
    expect(here.rows.length).toBe(3 + 5 + 7 + 2); // T a block (of fewer than 64 txs), K a tx, F an output, S an input
  });

  it('refuse an output spent in two blocks of one batch, naming it and both blocks', () => {
    const blocks = [block(1, [coinbase(1, A, 100n)]), block(2, [spend(9, 1, B, 90n)]), block(3, [spend(10, 1, B, 90n)])];
    expect(() => streamRows(blocks.map(encodedOf), collect(), true)).toThrow(`${txid(1)}:0 is spent twice, in blocks 2 and 3`);
    expect(() => putRows(threaded(blocks), collect())).toThrow(`${txid(1)}:0 is spent twice, in blocks 2 and 3`);
    // within one block, the parse thread's own streamRows refuses it
    expect(() => threaded([block(2, [spend(9, 1, B, 90n), spend(10, 1, B, 90n)])])).toThrow(/spent twice, in blocks 2 and 2/);
  });
});

describe('layout 4 encodings', () => {
  it('vouts in keys: each length round-trips, and the bytes sort as the numbers', () => {
    const values = [0, 1, 127, 128, 300, 16_383, 16_384, 2_097_151, 2_097_152, 268_435_455, 268_435_456, 4_294_967_295];
    const encoded = values.map((v) => {
      const b = Buffer.alloc(5);
      const end = writeOrderedVarint(b, 0, v);
      expect(readOrderedVarint(b, 0)).toEqual([v, end]);
      return b.subarray(0, end);
    });
    expect(encoded.map((b) => b.length)).toEqual([1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 5]);
    for (let i = 1; i < encoded.length; i++) expect(Buffer.compare(encoded[i - 1]!, encoded[i]!)).toBe(-1);
  });

  it("F values: the script's check, then the amount as LEB128 with the coinbase flag, 9 bytes outside 0..2^52", () => {
    const h = scriptHash(A);
    for (const amount of [0n, 1n, 100n, 2_100_000_000_000_000n, 2n ** 52n - 1n, 2n ** 52n, 2n ** 63n - 1n, -1n, -(2n ** 63n)]) {
      for (const coinbase of [false, true]) {
        const v = Buffer.from(fundingValue(Buffer.alloc(13), h, coinbase, amount));
        expect(fundingOfValue(v)).toEqual({ coinbase, amount });
        expect(v.subarray(0, 4).equals(h.subarray(8, 12))).toBe(true);
        expect(v.length <= 12).toBe(amount >= 0n && amount < 2n ** 52n);
        expect(fundingIsOf(v, h)).toBe(true);
        expect(fundingIsOf(v, scriptHash(B))).toBe(false);
      }
    }
    // 1 LTC: the 4-byte check and 4 bytes of amount
    expect(fundingValue(Buffer.alloc(13), h, false, 100_000_000n).length).toBe(8);
  });

  it('T rows: a group of 64 tx numbers a row, the last of a block shorter, each written after its last tx and deleted by the same key', () => {
    for (const count of [1, 63, 64, 65, 128, 130]) {
      const b = block(5, Array.from({ length: count }, (_, i) => coinbase(1000 + i, A, 1n)));
      const rows = collect();
      streamRows([encodedOf(b)], rows, true);
      const t = rows.rows.filter((r) => r.startsWith('54'));
      expect(t, `${count} txs`).toEqual(
        Array.from({ length: Math.ceil(count / 64) }, (_, g) => {
          const ids = Array.from({ length: Math.min(64, count - 64 * g) }, (_, i) => txid(1000 + 64 * g + i));
          return `54${(5 * 2 ** 14 + g).toString(16).padStart(12, '0')}=${ids.join('')}`;
        }),
      );
      // each group's row right after its last tx's rows (K, F): before the next tx's K row
      expect(rows.rows.findIndex((r) => r.startsWith('54'))).toBe(2 * Math.min(64, count));
      const deleted: string[] = [];
      streamRows([encodedOf(b)], { put: () => undefined, del: (k) => deleted.push(k.toString('hex')) }, false);
      expect(deleted.filter((k) => k.startsWith('54'))).toEqual(t.map((r) => r.split('=')[0]));
      expect(deleted.length).toBe(rows.rows.length);
    }
    // a txid that is not 64 hex digits has no 32-byte slot: refused in words
    expect(() => streamRows([encodedOf(block(1, [{ ...coinbase(1, A, 1n), txid: 'tx1' }]))], collect(), true)).toThrow("block 1: tx 0's txid is not 64 hex digits");
  });

  it('T rows are groups of 64 txids, F values checked: no script in any row', () => {
    const rows = collect();
    streamRows([encodedOf(block(1, [coinbase(1, A, 100n), spend(3, 1, B, 90n)]))], rows, true);
    const t = rows.rows.filter((r) => r.startsWith(TAG.txid.toString(16)));
    // one group of block 1: key tx number 2^20 / 64, value the two txids in position order
    expect(t).toEqual([`54${(2 ** 14).toString(16).padStart(12, '0')}=${txid(1)}${txid(3)}`]);
    const f = rows.rows.filter((r) => r.startsWith(TAG.funding.toString(16))).map((r) => r.split('='));
    expect(f.map(([k, v]) => [k!.slice(2, 18), v!.slice(0, 8)])).toEqual(
      [A, B, A].map((s) => {
        const h = scriptHash(s).toString('hex');
        return [h.slice(0, 16), h.slice(16, 24)];
      }),
    );
  });
});
