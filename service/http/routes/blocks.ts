// Extension: GET /blocks/{coin}/height_at/{unix_time} (use-cases/block-height.ts).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { HeightAt, HeightAtParams } from '../../../shared/api/schemas.ts';
import { blockHeightAt } from '../../use-cases/block-height.ts';
import type { ServiceContext } from '../../use-cases/service-context.ts';

export function blockRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get('/blocks/:coin/height_at/:unix_time', { schema: { params: HeightAtParams, response: { 200: HeightAt } } }, async (req) => blockHeightAt(ctx, req.params.coin, req.params.unix_time));
  };
}
