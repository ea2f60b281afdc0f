// Where a chain's confirmed index is kept: the store's own tables, or a LevelDB folder
// (database.index). Changing database.index (adding it, removing it, another folder) starts an index
// that is empty or behind somewhere else and leaves the old one on disk: the service says so, naming
// both, instead of silently reading the chain again. The last location is recorded per chain
// (index_locations, migration 0009). Pure: UtxoIndexStore.settleLocation reads and writes the record.

/** 'tables' (the SQLite file's or PostgreSQL's), or 'leveldb:FOLDER'. */
export type IndexLocation = 'tables' | `leveldb:${string}`;

export const levelLocation = (folder: string): IndexLocation => `leveldb:${folder}`;

export interface LocationChange {
  fields: { from: string; to: string; oldFolder?: string; resumesAfter: number | null };
  message: string;
}

/**
 * What to log when the index of `chain` is not where it was last written; null when it is (or on
 * the first start, which has nothing to compare with, unless the store's tables hold an index that
 * a new LevelDB folder replaces: the record came after that index).
 */
export function locationChange(input: {
  chain: string;
  recorded: string | null;
  current: IndexLocation;
  /** The current location's indexed height (null: empty). */
  currentTip: number | null;
  /** The store's tables' indexed height (read when the current location is a folder). */
  tablesTip: number | null;
  /** The SQLite file, to name the tables' place; undefined on PostgreSQL. */
  sqlitePath?: string;
}): LocationChange | null {
  const { chain, current, currentTip, tablesTip } = input;
  const old = input.recorded ?? (current !== 'tables' && tablesTip !== null && currentTip === null ? 'tables' : null);
  if (old === null || old === current) return null;
  const describe = (l: string) => (l === 'tables' ? `the tables of ${input.sqlitePath ?? 'the database'}` : `the LevelDB folder ${l.slice('leveldb:'.length)}`);
  const oldFolder = old.startsWith('leveldb:') ? old.slice('leveldb:'.length) : undefined;
  const now = currentTip === null ? 'it is built again from the start' : `it resumes there after block ${currentTip}`;
  const left =
    oldFolder !== undefined
      ? `the old index in ${oldFolder} is left as it is: delete that folder once the new index has caught up`
      : `the old index stays in ${describe(old)} (used again only if database.index is removed)`;
  return {
    fields: { from: describe(old), to: describe(current), ...(oldFolder !== undefined ? { oldFolder } : {}), resumesAfter: currentTip },
    message: `index: the ${chain} index moved to ${describe(current)} from ${describe(old)} (database.index changed): ${now}; ${left}`,
  };
}
