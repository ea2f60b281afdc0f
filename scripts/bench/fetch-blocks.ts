// The baseline the indexer is measured against: only what it cannot avoid, i.e. asking the node for
// the blocks the same way (getblockhash in batches, `getblock` with a bounded number in flight) and
// decoding each reply, with no validation and no writes. Two forms, measured both:
// - verbose: `getblock <hash> 2`, parsed from JSON (the node hands txids over ready-made);
// - raw: `getblock <hash> 0`, hex to bytes and the coin codec's block decoder (txids hashed here,
//   with the hashing the indexer uses).
// The bench divides by the faster of the two, so a faster reader cannot flatter the ratio.
import { decodeBitcoinBlock, type BlockCodecChoice } from '../../shared/coins/block.ts';
import type { RpcClient } from '../../service/chains/utxo/rpc-client.ts';
import { NATIVE_HASHING } from '../../service/chains/utxo/raw-block.ts';

export type FetchForm = 'raw' | 'verbose';

const HASH_BATCH = 200;
const IN_FLIGHT = 8;

function verboseTxCount(block: unknown): number {
  if (typeof block !== 'object' || block === null || !('tx' in block) || !Array.isArray(block.tx)) {
    throw new Error('getblock did not answer a verbose block');
  }
  return block.tx.length;
}

function rawTxCount(hex: unknown, codec: BlockCodecChoice): number {
  if (typeof hex !== 'string') throw new Error('getblock did not answer a raw block');
  return decodeBitcoinBlock(Buffer.from(hex, 'hex'), codec, NATIVE_HASHING).txs.length;
}

export async function fetchBlocks(rpc: RpcClient, from: number, to: number, form: FetchForm, codec: BlockCodecChoice): Promise<{ blocks: number; txs: number }> {
  const window: Promise<unknown>[] = [];
  let blocks = 0;
  let txs = 0;
  const takeOldest = async (): Promise<void> => {
    const answer = await window.shift();
    txs += form === 'raw' ? rawTxCount(answer, codec) : verboseTxCount(answer);
    blocks++;
  };
  for (let start = from; start <= to; start += HASH_BATCH) {
    const count = Math.min(HASH_BATCH, to - start + 1);
    const hashes = await rpc.batch<string>(Array.from({ length: count }, (_, i) => ({ method: 'getblockhash', params: [start + i] })));
    for (const h of hashes) {
      if ('error' in h) throw h.error;
      if (window.length >= IN_FLIGHT) await takeOldest();
      const p = rpc.call<unknown>('getblock', [h.result, form === 'raw' ? 0 : 2]);
      p.catch(() => undefined); // awaited in order by takeOldest
      window.push(p);
    }
  }
  while (window.length > 0) await takeOldest();
  return { blocks, txs };
}
