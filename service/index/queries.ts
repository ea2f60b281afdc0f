// The address index's read queries whose cost follows the answer, not the address's history (the
// keys and index they rely on are migration 0004's). Built here so the plan tests explain exactly
// the statements the store runs.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Confirmed history rows of `scripts`, newest first, then by txid and script. For one script this
 * is a backward range read of chain_history's key (chain, script, height, position), which is
 * unique per script: the order needs nothing past height and position, and no sort.
 */
export function confirmedHistoryQuery(db: Db, chain: string, scripts: readonly Uint8Array[]) {
  const base = db
    .selectFrom('chain_history')
    .select(['script', 'txid', 'height', 'position', 'time', 'delta'])
    .where('chain', '=', chain);
  if (scripts.length === 1) return base.where('script', '=', scripts[0]!).orderBy('height', 'desc').orderBy('position', 'desc');
  return base.where('script', 'in', scripts).orderBy('height', 'desc').orderBy('position', 'desc').orderBy('txid').orderBy('script');
}

/** Confirmed outputs of `scripts` not spent by a confirmed tx, oldest first: the partial index
 * chain_outputs_unspent holds exactly these, in this order for one script. */
export function confirmedUnspentQuery(db: Db, chain: string, scripts: readonly Uint8Array[]) {
  return db
    .selectFrom('chain_outputs')
    .select(['txid', 'vout', 'script', 'amount', 'height', 'position'])
    .where('chain', '=', chain)
    .where(scripts.length === 1 ? (eb) => eb('script', '=', scripts[0]!) : (eb) => eb('script', 'in', scripts))
    .where('spent_txid', 'is', null)
    .orderBy('height')
    .orderBy('position')
    .orderBy('vout');
}

/** History rows as the page order compares them: height desc, position desc, txid, script. */
export interface PageKey {
  height: number;
  position: number;
  txid: Uint8Array;
  script: Uint8Array;
}

// Byte order as SQLite (memcmp, then length) and PostgreSQL's bytea compare them.
export function pageOrder(a: PageKey, b: PageKey): number {
  return b.height - a.height || b.position - a.position || Buffer.compare(a.txid, b.txid) || Buffer.compare(a.script, b.script);
}

/** Unspent outputs as unspent() orders them: height, position, vout. */
export interface UnspentKey {
  height: number;
  position: number;
  vout: number;
}

export function unspentOrder(a: UnspentKey, b: UnspentKey): number {
  return a.height - b.height || a.position - b.position || a.vout - b.vout;
}
