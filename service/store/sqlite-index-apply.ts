// Applies a batch of confirmed blocks to a SQLite index synchronously, with prepared statements:
// the indexer's hot path, run in the index writer thread (or in-thread for an in-memory store).
import type BetterSqlite3 from 'better-sqlite3';
import { buildIndexRows, type IndexedBlock, outpointKey, type Spent, spentTxids } from './index-rows.ts';
import { writeIndexRowsSqlite } from './index-writer.ts';

const LOOKUP = 64;

interface Statements {
  lookup: BetterSqlite3.Statement;
  lookupOne: BetterSqlite3.Statement;
  mempool: BetterSqlite3.Statement[];
}

const prepared = new WeakMap<BetterSqlite3.Database, Statements>();

function statements(db: BetterSqlite3.Database): Statements {
  let s = prepared.get(db);
  if (!s) {
    const list = Array(LOOKUP).fill('?').join(',');
    s = {
      lookup: db.prepare(`select txid, vout, script, amount from chain_outputs where chain = ? and txid in (${list})`),
      lookupOne: db.prepare('select txid, vout, script, amount from chain_outputs where chain = ? and txid = ?'),
      mempool: [
        db.prepare('delete from mempool_outputs where chain = ? and txid = ?'),
        db.prepare('delete from mempool_spends where chain = ? and spent_txid = ?'),
        db.prepare('delete from mempool_history where chain = ? and txid = ?'),
        db.prepare('delete from chain_mempool where chain = ? and txid = ?'),
      ],
    };
    prepared.set(db, s);
  }
  return s;
}

interface OutputRow {
  txid: string;
  vout: bigint | number;
  script: Uint8Array;
  amount: bigint | number;
}

function lookupSpent(db: BetterSqlite3.Database, chain: string, txids: readonly string[]): Map<string, Spent> {
  const s = statements(db);
  const found = new Map<string, Spent>();
  const take = (rows: unknown[]) => {
    for (const r of rows as OutputRow[]) found.set(outpointKey(r.txid, Number(r.vout)), { script: new Uint8Array(r.script), amount: BigInt(r.amount) });
  };
  let i = 0;
  for (; i + LOOKUP <= txids.length; i += LOOKUP) take(s.lookup.all(chain, ...txids.slice(i, i + LOOKUP)));
  for (; i < txids.length; i++) take(s.lookupOne.all(chain, txids[i]));
  return found;
}

/** Must run inside a transaction of `db` (the caller's). */
export function applyBlocksSqlite(db: BetterSqlite3.Database, chain: string, blocks: readonly IndexedBlock[], confirmedMempoolTxids: readonly string[]): void {
  const s = statements(db);
  for (const txid of confirmedMempoolTxids) for (const st of s.mempool) st.run(chain, txid);
  const known = lookupSpent(db, chain, spentTxids(blocks.flatMap((b) => b.txs)));
  writeIndexRowsSqlite(db, buildIndexRows(chain, blocks, known));
}
