// The baseline the indexer is measured against: only what it cannot avoid, i.e. asking the node for
// the blocks the same way (getblockhash in batches, `getblock <hash> 2` with a bounded number in
// flight, replies parsed from JSON) and touching each reply, with no validation and no writes.
import type { RpcClient } from '../../service/chains/utxo/rpc-client.ts';

const HASH_BATCH = 200;
const IN_FLIGHT = 8;

function txCount(block: unknown): number {
  if (typeof block !== 'object' || block === null || !('tx' in block) || !Array.isArray(block.tx)) {
    throw new Error('getblock did not answer a verbose block');
  }
  return block.tx.length;
}

export async function fetchBlocks(rpc: RpcClient, from: number, to: number): Promise<{ blocks: number; txs: number }> {
  const window: Promise<unknown>[] = [];
  let blocks = 0;
  let txs = 0;
  const takeOldest = async (): Promise<void> => {
    txs += txCount(await window.shift());
    blocks++;
  };
  for (let start = from; start <= to; start += HASH_BATCH) {
    const count = Math.min(HASH_BATCH, to - start + 1);
    const hashes = await rpc.batch<string>(Array.from({ length: count }, (_, i) => ({ method: 'getblockhash', params: [start + i] })));
    for (const h of hashes) {
      if ('error' in h) throw h.error;
      if (window.length >= IN_FLIGHT) await takeOldest();
      const p = rpc.call<unknown>('getblock', [h.result, 2]);
      p.catch(() => undefined); // awaited in order by takeOldest
      window.push(p);
    }
  }
  while (window.length > 0) await takeOldest();
  return { blocks, txs };
}
