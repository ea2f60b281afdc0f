// A block's LevelDB rows made on a parse thread (one RowBuffer a block, then putRows) are the rows
// the writer makes itself (streamRows over the batch), in the same order; an output spent in two
// blocks of one batch is refused either way, in the same words.
import { describe, expect, it } from 'vitest';
import { encodedOf, type IndexedBlock, type IndexedTx } from './blocks.ts';
import { putRows, RowBuffer, streamRows, type Writes } from './level-rows.ts';

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
    expect(here.rows.length).toBe(5 * 2 + 7 + 2); // T and K a tx, F an output, S an input
  });

  it('refuse an output spent in two blocks of one batch, naming it and both blocks', () => {
    const blocks = [block(1, [coinbase(1, A, 100n)]), block(2, [spend(9, 1, B, 90n)]), block(3, [spend(10, 1, B, 90n)])];
    expect(() => streamRows(blocks.map(encodedOf), collect(), true)).toThrow(`${txid(1)}:0 is spent twice, in blocks 2 and 3`);
    expect(() => putRows(threaded(blocks), collect())).toThrow(`${txid(1)}:0 is spent twice, in blocks 2 and 3`);
    // within one block, the parse thread's own streamRows refuses it
    expect(() => threaded([block(2, [spend(9, 1, B, 90n), spend(10, 1, B, 90n)])])).toThrow(/spent twice, in blocks 2 and 2/);
  });
});
