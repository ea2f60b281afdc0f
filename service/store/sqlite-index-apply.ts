// Applies a batch of confirmed blocks to a SQLite index synchronously, with prepared single-row
// statements (in better-sqlite3 twice as fast as multi-row inserts): the indexer's hot path, run
// in the index writer thread (or in-thread for an in-memory store). Imports no Kysely, so the
// thread starts quickly.
import type BetterSqlite3 from 'better-sqlite3';
import { asBuffer, BlockReader, type EncodedBlock, encodedOf, keyOfBlob } from './index-batch.ts';
import type { IndexedBlock } from './index-rows.ts';

const LOOKUP = 64;

// The chain is written into each statement rather than bound: one value fewer to bind per row,
// and binding is a large part of a row's cost through better-sqlite3.
function sqlFor(chain: string) {
  const c = `'${chain.replaceAll("'", "''")}'`;
  const insertOutput = (spent: string) =>
    `insert into chain_outputs (chain, txid, vout, script, amount, height, position, spent_txid, spent_height) values (${c}, ?, ?, ?, ?, ?, ?, ${spent})`;
  // A repeated coinbase txid (BIP30, two early Bitcoin blocks) overwrites its outputs, as in the node.
  const overwriteOutput =
    ' on conflict (chain, txid, vout) do update set script = excluded.script, amount = excluded.amount, height = excluded.height, position = excluded.position, ' +
    'spent_txid = excluded.spent_txid, spent_height = excluded.spent_height';
  return {
    lookup: `select txid, vout, script, amount from chain_outputs where chain = ${c} and txid in (${Array(LOOKUP).fill('?').join(',')})`,
    lookupOne: `select txid, vout, script, amount from chain_outputs where chain = ${c} and txid = ?`,
    dropMempoolOutputs: `delete from mempool_outputs where chain = ${c} and txid = ?`,
    dropMempoolSpends: `delete from mempool_spends where chain = ${c} and spent_txid = ?`,
    dropMempoolHistory: `delete from mempool_history where chain = ${c} and txid = ?`,
    dropMempoolTx: `delete from chain_mempool where chain = ${c} and txid = ?`,
    // Plain inserts, and the same rows again as upserts for the rare key already taken: an upsert
    // costs SQLite a second search of the b-tree on every row.
    output: insertOutput('null, null'),
    outputOverwrite: insertOutput('null, null') + overwriteOutput,
    spentOutput: insertOutput('?, ?'),
    spentOutputOverwrite: insertOutput('?, ?') + overwriteOutput,
    spend: `update chain_outputs set spent_txid = ?, spent_height = ? where chain = ${c} and txid = ? and vout = ? and spent_txid is null`,
    // Keyed by height and position: a tx touches a script once, so a key taken is an error (a
    // block applied twice), and a txid repeated in a later block (BIP30) is a row of its own.
    history: `insert into chain_history (chain, script, height, position, txid, time, delta) values (${c}, ?, ?, ?, ?, ?, ?)`,
    balance:
      `insert into chain_balances (chain, script, confirmed, tx_count) values (${c}, ?, ?, ?) ` +
      'on conflict (chain, script) do update set confirmed = chain_balances.confirmed + excluded.confirmed, tx_count = chain_balances.tx_count + excluded.tx_count',
    block: `insert into chain_blocks (chain, height, hash, time) values (${c}, ?, ?, ?)`,
  };
}

type Statements = Record<keyof ReturnType<typeof sqlFor>, BetterSqlite3.Statement>;
const prepared = new WeakMap<BetterSqlite3.Database, Map<string, Statements>>();

function statements(db: BetterSqlite3.Database, chain: string): Statements {
  let byChain = prepared.get(db);
  if (!byChain) prepared.set(db, (byChain = new Map()));
  let s = byChain.get(chain);
  if (!s) {
    s = Object.fromEntries(
      Object.entries(sqlFor(chain)).map(([name, text]) => {
        const statement = db.prepare(text);
        // A write's result carries lastInsertRowid, a BigInt allocated per row under safe integers.
        return [name, statement.reader ? statement : statement.safeIntegers(false)];
      }),
    ) as Statements;
    byChain.set(chain, s);
  }
  return s;
}

const keyTaken = (err: unknown): boolean => (err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY';

// Values are bound as arguments, not as one array: better-sqlite3 reads an array's elements one
// N-API call at a time.
function writeOutput(s: Statements, o: NewOutput): void {
  try {
    if (o.spentTxid === null) s.output.run(o.txid, o.vout, o.script, o.amount, o.height, o.position);
    else s.spentOutput.run(o.txid, o.vout, o.script, o.amount, o.height, o.position, o.spentTxid, o.spentHeight);
  } catch (err) {
    if (!keyTaken(err)) throw err;
    if (o.spentTxid === null) s.outputOverwrite.run(o.txid, o.vout, o.script, o.amount, o.height, o.position);
    else s.spentOutputOverwrite.run(o.txid, o.vout, o.script, o.amount, o.height, o.position, o.spentTxid, o.spentHeight);
  }
}

interface OutputRow {
  txid: Uint8Array;
  vout: bigint | number;
  script: Uint8Array;
  amount: bigint | number;
}

/** An output already indexed, as the batch knows it; `key` is its script as a latin1 map key. */
interface StoredOutput {
  fresh: false;
  script: Uint8Array;
  key: string;
  amount: bigint;
}

/** An output of the batch: written at its end, once the batch's spends of it are known. */
interface NewOutput {
  fresh: true;
  /** Its txid as a latin1 map key: sorts as the blob does in SQLite (memcmp). */
  txKey: string;
  script: Uint8Array;
  key: string;
  amount: bigint;
  txid: Buffer;
  vout: number;
  height: number;
  position: number;
  spentTxid: Buffer | null;
  spentHeight: number | null;
}

/** Outputs by their txid's map key, then by vout: no string is built per outpoint. */
type Known = Map<string, (StoredOutput | NewOutput)[]>;

function remember(known: Known, txKey: string, vout: number, output: StoredOutput | NewOutput): void {
  let outputs = known.get(txKey);
  if (!outputs) known.set(txKey, (outputs = []));
  outputs[vout] = output;
}

/** Outputs of these txids (as their blobs) already in the index. */
function lookupSpent(s: Statements, blobs: readonly Uint8Array[], found: Known): void {
  const take = (rows: unknown[]) => {
    for (const r of rows as OutputRow[]) {
      const script = asBuffer(r.script);
      remember(found, keyOfBlob(r.txid), Number(r.vout), { fresh: false, script, key: keyOfBlob(script), amount: BigInt(r.amount) });
    }
  };
  let i = 0;
  for (; i + LOOKUP <= blobs.length; i += LOOKUP) take(s.lookup.all(...blobs.slice(i, i + LOOKUP)));
  for (; i < blobs.length; i++) take(s.lookupOne.all(blobs[i]));
}

/** A spend of an output indexed by an earlier batch, marked once the batch's rows are sorted. */
interface Spend {
  key: string;
  vout: number;
  spentTxid: Buffer;
  txid: Buffer;
  height: number;
}

interface HistoryEntry {
  key: string;
  script: Uint8Array;
  height: number;
  position: number;
  txid: Buffer;
  time: number;
  delta: bigint;
}

/** Orders [latin1 key, ...] pairs as SQLite orders the bytes behind the keys. */
const byKey = (a: readonly [string, ...unknown[]], b: readonly [string, ...unknown[]]): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

interface Delta {
  script: Uint8Array;
  delta: bigint;
  /** history rows (for a balance: the batch's rows of the script) */
  rows: number;
}

function addDelta(deltas: Map<string, Delta>, key: string, script: Uint8Array, amount: bigint, rows = 0): void {
  const d = deltas.get(key);
  if (d) {
    d.delta += amount;
    d.rows += rows;
  } else deltas.set(key, { script, delta: amount, rows });
}

/**
 * Must run inside a transaction of `db` (the caller's). Writes exactly the rows buildIndexRows
 * computes for these blocks, straight from their encoding (no row objects): outpoints and
 * scripts are keyed by their bytes as latin1, which meet where the old hex keys met.
 */
export function applyEncodedBlocksSqlite(db: BetterSqlite3.Database, chain: string, blocks: readonly EncodedBlock[], confirmedMempoolTxids: readonly string[]): void {
  const s = statements(db, chain);
  for (const txid of confirmedMempoolTxids) {
    for (const st of [s.dropMempoolOutputs, s.dropMempoolSpends, s.dropMempoolHistory, s.dropMempoolTx]) st.run(txid);
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
  const known: Known = new Map();
  lookupSpent(s, [...wanted.entries()].sort(byKey).map(([, blob]) => blob), known);

  // Pass 2: rows in block and tx order, so upserts of repeated keys end as they always did. An
  // output is written at the end, spent already when a later tx of the batch spends it.
  const balances = new Map<string, Delta>();
  const deltas = new Map<string, Delta>();
  const outputs: NewOutput[] = [];
  const spends: Spend[] = [];
  const history: HistoryEntry[] = [];
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
        const prev = known.get(key)?.[vout];
        if (!prev) continue; // not an output of a standard script
        addDelta(deltas, prev.key, prev.script, -prev.amount);
        if (!prev.fresh) {
          spends.push({ key, vout, spentTxid, txid, height });
        } else {
          if (prev.spentTxid !== null) throw new Error(`${prev.txid.toString('hex')}:${vout} is spent twice, in blocks ${prev.spentHeight} and ${height}`);
          prev.spentTxid = txid;
          prev.spentHeight = height;
        }
      }
      for (let n = r.u32(); n > 0; n--) {
        const script = r.script();
        const vout = r.f64();
        const amount = r.amount();
        const key = keyOfBlob(script);
        addDelta(deltas, key, script, amount);
        const created: NewOutput = { fresh: true, txKey, script, key, amount, txid, vout, height, position, spentTxid: null, spentHeight: null };
        outputs.push(created);
        remember(known, txKey, vout, created);
      }
      for (const [key, d] of deltas) {
        history.push({ key, script: d.script, height, position, txid, time, delta: d.delta });
        addDelta(balances, key, d.script, d.delta, 1);
      }
    }
  }
  // Each table is written in its key order (stable sorts keep block order within a key): the
  // b-tree is walked once from left to right instead of at random, so at a million scripts a
  // page is read and dirtied once per batch rather than once per row.
  for (const sp of spends.sort((a, b) => byKey([a.key], [b.key]) || a.vout - b.vout)) {
    if (s.spend.run(sp.txid, sp.height, sp.spentTxid, sp.vout).changes !== 1) throw new Error(`${asBuffer(sp.spentTxid).toString('hex')}:${sp.vout} is already spent; block ${sp.height} spends it again`);
  }
  for (const h of history.sort((a, b) => byKey([a.key], [b.key]))) s.history.run(h.script, h.height, h.position, h.txid, h.time, h.delta);
  for (const o of outputs.sort((a, b) => byKey([a.txKey], [b.txKey]) || a.vout - b.vout)) writeOutput(s, o);
  for (const [, b] of [...balances.entries()].sort(byKey)) s.balance.run(b.script, b.delta, b.rows);
  for (const block of blocks) s.block.run(block.height, block.hash, block.time);
}

/** Must run inside a transaction of `db` (the caller's). */
export function applyBlocksSqlite(db: BetterSqlite3.Database, chain: string, blocks: readonly IndexedBlock[], confirmedMempoolTxids: readonly string[]): void {
  applyEncodedBlocksSqlite(db, chain, blocks.map(encodedOf), confirmedMempoolTxids);
}
