// Applies a batch of confirmed blocks to a SQLite index synchronously, with prepared single-row
// statements (in better-sqlite3 twice as fast as multi-row inserts): the indexer's hot path, run
// in the index writer thread (or in-thread for an in-memory store). Imports no Kysely, so the
// thread starts quickly.
import type BetterSqlite3 from 'better-sqlite3';
import { asBuffer, BlockReader, type EncodedBlock, encodedOf, keyOfBlob } from './index-batch.ts';
import type { IndexedBlock } from './index-rows.ts';

const LOOKUP = 64;

const SQL = {
  lookup: `select txid, vout, script, amount from chain_outputs where chain = ? and txid in (${Array(LOOKUP).fill('?').join(',')})`,
  lookupOne: 'select txid, vout, script, amount from chain_outputs where chain = ? and txid = ?',
  dropMempoolOutputs: 'delete from mempool_outputs where chain = ? and txid = ?',
  dropMempoolSpends: 'delete from mempool_spends where chain = ? and spent_txid = ?',
  dropMempoolHistory: 'delete from mempool_history where chain = ? and txid = ?',
  dropMempoolTx: 'delete from chain_mempool where chain = ? and txid = ?',
  // A repeated coinbase txid (BIP30, two early Bitcoin blocks) overwrites its outputs, as in the node.
  output:
    'insert into chain_outputs (chain, txid, vout, script, amount, height, position) values (?, ?, ?, ?, ?, ?, ?) ' +
    'on conflict (chain, txid, vout) do update set script = excluded.script, amount = excluded.amount, height = excluded.height, position = excluded.position',
  spend: 'insert into chain_spends (chain, txid, vout, spent_txid, height) values (?, ?, ?, ?, ?)',
  history:
    'insert into chain_history (chain, script, txid, height, position, time, delta) values (?, ?, ?, ?, ?, ?, ?) ' +
    'on conflict (chain, script, txid) do update set delta = chain_history.delta + excluded.delta',
  balance:
    'insert into chain_balances (chain, script, confirmed) values (?, ?, ?) ' +
    'on conflict (chain, script) do update set confirmed = chain_balances.confirmed + excluded.confirmed',
  block: 'insert into chain_blocks (chain, height, hash, time) values (?, ?, ?, ?)',
} as const;

type Statements = Record<keyof typeof SQL, BetterSqlite3.Statement>;
const prepared = new WeakMap<BetterSqlite3.Database, Statements>();

function statements(db: BetterSqlite3.Database): Statements {
  let s = prepared.get(db);
  if (!s) {
    s = Object.fromEntries(Object.entries(SQL).map(([name, text]) => [name, db.prepare(text)])) as Statements;
    prepared.set(db, s);
  }
  return s;
}

interface OutputRow {
  txid: Uint8Array;
  vout: bigint | number;
  script: Uint8Array;
  amount: bigint | number;
}

/** An indexed output as the batch knows it; `key` is its script as a latin1 map key. */
interface Known {
  script: Uint8Array;
  key: string;
  amount: bigint;
}

/** Outputs of these txids (as their blobs) already in the index, by `${keyOfBlob(txid)}:${vout}`. */
function lookupSpent(s: Statements, chain: string, blobs: readonly Uint8Array[], found: Map<string, Known>): void {
  const take = (rows: unknown[]) => {
    for (const r of rows as OutputRow[]) {
      const script = asBuffer(r.script);
      found.set(`${keyOfBlob(r.txid)}:${Number(r.vout)}`, { script, key: keyOfBlob(script), amount: BigInt(r.amount) });
    }
  };
  let i = 0;
  for (; i + LOOKUP <= blobs.length; i += LOOKUP) take(s.lookup.all(chain, ...blobs.slice(i, i + LOOKUP)));
  for (; i < blobs.length; i++) take(s.lookupOne.all(chain, blobs[i]));
}

interface Delta {
  script: Uint8Array;
  delta: bigint;
}

function addDelta(deltas: Map<string, Delta>, key: string, script: Uint8Array, amount: bigint): void {
  const d = deltas.get(key);
  if (d) d.delta += amount;
  else deltas.set(key, { script, delta: amount });
}

/**
 * Must run inside a transaction of `db` (the caller's). Writes exactly the rows buildIndexRows
 * computes for these blocks, straight from their encoding (no row objects): outpoints and
 * scripts are keyed by their bytes as latin1, which meet where the old hex keys met.
 */
export function applyEncodedBlocksSqlite(db: BetterSqlite3.Database, chain: string, blocks: readonly EncodedBlock[], confirmedMempoolTxids: readonly string[]): void {
  const s = statements(db);
  for (const txid of confirmedMempoolTxids) {
    for (const st of [s.dropMempoolOutputs, s.dropMempoolSpends, s.dropMempoolHistory, s.dropMempoolTx]) st.run(chain, txid);
  }

  // Pass 1: the batch's own txids, and the spent txids that are not among them (to look up).
  const own = new Set<string>();
  const inputKeys: string[] = [];
  for (const block of blocks) {
    const r = new BlockReader(block.bytes);
    for (let t = r.u32(); t > 0; t--) {
      own.add(r.txidKey());
      for (let n = r.u32(); n > 0; n--) {
        inputKeys.push(r.txidKey());
        r.pos += 8; // vout
      }
      r.skipOutputs(r.u32());
    }
  }
  const wanted = new Map<string, Uint8Array>();
  let k = 0;
  for (const block of blocks) {
    const r = new BlockReader(block.bytes);
    for (let t = r.u32(); t > 0; t--) {
      r.skipTxid();
      for (let n = r.u32(); n > 0; n--) {
        const key = inputKeys[k++]!;
        if (!own.has(key) && !wanted.has(key)) wanted.set(key, r.txidBlob());
        else r.skipTxid();
        r.pos += 8;
      }
      r.skipOutputs(r.u32());
    }
  }
  const known = new Map<string, Known>();
  lookupSpent(s, chain, [...wanted.values()], known);

  // Pass 2: rows in block and tx order, so upserts of repeated keys end as they always did.
  const balances = new Map<string, Delta>();
  const deltas = new Map<string, Delta>();
  k = 0;
  for (const block of blocks) {
    const { height, time } = block;
    const r = new BlockReader(block.bytes);
    const count = r.u32();
    for (let position = 0; position < count; position++) {
      const txAt = r.pos;
      const txKey = r.txidKey();
      r.pos = txAt;
      const txid = r.txidBlob();
      deltas.clear();
      for (let n = r.u32(); n > 0; n--) {
        const key = inputKeys[k++]!;
        const spentTxid = r.txidBlob();
        const vout = r.f64();
        const prev = known.get(`${key}:${vout}`);
        if (!prev) continue; // not an output of a standard script
        addDelta(deltas, prev.key, prev.script, -prev.amount);
        s.spend.run(chain, spentTxid, vout, txid, height);
      }
      for (let n = r.u32(); n > 0; n--) {
        const script = r.script();
        const vout = r.f64();
        const amount = r.amount();
        const key = keyOfBlob(script);
        addDelta(deltas, key, script, amount);
        known.set(`${txKey}:${vout}`, { script, key, amount });
        s.output.run(chain, txid, vout, script, amount, height, position);
      }
      for (const [key, d] of deltas) {
        s.history.run(chain, d.script, txid, height, position, time, d.delta);
        addDelta(balances, key, d.script, d.delta);
      }
    }
  }
  for (const b of balances.values()) s.balance.run(chain, b.script, b.delta);
  for (const block of blocks) s.block.run(chain, block.height, block.hash, block.time);
}

/** Must run inside a transaction of `db` (the caller's). */
export function applyBlocksSqlite(db: BetterSqlite3.Database, chain: string, blocks: readonly IndexedBlock[], confirmedMempoolTxids: readonly string[]): void {
  applyEncodedBlocksSqlite(db, chain, blocks.map(encodedOf), confirmedMempoolTxids);
}
