// T rows hold the txids of 64 tx numbers each (level-index.ts): blocks of 1, 64, 65, 128 and 130
// txs (a group full, one over, two full, two and a short one) have every txid found by its tx
// number, through the K rows and through an address's history, after a restart and after a
// rollback of part of the chain, whose groups are gone whole; a shorter block indexed in an undone
// one's place answers no position beyond its own.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodedOf, type EncodedBlock, type IndexedBlock, keyOfBlob } from './blocks.ts';
import { LevelIndex } from './level-index.ts';
import { RowBuffer, streamRows, TAG } from './level-rows.ts';
import { scriptKeyOf } from './script-keys.ts';
import { txNumOf } from './txnum.ts';

const A = Uint8Array.from([0x76, 0xa9, 0x14, ...new Array<number>(20).fill(0xaa), 0x88, 0xac]);
const txid = (n: number) => n.toString(16).padStart(64, '0');

/** A block of `count` txs without inputs, each paying A; txids numbered from `first`. */
function block(height: number, count: number, first: number): IndexedBlock {
  const txs = Array.from({ length: count }, (_, i) => ({ txid: txid(first + i), inputs: [], outputs: [{ vout: 0, script: A, amount: BigInt(first + i) }] }));
  return { height, hash: `h${height}-${first}`, time: 1_600_000_000 + height, txs };
}

/** The block with its rows made apart, as a parse thread gives them (the rollback then deletes those rows' keys). */
function withRows(b: IndexedBlock): EncodedBlock {
  const rows = new RowBuffer();
  streamRows([encodedOf(b)], rows, true);
  return { ...encodedOf(b), levelRows: rows.finish() };
}

const txidsOf = (blocks: readonly IndexedBlock[]) => blocks.flatMap((b) => b.txs.map((t, position) => ({ txid: Buffer.from(t.txid, 'hex'), txnum: txNumOf(b.height, position) })));

/** Every tx of `held` found by its tx number, none of `gone`: by txid (K, then T) and in A's history (the summary, then T). */
async function expectHeld(index: LevelIndex, held: readonly IndexedBlock[], gone: readonly IndexedBlock[]): Promise<void> {
  const expected = txidsOf(held);
  const asked = [...expected, ...txidsOf(gone)].map((t) => t.txid);
  const numbers = await index.confirmedTxNumbers(asked);
  expect(numbers).toEqual(new Map(expected.map((t) => [keyOfBlob(t.txid), t.txnum])));
  const page = await index.historyPage([{ script: Buffer.from(A), key: scriptKeyOf(A) }], 10_000, 0);
  expect(page.map((r) => [r.txnum, r.txid.toString('hex')])).toEqual(expected.map((t) => [t.txnum, t.txid.toString('hex')]).reverse());
  const unspent = await index.unspent([A], { after: null, limit: 10_000 });
  expect(unspent.map((r) => [r.txnum, r.txid.toString('hex')])).toEqual(expected.map((t) => [t.txnum, t.txid.toString('hex')]));
}

/** The heights of the T rows the index holds (a row's group times 64 is its first tx number). */
async function tRowHeights(index: LevelIndex): Promise<number[]> {
  const rows = (await index.entries()).filter(([k]) => k.startsWith(TAG.txid.toString(16)));
  return rows.map(([k]) => Math.floor((parseInt(k.slice(2), 16) * 64) / 2 ** 20));
}

let dir: string;
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('T rows of 64 txids', () => {
  it('find every txid by tx number in blocks of 1, 64, 65, 128 and 130 txs, after a restart and a rollback', async () => {
    dir = await mkdtemp(join(tmpdir(), 'level-txid-rows-'));
    const counts = [1, 64, 65, 128, 130];
    const blocks = counts.map((count, height) => block(height, count, 1000 * (height + 1)));
    let index = await LevelIndex.open(dir, { log: () => undefined });
    try {
      // the writer's own rows for the first three, rows made apart for the last two
      await index.apply(blocks.slice(0, 3).map((b) => encodedOf(b)));
      await index.apply(blocks.slice(3).map(withRows));
      await expectHeld(index, blocks, []);
      expect(await tRowHeights(index)).toEqual([0, 1, 2, 2, 3, 3, 4, 4, 4]);
      await index.close();
      index = await LevelIndex.open(dir, { log: () => undefined });
      await expectHeld(index, blocks, []);

      // undo the blocks of 128 and 130 txs (one with its rows made apart, one without): their groups go whole
      await index.rollbackTo(2, [withRows(blocks[3]!), encodedOf(blocks[4]!)]);
      await expectHeld(index, blocks.slice(0, 3), blocks.slice(3));
      expect(await tRowHeights(index)).toEqual([0, 1, 2, 2]);

      // a block of 65 txs in the 128's place: its short second group answers no position from 65
      const replaced = block(3, 65, 9000);
      await index.apply([withRows(replaced)]);
      await index.close();
      index = await LevelIndex.open(dir, { log: () => undefined });
      await expectHeld(index, [...blocks.slice(0, 3), replaced], blocks.slice(3));
      expect(await index.confirmedTxNumbers([Buffer.from(blocks[3]!.txs[100]!.txid, 'hex')])).toEqual(new Map());
    } finally {
      await index.close();
    }
  });
});
