import { describe, expect, it } from 'vitest';
import { BatchPipeline } from './batch-pipeline.ts';

interface Block {
  height: number;
  txs: number[];
}
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
    const p = new BatchPipeline<Block>(w.write, 100);
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

  it('holds the reader back once maxTxs transactions wait for the writer', async () => {
    const w = gatedWriter();
    const p = new BatchPipeline<Block>(w.write, 10);
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
    const p = new BatchPipeline<Block>(w.write, 100);
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
