import { describe, expect, it } from 'vitest';
import { chainParams } from '../../../shared/coins/coin-table.ts';
import { BatchPipeline } from './batch-pipeline.ts';
import { rawBlockCodec } from './block-reading.ts';
import { BATCH_BYTES } from './indexer.ts';
import { readRawBlock } from './raw-block.ts';
import type { ReadBlock } from './verbose-block.ts';

interface Block {
  height: number;
  txs: number[];
}
const txCount = (b: Block): number => b.txs.length;
const block = (height: number, txs = 1): Block => ({ height, txs: Array.from({ length: txs }, (_, i) => i) });

/** A writer whose writes finish when the test says so. */
function gatedWriter() {
  const written: number[][] = [];
  const gates: Array<{ open: () => void; fail: (e: Error) => void }> = [];
  const write = (blocks: Block[]) =>
    new Promise<void>((resolve, reject) => {
      gates.push({
        open: () => {
          written.push(blocks.map((b) => b.height));
          resolve();
        },
        fail: reject,
      });
    });
  const settle = () => new Promise((r) => setImmediate(r));
  return { written, gates, write, settle };
}

describe('BatchPipeline', () => {
  it('writes the first block at once and gathers the blocks read meanwhile into the next batch, in order', async () => {
    const w = gatedWriter();
    const p = new BatchPipeline<Block>(w.write, 100, txCount);
    await p.add(block(1));
    expect(w.gates).toHaveLength(1); // the writer did not wait for a fuller batch
    await p.add(block(2));
    await p.add(block(3));
    expect(w.gates).toHaveLength(1); // one write at a time
    w.gates[0]!.open();
    await w.settle();
    expect(w.gates).toHaveLength(2);
    w.gates[1]!.open();
    await p.flush();
    expect(w.written).toEqual([[1], [2, 3]]);
  });

  it('holds the reader back once the blocks waiting for the writer weigh the bound', async () => {
    const w = gatedWriter();
    const p = new BatchPipeline<Block>(w.write, 10, txCount);
    await p.add(block(1, 4)); // being written
    await p.add(block(2, 6));
    let released = false;
    const third = p.add(block(3, 5)).then(() => (released = true)); // 11 waiting: over the limit
    await w.settle();
    expect(released).toBe(false);
    w.gates[0]!.open();
    await third;
    expect(released).toBe(true);
    w.gates[1]!.open();
    await p.flush();
    expect(w.written).toEqual([[1], [2, 3]]);
  });

  it('after a failed write writes nothing more, and the reader gets the error', async () => {
    const w = gatedWriter();
    const p = new BatchPipeline<Block>(w.write, 100, txCount);
    await p.add(block(1));
    await p.add(block(2));
    w.gates[0]!.fail(new Error('disk full'));
    await w.settle();
    await expect(p.add(block(3))).rejects.toThrow('disk full');
    await expect(p.flush()).rejects.toThrow('disk full');
    expect(w.gates).toHaveLength(1); // block 2 was never handed to the writer
    expect(w.written).toEqual([]);
  });
});

describe('batches bounded in bytes, as the indexer weighs blocks', () => {
  /** A synthetic block of `count` one-in one-out transactions after a coinbase, as `getblock <hash> 0` hex. */
  function syntheticBlockHex(count: number): string {
    const header = Buffer.alloc(80);
    header.writeUInt32LE(0x20000000, 0);
    header.fill(7, 4, 36); // previous block
    header.writeUInt32LE(1_700_000_000, 68);
    const coinbase = Buffer.from(`01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff03510201ffffffff0100f2052a01000000160014${'14'.repeat(20)}00000000`, 'hex');
    const tx = Buffer.from(`0100000001${'00'.repeat(32)}00000000${'00'}ffffffff01e80300000000000016${'0014'}${'ab'.repeat(20)}00000000`, 'hex');
    const txs = Buffer.alloc(tx.length * count);
    for (let i = 0; i < count; i++) {
      tx.copy(txs, i * tx.length);
      txs.writeUInt32LE(i, i * tx.length + 5); // each spends another outpoint: distinct txids
    }
    const n = count + 1;
    const varint = n < 0xfd ? Buffer.of(n) : n <= 0xffff ? Buffer.from([0xfd, n & 0xff, n >> 8]) : Buffer.from([0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24]);
    return Buffer.concat([header, varint, coinbase, txs]).toString('hex');
  }

  it('a 100k-transaction block is read whole and is one batch; small blocks group until the bound', async () => {
    const params = chainParams('litecoin', 'regtest');
    const big = readRawBlock(syntheticBlockHex(100_000), 'big', 10, rawBlockCodec(params)!);
    expect(big.txs).toHaveLength(100_001);
    expect(new Set(big.txs.map((t) => t.txid)).size).toBe(100_001);
    expect(big.txs[5]!.inputs).toEqual([{ txid: `${'00'.repeat(28)}00000004`, vout: 0 }]); // the outpoint written little-endian, shown reversed
    expect(big.size).toBe(syntheticBlockHex(100_000).length / 2);

    const written: string[][] = [];
    const gates: Array<() => void> = [];
    const p = new BatchPipeline<ReadBlock>(
      (blocks) => new Promise<void>((resolve) => gates.push(() => (written.push(blocks.map((b) => b.hash)), resolve()))),
      BATCH_BYTES,
      (b) => b.size ?? 80,
    );
    const small = (i: number): ReadBlock => ({ hash: `s${i}`, height: i, previousHash: null, time: 0, txs: [], size: 1_000 });
    expect(500 * 1_000).toBeLessThan(BATCH_BYTES);
    expect(big.size!).toBeGreaterThan(BATCH_BYTES);
    const isHeld = async (adding: Promise<void>): Promise<boolean> => {
      let held = true;
      void adding.then(() => (held = false));
      await new Promise((r) => setImmediate(r));
      return held;
    };
    await p.add(small(0)); // written at once
    for (let i = 1; i <= 500; i++) expect(await isHeld(p.add(small(i)))).toBe(false); // 500 kB gather: the reader goes on
    const addingBig = p.add(big);
    expect(await isHeld(addingBig)).toBe(true); // past the bound: the reader waits for the writer
    gates[0]!();
    await addingBig;
    const addingBig2 = p.add({ ...big, hash: 'big2' });
    expect(await isHeld(addingBig2)).toBe(true);
    gates[1]!();
    await addingBig2;
    gates[2]!();
    await p.flush();
    expect(written).toEqual([['s0'], [...Array.from({ length: 500 }, (_, i) => `s${i + 1}`), 'big'], ['big2']]); // the big block alone is one batch
  });
});
