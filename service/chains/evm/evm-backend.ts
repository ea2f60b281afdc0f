// The evm-rpc backend: balances from the node, history from our own index, and the node's nonce,
// gas and chain id for building transactions.
import type { Logger } from 'pino';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import type { BackendStatus } from '../backend.ts';
import { ApiError } from '../../errors.ts';
import type { Store } from '../../store/database.ts';
import { EvmIndexStore, type EvmHistoryRow } from '../../store/evm-index.ts';
import type { EvmChain, GasQuestion, PendingCreates } from './evm-chain.ts';
import { EvmIndexer } from './evm-indexer.ts';
import type { IndexWriter } from '../../leader/leadership.ts';
import { EvmRpc } from './evm-rpc.ts';
import { readTokenInfo, type TokenInfo } from './erc20-read.ts';

export interface EvmBackendOptions {
  network: string;
  url: string;
  store: Store;
  log: Logger;
  startHeight: number | null;
  pollIntervalMs: number;
  timeoutMs: number;
}

const BALANCE_OF = '0x70a08231';

export class EvmBackend implements EvmChain, IndexWriter {
  readonly rpc: EvmRpc;
  readonly index: EvmIndexStore;
  readonly indexer: EvmIndexer;
  readonly network: string;
  readonly pendingCreates: PendingCreates;
  readonly indexName: string;
  private leading = true;
  private chainIdValue: bigint | null = null;

  constructor(o: EvmBackendOptions) {
    this.network = o.network;
    this.rpc = new EvmRpc(o.url, o.timeoutMs);
    this.index = new EvmIndexStore(o.store, `ethereum/${o.network}`);
    this.pendingCreates = this.index;
    this.indexName = this.index.chain;
    this.indexer = new EvmIndexer({ rpc: this.rpc, index: this.index, log: o.log, startHeight: o.startHeight, pollIntervalMs: o.pollIntervalMs, leading: () => this.leading });
  }

  /** Scale-out (service/leader): only the leader writes the transfer index. */
  setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    if (leading) void this.indexer.sync().catch(() => undefined);
  }

  async chainId(): Promise<bigint> {
    this.chainIdValue ??= await this.rpc.chainId();
    return this.chainIdValue;
  }

  /** Refuses a contract_id with no code: a typo would otherwise read as a zero balance. */
  async requireContract(address: string, field = 'contract_id'): Promise<void> {
    const code = await this.rpc.code(address);
    if (code === '0x') throw new ApiError(400, `field "${field}": ${address} is not a contract on this chain (it has no code)`);
  }

  /** name(), symbol() and decimals() by eth_call, once the address is known to hold code. */
  async tokenInfo(contract: string): Promise<TokenInfo> {
    await this.requireContract(contract, 'contract');
    return readTokenInfo(this.rpc, contract);
  }

  /** Confirmed and pending-minus-confirmed balance in wei, or in token units when `token` is set. */
  async balance(address: string, token: string | null): Promise<{ confirmed: bigint; unconfirmed: bigint }> {
    if (token === null) {
      const [confirmed, pending] = await Promise.all([this.rpc.balance(address, 'latest'), this.rpc.balance(address, 'pending')]);
      return { confirmed, unconfirmed: pending - confirmed };
    }
    const data = `${BALANCE_OF}${address.slice(2).padStart(64, '0')}`;
    const [confirmed, pending] = await Promise.all([this.rpc.ethCall(token, data, 'latest'), this.rpc.ethCall(token, data, 'pending')]);
    const c = confirmed === '0x' ? 0n : BigInt(confirmed);
    const p = pending === '0x' ? 0n : BigInt(pending);
    return { confirmed: c, unconfirmed: p - c };
  }

  async history(addresses: readonly string[], token: string | null, limit: number, offset: number): Promise<{ total: number; rows: EvmHistoryRow[] }> {
    const all = await this.index.history(addresses, token ?? '');
    return { total: all.length, rows: all.slice(offset, offset + limit) };
  }

  async indexedHeight(): Promise<number | null> {
    return (await this.index.tip())?.height ?? null;
  }

  pendingNonce(address: string): Promise<bigint> {
    return this.rpc.pendingNonce(address);
  }

  gasPrice(): Promise<bigint> {
    return this.rpc.gasPrice();
  }

  estimateGas(tx: GasQuestion): Promise<bigint> {
    return this.rpc.estimateGas(tx);
  }

  async broadcast(raw: Uint8Array): Promise<string> {
    return this.rpc.sendRaw(`0x${bytesToHex(raw)}`);
  }

  async status(): Promise<BackendStatus> {
    return {
      backend: 'evm-rpc',
      tipHeight: this.indexer.tipHeight,
      indexedHeight: await this.indexedHeight(),
      mempoolTxs: 0,
      error: this.indexer.error,
      role: this.leading ? 'leader' : 'follower',
    };
  }

  start(): void {
    this.indexer.start();
  }

  async stop(): Promise<void> {
    await this.indexer.stop();
    this.rpc.destroy();
  }
}
