// Writes the row plan of a batch of confirmed blocks to a SQLite index synchronously, with prepared single-row
// statements (in better-sqlite3 twice as fast as multi-row inserts): the indexer's hot path, run
// in the index writer thread (or in-thread for an in-memory store). Imports no Kysely, so the
// thread starts quickly.
import type BetterSqlite3 from 'better-sqlite3';
import { asBuffer, type EncodedBlock, encodedOf, type IndexedBlock, keyOfBlob } from './blocks.ts';
import { addFound, type FoundOutputs, planRows, type RowPlan, type SpentLookup, spentLookup } from './row-plan.ts';
import { freeScriptKey } from './script-keys.ts';
import { heightOfTxNum, txidPrefix } from './txnum.ts';
import type { YoungOutputs } from './young-outputs.ts';

const LOOKUP = 64;

// The outputs of txids by their prefix: every candidate's full txid comes with its outputs, and
// the caller keeps those whose txid is the one asked for. CROSS JOIN fixes SQLite's join order:
// the key-only prefix table first, then each candidate by its number.
const BY_PREFIX =
  'select k.txnum, t.txid, o.vout, o.script, o.amount from chain_txid_keys k cross join chain_txids t cross join chain_outputs o ' +
  'where t.chain = k.chain and t.txnum = k.txnum and o.chain = k.chain and o.txnum = k.txnum and k.chain = ';

// The chain is written into each statement rather than bound: one value fewer to bind per row,
// and binding is a large part of a row's cost through better-sqlite3.
function sqlFor(chain: string) {
  const c = `'${chain.replaceAll("'", "''")}'`;
  return {
    lookup: `${BY_PREFIX}${c} and k.prefix in (${Array(LOOKUP).fill('?').join(',')})`,
    lookupOne: `${BY_PREFIX}${c} and k.prefix = ?`,
    dropMempoolOutputs: `delete from mempool_outputs where chain = ${c} and txid = ?`,
    dropMempoolSpends: `delete from mempool_spends where chain = ${c} and spent_txid = ?`,
    dropMempoolHistory: `delete from mempool_history where chain = ${c} and txid = ?`,
    dropMempoolTx: `delete from chain_mempool where chain = ${c} and txid = ?`,
    txid: `insert into chain_txids (chain, txnum, txid) values (${c}, ?, ?)`,
    txidKey: `insert into chain_txid_keys (chain, prefix, txnum) values (${c}, ?, ?)`,
    output: `insert into chain_outputs (chain, txnum, vout, script, amount, spent_txnum) values (${c}, ?, ?, ?, ?, ?)`,
    // A repeated coinbase txid (BIP30, two early Bitcoin blocks) overwrites its outputs, as in the node.
    drop: `delete from chain_outputs where chain = ${c} and txnum = ? and vout = ?`,
    spend: `update chain_outputs set spent_txnum = ? where chain = ${c} and txnum = ? and vout = ? and spent_txnum is null`,
    // A tx touches a script once, so a key taken is an error (a block applied twice).
    history: `insert into chain_history (chain, skey, txnum, delta) values (${c}, ?, ?, ?)`,
    // Adds to the key's row only when it is this script's: no change means another script holds the key.
    balance:
      `insert into chain_balances (chain, skey, script, confirmed, tx_count) values (${c}, ?, ?, ?, ?) ` +
      'on conflict (chain, skey) do update set confirmed = chain_balances.confirmed + excluded.confirmed, tx_count = chain_balances.tx_count + excluded.tx_count ' +
      'where chain_balances.script = excluded.script',
    keyTaken: `select 1 from chain_balances where chain = ${c} and skey = ?`,
    movedKeys: `select script, skey from chain_script_keys where chain = ${c}`,
    moveKey: `insert into chain_script_keys (chain, script, skey) values (${c}, ?, ?)`,
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

interface OutputRow {
  txnum: bigint | number;
  txid: Uint8Array;
  vout: bigint | number;
  script: Uint8Array;
  amount: bigint | number;
}

/**
 * The SQLite lookup of the row plan's spent outputs: those the writer's young outputs hold, then
 * every output of the other txids, found by their prefix (LOOKUP per statement, in key order).
 * Reads only: the writer thread runs it before writing a batch, and a rollback on the store's own
 * connection.
 */
export function lookupSpentSqlite(db: BetterSqlite3.Database, chain: string, lookup: SpentLookup, young?: YoungOutputs): FoundOutputs {
  const s = statements(db, chain);
  const found: FoundOutputs = new Map();
  const rest = young ? young.take(lookup, found) : lookup.outpoints;
  const wanted = new Set<string>();
  const prefixes = new Map<string, Buffer>();
  for (const o of rest) {
    wanted.add(o.txKey);
    const prefix = txidPrefix(o.txid);
    prefixes.set(keyOfBlob(prefix), prefix);
  }
  const blobs = [...prefixes.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((e) => e[1]);
  const take = (rows: unknown[]) => {
    for (const r of rows as OutputRow[]) {
      const txKey = keyOfBlob(r.txid);
      if (wanted.has(txKey)) addFound(found, txKey, Number(r.vout), { txnum: Number(r.txnum), script: asBuffer(r.script), amount: BigInt(r.amount) });
    }
  };
  let i = 0;
  for (; i + LOOKUP <= blobs.length; i += LOOKUP) take(s.lookup.all(...blobs.slice(i, i + LOOKUP)));
  for (; i < blobs.length; i++) take(s.lookupOne.all(blobs[i]));
  return found;
}

/** The scripts a key collision moved off their own key (script-keys.ts), by keyOfBlob(script): nearly always none. */
export function movedScriptKeysSqlite(db: BetterSqlite3.Database, chain: string): Map<string, Buffer> {
  const moved = new Map<string, Buffer>();
  for (const r of statements(db, chain).movedKeys.all() as { script: Uint8Array; skey: Uint8Array }[]) moved.set(keyOfBlob(r.script), asBuffer(r.skey));
  return moved;
}

/**
 * Must run inside a transaction of `db` (the caller's). Writes the row plan of these blocks
 * (row-plan.ts), each table's rows in key order: outputs and txids append at the right edge, and
 * the other b-trees are walked once from left to right instead of at random. Returns the plan, for
 * the writer's young outputs once the transaction commits.
 */
export function applyEncodedBlocksSqlite(
  db: BetterSqlite3.Database,
  chain: string,
  blocks: readonly EncodedBlock[],
  confirmedMempoolTxids: readonly string[],
  young?: YoungOutputs,
): RowPlan {
  const s = statements(db, chain);
  for (const txid of confirmedMempoolTxids) {
    for (const st of [s.dropMempoolOutputs, s.dropMempoolSpends, s.dropMempoolHistory, s.dropMempoolTx]) st.run(txid);
  }
  const lookup = spentLookup(blocks);
  const plan = planRows(blocks, lookup, lookupSpentSqlite(db, chain, lookup, young));
  for (const sp of plan.spends) {
    if (s.spend.run(sp.spentTxnum, sp.txnum, sp.vout).changes !== 1) {
      throw new Error(`${Buffer.from(sp.txKey, 'latin1').toString('hex')}:${sp.vout} is already spent; block ${heightOfTxNum(sp.spentTxnum)} spends it again`);
    }
  }
  for (const d of plan.drops) s.drop.run(d.txnum, d.vout);
  for (const t of plan.txs) s.txid.run(t.txnum, t.txid);
  for (const t of [...plan.txs].sort((a, b) => Buffer.compare(a.prefix, b.prefix))) s.txidKey.run(t.prefix, t.txnum);
  for (const o of plan.outputs) s.output.run(o.txnum, o.vout, o.script, o.amount, o.spentTxnum);
  const keys = movedScriptKeysSqlite(db, chain);
  for (const b of plan.balances) {
    const key = keys.get(b.scriptKey) ?? b.skey;
    if (s.balance.run(key, b.script, b.delta, b.rows).changes === 1) continue;
    // another script holds this key: this one moves to its next free key, for good
    const moved = freeScriptKey(b.script, (k) => s.keyTaken.get(k) !== undefined);
    s.moveKey.run(b.script, moved);
    s.balance.run(moved, b.script, b.delta, b.rows);
    keys.set(b.scriptKey, moved);
  }
  for (const h of plan.history) s.history.run(keys.get(h.scriptKey) ?? h.skey, h.txnum, h.delta);
  for (const block of plan.blocks) s.block.run(block.height, block.hash, block.time);
  return plan;
}

/** Must run inside a transaction of `db` (the caller's). */
export function applyBlocksSqlite(db: BetterSqlite3.Database, chain: string, blocks: readonly IndexedBlock[], confirmedMempoolTxids: readonly string[]): void {
  applyEncodedBlocksSqlite(db, chain, blocks.map(encodedOf), confirmedMempoolTxids);
}
