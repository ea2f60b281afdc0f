// Writes the row plan (row-plan.ts) of a batch of confirmed blocks to a PostgreSQL index: one statement per table per chunk of
// rows, each column sent as one array parameter (binary, pg-arrays.ts) and spread by `unnest`, on a
// raw pg client (no query building per batch). A batch is about ten round trips whatever its size, so they are
// simply awaited in turn. SQLite's path is sqlite-apply.ts; the storage suite runs both.
import type pg from 'pg';
import { type EncodedBlock, keyOfBlob } from './blocks.ts';
import { addFound, type FoundOutputs, type PlannedBalance, planRows, type SpentLookup, spentLookup } from './row-plan.ts';
import { freeScriptKey, otherScriptKeys } from './script-keys.ts';
import { toBigInt, toNumber } from '../store/database.ts';
import { byteaArray, int4Array, int8Array, textArray } from './pg-arrays.ts';
import { txidPrefix } from './txnum.ts';

/**
 * Rows per statement. Large enough that a batch of the indexer (10,000 txs) is one statement per
 * table; bounded so a very large batch does not build one huge array literal.
 */
export const PG_CHUNK_ROWS = 25_000;

function chunks<T>(items: readonly T[], size = PG_CHUNK_ROWS): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const INSERT_TXIDS = `insert into chain_txids (chain, txnum, txid)
  select $1::varchar, * from unnest($2::int8[], $3::bytea[]) as v(txnum, txid)`;

const INSERT_TXID_KEYS = `insert into chain_txid_keys (chain, prefix, txnum)
  select $1::varchar, * from unnest($2::bytea[], $3::int8[]) as v(prefix, txnum)
  order by v.prefix, v.txnum -- in key order: each index page is visited once per statement`;

const INSERT_OUTPUTS = `insert into chain_outputs (chain, txnum, vout, script, amount, spent_txnum)
  select $1::varchar, * from unnest($2::int8[], $3::int4[], $4::bytea[], $5::int8[], $6::int8[])
    as v(txnum, vout, script, amount, spent_txnum)`;

// A repeated coinbase txid (BIP30, two early Bitcoin blocks) overwrites its outputs, as in the node.
const DROP_OUTPUTS = `delete from chain_outputs c using unnest($2::int8[], $3::int4[]) as v(txnum, vout)
  where c.chain = $1 and c.txnum = v.txnum and c.vout = v.vout`;

// The planner's row counts for chain_outputs lag far behind a bulk load (analyze runs now and then),
// and with them it joined a batch's keys against every row of the chain: a hash join, or worse a
// nested loop over the table. A lateral subquery kept apart by `offset 0` can only be run once per
// key, by the primary key, whatever the statistics say; the update then finds its rows by ctid.
// The lookup names no `spent_txnum is null`: with it, the partial index of unspent outputs by script
// matches too, and on stale statistics the planner scanned that index (every unspent output of the
// chain) for each key; an output already spent is left out after the lookup instead.
export const MARK_SPENT = `with found as materialized (
    select t.row, t.already, v.spent_txnum
    from unnest($2::int8[], $3::int4[], $4::int8[]) as v(txnum, vout, spent_txnum)
    cross join lateral (select c.ctid as row, c.spent_txnum as already from chain_outputs c
      where c.chain = $1 and c.txnum = v.txnum and c.vout = v.vout offset 0) as t
  ), target as materialized (select row, spent_txnum from found where already is null)
  update chain_outputs as o set spent_txnum = target.spent_txnum
  from target where o.ctid = target.row and o.ctid = any(array(select row from target))`;

const INSERT_HISTORY = `insert into chain_history (chain, skey, txnum, delta)
  select $1::varchar, * from unnest($2::bytea[], $3::int8[], $4::int8[]) as v(skey, txnum, delta)
  order by v.skey, v.txnum -- one row per (script, tx): a conflict is a block applied twice and fails the batch`;

// Adds to a key's row only when it is this script's (script-keys.ts): a row count short of the
// rows given means some keys are held by other scripts.
const ADD_BALANCES = `insert into chain_balances (chain, skey, script, confirmed, tx_count)
  select $1::varchar, * from unnest($2::bytea[], $3::bytea[], $4::int8[], $5::int8[])
  on conflict (chain, skey) do update set confirmed = chain_balances.confirmed + excluded.confirmed, tx_count = chain_balances.tx_count + excluded.tx_count
  where chain_balances.script = excluded.script`;

const TAKEN_KEYS = 'select skey, script from chain_balances where chain = $1 and skey = any($2::bytea[])';
const MOVE_KEY = 'insert into chain_script_keys (chain, script, skey) values ($1, $2, $3)';
const MOVED_KEYS = 'select script, skey from chain_script_keys where chain = $1';

const INSERT_BLOCKS = `insert into chain_blocks (chain, height, hash, time) select $1::varchar, * from unnest($2::int4[], $3::text[], $4::int8[])`;

// The outputs the batch spends: each txid's prefix by the key-only table, its candidates' whole
// txids (the caller keeps the one asked for) and the output by the primary key, each lateral step
// kept apart (see MARK_SPENT) so stale statistics cannot turn a key lookup into a scan.
const LOOKUP_SPENT = `select k.txnum, t.txid, o.vout, o.script, o.amount from unnest($2::bytea[], $3::int4[]) as s(prefix, vout)
  cross join lateral (select k.txnum from chain_txid_keys k where k.chain = $1 and k.prefix = s.prefix offset 0) as k
  cross join lateral (select t.txid from chain_txids t where t.chain = $1 and t.txnum = k.txnum offset 0) as t
  cross join lateral (select c.vout, c.script, c.amount from chain_outputs c
    where c.chain = $1 and c.txnum = k.txnum and c.vout = s.vout offset 0) as o`;

const DROP_MEMPOOL = [
  'delete from mempool_outputs where chain = $1 and txid = any($2::text[])',
  'delete from mempool_spends where chain = $1 and spent_txid = any($2::text[])',
  'delete from mempool_history where chain = $1 and txid = any($2::text[])',
  'delete from chain_mempool where chain = $1 and txid = any($2::text[])',
];

const bytes = (v: unknown): Buffer => {
  if (Buffer.isBuffer(v)) return v;
  throw new TypeError('script column is not binary');
};

/** Applies consecutive blocks in one transaction; `confirmed` are mempool txids they confirm. */
export async function applyBlocksPostgres(pool: pg.Pool, chain: string, blocks: readonly EncodedBlock[], confirmed: readonly string[]): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    // The index is derived data and its tip (chain_blocks) commits in the same transaction, so a
    // commit lost to a server crash loses whole batches at the tip and nothing else: they are
    // indexed again. The tip check below stops a writer that kept running across such a crash
    // from writing on past the lost batches.
    await client.query('set local synchronous_commit = off');
    await checkTip(client, chain, blocks[0]!.height);
    if (confirmed.length > 0) for (const text of DROP_MEMPOOL) await client.query(text, [chain, textArray(confirmed)]);
    const lookup = spentLookup(blocks);
    const rows = planRows(blocks, lookup, await lookupSpentPostgres(client, chain, lookup));
    let marked = 0;
    for (const part of chunks(rows.spends)) {
      const r = await client.query(MARK_SPENT, [chain, int8Array(part.map((s) => s.txnum)), int4Array(part.map((s) => s.vout)), int8Array(part.map((s) => s.spentTxnum))]);
      marked += r.rowCount ?? 0;
    }
    // An output missing or already spent (one spent twice across batches) fails the batch.
    if (marked !== rows.spends.length) throw new Error(`${rows.spends.length - marked} of the ${rows.spends.length} indexed outputs these blocks spend are already spent`);
    for (const part of chunks(rows.drops)) await client.query(DROP_OUTPUTS, [chain, int8Array(part.map((d) => d.txnum)), int4Array(part.map((d) => d.vout))]);
    for (const part of chunks(rows.txs)) await client.query(INSERT_TXIDS, [chain, int8Array(part.map((t) => t.txnum)), byteaArray(part.map((t) => t.txid))]);
    for (const part of chunks(rows.txs)) await client.query(INSERT_TXID_KEYS, [chain, byteaArray(part.map((t) => t.prefix)), int8Array(part.map((t) => t.txnum))]);
    for (const part of chunks(rows.outputs)) {
      await client.query(INSERT_OUTPUTS, [
        chain,
        int8Array(part.map((o) => o.txnum)),
        int4Array(part.map((o) => o.vout)),
        byteaArray(part.map((o) => o.script)),
        int8Array(part.map((o) => o.amount)),
        int8Array(part.map((o) => o.spentTxnum)),
      ]);
    }
    const keys = await addBalancesPostgres(client, chain, rows.balances);
    for (const part of chunks(rows.history)) {
      await client.query(INSERT_HISTORY, [
        chain,
        byteaArray(part.map((h) => keys.get(h.scriptKey) ?? h.skey)),
        int8Array(part.map((h) => h.txnum)),
        int8Array(part.map((h) => h.delta)),
      ]);
    }
    await client.query(INSERT_BLOCKS, [chain, int4Array(rows.blocks.map((b) => b.height)), textArray(rows.blocks.map((b) => b.hash)), int8Array(rows.blocks.map((b) => b.time))]);
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw err;
  } finally {
    client.release(broken); // a client that could not roll back is closed, not reused
  }
}

/** The scripts a key collision moved off their own key (script-keys.ts), by keyOfBlob(script): nearly always none. */
export async function movedScriptKeysPostgres(client: pg.PoolClient | pg.Pool, chain: string): Promise<Map<string, Buffer>> {
  const r = await client.query<{ script: unknown; skey: unknown }>(MOVED_KEYS, [chain]);
  return new Map(r.rows.map((row) => [keyOfBlob(bytes(row.script)), bytes(row.skey)]));
}

/**
 * Adds the batch's balance changes, in bulk by each script's key; a script whose key another holds
 * (in the store or earlier in this batch) moves to its next free key, one statement at a time.
 * Returns the moved scripts' keys, for the history rows.
 */
async function addBalancesPostgres(client: pg.PoolClient, chain: string, balances: readonly PlannedBalance[]): Promise<Map<string, Buffer>> {
  const keys = await movedScriptKeysPostgres(client, chain);
  const keyOf = (b: PlannedBalance) => keys.get(b.scriptKey) ?? b.skey;
  // one statement cannot add to a row twice: a key met twice in the batch goes one at a time
  const inBatch = new Set<string>();
  const bulk: PlannedBalance[] = [];
  const clashing: PlannedBalance[] = [];
  for (const b of balances) {
    const k = keyOfBlob(keyOf(b));
    (inBatch.has(k) ? clashing : bulk).push(b);
    inBatch.add(k);
  }
  for (const part of chunks(bulk)) {
    const r = await client.query(ADD_BALANCES, [
      chain,
      byteaArray(part.map(keyOf)),
      byteaArray(part.map((b) => b.script)),
      int8Array(part.map((b) => b.delta)),
      int8Array(part.map((b) => b.rows)),
    ]);
    if (r.rowCount === part.length) continue;
    // which keys another script holds: the rows whose script is not the one given
    const held = await client.query<{ skey: unknown; script: unknown }>(TAKEN_KEYS, [chain, byteaArray(part.map(keyOf))]);
    const holder = new Map(held.rows.map((row) => [keyOfBlob(bytes(row.skey)), bytes(row.script)]));
    clashing.push(...part.filter((b) => !holder.get(keyOfBlob(keyOf(b)))?.equals(b.script)));
  }
  for (const b of clashing) {
    const add = (key: Buffer) => client.query(ADD_BALANCES, [chain, byteaArray([key]), byteaArray([b.script]), int8Array([b.delta]), int8Array([b.rows])]);
    // the script may be the key's holder, met after a newcomer to its key
    if ((await add(keyOf(b))).rowCount === 1) continue;
    const candidates = otherScriptKeys(b.script);
    const taken = await client.query<{ skey: unknown }>(TAKEN_KEYS, [chain, byteaArray(candidates)]);
    const held = new Set(taken.rows.map((row) => keyOfBlob(bytes(row.skey))));
    const moved = freeScriptKey(b.script, (k) => held.has(keyOfBlob(k)));
    await client.query(MOVE_KEY, [chain, b.script, moved]);
    await add(moved);
    keys.set(b.scriptKey, moved);
  }
  return keys;
}

async function checkTip(client: pg.PoolClient, chain: string, first: number): Promise<void> {
  const r = await client.query<{ height: unknown }>('select max(height) as height from chain_blocks where chain = $1', [chain]);
  const height = r.rows[0]?.height;
  if (height === null || height === undefined) return;
  const next = toNumber(height) + 1;
  if (next !== first) throw new Error(`the index's tip is at height ${next - 1}: the next block to index is ${next}, not ${first}`);
}

/** The PostgreSQL lookup of the row plan's spent outputs: exact outpoints, by txid prefix and then by key. */
export async function lookupSpentPostgres(client: pg.PoolClient | pg.Pool, chain: string, lookup: SpentLookup): Promise<FoundOutputs> {
  const found: FoundOutputs = new Map();
  const wanted = new Set(lookup.outpoints.map((o) => o.txKey));
  for (const part of chunks(lookup.outpoints)) {
    const r = await client.query<{ txnum: unknown; txid: unknown; vout: unknown; script: unknown; amount: unknown }>(LOOKUP_SPENT, [
      chain,
      byteaArray(part.map((o) => txidPrefix(o.txid))),
      int4Array(part.map((o) => o.vout)),
    ]);
    for (const row of r.rows) {
      const txKey = keyOfBlob(bytes(row.txid));
      if (wanted.has(txKey)) addFound(found, txKey, toNumber(row.vout), { txnum: toNumber(row.txnum), script: bytes(row.script), amount: toBigInt(row.amount) });
    }
  }
  return found;
}
