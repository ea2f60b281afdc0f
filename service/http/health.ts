// Liveness and readiness for load balancers and orchestrators, open without an API key:
// /healthz says the process answers; /readyz says its answers are current (every coin's index
// within `maxLagBlocks` of the node's tip, and no backend failing), else 503 naming the coin.
import type { FastifyInstance } from 'fastify';
import type { ReadinessConfig } from '../operations-config.ts';
import type { ServiceContext } from '../use-cases/service-context.ts';
import { coinStatuses, readinessProblems } from '../use-cases/service-status.ts';

export const HEALTH_PATHS = ['/healthz', '/readyz'] as const;

export function healthRoutes(ctx: ServiceContext, config: ReadinessConfig) {
  return async (app: FastifyInstance) => {
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/readyz', async (_request, reply) => {
      const coins = await coinStatuses(ctx);
      const problems = readinessProblems(coins, config.maxLagBlocks);
      const summary = coins.map((c) => ({ coin: c.coin, tip_height: c.tip_height, indexed_height: c.indexed_height, lag: c.lag, error: c.error, ...(c.role ? { role: c.role } : {}) }));
      if (problems.length === 0) return { ready: true, coins: summary };
      return reply.code(503).send({ ready: false, message: `not ready: ${problems.join('; ')}`, coins: summary });
    });
  };
}
