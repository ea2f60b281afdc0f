// What the use cases need from a chain, whatever serves it: a node + our own index, Blockbook or
// an Electrum server.
import { UTXOS_PAGE_MAX } from '../../shared/api/schemas.ts';
import type { ChainParams } from '../../shared/coins/coin-table.ts';
import type { WrongChain } from '../errors.ts';
import type { WalletWatch } from './utxo/watch.ts';

// The rows the answers are made of, and the key of outputs(): every backend answers in these, the
// service's own index (service/index/) included.

export interface Outpoint {
  txid: string;
  vout: number;
}

export const outpointKey = (txid: string, vout: number) => `${txid}:${vout}`;

export interface ScriptBalance {
  confirmed: bigint;
  unconfirmed: bigint;
}

export interface HistoryRow {
  script: Uint8Array;
  txid: string;
  /** null while in the mempool */
  height: number | null;
  time: number;
  delta: bigint;
}

export interface UnspentRow {
  txid: string;
  vout: number;
  script: Uint8Array;
  amount: bigint;
  /** null while in the mempool */
  height: number | null;
}

/**
 * Which page of unspent outputs to read: at most `limit` rows after `after`, a cursor an earlier
 * page gave (null or absent: from the start). No answer lists every output of an address: one
 * address may hold hundreds of thousands (docs/api-decisions.md, section 6).
 */
export interface UnspentPageRequest {
  limit: number;
  after?: string | null | undefined;
}

export interface UnspentPage {
  rows: UnspentRow[];
  /** Where the next page starts; null when this page is the last. */
  next: string | null;
}

/** The most outputs one page holds, and the plain request's page (the spec's form has no paging). */
export const UNSPENT_PAGE_MAX = UTXOS_PAGE_MAX;

/** A cursor no page of this service gave: the route answers it with a 400. */
export class BadCursor extends Error {
  constructor(readonly text: string) {
    super(`cursor ${text.length > 80 ? `${text.slice(0, 80)}… (${text.length} characters)` : JSON.stringify(text)} is not one a page of unspent outputs gave: send the next_cursor of the previous page, or none for the first page`);
  }
}

/**
 * A page of a list an upstream gave whole (Electrum's listunspent, Blockbook's utxo): the upstream
 * bounds its own answer, the page bounds ours. Its cursor is "o<rows before it>".
 */
export function pageOfList<T>(rows: readonly T[], page: { limit: number; after?: string | null | undefined }): { rows: T[]; next: string | null } {
  let from = 0;
  if (page.after) {
    const m = /^o(\d{1,9})$/.exec(page.after);
    if (!m) throw new BadCursor(page.after);
    from = Number(m[1]);
  }
  const end = from + page.limit;
  return { rows: rows.slice(from, end), next: rows.length > end ? `o${end}` : null };
}

/** An output's script and amount (outputs()). */
export interface OutputInfo {
  script: Uint8Array;
  amount: bigint;
}

export interface BackendStatus {
  backend: string;
  tipHeight: number | null;
  indexedHeight: number | null;
  mempoolTxs: number;
  error: string | null;
  /** Backends with an index of their own: whether this instance writes it (service/leader). */
  role?: 'leader' | 'follower';
  /** Backends with an index of their own: full (every address) or watch (registered wallets). */
  index?: 'full' | 'watch';
  /** Watch mode: registered wallets whose own scan is still running. */
  watchScans?: number;
}

/**
 * A request's say on answers that are not final (http/index-freshness.ts): whether its client takes
 * them, and where to mark one as provisional. Watch mode asks it for an address of a wallet whose
 * own scan is still running (the coin's index lag is checked before the route).
 */
export interface ProvisionalGate {
  acceptProvisional: boolean;
  provisional(p: { indexedHeight: number | null; tipHeight: number }): void;
}

/** null: not known yet (nothing indexed, or the node not answering). */
export interface IndexFreshness {
  indexedHeight: number | null;
  tipHeight: number | null;
}

export interface FeeRates {
  /** Rate used when the upstream has no estimate (regtest, a quiet chain), units per 1000 bytes. */
  fallbackFeePerKb: bigint;
  /** Floor under every estimate, units per 1000 bytes. */
  minFeePerKb: bigint;
}

/** The fee rate to build with from an upstream's estimate (null: it has none), floored. */
export function feeRateWithFloor(estimate: bigint | null, rates: FeeRates): bigint {
  const rate = estimate !== null && estimate > 0n ? estimate : rates.fallbackFeePerKb;
  return rate < rates.minFeePerKb ? rates.minFeePerKb : rate;
}

/** A mempool transaction that spends an output a payment wants (BIP125 replacement), as the node sees it. */
export interface MempoolConflict {
  txid: string;
  /** Its own fee (the node's modified fee), smallest units. */
  fee: bigint;
  vsize: number;
  /** Its fee and size with every mempool descendant, which a replacement evicts too. */
  descendantFee: bigint;
  descendantVsize: number;
  /** Whether the node lets it be replaced (BIP125 signalling, its own or inherited). */
  replaceable: boolean;
}

/** The upstream's fee estimates per confirmation target: decimal text in coins per 1000 vbytes, null where it has none. */
export interface UpstreamFeeEstimates {
  backend: string;
  estimates: (string | null)[];
  /** Used where there is no estimate: units per 1000 bytes. */
  fallbackFeePerKb: bigint;
}

export interface UtxoBackend {
  readonly params: ChainParams;
  /** Height of the newest block the answers below reflect (for confirmations). */
  indexedHeight(): Promise<number | null>;
  /** Balances of scriptPubKeys, in the order given. */
  balances(scripts: readonly Uint8Array[]): Promise<ScriptBalance[]>;
  history(scripts: readonly Uint8Array[], limit: number, offset: number): Promise<{ total: number; rows: HistoryRow[] }>;
  /** A page of the scripts' unspent outputs: confirmed oldest first, then the mempool's. */
  unspent(scripts: readonly Uint8Array[], page: UnspentPageRequest): Promise<UnspentPage>;
  /**
   * Those of `outpoints` that are unspent outputs of `scripts` (mempool ones included, spent ones
   * not), by outpointKey, each looked up by its key. Absent: the backend pages through the scripts'
   * outputs instead (use-cases/unspent-pages.ts findUnspent).
   */
  unspentAt?(scripts: readonly Uint8Array[], outpoints: readonly Outpoint[]): Promise<Map<string, UnspentRow>>;
  /** Amount and script of known outputs by outpoint (the amount-committing digests need them). */
  outputs(outpoints: readonly Outpoint[]): Promise<Map<string, { script: Uint8Array; amount: bigint }>>;
  /** A transaction's bytes by txid (PSBT and hardware signers need whole previous transactions); null when unknown. */
  rawTransaction(txid: string): Promise<Uint8Array | null>;
  /** Fee rate in smallest units per 1000 bytes. */
  feePerKb(): Promise<bigint>;
  /** Extension: the upstream's estimates for these confirmation targets (null where it has none). */
  feeEstimates(blocks: readonly number[]): Promise<UpstreamFeeEstimates>;
  /**
   * The mempool transactions spending these outpoints, keyed by outpointKey, as the node sees them
   * (fees and replaceability). Absent: the backend cannot tell, so no replacement is built over it.
   */
  mempoolSpenders?(outpoints: readonly Outpoint[]): Promise<Map<string, MempoolConflict>>;
  /**
   * Whether the node relays BIP125 replacements (the operator's config, else the coin's default).
   * Absent where the service sees no mempool spenders (Blockbook, Electrum): no replacement is built.
   */
  readonly relaysReplacements?: boolean;
  /** Broadcasts; resolves to the txid, also when the node already has the transaction. */
  broadcast(rawTx: Uint8Array): Promise<string>;
  status(): Promise<BackendStatus>;
  /**
   * Why nothing of the coin is served: its upstream follows another chain than the configured
   * network (chain-guard.ts); null while it follows the right one. Absent: never asked.
   */
  refusedChain?(): WrongChain | null;
  /**
   * Backends with an index of their own: how far it is and where the node's tip is, from memory
   * (asked on every address request). Absent where the upstream indexes (Blockbook, Electrum).
   */
  indexFreshness?(): IndexFreshness;
  /** The node backend in watch mode: wallets registered for its index (utxo/watch.ts). */
  readonly watch?: WalletWatch;
  /**
   * The backend as one API key sees it (use-cases/service-context.ts: utxoBackendAs). Absent where
   * every address is answered (a full index, Blockbook, Electrum): the backend itself then.
   */
  forOwner?(owner: string, gate?: ProvisionalGate): UtxoBackend;
  /** Opens what the backend holds (a LevelDB index) before the service listens; absent: nothing. */
  open?(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}
