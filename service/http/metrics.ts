// Prometheus metrics at /metrics: request latency by route pattern (never the raw URL, whose
// address lists would make a series per client) and status class, upstream failures by coin and
// kind, and each coin's index height and lag, read from the backends at scrape time. One registry
// per app, so several services in one process (tests, the desktop app) never share series.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { isCoinName } from '../../shared/coins/coin-table.ts';
import { UpstreamFailure } from '../errors.ts';
import type { MetricsConfig } from '../operations-config.ts';
import type { ServiceContext } from '../use-cases/service-context.ts';
import { ApiError } from './errors.ts';
import { coinStatuses } from '../use-cases/service-status.ts';
import { LatencyHistogram } from './latency-histogram.ts';

export const METRICS_PATH = '/metrics';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Hooks every route registered afterwards and serves /metrics. */
export function installMetrics(app: FastifyInstance, ctx: ServiceContext, config: MetricsConfig): void {
  if (!config.enabled) return;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  // Not in the registry: counted and written by LatencyHistogram (latency-histogram.ts says why).
  const latency = new LatencyHistogram('countersign_http_request_duration_seconds', 'Time to answer an API request, by route pattern and status class', LATENCY_BUCKETS);
  const upstreamErrors = new Counter({
    name: 'countersign_upstream_errors_total',
    help: 'Requests that failed because a coin upstream (node, Blockbook, Electrum) failed (kind=error, 502) or timed out (kind=timeout, 504)',
    labelNames: ['coin', 'kind'] as const,
    registers: [registry],
  });

  // One read of the backends per scrape, shared by the gauges below (prom-client collects them
  // all at once).
  let reading: Promise<void> | null = null;
  const refresh = (): Promise<void> =>
    (reading ??= (async () => {
      const coins = await coinStatuses(ctx);
      for (const g of coinGauges) g.reset();
      for (const c of coins) {
        const labels = { coin: c.coin };
        if (c.tip_height !== null) tip.set(labels, c.tip_height);
        if (c.indexed_height !== null) indexed.set(labels, c.indexed_height);
        if (c.lag !== null) lag.set(labels, c.lag);
        up.set(labels, c.error === null ? 1 : 0);
        if (c.role) leader.set(labels, c.role === 'leader' ? 1 : 0);
      }
    })().finally(() => {
      reading = null;
    }));
  const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames: ['coin'] as const, registers: [registry], collect: refresh });
  const lag = gauge('countersign_index_lag_blocks', 'Blocks between the node tip and the newest block in the index');
  const indexed = gauge('countersign_indexed_height', 'Height of the newest block in the index');
  const tip = gauge('countersign_tip_height', "Height of the node's tip as last seen");
  const up = gauge('countersign_backend_up', '1 while the coin backend answers, 0 while its last poll failed');
  const leader = gauge('countersign_index_leader', '1 when this instance runs the coin indexer, 0 when another instance does (PostgreSQL scale-out)');
  const coinGauges = [lag, indexed, tip, up, leader];

  // Callback style, not async: it runs on every request and a promise per hook shows in the bench.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (route !== METRICS_PATH) latency.observe(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.addHook('onError', async (request, _reply, error) => {
    if (!(error instanceof UpstreamFailure)) return;
    const param = (request.params as Record<string, unknown> | undefined)?.coin;
    const route = request.routeOptions.url ?? '';
    const coin = typeof param === 'string' && isCoinName(param) ? param : /\/(ethereum|erc20)\//.test(route) ? 'ethereum' : 'unknown';
    upstreamErrors.inc({ coin, kind: error.statusCode === 504 ? 'timeout' : 'error' });
  });

  const token = config.token === undefined ? null : digest(config.token);
  app.get(METRICS_PATH, async (request, reply) => {
    if (token !== null) {
      const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (given === undefined || !timingSafeEqual(digest(given), token)) throw new ApiError(401, 'metrics need the metrics token: Authorization: Bearer <metrics.token from the configuration>');
    }
    return reply.type(registry.contentType).send(`${await registry.metrics()}\n${latency.exposition()}`);
  });
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
