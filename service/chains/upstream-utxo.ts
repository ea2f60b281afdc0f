// What the address-keyed upstream backends (Blockbook, Electrum) share: transactions accepted only
// when their bytes hash to the txid asked for, the history order of our own index, and what a
// node's refusal of a broadcast means.
import type { ChainParams } from '../../shared/coins/coin-table.ts';
import { CoinError } from '../../shared/coins/errors.ts';
import { decodeTx, txidHex, type Tx } from '../../shared/coins/tx.ts';
import { UpstreamFailure } from '../errors.ts';
import { Lru } from '../lru.ts';
import { type HistoryRow, type Outpoint, outpointKey } from './backend.ts';

/** Decodes an upstream's transaction; bytes that are no transaction, or another one, are refused. */
export function decodeVerifiedTx(params: ChainParams, bytes: Uint8Array, txid: string, upstream: string): Tx {
  let tx: Tx;
  try {
    tx = decodeTx(bytes, params);
  } catch (err) {
    if (err instanceof CoinError) throw new UpstreamFailure(false, `${upstream} answered transaction ${txid} with bytes that are no ${params.coin} transaction: ${err.message}`);
    throw err;
  }
  const actual = txidHex(tx);
  if (actual !== txid) throw new UpstreamFailure(false, `${upstream} answered transaction ${txid} with another transaction (${actual}): refused`);
  return tx;
}

/** Verified transactions by txid (immutable once they hash right), with one fetch per txid in flight. */
export class VerifiedTxCache {
  private readonly done = new Lru<string, { bytes: Uint8Array; tx: Tx }>(2_000);
  private readonly inFlight = new Map<string, Promise<{ bytes: Uint8Array; tx: Tx } | null>>();

  constructor(
    private readonly params: ChainParams,
    private readonly upstream: string,
    /** The bytes of a transaction, null when the upstream does not know it. */
    private readonly fetchBytes: (txid: string) => Promise<Uint8Array | null>,
  ) {}

  async get(txid: string): Promise<{ bytes: Uint8Array; tx: Tx } | null> {
    const hit = this.done.get(txid);
    if (hit) return hit;
    let pending = this.inFlight.get(txid);
    if (!pending) {
      pending = this.fetchBytes(txid)
        .then((bytes) => {
          if (bytes === null) return null;
          const entry = { bytes, tx: decodeVerifiedTx(this.params, bytes, txid, this.upstream) };
          this.done.set(txid, entry);
          return entry;
        })
        .finally(() => this.inFlight.delete(txid));
      this.inFlight.set(txid, pending);
    }
    return pending;
  }

  /** Amount and script of outputs, read from their verified transactions; unknown ones are left out. */
  async outputs(outpoints: readonly Outpoint[]): Promise<Map<string, { script: Uint8Array; amount: bigint }>> {
    const txids = [...new Set(outpoints.map((o) => o.txid))];
    const txs = new Map(await Promise.all(txids.map(async (txid) => [txid, await this.get(txid)] as const)));
    const found = new Map<string, { script: Uint8Array; amount: bigint }>();
    for (const o of outpoints) {
      const out = txs.get(o.txid)?.tx.outputs[o.vout];
      if (out) found.set(outpointKey(o.txid, o.vout), { script: out.script, amount: out.value });
    }
    return found;
  }
}

/** A history row with where it came from: the queried script's index and the row's place in its list. */
export interface SourcedRow extends HistoryRow {
  source: number;
  place: number;
}

/**
 * Our index's history order across several scripts: mempool first (newest first), then confirmed
 * rows by height, newest first; rows of one block keep their upstream order (newest first).
 */
export function compareHistory(a: SourcedRow, b: SourcedRow): number {
  if ((a.height === null) !== (b.height === null)) return a.height === null ? -1 : 1;
  if (a.height === null || b.height === null) return b.time - a.time || (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : 0) || a.source - b.source;
  return b.height - a.height || (a.source === b.source ? a.place - b.place : a.source - b.source);
}

/** One page of the merged history of several scripts, each list newest first. */
export function mergeHistory(lists: readonly HistoryRow[][], limit: number, offset: number): HistoryRow[] {
  const all: SourcedRow[] = lists.flatMap((rows, source) => rows.map((r, place) => ({ ...r, source, place })));
  return all
    .sort(compareHistory)
    .slice(offset, offset + limit)
    .map(({ source: _s, place: _p, ...row }) => row);
}

export type BroadcastRefusal = 'already-known' | 'undecodable' | 'rejected';

/**
 * What a bitcoind-family node's refusal means, from its message (upstreams pass it on, some with the
 * RPC code in front: "-26: ..."). A transaction the node already has counts as broadcast.
 */
export function classifyRefusal(message: string): BroadcastRefusal {
  if (/^-27\b|already in (the )?block ?chain|txn-already-known|txn-already-in-mempool|transaction already exists/i.test(message)) return 'already-known';
  if (/^-22\b|TX decode failed|deseriali[sz]/i.test(message)) return 'undecodable';
  return 'rejected';
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results in input order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
