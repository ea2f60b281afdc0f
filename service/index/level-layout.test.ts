// The LevelDB index's on-disk layout: a folder written by the layout before key-only rows (balance
// and unspent rows that every spend updated) is detected at open, moved aside and named in the
// log, and the chain is indexed again in a fresh folder; a layout this code does not know is refused.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterEach, describe, expect, it } from 'vitest';
import { LAYOUT_VERSION, LevelIndex } from './level-index.ts';

let dir: string;
afterEach(async () => rm(dir, { recursive: true, force: true }));

async function raw(folder: string, rows: [Buffer, Buffer][]): Promise<void> {
  const db = new ClassicLevel<Buffer, Buffer>(folder, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  for (const [k, v] of rows) await db.put(k, v);
  await db.close();
}

describe('the LevelDB index layout', () => {
  it('moves a folder of the old layout aside, names it in the log, and starts again from block 0', async () => {
    dir = await mkdtemp(join(tmpdir(), 'level-layout-'));
    const folder = join(dir, 'litecoin');
    const tip = Buffer.concat([Buffer.from([0, 0, 0, 9]), Buffer.from('ab'.repeat(32))]);
    // the old layout: a block row at height 7 and a balance row ('A'), no version row
    await raw(folder, [
      [Buffer.from([0x42, 0, 0, 0, 7]), tip],
      [Buffer.concat([Buffer.of(0x41), Buffer.alloc(8, 1)]), Buffer.alloc(12)],
    ]);
    const lines: string[] = [];
    const index = await LevelIndex.open(folder, { log: (line) => lines.push(line) });
    try {
      expect(index.tip()).toBeNull();
      const rows = await index.entries();
      expect(rows).toEqual([['56', LAYOUT_VERSION.toString(16).padStart(8, '0')]]);
    } finally {
      await index.close();
    }
    const aside = (await readdir(dir)).filter((name) => name.startsWith('litecoin.layout-1-'));
    expect(aside).toHaveLength(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`the LevelDB index in ${folder} is in an older layout`);
    expect(lines[0]).toContain(`moved it to ${join(dir, aside[0]!)}`);
    expect(lines[0]).toContain('indexing this chain again from block 0');
    // the old folder is kept whole until the operator deletes it
    const old = new ClassicLevel<Buffer, Buffer>(join(dir, aside[0]!), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await old.open();
    expect((await old.get(Buffer.from([0x42, 0, 0, 0, 7])))?.equals(tip)).toBe(true);
    await old.close();
    // opened again: the new layout, nothing moved
    const again = await LevelIndex.open(folder, { log: (line) => lines.push(line) });
    await again.close();
    expect(lines).toHaveLength(1);
  });

  // layout 2: whole scripts in T rows, 4-byte vouts; layout 3: each kept output's script hash in the T row (and a txid length byte)
  const t3 = Buffer.concat([Buffer.of(32), Buffer.alloc(32, 0xcd), Buffer.of(0), Buffer.alloc(20, 0x11)]);
  it.each([2, 3])('moves a folder of layout %i aside too, naming it', async (layout) => {
    dir = await mkdtemp(join(tmpdir(), 'level-layout-'));
    const folder = join(dir, 'litecoin');
    await raw(folder, [
      [Buffer.of(0x56), Buffer.from([0, 0, 0, layout])],
      [Buffer.from([0x42, 0, 0, 0, 7]), Buffer.concat([Buffer.from([0, 0, 0, 9]), Buffer.from('ab'.repeat(32))])],
      [Buffer.from([0x54, 0, 0, 0, 0x70, 0, 0]), t3],
    ]);
    const lines: string[] = [];
    const index = await LevelIndex.open(folder, { log: (line) => lines.push(line) });
    try {
      expect(index.tip()).toBeNull();
      expect(await index.entries()).toEqual([['56', LAYOUT_VERSION.toString(16).padStart(8, '0')]]);
    } finally {
      await index.close();
    }
    expect(LAYOUT_VERSION).toBe(4);
    const aside = (await readdir(dir)).filter((name) => name.startsWith(`litecoin.layout-${layout}-`));
    expect(aside).toHaveLength(1);
    expect(lines).toEqual([`the LevelDB index in ${folder} is in layout ${layout}, an older layout: moved it to ${join(dir, aside[0]!)} and indexing this chain again from block 0 in layout 4; delete ${join(dir, aside[0]!)} once the new index has caught up`]);
  });

  it('refuses, in words, a layout version it does not read', async () => {
    dir = await mkdtemp(join(tmpdir(), 'level-layout-'));
    const folder = join(dir, 'litecoin');
    await raw(folder, [[Buffer.of(0x56), Buffer.from([0, 0, 0, 99])]]);
    await expect(LevelIndex.open(folder, { log: () => undefined })).rejects.toThrow(`the LevelDB index in ${folder} is in layout 99, which this service does not read`);
  });

  it('opens an empty folder in the current layout without a word', async () => {
    dir = await mkdtemp(join(tmpdir(), 'level-layout-'));
    const lines: string[] = [];
    const index = await LevelIndex.open(join(dir, 'litecoin'), { log: (line) => lines.push(line) });
    await index.close();
    expect(lines).toEqual([]);
  });
});
