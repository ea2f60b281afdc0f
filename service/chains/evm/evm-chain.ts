// What the use cases need from an EVM chain, whatever serves it: a node with our own transfer
// index (evm-backend.ts) or a Blockbook (blockbook/blockbook-ethereum.ts).
import type { EvmHistoryRow, PendingCreate } from '../../store/evm-index.ts';
import type { BackendStatus } from '../backend.ts';
import type { TokenInfo } from './erc20-metadata.ts';

export type { PendingCreate };

/** What create chose, kept until sign_and_send rebuilds exactly that transaction. */
export interface PendingCreates {
  savePending(p: PendingCreate): Promise<void>;
  pending(key: TransferKey): Promise<PendingCreate | null>;
  deletePending(key: TransferKey): Promise<void>;
}

export interface TransferKey {
  from: string;
  to: string;
  /** '' for Ether */
  token: string;
  amount: bigint;
}

export interface GasQuestion {
  from: string;
  to: string;
  value: bigint;
  /** 0x hex */
  data: string;
}

export interface EvmChain {
  readonly network: string;
  readonly pendingCreates: PendingCreates;
  chainId(): Promise<bigint>;
  /** Refuses a contract_id that is no contract: a typo would otherwise read as a zero balance. */
  requireContract(address: string, field?: string): Promise<void>;
  /**
   * The token's name, symbol and decimals (address lower-case 0x hex). Refuses a non-contract like
   * requireContract (naming field "contract"), and a token without decimals with a 422.
   */
  tokenInfo(contract: string): Promise<TokenInfo>;
  /** Confirmed and pending-minus-confirmed balance in wei, or in token units when `token` is set. */
  balance(address: string, token: string | null): Promise<{ confirmed: bigint; unconfirmed: bigint }>;
  /** Net effect of each mined transaction on each address, newest first (addresses lower-case 0x hex). */
  history(addresses: readonly string[], token: string | null, limit: number, offset: number): Promise<{ total: number; rows: EvmHistoryRow[] }>;
  /** Height of the newest block the answers reflect (for confirmations). */
  indexedHeight(): Promise<number | null>;
  /** The next nonce, counting pending transactions. */
  pendingNonce(address: string): Promise<bigint>;
  /** Wei per gas. */
  gasPrice(): Promise<bigint>;
  /** Gas a call needs; an ApiError(422) when it would fail. */
  estimateGas(tx: GasQuestion): Promise<bigint>;
  /** Broadcasts; resolves to the txid, or '' when the network already knew the transaction. */
  broadcast(raw: Uint8Array): Promise<string>;
  status(): Promise<BackendStatus>;
  start(): void;
  stop(): Promise<void>;
}
