// Turns a node's verbose block or transaction (getblock verbosity 2, getrawtransaction true) into
// what the index stores. Addresses come from the scriptPubKey with the coin's own prefixes, never
// from the node, so a litecoind regtest node can serve any Bitcoin-rules coin.
import { z } from 'zod';
import type { ChainParams } from '../../../shared/coins/coin-table.ts';
import { scriptToAddress } from '../../../shared/coins/address.ts';
import { hexToBytes } from '../../../shared/coins/bytes.ts';
import type { IndexedBlock, IndexedTx } from '../../store/utxo-index.ts';
import { coinsToUnits } from './rpc-client.ts';

const VerboseInput = z
  .object({ coinbase: z.string().optional(), txid: z.string().optional(), vout: z.number().int().nonnegative().optional() })
  .loose();

const VerboseTx = z
  .object({
    txid: z.string(),
    vin: z.array(VerboseInput),
    vout: z.array(
      z
        .object({
          value: z.number(),
          n: z.number().int().nonnegative(),
          scriptPubKey: z.object({ hex: z.string() }).loose(),
        })
        .loose(),
    ),
  })
  .loose();
export type VerboseTx = z.infer<typeof VerboseTx>;

export const VerboseBlock = z
  .object({
    hash: z.string(),
    height: z.number().int().nonnegative(),
    time: z.number().int(),
    previousblockhash: z.string().optional(),
    tx: z.array(VerboseTx),
  })
  .loose();
export type VerboseBlock = z.infer<typeof VerboseBlock>;

export function indexedTx(params: ChainParams, tx: VerboseTx): IndexedTx {
  const inputs = [];
  for (const vin of tx.vin) if (vin.txid !== undefined && vin.vout !== undefined) inputs.push({ txid: vin.txid, vout: vin.vout });
  const outputs = [];
  for (const out of tx.vout) {
    const address = scriptToAddress(params, hexToBytes(out.scriptPubKey.hex));
    if (address === null) continue;
    outputs.push({ vout: out.n, address, scriptHex: out.scriptPubKey.hex, amount: coinsToUnits(out.value, params.decimals) });
  }
  return { txid: tx.txid, inputs, outputs };
}

export function indexedBlock(params: ChainParams, block: VerboseBlock): IndexedBlock {
  return { height: block.height, hash: block.hash, time: block.time, txs: block.tx.map((t) => indexedTx(params, t)) };
}

export function parseVerboseBlock(json: unknown): VerboseBlock {
  return VerboseBlock.parse(json);
}

export function parseVerboseTx(json: unknown): VerboseTx {
  return VerboseTx.parse(json);
}
