// The node-rpc backend: a bitcoind-family node for chain data and broadcast, plus the service's
// own address index (the node's wallet is never used).
import type { Logger } from 'pino';
import { type ChainParams, utxoCoinRow } from '../../../shared/coins/coin-table.ts';
import { bytesToHex, hexToBytes } from '../../../shared/coins/bytes.ts';
import { decodeTx, txidHex } from '../../../shared/coins/tx.ts';
import type { Store } from '../../store/database.ts';
import { UtxoIndexStore } from '../../index/utxo-index.ts';
import { ApiError, IndexLagging, UpstreamFailure, type WrongChain } from '../../errors.ts';
import { ChainGuard } from '../chain-guard.ts';
import { nodeWho, readNodeChain } from './node-chain.ts';
import { type BackendStatus, feeRateWithFloor, type IndexFreshness, type MempoolConflict, type Outpoint, outpointKey, type ProvisionalGate, type UnspentPageRequest, type UpstreamFeeEstimates, type UtxoBackend } from '../backend.ts';
import { decodeVerifiedTx } from '../upstream-utxo.ts';
import { UtxoIndexer } from './indexer.ts';
import { nodeTxReader } from './node-txs.ts';
import { WatchScan } from './watch-scan.ts';
import { WatchList } from './watch.ts';
import { WatchScans } from './watch-scans.ts';
import { BroadcastSpends } from './broadcast-spends.ts';
import type { IndexWriter } from '../../leader/leadership.ts';
import { coinsToUnits, RpcClient, type RpcClientConfig, RpcError, UpstreamError } from './rpc-client.ts';

export interface NodeRpcBackendOptions {
  params: ChainParams;
  store: Store;
  rpc: RpcClientConfig;
  log: Logger;
  pollIntervalMs: number;
  fallbackFeePerKb: bigint;
  minFeePerKb: bigint;
  /** The operator's word that the node relays BIP125 replacements (absent: the coin's default). */
  replacements?: boolean;
  /** 'watch': only registered wallets (watch.ts); default 'full'. */
  index?: 'full' | 'watch';
  /** The operator's block 0 for a chain the coin table does not hold (config.ts `genesis`). */
  genesis?: string;
}

// Bitcoin Core RPC error codes (src/rpc/protocol.h)
const RPC_VERIFY_ERROR = -25;
const RPC_VERIFY_REJECTED = -26;
const RPC_VERIFY_ALREADY_IN_CHAIN = -27;
const RPC_DESERIALIZATION_ERROR = -22;
const RPC_INVALID_ADDRESS_OR_KEY = -5;

export class NodeRpcBackend implements UtxoBackend, IndexWriter {
  readonly params: ChainParams;
  readonly rpc: RpcClient;
  readonly index: UtxoIndexStore;
  readonly indexer: UtxoIndexer;
  readonly indexName: string;
  private leading = true;
  /** Outputs our accepted broadcasts spent, until the index sees those transactions. */
  private readonly spends = new BroadcastSpends();
  /** Watch mode: the registered wallets, what the indexer reads for them, and their API. */
  readonly watch?: WatchScan;

  readonly relaysReplacements: boolean;
  /** Whether the node follows the coin's configured chain, asked before every index pass. */
  readonly chain: ChainGuard;

  constructor(private readonly o: NodeRpcBackendOptions) {
    this.params = o.params;
    this.relaysReplacements = o.replacements ?? utxoCoinRow(o.params.coin).replacementsByDefault;
    this.rpc = new RpcClient(o.rpc);
    this.chain = new ChainGuard(o.params, nodeWho(this.rpc.url), o.log, o.genesis === undefined ? {} : { genesis: o.genesis });
    this.index = new UtxoIndexStore(o.store, o.params.coin, { watch: o.index === 'watch', nodeTxs: nodeTxReader(this.rpc, o.params) });
    this.indexName = this.index.chain;
    const watch = o.index === 'watch' ? new WatchScan(new WatchList(o.store.db, this.index.chain, o.params), this.rpc, this.index, o.params, o.log) : undefined;
    this.indexer = new UtxoIndexer({
      rpc: this.rpc,
      index: this.index,
      params: o.params,
      log: o.log,
      pollIntervalMs: o.pollIntervalMs,
      leading: () => this.leading,
      afterPass: (pass) => this.settleSpends(pass),
      checkChain: async () => this.chain.judge(await readNodeChain(this.rpc)),
      ...(watch ? { watch } : {}),
    });
    if (watch) {
      watch.onChange = () => void this.indexer.sync().catch(() => undefined);
      watch.scans = new WatchScans({ list: watch.list, rpc: this.rpc, store: o.store, main: this.index, params: o.params, log: o.log, leading: () => this.leading });
      this.watch = watch;
    }
  }

  /**
   * The API key whose wallets this view answers for (forOwner); undefined on the backend itself,
   * which answers for any registered wallet (the service's own use, tests).
   */
  private readonly owner?: string;
  /** The request's say on provisional answers (forOwner); absent: none are taken. */
  private readonly gate?: ProvisionalGate;

  /**
   * The index to answer these scripts from. Watch mode answers only for registered wallets'
   * scripts (of the asking key): any other is refused in words (404). A script of the key's wallet
   * whose own scan is running (watch-scans.ts) answers 503 for that wallet alone, or, to a client
   * taking provisional answers, from that scan's index so far, marked provisional.
   */
  private async indexFor(scripts: readonly Uint8Array[]): Promise<UtxoIndexStore> {
    const watch = this.watch;
    if (!watch) return this.index;
    await watch.list.load(); // another instance may have registered (service/leader)
    for (const s of scripts) if (!watch.list.has(s, this.owner)) throw watch.list.notWatched(s, this.owner);
    if (this.owner === undefined) return this.index;
    const scanning = watch.list.scanningWalletOf(scripts, this.owner);
    if (!scanning) return this.index;
    const reached = watch.scans?.reached(scanning) ?? null;
    const tip = this.indexer.status().tipHeight ?? reached ?? 0;
    if (!this.gate?.acceptProvisional) {
      const at = reached === null ? 'has read no block yet' : `has read to block ${reached.toLocaleString('en-US')}`;
      throw new IndexLagging(
        this.params.coin,
        reached,
        tip,
        `wallet "${scanning.walletId}" is still being scanned (scan ${scanning.scanNumber}, from block ${(scanning.scanFrom ?? 0).toLocaleString('en-US')}; it ${at} of ${tip.toLocaleString('en-US')}): its addresses answer once the scan reaches the tip (GET /watch/${this.params.coin}/${scanning.walletId} says how far it is); other wallets are not held up; try again later`,
      );
    }
    this.gate.provisional({ indexedHeight: reached, tipHeight: tip });
    return watch.scans?.indexOf(scanning) ?? this.index;
  }

  /**
   * This backend as one API key sees it (owner '' without keys): in watch mode, its address
   * queries answer only scripts of wallets that key registered. Everything else is the backend's
   * own (the view inherits it and holds nothing but the owner).
   */
  forOwner(owner: string, gate?: ProvisionalGate): UtxoBackend {
    if (!this.watch) return this;
    return Object.create(this, { owner: { value: owner }, gate: { value: gate } }) as NodeRpcBackend;
  }

  /** Scale-out (service/leader): only the leader writes the index and may cache its balances. */
  setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.index.cacheBalances = leading;
    if (leading) void this.indexer.sync().catch(() => undefined); // catch up now, not at the next poll
  }

  async open(): Promise<void> {
    await this.index.open();
  }

  start(): void {
    this.indexer.start();
  }

  async stop(): Promise<void> {
    await this.indexer.stop();
    this.rpc.close(); // idle keep-alive sockets would hold up the node's own shutdown
  }

  refusedChain(): WrongChain | null {
    return this.chain.refused;
  }

  async indexedHeight(): Promise<number | null> {
    return (await this.index.tip())?.height ?? null;
  }

  async balances(scripts: readonly Uint8Array[]) {
    return (await this.indexFor(scripts)).balances(scripts);
  }

  async history(scripts: readonly Uint8Array[], limit: number, offset: number) {
    return (await this.indexFor(scripts)).history(scripts, limit, offset);
  }

  async unspent(scripts: readonly Uint8Array[], page: UnspentPageRequest) {
    const read = await (await this.indexFor(scripts)).unspent(scripts, page);
    if (this.spends.size === 0) return read;
    // the cursor stays the index's: a page thinned by our broadcasts still ends where it was cut
    return { rows: read.rows.filter((r) => !this.spends.isSpent(outpointKey(r.txid, r.vout))), next: read.next };
  }

  async unspentAt(scripts: readonly Uint8Array[], outpoints: readonly Outpoint[]) {
    const ours = new Set(scripts.map(bytesToHex));
    const found = await (await this.indexFor(scripts)).unspentAt(scripts, outpoints);
    // only the scripts asked about (and allowed to this key, in watch mode): never another's output
    for (const [k, r] of found) if (!ours.has(bytesToHex(r.script)) || this.spends.isSpent(k)) found.delete(k);
    return found;
  }

  /** After an index pass: our broadcasts the index now holds need no exclusion of their own. */
  private async settleSpends(pass: number): Promise<void> {
    const txids = this.spends.settleable(pass);
    if (txids.length === 0) return;
    const mempool = await this.index.mempoolTxids();
    const known = new Set<string>();
    for (const txid of txids) if (mempool.has(txid) || (await this.index.confirmedHeight(txid)) !== null) known.add(txid);
    this.spends.settle(pass, known);
  }

  outputs(outpoints: readonly Outpoint[]) {
    return this.index.outputs(outpoints);
  }

  /**
   * Asks the node with the block hash our index knows, so the node needs no -txindex; mempool txs
   * need none. What the node returns must hash to the txid asked for.
   */
  async rawTransaction(txid: string): Promise<Uint8Array | null> {
    const height = await this.index.confirmedHeight(txid);
    try {
      const blockHash = height === null ? null : await this.rpc.call<string>('getblockhash', [height]);
      const hex = await this.rpc.call<string>('getrawtransaction', blockHash === null ? [txid, false] : [txid, false, blockHash]);
      const bytes = hexToBytes(hex);
      decodeVerifiedTx(this.params, bytes, txid, "the coin's node");
      return bytes;
    } catch (err) {
      if (err instanceof RpcError && err.code === RPC_INVALID_ADDRESS_OR_KEY) return null;
      throw upstream(err);
    }
  }

  /**
   * The node's fee estimate, per 1000 bytes, floored. Nodes without estimatesmartfee (Bitcoin Cash
   * Node, zcashd) are asked estimatefee; a node with no estimate yet (regtest, a quiet chain) gives
   * the configured fallback. Only a node that cannot be reached is an error.
   */
  async feePerKb(): Promise<bigint> {
    const estimate = (await this.estimate('estimatesmartfee', (r) => (r as { feerate?: unknown }).feerate)) ?? (await this.estimate('estimatefee', (r) => r));
    return feeRateWithFloor(estimate, this.o);
  }

  private async estimate(method: string, pick: (result: unknown) => unknown): Promise<bigint | null> {
    try {
      const value = pick(await this.rpc.call<unknown>(method, [6]));
      return typeof value === 'number' && value > 0 ? coinsToUnits(value, this.params.decimals) : null;
    } catch (err) {
      if (err instanceof RpcError) return null; // no such method, or no estimate
      throw upstream(err);
    }
  }

  /** estimatesmartfee per target, its feerate as the node wrote it (exact text); none: the fallback. */
  async feeEstimates(blocks: readonly number[]): Promise<UpstreamFeeEstimates> {
    const estimates: (string | null)[] = [];
    for (const target of blocks) {
      try {
        const r = await this.rpc.call<{ feerate?: unknown }>('estimatesmartfee', [target], { exactNumbers: true });
        const rate = r.feerate;
        estimates.push(typeof rate === 'string' || typeof rate === 'number' ? String(rate) : null);
      } catch (err) {
        if (err instanceof RpcError) estimates.push(null);
        else throw upstream(err);
      }
    }
    return { backend: 'node-rpc', estimates, fallbackFeePerKb: this.o.fallbackFeePerKb };
  }

  /**
   * Spenders from our own broadcasts not indexed yet, else the index's mempool; their fees, sizes
   * and replaceability from the node's getmempoolentry (a spender the node no longer holds is none).
   */
  async mempoolSpenders(outpoints: readonly Outpoint[]): Promise<Map<string, MempoolConflict>> {
    const indexed = await this.index.mempoolSpenders(outpoints);
    const entries = new Map<string, MempoolConflict | null>();
    const found = new Map<string, MempoolConflict>();
    for (const o of outpoints) {
      const k = outpointKey(o.txid, o.vout);
      const spender = this.spends.spender(k) ?? indexed.get(k);
      if (spender === undefined) continue;
      if (!entries.has(spender)) entries.set(spender, await this.mempoolEntry(spender));
      const entry = entries.get(spender);
      if (entry) found.set(k, entry);
    }
    return found;
  }

  private async mempoolEntry(txid: string): Promise<MempoolConflict | null> {
    type Entry = { vsize?: unknown; descendantsize?: unknown; fees?: { modified?: unknown; descendant?: unknown }; 'bip125-replaceable'?: unknown };
    let e: Entry;
    try {
      e = await this.rpc.call<Entry>('getmempoolentry', [txid], { exactNumbers: true });
    } catch (err) {
      if (err instanceof RpcError && err.code === RPC_INVALID_ADDRESS_OR_KEY) return null; // not in the mempool (any more)
      throw upstream(err);
    }
    const amount = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? coinsToUnits(v, this.params.decimals) : null);
    const fee = amount(e.fees?.modified);
    const descendantFee = amount(e.fees?.descendant);
    if (fee === null || descendantFee === null || typeof e.vsize !== 'number' || typeof e.descendantsize !== 'number') {
      throw new UpstreamFailure(false, `the coin's node answered getmempoolentry ${txid} without fees and sizes`);
    }
    return { txid, fee, vsize: e.vsize, descendantFee, descendantVsize: e.descendantsize, replaceable: e['bip125-replaceable'] === true };
  }

  async broadcast(rawTx: Uint8Array): Promise<string> {
    const tx = decodeTx(rawTx, this.params);
    const txid = txidHex(tx);
    try {
      const accepted = await this.rpc.call<string>('sendrawtransaction', [bytesToHex(rawTx)]);
      // its inputs leave coin selection now, not at the next poll
      this.spends.add(accepted, tx.inputs.map((i) => outpointKey(bytesToHex(i.prevTxid), i.vout)), this.indexer.passesStarted);
      // show it as unconfirmed without waiting for the poll (on a follower: only a look at the tip)
      void this.indexer.sync().catch(() => undefined);
      return accepted;
    } catch (err) {
      if (err instanceof RpcError) {
        if (err.code === RPC_VERIFY_ALREADY_IN_CHAIN) return txid;
        if (err.code === RPC_VERIFY_REJECTED || err.code === RPC_VERIFY_ERROR) {
          throw new ApiError(422, `the node rejected the transaction: ${err.message}`);
        }
        if (err.code === RPC_DESERIALIZATION_ERROR) throw new ApiError(400, `the node could not decode the transaction: ${err.message}`);
      }
      throw upstream(err);
    }
  }

  indexFreshness(): IndexFreshness {
    const p = this.indexer.status();
    return { indexedHeight: p.indexedHeight, tipHeight: p.error === null ? p.tipHeight : null };
  }

  async status(): Promise<BackendStatus> {
    const p = this.indexer.status();
    const indexedHeight = p.indexedHeight ?? (await this.indexedHeight());
    const error = this.chain.refused?.message ?? p.error;
    const watchScans = this.watch ? (await this.watch.list.load(), this.watch.list.scanning().length) : undefined;
    return {
      backend: 'node-rpc',
      tipHeight: p.tipHeight,
      indexedHeight,
      mempoolTxs: p.mempoolTxs,
      error,
      role: this.leading ? 'leader' : 'follower',
      index: this.watch ? 'watch' : 'full',
      ...(watchScans !== undefined ? { watchScans } : {}),
    };
  }
}

function upstream(err: unknown): Error {
  if (err instanceof ApiError) return err;
  if (err instanceof UpstreamError) return new UpstreamFailure(err.kind === 'timeout', `the coin's node failed: ${err.message}`);
  if (err instanceof RpcError) return new UpstreamFailure(false, `the coin's node answered with an error: ${err.message} (code ${err.code})`);
  return new UpstreamFailure(false, `the coin's node failed: ${err instanceof Error ? err.message : String(err)}`);
}
