// Table shapes as Kysely sees them. Integers may come back as number, bigint (SQLite with safe
// integers) or string (PostgreSQL int8/numeric); scripts as Buffer. Rows are normalised in the
// store functions.
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

// The index is keyed by scriptPubKey, not by address text: an address is a rendering of a script
// (Bitcoin Cash has two renderings of one script), so queries turn addresses into scripts.

/** Outputs of confirmed transactions paying a standard script, keyed (chain, txnum, vout). A tx
 * number is height * 2^20 + position in the block (service/index/txnum.ts). */
export interface OutputTable {
  chain: string;
  txnum: Int;
  vout: Int;
  script: Uint8Array;
  amount: Int;
  /** The number of the confirmed tx spending this output; null while unspent. */
  spent_txnum: Int | null;
}

/** Net effect of each confirmed transaction on each script it touches. Keyed (chain, skey,
 * txnum): a script's rows in page order. skey is the script's 8-byte key (service/index/script-keys.ts).
 * The time is its block's (chain_blocks). */
export interface HistoryTable {
  chain: string;
  skey: Uint8Array;
  txnum: Int;
  delta: Int;
}

/** The txid of each numbered tx with rows in the index. */
export interface TxidTable {
  chain: string;
  txnum: Int;
  txid: Uint8Array;
}

/** Key-only: a txid's first 8 bytes and its tx number(s); chain_txids holds the whole txid. */
export interface TxidKeyTable {
  chain: string;
  prefix: Uint8Array;
  txnum: Int;
}

/** A script moved off its own key by a collision (service/index/script-keys.ts): nearly always none. */
export interface ScriptKeyTable {
  chain: string;
  script: Uint8Array;
  skey: Uint8Array;
}

/** Confirmed balance per script, kept at write time so a balance read is one key lookup. */
export interface BalanceTable {
  chain: string;
  /** Keyed by the script's 8-byte key; the script is kept to tell colliding scripts apart. */
  skey: Uint8Array;
  script: Uint8Array;
  confirmed: Int;
  /** The script's rows in chain_history: the history total without counting them. */
  tx_count: Int;
}

// The mempool lives in tables of its own: small, rebuilt from the node at will, and never mixed
// into the confirmed tables' indexes.
export interface MempoolTable {
  chain: string;
  txid: string;
  first_seen: Int;
}

export interface MempoolOutputTable {
  chain: string;
  txid: string;
  vout: Int;
  script: Uint8Array;
  amount: Int;
}

export interface MempoolSpendTable {
  chain: string;
  txid: string;
  vout: Int;
  spent_txid: string;
}

export interface MempoolHistoryTable {
  chain: string;
  txid: string;
  script: Uint8Array;
  time: Int;
  delta: Int;
}

/** Blocks the EVM index has written, for reorg detection (evm-index.ts). */
export interface EvmBlockTable {
  chain: string;
  height: Int;
  hash: string;
  time: Int;
}

/** One Ether value transfer (log_index -1, token '') or ERC20 Transfer log; addresses lower-case hex. */
export interface EvmTransferTable {
  chain: string;
  txid: string;
  log_index: Int;
  token: string;
  from_addr: string;
  to_addr: string;
  /** decimal digits: exact beyond 2^63 */
  amount: string;
  height: Int;
  time: Int;
}

/** What /ethereum|erc20/create chose, so sign_and_send rebuilds exactly that transaction. */
export interface EvmPendingCreateTable {
  chain: string;
  from_addr: string;
  to_addr: string;
  token: string;
  amount: string;
  nonce: Int;
  gas_price: string;
  gas_limit: string;
  chain_id: Int;
  created_at: Int;
}

/** A wallet registered for watch mode by an API key (owner '' without keys). */
export interface WatchWalletTable {
  chain: string;
  owner: string;
  wallet_id: string;
  /** JSON array of the descriptors as given. */
  descriptors: string;
  /** null: from genesis */
  birthday_height: Int | null;
  gap_limit: Int;
  receive_derived: Int;
  change_derived: Int;
  /** Blocks from this height must be read again (new scripts); null: none. */
  rescan_from: Int | null;
  /** The index height the scan was checked against the node's UTXO set at; null: not checked since the last rescan (0006). */
  checked_height?: Int | null;
  /** The check's disagreement in words; null: it agreed. */
  check_error?: string | null;
  /** The height the wallet's pending scan reads from; null: its rows are complete (0009). */
  scan_from?: Int | null;
  /** How many scans the wallet has had: a new one starts at registration and at each rescan (0009). */
  scan_number?: Int;
}

/** A script derived from a watched wallet's descriptors: branch 0 receive, 1 change. */
export interface WatchScriptTable {
  chain: string;
  script: Uint8Array;
  owner: string;
  wallet_id: string;
  branch: Int;
  idx: Int;
}

/** Bumped with each change to a chain's registrations (migrations.ts 0006): instances reload on a change. */
export interface WatchGenerationTable {
  chain: string;
  generation: Int;
}

/** Where each chain's confirmed index was last written (migrations.ts 0009): 'tables' or 'leveldb:FOLDER'. */
export interface IndexLocationTable {
  chain: string;
  location: string;
}

export interface MigrationTable {
  id: Generated<Int>;
  name: string;
}

/** The relay (migration 0009): rooms, their devices, invitations and sealed messages; times in unix ms. */
export interface RelayRoomTable {
  id: string;
  owner_device: string;
  /** The API key that made the room ('' without keys): counts against its room limit. */
  api_key: string;
  created_at: Int;
  head_seq: Int;
  head_hash: Uint8Array;
}
export interface RelayDeviceTable {
  room: string;
  device: string;
  sign_key: Uint8Array;
  box_key: Uint8Array;
  joined_at: Int;
  removed_at: Int | null;
}
export interface RelayInvitationTable {
  id: string;
  room: string;
  sealed: Uint8Array;
  created_at: Int;
  expires_at: Int;
  used_at: Int | null;
}
export interface RelayMessageTable {
  room: string;
  seq: Int;
  sender: string;
  created_at: Int;
  expires_at: Int;
  envelope: Uint8Array;
}

export interface Database {
  api_keys: ApiKeyTable;
  chain_blocks: BlockTable;
  chain_outputs: OutputTable;
  chain_history: HistoryTable;
  chain_txids: TxidTable;
  chain_txid_keys: TxidKeyTable;
  chain_balances: BalanceTable;
  chain_script_keys: ScriptKeyTable;
  chain_mempool: MempoolTable;
  mempool_outputs: MempoolOutputTable;
  mempool_spends: MempoolSpendTable;
  mempool_history: MempoolHistoryTable;
  evm_blocks: EvmBlockTable;
  evm_transfers: EvmTransferTable;
  evm_pending_creates: EvmPendingCreateTable;
  watch_wallets: WatchWalletTable;
  watch_scripts: WatchScriptTable;
  watch_generations: WatchGenerationTable;
  index_locations: IndexLocationTable;
  relay_rooms: RelayRoomTable;
  relay_devices: RelayDeviceTable;
  relay_invitations: RelayInvitationTable;
  relay_messages: RelayMessageTable;
}
