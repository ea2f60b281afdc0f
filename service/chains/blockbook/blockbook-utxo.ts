// The blockbook backend for UTXO coins: Blockbook keeps the address index, we ask it per address.
// Our interface is keyed by scriptPubKey, so each script is rendered as the coin's own address
// (CashAddr on Bitcoin Cash) and Blockbook's answers are matched back by script, never by text.
import type { Logger } from 'pino';
import { decodeAddress, decodedAddressToScript, scriptToAddress } from '../../../shared/coins/address.ts';
import { bytesToHex, hexToBytes } from '../../../shared/coins/bytes.ts';
import type { ChainParams } from '../../../shared/coins/coin-table.ts';
import { txidHex, decodeTx } from '../../../shared/coins/tx.ts';
import { z } from 'zod';
import { ApiError, UpstreamFailure, type WrongChain } from '../../errors.ts';
import { ChainGuard } from '../chain-guard.ts';
import { type HistoryRow, type Outpoint, pageOfList, type ScriptBalance, type UnspentPage, type UnspentPageRequest, type UnspentRow } from '../backend.ts';
import { type BackendStatus, type FeeRates, feeRateWithFloor, type UpstreamFeeEstimates, type UtxoBackend } from '../backend.ts';
import { coinsToUnits } from '../utxo/rpc-client.ts';
import { classifyRefusal, decodeVerifiedTx, mapLimited, mergeHistory, VerifiedTxCache } from '../upstream-utxo.ts';
import { BlockbookApi, type BlockbookTx, type UpstreamTiming } from './blockbook-api.ts';

export interface BlockbookUtxoOptions {
  params: ChainParams;
  /** The operator's block 0 for a chain the coin table does not hold (config.ts `genesis`). */
  genesis?: string;
  url: string;
  /** Largest page asked for, at most Blockbook's 1000. */
  pageSize: number;
  timing: UpstreamTiming;
  fees: FeeRates;
  log: Logger;
}

const BlockAt = z.object({ blockHash: z.string().regex(/^[0-9a-fA-F]{64}$/) }).loose();

/** A Blockbook's block 0 (its block-index endpoint); null when it does not answer it. */
export async function blockbookGenesis(api: BlockbookApi): Promise<string | null> {
  return (await api.get('/api/v2/block-index/0', BlockAt).catch(() => null))?.blockHash.toLowerCase() ?? null;
}

/** Requests in flight at once for one API call (a balance of 200 addresses is 200 requests). */
const PARALLEL = 8;
/** Confirmation target of fee estimates, in blocks. */
const FEE_TARGET_BLOCKS = 6;

export class BlockbookUtxoBackend implements UtxoBackend {
  readonly params: ChainParams;
  readonly api: BlockbookApi;
  private readonly txs: VerifiedTxCache;
  /** Whether the Blockbook follows the coin's configured chain: asked at start and by every status. */
  readonly chain: ChainGuard;
  private genesis: string | null = null;

  constructor(private readonly o: BlockbookUtxoOptions) {
    this.params = o.params;
    this.api = new BlockbookApi(o.url, `blockbook ${o.params.coin}`, o.timing);
    this.chain = new ChainGuard(o.params, `the Blockbook at ${new URL(o.url).host}`, o.log, o.genesis === undefined ? {} : { genesis: o.genesis });
    this.txs = new VerifiedTxCache(o.params, this.api.upstream, async (txid) => {
      const tx = await this.api.tx(txid);
      return tx === null ? null : this.bytesOf(tx, txid);
    });
  }

  start(): void {
    // Blockbook follows the chain itself; which chain is asked now and at every status.
    void this.status().catch(() => undefined);
  }

  refusedChain(): WrongChain | null {
    return this.chain.refused;
  }

  async stop(): Promise<void> {}

  private addressOf(script: Uint8Array): string | null {
    return scriptToAddress(this.params, script);
  }

  indexedHeight(): Promise<number | null> {
    return this.api.bestHeight();
  }

  async balances(scripts: readonly Uint8Array[]): Promise<ScriptBalance[]> {
    return mapLimited(scripts, PARALLEL, async (script) => {
      const address = this.addressOf(script);
      if (address === null) return { confirmed: 0n, unconfirmed: 0n };
      // details above "basic": only then does Blockbook add up the mempool (unconfirmedBalance)
      const a = await this.api.address(address, { details: 'txids', pageSize: 1 });
      return { confirmed: a.balance, unconfirmed: a.unconfirmedBalance };
    });
  }

  async history(scripts: readonly Uint8Array[], limit: number, offset: number): Promise<{ total: number; rows: HistoryRow[] }> {
    const lists = await mapLimited(scripts, PARALLEL, (script) => this.scriptHistory(script, offset + limit));
    return { total: lists.reduce((t, l) => t + l.total, 0), rows: mergeHistory(lists.map((l) => l.rows), limit, offset) };
  }

  /**
   * The newest `wanted` rows of one script, mempool first. Blockbook puts the mempool in front of
   * page 1 only (cutting that page to pageSize) and pages the confirmed list on its own, so after
   * page 1 the confirmed rows are read in pages the size of page 1's confirmed part.
   */
  private async scriptHistory(script: Uint8Array, wanted: number): Promise<{ total: number; rows: HistoryRow[] }> {
    const address = this.addressOf(script);
    if (address === null) return { total: 0, rows: [] };
    const pageSize = Math.min(this.o.pageSize, Math.max(1, wanted));
    const first = await this.api.address(address, { details: 'txs', page: 1, pageSize });
    const total = first.txs + first.unconfirmedTxs;
    const rows = first.transactions.map((tx) => this.rowOf(tx, script));
    const confirmedPageSize = pageSize - Math.min(first.unconfirmedTxs, pageSize);
    let confirmedSeen = rows.filter((r) => r.height !== null).length;
    for (let page = 2; confirmedPageSize > 0 && rows.length < wanted && confirmedSeen < first.txs; page++) {
      const next = await this.api.address(address, { details: 'txs', page, pageSize: confirmedPageSize });
      const confirmed = next.transactions.filter((tx) => tx.blockHeight > 0);
      if (confirmed.length === 0) break;
      for (const tx of confirmed) rows.push(this.rowOf(tx, script));
      confirmedSeen += confirmed.length;
    }
    if (confirmedPageSize === 0 && rows.length < wanted && confirmedSeen < first.txs) {
      this.o.log.warn({ address, unconfirmed: first.unconfirmedTxs }, 'history: more mempool transactions than one Blockbook page; older rows left out');
    }
    return { total, rows };
  }

  /** What one transaction did to one script: its outputs to the script less the script's coins it spent. */
  private rowOf(tx: BlockbookTx, script: Uint8Array): HistoryRow {
    const hex = bytesToHex(script);
    // An output by its script when Blockbook shows it; an input (and a bare output) by its one address.
    const isOurs = (addresses: readonly string[] | null | undefined, scriptHex?: string) => {
      if (scriptHex !== undefined) return scriptHex.toLowerCase() === hex;
      const [only, ...more] = addresses ?? [];
      return only !== undefined && more.length === 0 && this.scriptHexOf(only) === hex;
    };
    let delta = 0n;
    for (const out of tx.vout) if (isOurs(out.addresses, out.hex)) delta += out.value;
    for (const input of tx.vin) if (isOurs(input.addresses)) delta -= input.value;
    const height = tx.blockHeight > 0 ? tx.blockHeight : null;
    return { script, txid: tx.txid, height, time: tx.blockTime, delta };
  }

  private readonly scriptHexes = new Map<string, string | null>();

  /** The script an address Blockbook shows pays to (any rendering the coin accepts), null for none. */
  private scriptHexOf(address: string): string | null {
    let hex = this.scriptHexes.get(address);
    if (hex === undefined) {
      try {
        hex = bytesToHex(decodedAddressToScript(decodeAddress(this.params, address)));
      } catch {
        hex = null;
      }
      if (this.scriptHexes.size > 10_000) this.scriptHexes.clear();
      this.scriptHexes.set(address, hex);
    }
    return hex;
  }

  async unspent(scripts: readonly Uint8Array[], page: UnspentPageRequest): Promise<UnspentPage> {
    const lists = await mapLimited(scripts, PARALLEL, async (script) => {
      const address = this.addressOf(script);
      if (address === null) return [];
      // Blockbook lists newest first; ours are oldest first, mempool last.
      const utxos = (await this.api.utxo(address)).reverse();
      return utxos.map((u): UnspentRow => ({ txid: u.txid, vout: u.vout, script, amount: u.value, height: u.height ?? null }));
    });
    const rows = lists.flat();
    const key = (r: UnspentRow) => r.height ?? Number.MAX_SAFE_INTEGER;
    return pageOfList(rows.sort((a, b) => key(a) - key(b)), page);
  }

  outputs(outpoints: readonly Outpoint[]) {
    return this.txs.outputs(outpoints);
  }

  async rawTransaction(txid: string): Promise<Uint8Array | null> {
    return (await this.txs.get(txid))?.bytes ?? null;
  }

  /** The bytes of a Blockbook transaction, checked against the txid and the amounts it shows. */
  private bytesOf(tx: BlockbookTx, txid: string): Uint8Array {
    if (tx.txid !== txid) throw new UpstreamFailure(false, `${this.api.upstream} answered transaction ${txid} with transaction ${tx.txid}: refused`);
    if (tx.hex === undefined) throw new UpstreamFailure(false, `${this.api.upstream} did not include the bytes of transaction ${txid}`);
    let bytes: Uint8Array;
    try {
      bytes = hexToBytes(tx.hex);
    } catch {
      throw new UpstreamFailure(false, `${this.api.upstream} answered transaction ${txid} with hex that is not hex`);
    }
    const decoded = decodeVerifiedTx(this.params, bytes, txid, this.api.upstream);
    for (const out of tx.vout) {
      if (decoded.outputs[out.n]?.value !== out.value) {
        throw new UpstreamFailure(false, `${this.api.upstream} shows output ${out.n} of ${txid} with an amount its own bytes do not have: refused`);
      }
    }
    return bytes;
  }

  async feePerKb(): Promise<bigint> {
    const text = await this.api.estimateFee(FEE_TARGET_BLOCKS);
    let estimate: bigint;
    try {
      estimate = coinsToUnits(text, this.params.decimals);
    } catch {
      throw new UpstreamFailure(false, `${this.api.upstream} answered the fee estimate with ${JSON.stringify(text.slice(0, 40))}, not an amount`);
    }
    // bitcoind's "no estimate" is -1 (Blockbook passes it on)
    return feeRateWithFloor(estimate > 0n ? estimate : null, this.o.fees);
  }

  /** Blockbook's estimatefee per target, its text as given (coins per kB); -1 or less: none. */
  async feeEstimates(blocks: readonly number[]): Promise<UpstreamFeeEstimates> {
    const estimates: (string | null)[] = [];
    for (const target of blocks) {
      const text = (await this.api.estimateFee(target)).trim();
      estimates.push(text.startsWith('-') || /^0*\.?0*$/.test(text) ? null : text);
    }
    return { backend: 'blockbook', estimates, fallbackFeePerKb: this.o.fees.fallbackFeePerKb };
  }

  async broadcast(rawTx: Uint8Array): Promise<string> {
    const txid = txidHex(decodeTx(rawTx, this.params));
    const r = await this.api.sendTx(bytesToHex(rawTx));
    if ('refused' in r) {
      const kind = classifyRefusal(r.refused);
      if (kind === 'already-known') return txid;
      if (kind === 'undecodable') throw new ApiError(400, `${this.api.upstream} could not decode the transaction: ${r.refused}`);
      throw new ApiError(422, `${this.api.upstream} rejected the transaction: ${r.refused}`);
    }
    if (r.txid !== txid) throw new UpstreamFailure(false, `${this.api.upstream} accepted transaction ${txid} but answered with txid ${r.txid}`);
    return txid;
  }

  async status(): Promise<BackendStatus> {
    const s = await this.api.backendStatus();
    if (s.chain === undefined) return s; // not answering: nothing to judge
    // Block 0 never changes under one Blockbook: asked again only when it named no chain before.
    this.genesis ??= await blockbookGenesis(this.api);
    try {
      this.chain.judge({ chain: s.chain, genesis: this.genesis });
    } catch (err) {
      this.genesis = null; // the next status asks again: the operator may be pointing it elsewhere
      return { ...s, error: err instanceof Error ? err.message : String(err) };
    }
    return s;
  }
}
