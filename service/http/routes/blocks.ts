// Extension: GET /blocks/{coin}/height_at/{unix_time} (docs/api-decisions.md, section 10): the first
// block at or after a moment by the node's block times, so a wallet's birthday date becomes a height.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { HeightAt, HeightAtParams } from '../../../shared/api/schemas.ts';
import { heightAt } from '../../chains/block-times.ts';
import { ApiError, UpstreamFailure } from '../../errors.ts';
import { type ServiceContext, utxoBackendFor } from '../../use-cases/service-context.ts';

export function blockRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get('/blocks/:coin/height_at/:unix_time', { schema: { params: HeightAtParams, response: { 200: HeightAt } } }, async (req) => {
      const { coin, unix_time } = req.params;
      const backend = utxoBackendFor(ctx, coin);
      const times = ctx.blockTimes?.get(backend.params.coin);
      if (!times) throw new ApiError(501, `block times are not available over the ${(await backend.status()).backend} backend of ${coin}: only a node (node-rpc) answers them`);
      try {
        const at = await heightAt(times, unix_time);
        return { coin, time: unix_time, height: at.height, block_hash: at.hash, median_time: at.medianTime, tip_height: at.tipHeight };
      } catch (err) {
        if (err instanceof ApiError) throw err;
        throw new UpstreamFailure(false, `the ${coin} node did not tell its block times: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
  };
}
