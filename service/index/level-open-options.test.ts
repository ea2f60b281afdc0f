// LevelDB's table options are the open's, not the folder's: a folder indexed with the options of
// layout 3's first release (64 MiB tables, classic-level's 1,000 open files) opens with the budget's
// (cache-budget.ts: smaller tables, a bounded table cache) and answers the same, before and after
// more blocks and a compaction that writes tables of the new size.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_INDEX_CACHES, type IndexCaches } from './cache-budget.ts';
import { encodedOf, type IndexedBlock, type IndexedTx } from './blocks.ts';
import { LevelIndex } from './level-index.ts';

const OLD: IndexCaches = { ...DEFAULT_INDEX_CACHES, levelMaxOpenFiles: 1000, levelMaxFileBytes: 64 << 20 };

const txid = (n: number) => n.toString(16).padStart(64, '0');
const SCRIPTS = Array.from({ length: 8 }, (_, i) => Buffer.from([0x76, 0xa9, 0x14, ...new Array<number>(20).fill(0x30 + i), 0x88, 0xac]));

/** Blocks 1..n: a coinbase to one script, and a tx spending the previous block's coinbase to two others. */
function chain(n: number): IndexedBlock[] {
  const blocks: IndexedBlock[] = [];
  for (let h = 1; h <= n; h++) {
    const txs: IndexedTx[] = [{ txid: txid(2 * h), inputs: [], outputs: [{ vout: 0, script: SCRIPTS[h % 8]!, amount: 5_000n + BigInt(h) }] }];
    if (h > 1) {
      txs.push({
        txid: txid(2 * h + 1),
        inputs: [{ txid: txid(2 * (h - 1)), vout: 0 }],
        outputs: [
          { vout: 0, script: SCRIPTS[(h * 3) % 8]!, amount: 1_000n },
          { vout: 2, script: SCRIPTS[(h * 5 + 1) % 8]!, amount: 3_000n + BigInt(h) },
        ],
      });
    }
    blocks.push({ height: h, hash: `b${h}`.padEnd(64, '0'), time: 1_700_000_000 + h * 600, txs });
  }
  return blocks;
}

async function indexed(index: LevelIndex, blocks: readonly IndexedBlock[]): Promise<void> {
  for (let i = 0; i < blocks.length; i += 25) await index.apply(blocks.slice(i, i + 25).map(encodedOf));
  await index.compact();
}

/** Every script's balance, history and unspent outputs, and the tip. */
async function answers(index: LevelIndex): Promise<unknown> {
  const balances = await index.balances(SCRIPTS);
  const keyed = SCRIPTS.map((script) => ({ script, key: balances.get(script.toString('hex'))?.key ?? Buffer.alloc(8) }));
  return {
    tip: index.tip(),
    // by script: the map is filled as each script's summary comes in
    balances: [...balances.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, b]) => [k, b.confirmed, b.txCount]),
    history: await index.historyPage(keyed, 10_000, 0),
    unspent: await index.unspent(SCRIPTS, { after: null, limit: 10_000 }),
  };
}

let dir: string;
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('LevelDB open options', () => {
  it('a folder written with 64 MiB tables and 1,000 open files answers the same opened with the budget’s', async () => {
    dir = await mkdtemp(join(tmpdir(), 'level-open-options-'));
    const blocks = chain(300);
    const folder = join(dir, 'old');
    const before = await LevelIndex.open(folder, { caches: OLD });
    await indexed(before, blocks.slice(0, 200));
    const written = await answers(before);
    await before.close();
    expect((await readdir(folder)).filter((f) => f.endsWith('.ldb')).length).toBeGreaterThan(0);

    const after = await LevelIndex.open(folder, { caches: DEFAULT_INDEX_CACHES });
    try {
      expect(await answers(after)).toEqual(written);
      // more blocks and a compaction with the new options: the same as a folder indexed with them alone
      await indexed(after, blocks.slice(200));
      const fresh = await LevelIndex.open(join(dir, 'new'), { caches: DEFAULT_INDEX_CACHES });
      try {
        await indexed(fresh, blocks);
        const all = await answers(fresh);
        expect(await answers(after)).toEqual(all);
        expect((all as { tip: unknown }).tip).toEqual({ height: 300, hash: blocks[299]!.hash });
      } finally {
        await fresh.close();
      }
    } finally {
      await after.close();
    }
  });
});
