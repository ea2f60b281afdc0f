// The one way the index asks its node for a block. Raw (`getblock <hash> 0`) for the coins whose
// blocks the codec reads whole (the coin table's `rawBlocks`): a fraction of verbose JSON's bytes,
// no JSON tree, and far less work for the node, which renders no addresses. Verbose JSON
// (`getblock <hash> 2`) for the others. Both give the same ReadBlock (raw-block.test.ts proves it
// on real regtest blocks).
import type { ChainParams } from '../../../shared/coins/coin-table.ts';
import type { BlockCodecChoice } from '../../../shared/coins/block.ts';
import type { RpcClient } from './rpc-client.ts';
import { isCodecGap, readRawBlock } from './raw-block.ts';
import { readVerboseBlock, type ReadBlock } from './verbose-block.ts';
import { CODEC_GAP, type BlockParsePool } from './block-parse-pool.ts';

export type BlockForm = 'raw' | 'verbose';

/** The codec choice for raw blocks, or null: this coin's blocks are read as verbose JSON. */
export function rawBlockCodec(params: ChainParams): BlockCodecChoice | null {
  if (params.rawBlocks === undefined) return null;
  return { segwit: params.segwit, rawBlocks: params.rawBlocks, ...(params.specialTx === undefined ? {} : { specialTx: params.specialTx }) };
}

export function blockFormOf(params: ChainParams): BlockForm {
  return rawBlockCodec(params) ? 'raw' : 'verbose';
}

/** Raw blocks decoded on parse threads (`pool` null: on this thread); `levelRows`: read for the LevelDB index, as its rows. */
export interface ParseOn {
  pool: BlockParsePool | null;
  levelRows: boolean;
}

/**
 * The block `hash` at `height`, read the coin's way (`form` overrides it: tests and the bench
 * compare the two). A raw block the codec cannot read (a transaction form it does not know, such
 * as an MWEB transaction among a Litecoin block's own) is read again as verbose JSON, so a gap in
 * the codec slows one block rather than stopping the index.
 */
export async function fetchBlock(rpc: RpcClient, params: ChainParams, hash: string, height: number, form: BlockForm = blockFormOf(params), parse?: ParseOn): Promise<ReadBlock> {
  const codec = rawBlockCodec(params);
  if (form === 'raw' && codec) {
    const hex = await rpc.call<unknown>('getblock', [hash, 0]);
    const read = parse?.pool ? await parse.pool.parse(hex, hash, height, codec, parse.levelRows) : readRawHere(hex, hash, height, codec, parse?.levelRows ?? false);
    if (read !== CODEC_GAP) return read;
  }
  return readVerboseBlock(await rpc.call<unknown>('getblock', [hash, 2]), params.decimals);
}

/** The raw block read on this thread, or CODEC_GAP as a parse thread answers it. */
function readRawHere(hex: unknown, hash: string, height: number, codec: BlockCodecChoice, levelRows: boolean): ReadBlock | typeof CODEC_GAP {
  try {
    return readRawBlock(hex, hash, height, codec, levelRows);
  } catch (err) {
    if (isCodecGap(err)) return CODEC_GAP;
    throw err;
  }
}
