// Table shapes as Kysely sees them. Integers may come back as number, bigint (SQLite with safe
// integers) or string (PostgreSQL int8/numeric): rows are normalised in the store functions.
import type { Generated } from 'kysely';

type Int = number | bigint | string;

export interface ApiKeyTable {
  id: string;
  key_hash: string;
  label: string;
  created_at: Int;
  revoked_at: Int | null;
}

export interface BlockTable {
  chain: string;
  height: Int;
  hash: string;
  time: Int;
}

export interface OutputTable {
  chain: string;
  txid: string;
  vout: Int;
  address: string;
  script: string;
  amount: Int;
  /** null while only in the mempool */
  height: Int | null;
  /** position of the creating tx in its block, for oldest-first ordering */
  position: Int;
}

/** Spends are insert-only rows (not updates of outputs) so a block's writes batch and roll back simply. */
export interface SpendTable {
  chain: string;
  txid: string;
  vout: Int;
  spent_txid: string;
  /** null: spent by a mempool transaction */
  height: Int | null;
}

export interface HistoryTable {
  chain: string;
  address: string;
  txid: string;
  height: Int | null;
  position: Int;
  time: Int;
  delta: Int;
}

export interface MempoolTable {
  chain: string;
  txid: string;
  first_seen: Int;
}

export interface MigrationTable {
  id: Generated<Int>;
  name: string;
}

export interface Database {
  api_keys: ApiKeyTable;
  chain_blocks: BlockTable;
  chain_outputs: OutputTable;
  chain_spends: SpendTable;
  chain_history: HistoryTable;
  chain_mempool: MempoolTable;
}
