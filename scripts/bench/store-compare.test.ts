// The store comparison's replay (store-compare-lib.ts) on a few hand-made blocks, no node: a
// recording reads back as written, the batches are the indexer's, every store (classic-level and
// RocksDB, each written both ways) ends up holding exactly what LevelIndex.apply writes, their
// answers are compared, and the printed figures are worked out right.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClassicLevel } from 'classic-level';
import { encodedOf, type IndexedBlock, type IndexedTx } from '../../service/index/blocks.ts';
import { RowBuffer, streamRows, txidRowKey } from '../../service/index/level-rows.ts';
import { scriptKeyOf } from '../../service/index/script-keys.ts';
import { txNumOf } from '../../service/index/txnum.ts';
import { LevelIndex } from '../../service/index/level-index.ts';
import { answersOf, batchesOf, firstDifference, linesOf, openCompareStore, readRecording, RecordingWriter, replayBatch, STORE_KINDS, tableOf, versionRow, type RecordedBlock, type StoreRun } from './store-compare-lib.ts';

const txid = (n: number) => n.toString(16).padStart(64, '0');
const A = Uint8Array.from([0x76, 0xa9, 0x14, ...new Array<number>(20).fill(0xaa), 0x88, 0xac]);
const B = Uint8Array.from([0x00, 0x14, ...new Array<number>(20).fill(0xbb)]);
const coinbase = (id: number, to: Uint8Array, amount: bigint): IndexedTx => ({ txid: txid(id), inputs: [], outputs: [{ vout: 0, script: to, amount }] });
const spend = (id: number, of: number, to: Uint8Array, amount: bigint): IndexedTx => ({ txid: txid(id), inputs: [{ txid: txid(of), vout: 0 }], outputs: [{ vout: 0, script: to, amount }, { vout: 3, script: A, amount: 2n ** 50n }] });
const block = (height: number, txs: IndexedTx[]): IndexedBlock => ({ height, hash: `h${height}`, time: 1_600_000_000 + height, txs });

const blocks = [block(0, [coinbase(1, A, 100n)]), block(1, [coinbase(2, B, 50n), spend(3, 1, B, 90n)]), block(2, [coinbase(4, A, 0n), spend(5, 3, A, 80n)]), block(3, [coinbase(6, B, 7n)])];
/** Each block's rows as a parse thread makes them, with a serialized size of our choosing. */
const recorded: RecordedBlock[] = blocks.map((b, i) => {
  const rows = new RowBuffer();
  streamRows([encodedOf(b)], rows, true);
  const r = rows.finish();
  return { height: b.height, hash: b.hash, time: b.time, size: [3, 3, 5, 1][i]!, txs: b.txs.length, rows: Buffer.from(r.buffer, r.byteOffset, r.byteLength) };
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'store-compare-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function everything(folder: string): Promise<string[]> {
  const db = new ClassicLevel<Buffer, Buffer>(folder, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  const out: string[] = [];
  for await (const [k, v] of db.iterator()) out.push(`${k.toString('hex')}=${v.toString('hex')}`);
  await db.close();
  return out;
}

describe('the store comparison', () => {
  it('reads a recording back as it was written, and batches blocks as the indexer does', () => {
    const path = join(dir, 'rows.bin');
    const w = new RecordingWriter(path);
    for (const b of recorded) w.add(b);
    w.close();
    expect([...readRecording(path)]).toEqual(recorded);
    // gathered until their bytes reach the bound; one heavier than it alone
    expect([...batchesOf(recorded, 6)].map((b) => b.map((x) => x.height))).toEqual([[0, 1], [2, 3]]);
    expect([...batchesOf(recorded, 4)].map((b) => b.map((x) => x.height))).toEqual([[0, 1], [2], [3]]);
    expect([...batchesOf(recorded, 100)].map((b) => b.length)).toEqual([4]);
  });

  it('writes into every store exactly what LevelIndex.apply writes, and every store answers alike', async () => {
    // the index itself, given the same blocks with their rows (two batches, as batchesOf(…, 6) makes them)
    const indexFolder = join(dir, 'index');
    const index = await LevelIndex.open(indexFolder, { log: () => undefined });
    const withRows = blocks.map((b, i) => ({ ...encodedOf(b), levelRows: recorded[i]!.rows }));
    await index.apply(withRows.slice(0, 2));
    await index.apply(withRows.slice(2));
    await index.close();
    const expected = await everything(indexFolder);
    expect(expected.length).toBe(1 + 4 + 4 + 6 + 8 + 2); // V, B a block, T a block (of fewer than 64 txs), K a tx, F an output, S an input

    const tKey = txidRowKey(txNumOf(2, 1));
    const samples = { funding: [Buffer.from(scriptKeyOf(A)).toString('hex')], spending: [], txidKeys: [], txs: [tKey.toString('hex')] };
    const runs: { name: string; answers: Awaited<ReturnType<typeof answersOf>>['answers'] }[] = [];
    for (const kind of STORE_KINDS) {
      const folder = join(dir, kind);
      const store = await openCompareStore(kind, folder);
      const [vk, vv] = versionRow();
      await store.writeBatch((out) => (out.put(vk, vv), 1));
      let rows = 1;
      for (const batch of batchesOf(recorded, 6)) rows += await store.writeBatch((out) => replayBatch(batch, out));
      expect(rows).toBe(expected.length);
      await store.compact();
      const got: string[] = [];
      for await (const chunk of store.entries({})) for (const [k, v] of chunk) got.push(`${k.toString('hex')}=${v.toString('hex')}`);
      expect(got, kind).toEqual(expected);
      const { answers, keyBytes, valueBytes } = await answersOf(store, samples);
      expect(answers.map((a) => [a.range.slice(0, 1), a.entries])).toEqual([['F', 5], ['T', 1], ['t', 1], ['a', expected.length]]);
      expect(keyBytes + valueBytes).toBe(expected.reduce((n, row) => n + (row.length - 1) / 2, 0));
      runs.push({ name: kind, answers });
      await store.close();
    }
    for (const r of runs.slice(1)) expect(firstDifference(runs[0]!, r)).toBeNull();
    const changed = runs[1]!.answers.map((a, i) => (i === 0 ? { ...a, digest: '00'.repeat(32) } : a));
    expect(firstDifference(runs[0]!, { name: 'other', answers: changed })).toMatch(/^F [0-9a-f]{16}: level holds 5 entries .* other 5/);
  });

  it('works the figures out right', () => {
    const run = (store: StoreRun['store'], writeMs: number, writeCpuMs: number, bytesAfter: number): StoreRun => ({
      store,
      rows: 700_000,
      txs: 100_000,
      batches: 20,
      writeMs,
      writeCpuMs,
      writeMainCpuMs: writeCpuMs / 2,
      bytesBefore: 30_000_000,
      compactMs: 1_500,
      compactCpuMs: 1_200,
      bytesAfter,
      loadPeakRssKb: 250 * 1024,
      loadPeakAnonKb: 150 * 1024,
      peakRssKb: 300 * 1024,
      peakAnonKb: 200 * 1024,
      compaction: 'x',
      answers: [],
      keyBytes: 0,
      valueBytes: 0,
    });
    const lines = linesOf([run('level', 10_000, 8_000, 24_000_000), run('rocks', 5_000, 10_000, 18_000_000)]);
    expect(lines[0]).toMatchObject({ txPerSecond: 10_000, ofFastest: 0.5, writeCpuSeconds: 8, writeMainCpuSeconds: 4, cpuOfCheapest: 1, bytesPerTxBefore: 300, bytesPerTxAfter: 240, peakRssMb: 300, peakOwnMb: 200 });
    expect(lines[1]).toMatchObject({ txPerSecond: 20_000, ofFastest: 1, writeCpuSeconds: 10, cpuOfCheapest: 0.8, bytesPerTxAfter: 180, compactSeconds: 1.5 });
    expect(tableOf(lines).split('\n')[2]).toBe('| level | 700,000 | 100,000 | 10.00 | 10,000 | 0.50 | 8.00 | 4.00 | 1.00 | 300 | 240 | 1.50 | 250 MB (150) | 300 MB (200) |');
  });
});
