// Writes the row plan of a batch of confirmed blocks to a SQLite index synchronously, with prepared single-row
// statements (in better-sqlite3 twice as fast as multi-row inserts): the indexer's hot path, run
// in the index writer thread (or in-thread for an in-memory store). Imports no Kysely, so the
// thread starts quickly.
import type BetterSqlite3 from 'better-sqlite3';
import { asBuffer, type EncodedBlock, encodedOf, type IndexedBlock, keyOfBlob } from './blocks.ts';
import { addFound, type FoundOutputs, type PlannedOutput, planRows, type SpentLookup, spentLookup } from './row-plan.ts';

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
function writeOutput(s: Statements, o: PlannedOutput): void {
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

/**
 * The SQLite lookup of the row plan's spent outputs: every output of their txids (a prefix of the
 * primary key), LOOKUP txids per statement, in key order. Reads only: the writer thread runs it
 * before writing a batch, and a rollback on the store's own connection.
 */
export function lookupSpentSqlite(db: BetterSqlite3.Database, chain: string, lookup: SpentLookup): FoundOutputs {
  const s = statements(db, chain);
  const blobs: Buffer[] = [];
  let last: string | null = null;
  for (const o of lookup.outpoints) {
    if (o.txKey !== last) blobs.push(o.txid);
    last = o.txKey;
  }
  const found: FoundOutputs = new Map();
  const take = (rows: unknown[]) => {
    for (const r of rows as OutputRow[]) addFound(found, keyOfBlob(r.txid), Number(r.vout), { script: asBuffer(r.script), amount: BigInt(r.amount) });
  };
  let i = 0;
  for (; i + LOOKUP <= blobs.length; i += LOOKUP) take(s.lookup.all(...blobs.slice(i, i + LOOKUP)));
  for (; i < blobs.length; i++) take(s.lookupOne.all(blobs[i]));
  return found;
}

/**
 * Must run inside a transaction of `db` (the caller's). Writes the row plan of these blocks
 * (row-plan.ts), each table's rows in key order: the b-tree is walked once from left to right
 * instead of at random, so at a million scripts a page is read and dirtied once per batch rather
 * than once per row.
 */
export function applyEncodedBlocksSqlite(db: BetterSqlite3.Database, chain: string, blocks: readonly EncodedBlock[], confirmedMempoolTxids: readonly string[]): void {
  const s = statements(db, chain);
  for (const txid of confirmedMempoolTxids) {
    for (const st of [s.dropMempoolOutputs, s.dropMempoolSpends, s.dropMempoolHistory, s.dropMempoolTx]) st.run(txid);
  }
  const lookup = spentLookup(blocks);
  const plan = planRows(blocks, lookup, lookupSpentSqlite(db, chain, lookup));
  for (const sp of plan.spends) {
    if (s.spend.run(sp.spentTxid, sp.spentHeight, sp.txid, sp.vout).changes !== 1) throw new Error(`${sp.txid.toString('hex')}:${sp.vout} is already spent; block ${sp.spentHeight} spends it again`);
  }
  for (const h of plan.history) s.history.run(h.script, h.height, h.position, h.txid, h.time, h.delta);
  for (const o of plan.outputs) writeOutput(s, o);
  for (const b of plan.balances) s.balance.run(b.script, b.delta, b.rows);
  for (const block of plan.blocks) s.block.run(block.height, block.hash, block.time);
}

/** Must run inside a transaction of `db` (the caller's). */
export function applyBlocksSqlite(db: BetterSqlite3.Database, chain: string, blocks: readonly IndexedBlock[], confirmedMempoolTxids: readonly string[]): void {
  applyEncodedBlocksSqlite(db, chain, blocks.map(encodedOf), confirmedMempoolTxids);
}
