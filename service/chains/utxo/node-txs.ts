// The LevelDB index keeps no output's script (layout 4, service/index/level-index.ts): where an
// answer needs the script of an outpoint it was not asked by (the mempool's spent outputs,
// outputs()), it reads the tx from the node, named by its txid and its block's hash, which needs
// no -txindex. This is that reader over the node's RPC: the index checks what it answers.
import type { ChainParams } from '../../../shared/coins/coin-table.ts';
import { hexToBytes } from '../../../shared/coins/bytes.ts';
import { CoinError } from '../../../shared/coins/errors.ts';
import { decodeTx, txidHex } from '../../../shared/coins/tx.ts';
import type { ConfirmedTxReader, NodeTx } from '../../index/utxo-index.ts';
import { UpstreamFailure } from '../../errors.ts';
import type { RpcClient } from './rpc-client.ts';

/** Txs asked in one JSON-RPC batch (one HTTP request): a mempool tx's parents, an outputs() call's txs. */
const BATCH = 50;
/** bitcoind's "no such transaction in the provided block" (and "no such block"). */
const RPC_INVALID_ADDRESS_OR_KEY = -5;

/**
 * `getrawtransaction <txid> false <blockhash>` for each tx asked, decoded with the chain's codec:
 * the txid given back is the one its bytes hash to (the index compares it with the one it asked).
 * A tx or block the node does not know is null; any other refusal is the node's, in its words.
 */
export function nodeTxReader(rpc: RpcClient, params: ChainParams): ConfirmedTxReader {
  return async (txs) => {
    const out: (NodeTx | null)[] = [];
    for (let i = 0; i < txs.length; i += BATCH) {
      const part = txs.slice(i, i + BATCH);
      const answers = await rpc.batch<string>(part.map((t) => ({ method: 'getrawtransaction', params: [t.txid, false, t.blockHash] })));
      answers.forEach((a, j) => {
        const asked = part[j]!;
        if ('error' in a) {
          if (a.error.code === RPC_INVALID_ADDRESS_OR_KEY) return out.push(null);
          throw new UpstreamFailure(false, `the coin's node refused tx ${asked.txid} of block ${asked.height} (${asked.blockHash}): ${a.error.message} (code ${a.error.code})`);
        }
        out.push(decoded(params, asked.txid, a.result));
      });
    }
    return out;
  };
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
