// The address index's read queries whose cost follows the answer, not the address's history (the
// keys and index they rely on are migrations 0007's and 0008's). Built here so the plan tests
// explain exactly the statements the store runs. Rows carry tx numbers (txnum.ts); each answer row's txid is read
// from chain_txids and its block time from chain_blocks, by key.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../store/schema.ts';
import { POSITIONS } from './txnum.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Which of the keys' history rows a read takes: a page (newest first), or every row of one tx. */
export type HistoryRows = { limit: number; offset?: number } | { txnum: number };

/**
 * Confirmed history rows of the scripts with these keys (script-keys.ts), newest first, then by
 * key. For one key the rows are a backward range read of chain_history's key (chain, skey, txnum),
 * which is unique per script: the order needs no sort. The page is cut from chain_history alone,
 * in a subquery, before the txid and block time are joined by key to its rows: PostgreSQL does not
 * flatten a subquery with a LIMIT, so a bulk load's stale statistics (5 rows expected for a key
 * that has 10,000) cannot make it join every row of the address and sort them to keep 25 (355 ms
 * for the 10,000-entry probe on the 1M bench chain). The caller names each row's script by its key.
 */
export function confirmedHistoryQuery(db: Db, chain: string, keys: readonly Uint8Array[], rows: HistoryRows) {
  let page = db.selectFrom('chain_history').select(['chain', 'skey', 'txnum', 'delta']).where('chain', '=', chain);
  page = keys.length === 1 ? page.where('skey', '=', keys[0]!) : page.where('skey', 'in', keys);
  if ('txnum' in rows) page = page.where('txnum', '=', rows.txnum);
  page = page.orderBy('txnum', 'desc');
  if (keys.length > 1) page = page.orderBy('skey');
  if ('limit' in rows) page = page.limit(rows.limit).offset(rows.offset ?? 0);
  const joined = db
    .selectFrom(page.as('h'))
    .innerJoin('chain_txids as t', (j) => j.onRef('t.chain', '=', 'h.chain').onRef('t.txnum', '=', 'h.txnum'))
    .innerJoin('chain_blocks as b', (j) => j.onRef('b.chain', '=', 'h.chain').on('b.height', '=', sql<number>`h.txnum / ${sql.lit(POSITIONS)}`))
    .select(['h.skey', 'h.txnum', 'h.delta', 't.txid', 'b.time'])
    .orderBy('h.txnum', 'desc');
  return keys.length > 1 ? joined.orderBy('h.skey') : joined;
}

/**
 * Up to `limit` confirmed outputs of `script` not spent by a confirmed tx, after `after` (its
 * (txnum, vout); null: from the first), oldest first: a range read of the partial index
 * chain_outputs_unspent, which holds exactly these in this order, cut by the key and the LIMIT at
 * the store (keyset paging: a page costs its rows, not the outputs before it).
 */
export function confirmedUnspentQuery(db: Db, chain: string, script: Uint8Array, dialect: 'sqlite' | 'postgres', page: { after: UnspentKey | null; limit: number }) {
  // Without statistics SQLite prices the narrow table's primary key (chain, txnum, vout) below
  // the partial index and would scan every output of the chain: it is named for SQLite.
  const outputs = dialect === 'sqlite' ? sql<Database['chain_outputs']>`chain_outputs`.as<'o'>(sql`o indexed by chain_outputs_unspent`) : ('chain_outputs as o' as const);
  let q = db
    .selectFrom(outputs)
    .innerJoin('chain_txids as t', (j) => j.onRef('t.chain', '=', 'o.chain').onRef('t.txnum', '=', 'o.txnum'))
    .select(['o.txnum', 'o.vout', 'o.script', 'o.amount', 't.txid'])
    .where('o.chain', '=', chain)
    .where('o.spent_txnum', 'is', null)
    .where('o.script', '=', script);
  // A row value compares as the index orders: both stores read it as a range of the index.
  if (page.after) q = q.where(sql<boolean>`(o.txnum, o.vout) > (${page.after.txnum}, ${page.after.vout})`);
  return q.orderBy('o.txnum').orderBy('o.vout').limit(page.limit);
}

/** History rows as the page order compares them: newest tx first (height, then position), then txid, script. */
export interface PageKey {
  txnum: number;
  txid: Uint8Array;
  script: Uint8Array;
}

// Byte order as SQLite (memcmp, then length) and PostgreSQL's bytea compare them.
export function pageOrder(a: PageKey, b: PageKey): number {
  return b.txnum - a.txnum || Buffer.compare(a.txid, b.txid) || Buffer.compare(a.script, b.script);
}

/** Unspent outputs as unspent() orders them: height, position (their tx number), vout. */
export interface UnspentKey {
  txnum: number;
  vout: number;
}

export function unspentOrder(a: UnspentKey, b: UnspentKey): number {
  return a.txnum - b.txnum || a.vout - b.vout;
}
