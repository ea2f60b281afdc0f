// The LevelDB index keeps no output's script (layout 4, service/index/level-index.ts): where an
// answer needs the script of an outpoint it was not asked by (the mempool's spent outputs,
// outputs()), it asks the node. Unspent outputs come from the node's coins (`gettxout`: no block
// read, as a mempool tx's parents and a payment's inputs are); the rest from the tx, named by its
// txid and its block's hash, which needs no -txindex. The index checks what either answers.
import type { ChainParams } from '../../../shared/coins/coin-table.ts';
import { hexToBytes } from '../../../shared/coins/bytes.ts';
import { CoinError } from '../../../shared/coins/errors.ts';
import { decodeTx, txidHex } from '../../../shared/coins/tx.ts';
import type { ConfirmedTxReader, NodeTx } from '../../index/utxo-index.ts';
import { UpstreamFailure } from '../../errors.ts';
import { z } from 'zod';
import { type CallOptions, coinsToUnits, type RpcBatchEntry, type RpcCall, type RpcClient } from './rpc-client.ts';

/** Calls in one JSON-RPC batch (one HTTP request): a mempool tx's parents, an outputs() call's outpoints. */
const BATCH = 50;
/** bitcoind's "no such transaction in the provided block" (and "no such block"). */
const RPC_INVALID_ADDRESS_OR_KEY = -5;

/**
 * Each tx's asked vouts from the node's coins (`gettxout <txid> <vout> false`: confirmed coins,
 * whether or not a mempool tx spends them); a tx with a vout the coins lack (spent in a block) is
 * read whole with `getrawtransaction <txid> false <blockhash>` and decoded with the chain's codec:
 * its txid is then the one its bytes hash to (the index compares it with the one it asked). A tx
 * or block the node does not know is null; any other refusal is the node's, in its words.
 */
export function nodeTxReader(rpc: RpcClient, params: ChainParams): ConfirmedTxReader {
  return async (txs) => {
    const coins = await unspentCoins(rpc, params, txs.flatMap((t) => t.vouts.map((vout) => ({ txid: t.txid, vout }))));
    const out: (NodeTx | null)[] = [];
    const whole: number[] = [];
    let at = 0;
    txs.forEach((t, i) => {
      const found = coins.slice(at, (at += t.vouts.length));
      if (found.every((c) => c !== null)) out.push({ txid: t.txid, outputs: found.map((c, j) => ({ vout: t.vouts[j]!, ...c! })) });
      else {
        out.push(null);
        whole.push(i);
      }
    });
    const answers = await inBatches<string>(rpc, whole.map((n) => ({ method: 'getrawtransaction', params: [txs[n]!.txid, false, txs[n]!.blockHash] })));
    answers.forEach((a, j) => {
      const n = whole[j]!;
      const asked = txs[n]!;
      if (!('error' in a)) out[n] = decoded(params, asked.txid, a.result);
      else if (a.error.code !== RPC_INVALID_ADDRESS_OR_KEY) throw new UpstreamFailure(false, `the coin's node refused tx ${asked.txid} of block ${asked.height} (${asked.blockHash}): ${a.error.message} (code ${a.error.code})`);
    });
    return out;
  };
}

/** The calls' answers in the order given, BATCH calls to a JSON-RPC batch (one HTTP request each). */
async function inBatches<T>(rpc: RpcClient, calls: readonly RpcCall[], options?: CallOptions): Promise<RpcBatchEntry<T>[]> {
  const out: RpcBatchEntry<T>[] = [];
  for (let i = 0; i < calls.length; i += BATCH) out.push(...(await rpc.batch<T>(calls.slice(i, i + BATCH), options)));
  return out;
}

const coinShape = z.object({ value: z.union([z.number(), z.string()]), scriptPubKey: z.object({ hex: z.string().regex(/^([0-9a-f]{2})*$/) }) });

/** Script and amount of each outpoint among the node's confirmed coins, in the order asked; null: not a coin (spent, or unknown). */
async function unspentCoins(rpc: RpcClient, params: ChainParams, outpoints: readonly { txid: string; vout: number }[]): Promise<({ script: Uint8Array; amount: bigint } | null)[]> {
  const answers = await inBatches<unknown>(rpc, outpoints.map((o) => ({ method: 'gettxout', params: [o.txid, o.vout, false] })), { exactNumbers: true });
  return answers.map((a, j) => {
    const o = outpoints[j]!;
    if ('error' in a) throw new UpstreamFailure(false, `the coin's node refused gettxout ${o.txid}:${o.vout}: ${a.error.message} (code ${a.error.code})`);
    if (a.result === null) return null;
    const coin = coinShape.safeParse(a.result);
    if (!coin.success) throw new UpstreamFailure(false, `the coin's node answered gettxout ${o.txid}:${o.vout} with no script and amount: ${JSON.stringify(a.result).slice(0, 200)}`);
    return { script: hexToBytes(coin.data.scriptPubKey.hex), amount: coinsToUnits(coin.data.value, params.decimals) };
  });
}

function decoded(params: ChainParams, asked: string, hex: string): NodeTx {
  try {
    const tx = decodeTx(hexToBytes(hex), params);
    return { txid: txidHex(tx), outputs: tx.outputs.map((o, vout) => ({ vout, script: o.script, amount: o.value })) };
  } catch (err) {
    if (err instanceof CoinError) throw new UpstreamFailure(false, `the coin's node answered tx ${asked} with bytes that are no ${params.coin} transaction: ${err.message}`);
    throw err;
  }
}
