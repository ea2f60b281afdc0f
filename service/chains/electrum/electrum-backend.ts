// The electrum backend for UTXO coins: an ElectrumX or Fulcrum server keeps the index, keyed by
// scripthash (sha256 of the scriptPubKey, byte-reversed, hex), like ours by script. History rows
// carry no amounts there, so each shown row's amount is worked out from the verified transactions.
import type { Logger } from 'pino';
import { bytesToHex, equalBytes, hexToBytes, reverseBytes } from '../../../shared/coins/bytes.ts';
import type { ChainParams } from '../../../shared/coins/coin-table.ts';
import { sha256, sha256d } from '../../../shared/coins/hash.ts';
import { decodeTx, txidHex } from '../../../shared/coins/tx.ts';
import { ApiError, UpstreamFailure, type WrongChain } from '../../errors.ts';
import { ChainGuard } from '../chain-guard.ts';
import { Lru } from '../../lru.ts';
import { type HistoryRow, type Outpoint, pageOfList, type ScriptBalance, type UnspentPage, type UnspentPageRequest, type UnspentRow } from '../backend.ts';

import { type BackendStatus, type FeeRates, feeRateWithFloor, type UpstreamFeeEstimates, type UtxoBackend } from '../backend.ts';
import { classifyRefusal, mergeHistory, VerifiedTxCache } from '../upstream-utxo.ts';
import { coinsToUnits } from '../utxo/rpc-client.ts';
import { ElectrumClient, ElectrumRpcError, type ElectrumServer, type ElectrumTiming } from './electrum-client.ts';
import { z } from 'zod';

export interface ElectrumBackendOptions {
  params: ChainParams;
  /** The operator's block 0 for a chain the coin table does not hold (config.ts `genesis`). */
  genesis?: string;
  server: ElectrumServer;
  timing: ElectrumTiming;
  fees: FeeRates;
  log: Logger;
}

/** Confirmation target of fee estimates, in blocks. */
const FEE_TARGET_BLOCKS = 6;

const Sats = z
  .number()
  .int()
  .refine((n) => Number.isSafeInteger(n), 'an amount must be a safe integer')
  .transform((n) => BigInt(n));
const Txid = z.string().regex(/^[0-9a-f]{64}$/);
const Balance = z.object({ confirmed: Sats, unconfirmed: Sats }).loose();
/** height > 0: confirmed; 0: in the mempool; -1: in the mempool with unconfirmed parents */
const HistoryEntry = z.object({ height: z.number().int(), tx_hash: Txid }).loose();
const Unspent = z.object({ tx_pos: z.number().int().nonnegative(), value: Sats, tx_hash: Txid, height: z.number().int() }).loose();
const Hex = z.string().regex(/^([0-9a-fA-F]{2})*$/);

const Features = z.object({ genesis_hash: z.string().regex(/^[0-9a-fA-F]{64}$/).optional() }).loose();

/**
 * An Electrum server's block 0: server.features says it (ElectrumX, Fulcrum); else the header at
 * height 0, hashed. Electrum servers do not name their network, so this is all there is to judge.
 */
export async function electrumGenesis(ask: (method: string, params: unknown[]) => Promise<unknown>): Promise<string | null> {
  const features = Features.safeParse(await ask('server.features', []).catch(() => null));
  if (features.success && features.data.genesis_hash) return features.data.genesis_hash.toLowerCase();
  // A server that cannot say is not held against (chain-identity.ts): null.
  const header = Hex.safeParse(await ask('blockchain.block.header', [0]).catch(() => null));
  return header.success && header.data.length >= 160 ? bytesToHex(reverseBytes(sha256d(hexToBytes(header.data)))) : null;
}

/** Electrum's key for a script: sha256(scriptPubKey), byte-reversed, hex. */
export function scripthash(script: Uint8Array): string {
  return bytesToHex(reverseBytes(sha256(script)));
}

export class ElectrumBackend implements UtxoBackend {
  readonly params: ChainParams;
  readonly client: ElectrumClient;
  /** Whether the server follows the coin's configured chain, asked on every connection. */
  readonly chain: ChainGuard;
  private readonly txs: VerifiedTxCache;
  private readonly headerTimes = new Lru<number, number>(10_000);
  /** When this process first saw each mempool transaction (Electrum keeps no time for them). */
  private readonly firstSeen = new Lru<string, number>(50_000);

  constructor(private readonly o: ElectrumBackendOptions) {
    this.params = o.params;
    const name = `electrum ${o.params.coin} (${o.server.host}:${o.server.port})`;
    this.chain = new ChainGuard(o.params, `the Electrum server at ${o.server.host}:${o.server.port}`, o.log, o.genesis === undefined ? {} : { genesis: o.genesis });
    // Judged on every connection, before anything of it is read.
    this.client = new ElectrumClient(o.server, name, o.timing, (h) => o.log.debug({ height: h.height }, 'electrum tip'), async (ask) => this.chain.judge({ chain: null, genesis: await electrumGenesis(ask) }));
    this.txs = new VerifiedTxCache(o.params, name, (txid) => this.fetchTx(txid));
  }

  start(): void {
    this.client.keepAlive();
  }

  async stop(): Promise<void> {
    this.client.close();
  }

  private get name(): string {
    return this.client.name;
  }

  private lastAsked = 0;

  refusedChain(): WrongChain | null {
    // A refused server is read no more, so a request asks it again (at most once a second): a
    // service not keeping the connection (tests, embedded before start) would stay refused otherwise.
    if (this.chain.refused && Date.now() - this.lastAsked >= 1_000) {
      this.lastAsked = Date.now();
      void this.client.request('server.ping', [], z.unknown()).catch(() => undefined);
    }
    return this.chain.refused;
  }

  async indexedHeight(): Promise<number | null> {
    if (!this.client.tip) await this.client.request('server.ping', [], z.unknown()); // connects, and the handshake reads the tip
    return this.client.tip?.height ?? null;
  }

  async balances(scripts: readonly Uint8Array[]): Promise<ScriptBalance[]> {
    return Promise.all(
      scripts.map(async (script) => {
        const b = await this.client.request('blockchain.scripthash.get_balance', [scripthash(script)], Balance);
        return { confirmed: b.confirmed, unconfirmed: b.unconfirmed };
      }),
    );
  }

  async history(scripts: readonly Uint8Array[], limit: number, offset: number): Promise<{ total: number; rows: HistoryRow[] }> {
    const lists = await Promise.all(scripts.map((script) => this.scriptHistory(script)));
    const page = mergeHistory(
      lists.map((l) => l.rows),
      limit,
      offset,
    );
    const bySource = new Map(scripts.map((s, i) => [bytesToHex(s), lists[i]!.txids]));
    const rows = await Promise.all(page.map((row) => this.withAmountAndTime(row, bySource.get(bytesToHex(row.script))!)));
    return { total: lists.reduce((t, l) => t + l.rows.length, 0), rows };
  }

  /** A script's history, newest first, without amounts yet; and the set of its txids. */
  private async scriptHistory(script: Uint8Array): Promise<{ rows: HistoryRow[]; txids: Set<string> }> {
    const entries = await this.client.request('blockchain.scripthash.get_history', [scripthash(script)], z.array(HistoryEntry));
    const now = Math.floor(Date.now() / 1000);
    const mempool: HistoryRow[] = [];
    const confirmed: HistoryRow[] = [];
    for (const e of entries) {
      if (e.height > 0) {
        confirmed.push({ script, txid: e.tx_hash, height: e.height, time: 0, delta: 0n });
      } else {
        let seen = this.firstSeen.get(e.tx_hash);
        if (seen === undefined) this.firstSeen.set(e.tx_hash, (seen = now));
        mempool.push({ script, txid: e.tx_hash, height: null, time: seen, delta: 0n });
      }
    }
    // Electrum lists confirmed entries oldest first, in block order.
    confirmed.sort((a, b) => a.height! - b.height!);
    return { rows: [...mempool, ...confirmed.reverse()], txids: new Set(entries.map((e) => e.tx_hash)) };
  }

  /** The row's amount (outputs to the script less the script's coins it spends) and its block time. */
  private async withAmountAndTime(row: HistoryRow, scriptTxids: ReadonlySet<string>): Promise<HistoryRow> {
    const entry = await this.txs.get(row.txid);
    if (!entry) throw new UpstreamFailure(false, `${this.name} lists transaction ${row.txid} in a history but does not have it`);
    let delta = 0n;
    for (const out of entry.tx.outputs) if (equalBytes(out.script, row.script)) delta += out.value;
    // Only a transaction in the script's own history can have paid it.
    const spent = entry.tx.inputs.filter((i) => scriptTxids.has(bytesToHex(i.prevTxid)));
    const prevs = await Promise.all(spent.map((i) => this.txs.get(bytesToHex(i.prevTxid))));
    spent.forEach((input, k) => {
      const prev = prevs[k]?.tx.outputs[input.vout];
      if (prev && equalBytes(prev.script, row.script)) delta -= prev.value;
    });
    const time = row.height === null ? row.time : await this.blockTime(row.height);
    return { ...row, delta, time };
  }

  /** A block's timestamp, from its header (Zcash-family headers carry one more 32-byte root first). */
  private async blockTime(height: number): Promise<number> {
    const hit = this.headerTimes.get(height);
    if (hit !== undefined) return hit;
    const hex = await this.client.request('blockchain.block.header', [height], Hex);
    const offset = this.params.txFormat === 'bitcoin' ? 68 : 100;
    const header = hexToBytes(hex);
    if (header.length < offset + 4) throw new UpstreamFailure(false, `${this.name} answered block header ${height} with ${header.length} bytes`);
    const time = new DataView(header.buffer, header.byteOffset + offset, 4).getUint32(0, true);
    this.headerTimes.set(height, time);
    return time;
  }

  async unspent(scripts: readonly Uint8Array[], page: UnspentPageRequest): Promise<UnspentPage> {
    const lists = await Promise.all(
      scripts.map(async (script) => {
        const utxos = await this.client.request('blockchain.scripthash.listunspent', [scripthash(script)], z.array(Unspent));
        return utxos.map((u): UnspentRow => ({ txid: u.tx_hash, vout: u.tx_pos, script, amount: u.value, height: u.height > 0 ? u.height : null }));
      }),
    );
    // ours: oldest first, mempool last
    const key = (r: UnspentRow) => r.height ?? Number.MAX_SAFE_INTEGER;
    return pageOfList(lists.flat().sort((a, b) => key(a) - key(b)), page);
  }

  outputs(outpoints: readonly Outpoint[]) {
    return this.txs.outputs(outpoints);
  }

  async rawTransaction(txid: string): Promise<Uint8Array | null> {
    return (await this.txs.get(txid))?.bytes ?? null;
  }

  private async fetchTx(txid: string): Promise<Uint8Array | null> {
    try {
      return hexToBytes(await this.client.request('blockchain.transaction.get', [txid, false], Hex));
    } catch (err) {
      // ElectrumX and Fulcrum pass on the node's "No such mempool or blockchain transaction" (-5).
      if (err instanceof ElectrumRpcError) {
        if (/no such mempool|not found|-5\b/i.test(err.message)) return null;
        throw new UpstreamFailure(false, `${this.name} failed to give transaction ${txid}: ${err.message}`);
      }
      throw err;
    }
  }

  async feePerKb(): Promise<bigint> {
    const coinsPerKb = await this.estimateFee(FEE_TARGET_BLOCKS);
    if (coinsPerKb === null) return feeRateWithFloor(null, this.o.fees);
    let units: bigint;
    try {
      units = coinsToUnits(coinsPerKb, this.params.decimals);
    } catch {
      units = BigInt(Math.round(coinsPerKb * 10 ** this.params.decimals)); // more decimals than the coin has
    }
    return feeRateWithFloor(units, this.o.fees);
  }

  /**
   * Extension: blockchain.estimatefee per target, as the server wrote it (coins per kB). Where it has
   * none the fallback is given, marked so (use-cases/fee-estimates.ts).
   */
  async feeEstimates(blocks: readonly number[]): Promise<UpstreamFeeEstimates> {
    const estimates: (string | null)[] = [];
    for (const target of blocks) {
      const coinsPerKb = await this.estimateFee(target);
      // A JSON number's shortest text is the server's own for any rate it writes (at most 8 decimals);
      // a tiny one comes as "1e-7", which the conversion reads too.
      estimates.push(coinsPerKb === null ? null : String(coinsPerKb));
    }
    return { backend: 'electrum', estimates, fallbackFeePerKb: this.o.fees.fallbackFeePerKb };
  }

  /** The server's estimate in coins per kB; null: it has none yet (-1) or no estimator at all (an RPC error). */
  private async estimateFee(blocks: number): Promise<number | null> {
    let coinsPerKb: number;
    try {
      coinsPerKb = await this.client.request('blockchain.estimatefee', [blocks], z.number());
    } catch (err) {
      if (err instanceof ElectrumRpcError) return null;
      throw err;
    }
    return coinsPerKb > 0 ? coinsPerKb : null;
  }

  async broadcast(rawTx: Uint8Array): Promise<string> {
    const txid = txidHex(decodeTx(rawTx, this.params));
    let answered: string;
    try {
      // Not repeated: the server already has it after a lost answer, and says so the second time.
      answered = await this.client.request('blockchain.transaction.broadcast', [bytesToHex(rawTx)], z.string(), false);
    } catch (err) {
      if (!(err instanceof ElectrumRpcError)) throw err;
      // ElectrumX words it "the transaction was rejected by network rules.\n\n<node's reason>\n[<raw tx>]".
      const reason = err.message
        .replace(/\s*\[[0-9a-fA-F]*\]\s*$/, '')
        .replace(/^the transaction was rejected by network rules\.\s*/i, '')
        .replace(/\s+/g, ' ')
        .trim();
      const kind = classifyRefusal(reason);
      if (kind === 'already-known') return txid;
      if (kind === 'undecodable') throw new ApiError(400, `${this.name} could not decode the transaction: ${reason}`);
      throw new ApiError(422, `${this.name} rejected the transaction: ${reason}`);
    }
    if (answered.toLowerCase() !== txid) throw new UpstreamFailure(false, `${this.name} accepted transaction ${txid} but answered with ${answered.slice(0, 80)}`);
    return txid;
  }

  async status(): Promise<BackendStatus> {
    const tip = this.client.tip?.height ?? null;
    // Electrum does not say how many transactions its mempool holds.
    return { backend: 'electrum', tipHeight: tip, indexedHeight: tip, mempoolTxs: 0, error: this.client.lastError };
  }
}
