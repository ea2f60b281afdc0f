// Extension: fee estimates per confirmation target (use-cases/fee-estimates.ts).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CoinParams, FeeEstimates } from '../../../shared/api/schemas.ts';
import { feeEstimates } from '../../use-cases/fee-estimates.ts';
import { type ServiceContext, utxoBackendFor } from '../../use-cases/service-context.ts';

export function feeRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get('/fee_estimates/:coin', { schema: { params: CoinParams, response: { 200: FeeEstimates } } }, async (req) => feeEstimates(utxoBackendFor(ctx, req.params.coin)));
  };
}
