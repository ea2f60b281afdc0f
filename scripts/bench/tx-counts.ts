// Transactions per height of a node's chain, read from its block headers.
import type { RpcClient } from '../../service/chains/utxo/rpc-client.ts';

/** nTx of every block from the headers, genesis included. */
export async function txCounts(rpc: RpcClient): Promise<number[]> {
  const tip = await rpc.call<number>('getblockcount');
  const counts: number[] = [];
  for (let from = 0; from <= tip; from += 500) {
    const heights = Array.from({ length: Math.min(500, tip - from + 1) }, (_, i) => from + i);
    const hashes = await rpc.batch<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
    const headers = await rpc.batch<{ nTx: number }>(
      hashes.map((r) => {
        if ('error' in r) throw r.error;
        return { method: 'getblockheader', params: [r.result] };
      }),
    );
    for (const r of headers) {
      if ('error' in r) throw r.error;
      counts.push(r.result.nTx);
    }
  }
  return counts;
}
