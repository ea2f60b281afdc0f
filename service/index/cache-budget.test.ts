import { describe, expect, it } from 'vitest';
import { DEFAULT_INDEX_CACHES, indexCaches, levelOpenFilesFor, TABLE_FILTER_INDEX_PER_BYTE } from './cache-budget.ts';

/** Filters and index blocks of the tables LevelDB may keep open (10 of its files are not tables). */
const tablesHold = (c: { levelMaxOpenFiles: number; levelMaxFileBytes: number }) => (c.levelMaxOpenFiles - 10) * c.levelMaxFileBytes * TABLE_FILTER_INDEX_PER_BYTE;

describe('indexCaches', () => {
  it('keeps the sizes chosen before the budget when none is set, with LevelDB’s least table cache of 16 MiB tables', () => {
    expect(indexCaches(undefined)).toEqual(DEFAULT_INDEX_CACHES);
    expect(DEFAULT_INDEX_CACHES.levelMaxOpenFiles).toBe(74);
    expect(DEFAULT_INDEX_CACHES.levelMaxFileBytes).toBe(16 << 20);
    expect(tablesHold(DEFAULT_INDEX_CACHES)).toBeLessThan(46e6);
  });

  it('splits a budget: LevelDB a quarter as block cache, a quarter as open tables, two memtables of an eighth; SQLite three quarters, young outputs a quarter', () => {
    const c = indexCaches(64);
    expect(c.levelBlockCacheBytes).toBe(16 << 20);
    expect(c.levelWriteBufferBytes).toBe(8 << 20);
    expect(c.sqliteWriterCacheKib).toBe(48 << 10);
    expect(c.youngOutputs).toBe(Math.floor((16 << 20) / 150));
    // what LevelDB holds at most stays within the budget: cache + two memtables + young outputs
    expect(c.levelBlockCacheBytes + 2 * c.levelWriteBufferBytes + c.youngOutputs * 150).toBeLessThanOrEqual(64 << 20);
    // a quarter of 64 MiB is less than LevelDB's least table cache holds: it gets that least
    expect(c.levelMaxOpenFiles).toBe(74);
  });

  it('gives open tables a quarter of the budget from 256 MiB, up to 250 files (four indexes in one process stay within LevelDB’s 1,000 maps)', () => {
    const at = (mb: number) => indexCaches(mb);
    for (const mb of [256, 512, 1024]) {
      const c = at(mb);
      expect(c.levelMaxOpenFiles).toBeGreaterThan(74);
      expect(tablesHold(c)).toBeLessThanOrEqual((mb << 20) / 4);
      expect(c.levelBlockCacheBytes + 2 * c.levelWriteBufferBytes + c.levelSummaryBytes + tablesHold(c)).toBeLessThanOrEqual(mb << 20);
    }
    expect(at(512).levelMaxOpenFiles).toBeGreaterThan(at(256).levelMaxOpenFiles);
    expect(at(4096).levelMaxOpenFiles).toBe(250);
  });

  it('levelOpenFilesFor: the tables whose filters and index blocks fit, plus LevelDB’s own 10 files, within 74 and 250', () => {
    const table = TABLE_FILTER_INDEX_PER_BYTE * (16 << 20);
    expect(levelOpenFilesFor(100 * table, 16 << 20)).toBe(110);
    expect(levelOpenFilesFor(100 * table - 1, 16 << 20)).toBe(109);
    expect(levelOpenFilesFor(0, 16 << 20)).toBe(74);
    expect(levelOpenFilesFor(1e12, 16 << 20)).toBe(250);
    // smaller tables: more of them in the same bytes
    expect(levelOpenFilesFor(100 * table, 8 << 20)).toBe(210);
  });
});
