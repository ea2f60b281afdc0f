// The index's memory budget (config.ts `database.cacheMb`): what the indexer keeps in memory to
// write and read faster, as one number an operator sets to fit the service's memory limit, split
// here. Without it, the sizes chosen before there was a budget (about 126 MB with LevelDB, 62 MB
// with SQLite; LevelDB's layout 2 took a larger memtable and a smaller block cache) and LevelDB's
// least table cache. Pure.

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
  /** LevelDB's open files (maxOpenFiles): 10 are its own, the rest its cache of open tables. */
  levelMaxOpenFiles: number;
  /** LevelDB's table files (maxFileSize): what one open table holds of filter and index scales with it. */
  levelMaxFileBytes: number;
}

const MIB = 1 << 20;

/**
 * Bytes of bloom filter and index block an open LevelDB table holds a byte of table: classic-level's
 * 10-bit filter at the index's 6.8 keys a tx and 238 bytes a tx (1.25 * 6.8 / 238 = 0.036), and an
 * index entry of ~25 bytes a 4 KiB block (0.006). Measured (scripts/bench/table-cache.ts, index-shaped
 * rows; docs/index-at-scale.md, "Table cache bounded"): LevelDB maps the first 1,000 tables a process
 * opens, their filters and index blocks then in mapped pages (RSS the kernel can reclaim, touched by
 * every probe), no own memory within the noise; past them a table holds both on the heap, 9.9 and
 * 11.3 KiB for a table this puts at 12.8 KiB. Budgeted either way: that is what LevelDB keeps hot.
 */
export const TABLE_FILTER_INDEX_PER_BYTE = 0.042;

/** LevelDB's smallest table cache: it raises maxOpenFiles to 74, 10 of them its own. */
const LEVEL_MIN_OPEN_FILES = 74;
const LEVEL_OWN_FILES = 10;
/** LevelDB maps at most 1,000 tables a process, every index's together: past them a table's filter and index go on the heap. */
const LEVEL_MAX_OPEN_FILES = 250;
/**
 * 16 MiB tables: 0.7 MB of filter and index each, 17,000 tables for Bitcoin mainnet's ~285 GB
 * (LevelDB keeps ~150 bytes of every table's name and key range in memory, open or not: 2.6 MB).
 * Layout 3 wrote 64 MiB ones (2.8 MB each): the least table cache LevelDB allows, 64 of them, would
 * hold 180 MB. Tables already written keep their size; compactions write the new one.
 */
const LEVEL_FILE_BYTES = 16 * MIB;

/**
 * The open files whose tables' filters and index blocks fit `bytes` (at least LevelDB's least,
 * at most a quarter of the process's 1,000 maps, so four indexes of one process stay mapped).
 */
export function levelOpenFilesFor(bytes: number, fileBytes: number): number {
  const tables = Math.floor(bytes / (TABLE_FILTER_INDEX_PER_BYTE * fileBytes));
  return Math.min(LEVEL_MAX_OPEN_FILES, Math.max(LEVEL_MIN_OPEN_FILES, tables + LEVEL_OWN_FILES));
}

/**
 * Without a budget: LevelDB's least table cache, 64 tables of 16 MiB, whatever the chain. A mainnet
 * index's own memory is then the 192 MB heap, these caches (~126 MB) and ~60 MB of code and buffers,
 * 378 MB, under the 400 MB target; its open tables' filters and index blocks, at most 64 * 0.7 =
 * 45 MB, are mapped pages while the process holds under LevelDB's 1,000 maps (on the heap past them:
 * 423 MB). classic-level's default of 1,000 open files held up to 990 tables of 64 MiB: 2.8 GB of
 * filters and index blocks at mainnet's 4,700 tables, on the heap for every table past the maps.
 */
export const DEFAULT_INDEX_CACHES: IndexCaches = {
  levelBlockCacheBytes: 16 << 20,
  levelWriteBufferBytes: 64 << 20,
  sqliteWriterCacheKib: 32 << 10,
  youngOutputs: 200_000,
  levelSummaryBytes: 32 << 20,
  summaryMaxRows: 250_000,
  levelMaxOpenFiles: LEVEL_MIN_OPEN_FILES,
  levelMaxFileBytes: LEVEL_FILE_BYTES,
};

/** Heap per young output (young-outputs.ts): the budget's share divided by this is how many are kept. */
const YOUNG_OUTPUT_BYTES = 150;
/**
 * Heap per output while a LevelDB summary is worked out: up to two history entries (16 bytes each)
 * and an unspent output (33) in columns that grow by doubling. Objects took ~256: the default bound
 * went from 100,000 outputs to 250,000 in the same 25 MB.
 */
const SUMMARY_ROW_BYTES = 100;

/**
 * `cacheMb` MiB: LevelDB gets a quarter as block cache, a quarter as open tables' filters and index
 * blocks (levelOpenFilesFor: below 256 MiB LevelDB's least, 64 tables, holds more than that quarter),
 * an eighth per memtable (a quarter for the two) and its per-script summaries a quarter; SQLite's
 * writer three quarters as page cache and its young outputs a quarter (the store kind uses one of
 * the two). The block cache was half: with tables mapped LevelDB caches only compressed blocks in it,
 * and the index's hardly compress (238 bytes a tx on disk for 205 of rows).
 */
export function indexCaches(cacheMb: number | undefined): IndexCaches {
  if (cacheMb === undefined) return DEFAULT_INDEX_CACHES;
  const bytes = cacheMb * MIB;
  return {
    levelBlockCacheBytes: Math.floor(bytes / 4),
    levelWriteBufferBytes: Math.max(MIB, Math.floor(bytes / 8)),
    sqliteWriterCacheKib: Math.floor((bytes * 3) / 4 / 1024),
    youngOutputs: Math.max(1_000, Math.floor(bytes / 4 / YOUNG_OUTPUT_BYTES)),
    levelSummaryBytes: Math.floor(bytes / 4),
    summaryMaxRows: Math.floor(bytes / 4 / SUMMARY_ROW_BYTES),
    levelMaxOpenFiles: levelOpenFilesFor(bytes / 4, LEVEL_FILE_BYTES),
    levelMaxFileBytes: LEVEL_FILE_BYTES,
  };
}
