// Extension: GET /blocks/{coin}/height_at/{unix_time} (docs/api-decisions.md, section 10): the first
// block at or after a moment by the node's block times, so a wallet's birthday date becomes a height.
import type { HeightAt } from '../../shared/api/schemas.ts';
import { heightAt } from '../chains/block-times.ts';
import { ApiError, UpstreamFailure } from '../errors.ts';
import { type ServiceContext, utxoBackendFor } from './service-context.ts';

export async function blockHeightAt(ctx: Pick<ServiceContext, 'utxo' | 'blockTimes'>, coin: string, unixTime: number): Promise<HeightAt> {
  const backend = utxoBackendFor(ctx, coin);
  const times = ctx.blockTimes?.get(backend.params.coin);
  if (!times) throw new ApiError(501, `block times are not available over the ${(await backend.status()).backend} backend of ${coin}: only a node (node-rpc) tells them`);
  try {
    const at = await heightAt(times, unixTime);
    return { coin, time: unixTime, height: at.height, block_hash: at.hash, median_time: at.medianTime, tip_height: at.tipHeight };
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new UpstreamFailure(false, `the ${coin} node did not tell its block times: ${err instanceof Error ? err.message : String(err)}`);
  }
}
