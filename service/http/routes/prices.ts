// Extension: USD rates at past times (the desk's books value each transaction when it confirmed),
// from the same price source as usd_balance, cached per (coin, day).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CoinParams, PriceHistory, PriceHistoryQuery } from '../../../shared/api/schemas.ts';
import { isCoinName } from '../../../shared/coins/coin-table.ts';
import { quoted } from '../../../shared/coins/errors.ts';
import { notFound } from '../../errors.ts';
import type { ServiceContext } from '../../use-cases/service-context.ts';

const day = (at: number) => new Date(at * 1000).toISOString().slice(0, 10);

export function priceRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get('/prices/history/:coin', { schema: { params: CoinParams, querystring: PriceHistoryQuery, response: { 200: PriceHistory } } }, async (req) => {
      const { coin } = req.params;
      if (!isCoinName(coin)) throw notFound(`unknown coin ${quoted(coin)}`);
      const times = req.query.at.split(',').map(Number);
      const rates = await Promise.all(times.map(async (at) => ({ at, day: day(at), usd_rate: ctx.usdRateAt ? await ctx.usdRateAt(coin, at) : null })));
      return { coin, rates };
    });
  };
}
