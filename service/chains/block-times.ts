// When blocks were made, as a node says: the height of the first block whose median time past
// (BIP113: the median of the last 11 block times, which never decreases, unlike a block's own
// time) is at or after a moment. A wallet's birthday date becomes a height this way.
import type { CoinConfig } from '../config.ts';
import { RpcClient } from './utxo/rpc-client.ts';

export interface BlockTimes {
  tipHeight(): Promise<number>;
  /** The median time past of the block at `height`, unix seconds. */
  medianTimeAt(height: number): Promise<{ medianTime: number; hash: string }>;
  close(): void;
}

export interface HeightAt {
  /** The first block whose median time past is at or after the time; tip + 1 when none is yet. */
  height: number;
  /** That block's hash and median time; null when it is not mined yet. */
  hash: string | null;
  medianTime: number | null;
  tipHeight: number;
}

/**
 * Binary search over heights: median time past is non-decreasing, so the blocks at or after `time`
 * are a suffix of the chain. About 2 log2(tip) questions to the node (44 on a 3M-block chain).
 */
export async function heightAt(times: Pick<BlockTimes, 'tipHeight' | 'medianTimeAt'>, time: number): Promise<HeightAt> {
  const tipHeight = await times.tipHeight();
  const tip = await times.medianTimeAt(tipHeight);
  if (tip.medianTime < time) return { height: tipHeight + 1, hash: null, medianTime: null, tipHeight };
  let low = 0;
  let high = tipHeight; // invariant: the answer is in [low, high], and high qualifies
  let found = tip;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    const at = await times.medianTimeAt(mid);
    if (at.medianTime >= time) {
      high = mid;
      found = at;
    } else {
      low = mid + 1;
    }
  }
  return { height: high, hash: found.hash, medianTime: found.medianTime, tipHeight };
}

/** A node's block times over its RPC (getblockhash, getblockheader); its own small connection pool. */
export function nodeBlockTimes(rpc: RpcClient): BlockTimes {
  return {
    tipHeight: () => rpc.call<number>('getblockcount'),
    async medianTimeAt(height) {
      const hash = await rpc.call<string>('getblockhash', [height]);
      const header = await rpc.call<{ mediantime: number }>('getblockheader', [hash]);
      return { medianTime: header.mediantime, hash };
    },
    close: () => rpc.close(),
  };
}

/** The block times of a coin's backend, where it can tell them (a node); null for Blockbook and Electrum. */
export function blockTimesFor(config: CoinConfig): BlockTimes | null {
  const b = config.backend;
  if (b.type !== 'node-rpc') return null;
  return nodeBlockTimes(
    new RpcClient({
      url: b.url,
      timeoutMs: b.timeoutMs,
      maxConnections: 2,
      ...(b.username !== undefined ? { username: b.username } : {}),
      ...(b.password !== undefined ? { password: b.password } : {}),
      ...(b.cookieFile !== undefined ? { cookieFile: b.cookieFile } : {}),
    }),
  );
}
