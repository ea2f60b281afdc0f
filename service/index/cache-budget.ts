// The index's memory budget (config.ts `database.cacheMb`): what the indexer keeps in memory to
// write and read faster, as one number an operator sets to fit the service's memory limit, split
// here. Without it, the sizes chosen before there was a budget (about 126 MB with LevelDB, 62 MB
// with SQLite; LevelDB's layout 2 took a larger memtable and a smaller block cache). Pure.

export interface IndexCaches {
  /** LevelDB's block cache. */
  levelBlockCacheBytes: number;
  /** LevelDB's memtable; two are in memory while one is written out. */
  levelWriteBufferBytes: number;
  /** The SQLite writer thread's page cache, KiB. */
  sqliteWriterCacheKib: number;
  /** Outputs of recent blocks kept for the spends that follow them (young-outputs.ts, ~150 bytes each; the SQL stores'). */
  youngOutputs: number;
  /** LevelDB's per-script answers refreshed at query time (level-summaries.ts). */
  levelSummaryBytes: number;
  /** The most outputs a LevelDB summary is worked out for (its columns, ~100 bytes an output while built; level-summaries.ts); more: AddressTooLarge. */
  summaryMaxRows: number;
}

export const DEFAULT_INDEX_CACHES: IndexCaches = { levelBlockCacheBytes: 16 << 20, levelWriteBufferBytes: 64 << 20, sqliteWriterCacheKib: 32 << 10, youngOutputs: 200_000, levelSummaryBytes: 32 << 20, summaryMaxRows: 250_000 };

/** Heap per young output (young-outputs.ts): the budget's share divided by this is how many are kept. */
const YOUNG_OUTPUT_BYTES = 150;
const MIB = 1 << 20;
/**
 * Heap per output while a LevelDB summary is worked out: up to two history entries (16 bytes each)
 * and an unspent output (33) in columns that grow by doubling. Objects took ~256: the default bound
 * went from 100,000 outputs to 250,000 in the same 25 MB.
 */
const SUMMARY_ROW_BYTES = 100;

/**
 * `cacheMb` MiB: LevelDB gets half as block cache and an eighth per memtable (a quarter for the
 * two) and its per-script summaries a quarter, SQLite's writer three quarters as page cache and its
 * young outputs a quarter (the store kind uses one of the two).
 */
export function indexCaches(cacheMb: number | undefined): IndexCaches {
  if (cacheMb === undefined) return DEFAULT_INDEX_CACHES;
  const bytes = cacheMb * MIB;
  return {
    levelBlockCacheBytes: Math.floor(bytes / 2),
    levelWriteBufferBytes: Math.max(MIB, Math.floor(bytes / 8)),
    sqliteWriterCacheKib: Math.floor((bytes * 3) / 4 / 1024),
    youngOutputs: Math.max(1_000, Math.floor(bytes / 4 / YOUNG_OUTPUT_BYTES)),
    levelSummaryBytes: Math.floor(bytes / 4),
    summaryMaxRows: Math.floor(bytes / 4 / SUMMARY_ROW_BYTES),
  };
}
