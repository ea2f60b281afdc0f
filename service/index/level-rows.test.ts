// A block's LevelDB rows made on a parse thread (one RowBuffer a block, then putRows) are the rows
// the writer makes itself (streamRows over the batch), in the same order; an output spent in two
// blocks of one batch is refused either way, in the same words.
import { describe, expect, it } from 'vitest';
import { encodedOf, type IndexedBlock, type IndexedTx } from './blocks.ts';
import { putRows } from './level-put-rows.ts';
import { fundingOfValue, fundingValue, readOrderedVarint, RowBuffer, streamRows, txRowOf, writeOrderedVarint, writeTxOutput, type Writes } from './level-rows.ts';

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

describe('layout 3 encodings', () => {
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

  it('amounts: LEB128 with the coinbase flag, 9 bytes outside 0..2^52', () => {
    for (const amount of [0n, 1n, 100n, 2_100_000_000_000_000n, 2n ** 52n - 1n, 2n ** 52n, 2n ** 63n - 1n, -1n, -(2n ** 63n)]) {
      for (const coinbase of [false, true]) {
        const v = Buffer.from(fundingValue(Buffer.alloc(9), coinbase, amount));
        expect(fundingOfValue(v)).toEqual({ coinbase, amount });
        expect(v.length).toBe(amount < 0n || amount >= 2n ** 52n ? 9 : v.length);
        expect(v.length <= 8).toBe(amount >= 0n && amount < 2n ** 52n);
      }
    }
    expect(fundingValue(Buffer.alloc(9), false, 100_000_000n).length).toBe(4);
  });

  it('T rows: each standard script as its hash, others whole, vouts by their gaps', () => {
    const scripts = [
      Buffer.from(`76a914${'11'.repeat(20)}88ac`, 'hex'),
      Buffer.from(`a914${'22'.repeat(20)}87`, 'hex'),
      Buffer.from(`0014${'33'.repeat(20)}`, 'hex'),
      Buffer.from(`0020${'44'.repeat(32)}`, 'hex'),
      Buffer.from(`5120${'55'.repeat(32)}`, 'hex'),
      Buffer.from(`a914${'66'.repeat(20)}88`, 'hex'), // not P2SH's last byte: kept whole
      Buffer.alloc(0),
    ];
    const vouts = [0, 1, 5, 36, 37, 1_000_000, 1_000_001];
    const txid = Buffer.alloc(32, 7);
    const b = Buffer.alloc(1024);
    b[0] = 32;
    txid.copy(b, 1);
    let at = 33;
    let last = -1;
    scripts.forEach((script, i) => {
      at = writeTxOutput(b, at, vouts[i]! - last - 1, script);
      last = vouts[i]!;
    });
    const row = txRowOf(b.subarray(0, at));
    expect(row.txid.equals(txid)).toBe(true);
    expect(row.outputs.map((o) => ({ vout: o.vout, script: o.script.toString('hex') }))).toEqual(scripts.map((s, i) => ({ vout: vouts[i], script: s.toString('hex') })));
    // P2PKH: head byte and the 20-byte hash, against 1 + 1 + 25 in layout 2
    expect(writeTxOutput(Buffer.alloc(64), 0, 0, scripts[0]!)).toBe(21);
  });
});
