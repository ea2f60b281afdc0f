// An address with very many unspent outputs on a regtest node (issue 33: a public address with
// 400,163 of them took a service down with one request). The cheapest honest way: transactions of
// about 3,000 outputs each to the one script, built with no inputs, funded, signed and sent by the
// node's own wallet (fundrawtransaction, signrawtransactionwithwallet, sendrawtransaction: real
// transactions the node checks), mined nine to a block.
import { encodeTx } from '../../shared/coins/tx.ts';
import { bytesToHex } from '../../shared/coins/bytes.ts';
import type { RegtestNode } from './litecoind.ts';

/** Outputs of `script` per transaction under the 100,000-vbyte standard limit: 3,000 P2SH outputs (32 bytes each). */
export const outputsPerTx = (script: Uint8Array): number => Math.min(3000, Math.floor(98_000 / (9 + script.length)));
// Nine 97-kvbyte transactions fill a 4M-weight block, and stay far below the 25-ancestor chain limit.
const TXS_PER_BLOCK = 9;

/**
 * Pays `count` outputs of `amount` each to `script`, all mined: returns the txids in the order
 * mined (each txid's outputs 0..n-1 pay the script; the wallet's change is the last output).
 * `progress` hears the outputs paid so far.
 */
export async function payManyOutputs(node: RegtestNode, script: Uint8Array, count: number, amount: bigint, progress?: (paid: number) => void): Promise<string[]> {
  // enough mature coinbases: 50 LTC each below regtest's first halving, 0.3 LTC a transaction
  const perTx = outputsPerTx(script);
  const needed = Math.ceil(count / perTx);
  const spendable = (await node.walletRpc.call<{ amount: number }[]>('listunspent', [1])).length;
  if (spendable < needed) await node.mine(needed - spendable + 100);
  const txids: string[] = [];
  let paid = 0;
  let pending = 0;
  while (paid < count) {
    const n = Math.min(perTx, count - paid);
    const unfunded = encodeTx({ version: 2, inputs: [], outputs: Array.from({ length: n }, () => ({ value: amount, script })), locktime: 0 }, { witness: false });
    const funded = await node.walletRpc.call<{ hex: string }>('fundrawtransaction', [bytesToHex(unfunded), { changePosition: n }, false]);
    const signed = await node.walletRpc.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [funded.hex]);
    if (!signed.complete) throw new Error('the wallet could not sign a many-outputs transaction');
    txids.push(await node.rpc.call<string>('sendrawtransaction', [signed.hex]));
    paid += n;
    if (++pending === TXS_PER_BLOCK) {
      await node.mine(1);
      pending = 0;
    }
    progress?.(paid);
  }
  if (pending > 0) await node.mine(1);
  const left = await node.rpc.call<unknown[]>('getrawmempool');
  if (left.length > 0) throw new Error(`${left.length} many-outputs transaction(s) were not mined`);
  return txids;
}
