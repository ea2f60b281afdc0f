import { describe, expect, it } from 'vitest';
import { DEFAULT_INDEX_CACHES, indexCaches } from './cache-budget.ts';

describe('indexCaches', () => {
  it('keeps the sizes chosen before the budget when none is set', () => {
    expect(indexCaches(undefined)).toEqual(DEFAULT_INDEX_CACHES);
  });

  it('splits a budget: LevelDB half as block cache and two memtables of an eighth, SQLite three quarters, young outputs a quarter', () => {
    const c = indexCaches(64);
    expect(c.levelBlockCacheBytes).toBe(32 << 20);
    expect(c.levelWriteBufferBytes).toBe(8 << 20);
    expect(c.sqliteWriterCacheKib).toBe(48 << 10);
    expect(c.youngOutputs).toBe(Math.floor((16 << 20) / 150));
    // what LevelDB holds at most stays within the budget: cache + two memtables + young outputs
    expect(c.levelBlockCacheBytes + 2 * c.levelWriteBufferBytes + c.youngOutputs * 150).toBeLessThanOrEqual(64 << 20);
  });
});
