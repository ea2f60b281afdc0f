// The address endpoints (balances, history, unspent outputs) and the create endpoints (whose coin
// selection reads the same index) of the UTXO coins answer 503 with Retry-After while the coin's
// index lags its node, or, to a client sending X-Countersign-Accept-Provisional: 1, the address
// answers marked provisional with both heights (use-cases/index-freshness.ts, docs/api-decisions.md).
// The create endpoints answer 503 while the index lags, whatever the client accepts.
// In watch mode a wallet whose own scan runs answers the same way for its addresses alone: the
// route's backend asks the request's gate (ProvisionalGate), set here for the indexed routes.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ProvisionalGate } from '../chains/backend.ts';
import { ACCEPT_PROVISIONAL_HEADER } from '../../shared/api/client.ts';
import { isCoinName } from '../../shared/coins/coin-table.ts';
import type { ReadinessConfig } from '../operations-config.ts';
import { checkFreshness } from '../use-cases/index-freshness.ts';
import type { ServiceContext } from '../use-cases/service-context.ts';

export const PROVISIONAL_HEADERS = {
  provisional: 'x-countersign-provisional',
  indexedHeight: 'x-countersign-indexed-height',
  nodeHeight: 'x-countersign-node-height',
} as const;

/** The routes whose answers come from a coin's index, in v2 (at the root and /v2) and v1. */
const INDEXED_ROUTE = /^(\/v[12])?\/(address\/(balance|balances|history|utxos?)|transaction\/create|multi_sig\/create)\/:coin(\/|$)/;

/** The routes that build a payment: never from a lagging index, provisional or not. */
const BUILDING_ROUTE = /^(\/v[12])?\/(transaction\/create|multi_sig\/create)\/:coin(\/|$)/;

declare module 'fastify' {
  interface FastifyRequest {
    /** The indexed routes' say on provisional answers, for the backend (null on other routes). */
    indexGate: ProvisionalGate | null;
  }
}

function markProvisional(reply: FastifyReply, p: { indexedHeight: number | null; tipHeight: number }): void {
  void reply.header(PROVISIONAL_HEADERS.provisional, 'true');
  void reply.header(PROVISIONAL_HEADERS.indexedHeight, String(p.indexedHeight ?? -1));
  void reply.header(PROVISIONAL_HEADERS.nodeHeight, String(p.tipHeight));
}

/** True for a route (as registered, e.g. /address/balance/:coin/:address) answered from a coin's index. */
export function isIndexedRoute(route: string): boolean {
  return INDEXED_ROUTE.test(route);
}

export function installIndexFreshness(app: FastifyInstance, ctx: ServiceContext, config: ReadinessConfig): void {
  app.decorateRequest('indexGate', null);
  app.addHook('preHandler', (request, reply, done) => {
    const route = request.routeOptions.url;
    const coin = (request.params as { coin?: unknown } | undefined)?.coin;
    if (route === undefined || !isIndexedRoute(route) || typeof coin !== 'string' || !isCoinName(coin)) return done();
    const backend = ctx.utxo.get(coin);
    if (!backend) return done(); // the route answers the 404
    try {
      const refused = backend.refusedChain?.();
      if (refused) throw refused; // another chain's node: its reason, not its lag
      // Coins chosen from a lagging index may already be spent in blocks it has not read: a payment
      // built from them wastes every co-signer's work, so create waits for the index whatever the caller accepts.
      const acceptsProvisional = request.headers[ACCEPT_PROVISIONAL_HEADER] === '1' && !BUILDING_ROUTE.test(route);
      const lag = checkFreshness(backend, config.maxLagBlocks, acceptsProvisional);
      if (lag) markProvisional(reply, lag);
      request.indexGate = { acceptProvisional: acceptsProvisional, provisional: (p) => markProvisional(reply, p) };
      done();
    } catch (err) {
      done(err as Error);
    }
  });
}
