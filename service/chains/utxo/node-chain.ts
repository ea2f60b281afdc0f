// Which chain a bitcoind-family node follows: its getblockchaininfo `chain` and its block 0, in one
// request. Asked at start and on every reconnection (chain-guard.ts).
import { z } from 'zod';
import type { SeenChain } from '../../../shared/coins/chain-identity.ts';
import { type RpcClient } from './rpc-client.ts';

const Info = z.object({ chain: z.string() }).loose();
const Hash = z.string().regex(/^[0-9a-fA-F]{64}$/);

export async function readNodeChain(rpc: RpcClient): Promise<SeenChain> {
  const [info, genesis] = await rpc.batch<unknown>([{ method: 'getblockchaininfo' }, { method: 'getblockhash', params: [0] }]);
  if (!info || 'error' in info) throw info?.error ?? new Error('no answer to getblockchaininfo');
  return {
    chain: Info.parse(info.result).chain,
    // A node that cannot say its block 0 (pruned past it never happens: block 0 is kept) is judged by its chain's name.
    genesis: genesis && 'result' in genesis ? (Hash.safeParse(genesis.result).data?.toLowerCase() ?? null) : null,
  };
}

/** "127.0.0.1:19443": a node as the operator names it, from its RPC URL. */
export function nodeWho(url: string): string {
  return `the node at ${new URL(url).host}`;
}
