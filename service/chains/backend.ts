// What the HTTP layer needs from a chain, whatever serves it (node + own index now; Blockbook and
// Electrum later).
import type { ChainParams } from '../../shared/coins/coin-table.ts';
import type { AddressBalance, HistoryRow, UnspentRow } from '../store/utxo-index.ts';

export interface BackendStatus {
  backend: string;
  tipHeight: number | null;
  indexedHeight: number | null;
  mempoolTxs: number;
  error: string | null;
}

export interface UtxoBackend {
  readonly params: ChainParams;
  /** Height of the newest block the answers below reflect (for confirmations). */
  indexedHeight(): Promise<number | null>;
  balances(addresses: readonly string[]): Promise<AddressBalance[]>;
  history(addresses: readonly string[], limit: number, offset: number): Promise<{ total: number; rows: HistoryRow[] }>;
  unspent(addresses: readonly string[]): Promise<UnspentRow[]>;
  /** Fee rate in smallest units per 1000 bytes. */
  feePerKb(): Promise<bigint>;
  /** Broadcasts; resolves to the txid, also when the node already has the transaction. */
  broadcast(rawTx: Uint8Array): Promise<string>;
  status(): Promise<BackendStatus>;
  start(): void;
  stop(): Promise<void>;
}
