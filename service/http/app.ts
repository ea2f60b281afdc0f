// The fastify application: contract validation, auth, error mapping and the routes of each API
// section. Process concerns (listening, signals) live in service.ts and cli.ts.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { createSerializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { bigintReplacer } from '../../shared/api/json.ts';
import { Status } from '../../shared/api/schemas.ts';
import type { Store } from '../store/database.ts';
import { AccessLog, requestLogger } from './access-log.ts';
import { installAuth, type FailureLimit } from './auth.ts';
import type { ServiceContext } from '../use-cases/service-context.ts';
import type { HttpOperations } from '../operations-config.ts';
import { installCors } from './cors.ts';
import { HEALTH_PATHS, healthRoutes } from './health.ts';
import { coinStatuses } from '../use-cases/service-status.ts';
import { installUrlLimit, serverLimits } from './limits.ts';
import { installMetrics, METRICS_PATH } from './metrics.ts';
import { installRateLimit } from './rate-limit.ts';
import { installErrorHandling, shortened } from './errors.ts';
import { installIndexFreshness } from './index-freshness.ts';
import { installApiDocs, isDocsPath } from './openapi.ts';
import { v1Routes } from './v1/routes.ts';
import { addressRoutes } from './routes/address.ts';
import { erc20TokenRoutes } from './routes/erc20-token.ts';
import { ethereumRoutes } from './routes/ethereum.ts';
import { multisigRoutes } from './routes/multisig.ts';
import { watchRoutes } from './routes/watch.ts';
import { networkAddressRoutes } from './routes/network-addresses.ts';
import { priceRoutes } from './routes/prices.ts';
import { transactionRoutes } from './routes/transaction.ts';
import { feeRoutes } from './routes/fees.ts';
import { blockRoutes } from './routes/blocks.ts';
import { relayRoutes } from './routes/relay.ts';
import { Relay, type RelayLimits } from '../relay/relay.ts';

export interface AppOptions {
  ctx: ServiceContext;
  store: Store;
  authRequired: boolean;
  logger: FastifyServerOptions['loggerInstance'] | false;
  /** The earlier revision under /v1 answers without X-API-KEY (config auth.v1Open). */
  v1Open?: boolean;
  /** Failed authentications a client address may make per window (config auth). */
  authFailures: FailureLimit;
  /** Limits, CORS, rate limits, readiness and metrics (operations-config.ts). */
  operations: HttpOperations;
  /** The relay's limits (service/relay/relay.ts) and, for tests, its clock. */
  relay?: { limits: RelayLimits; now?: () => number };
}

// Probes and metrics need no API key (metrics may have a token of their own) and no rate limit.
const OPEN_PATHS = new Set<string>([...HEALTH_PATHS, METRICS_PATH]);

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const ops = options.operations;
  const { maxParamLength, ...limits } = serverLimits(ops.limits);
  const app = Fastify({
    ...(options.logger ? { loggerInstance: requestLogger(options.logger) } : { logger: false }),
    logController: new AccessLog(),
    ...limits,
    // Address lists travel in the path (MAX_ADDRESSES of them).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength },
    frameworkErrors: (error, _request, reply) => {
      void (reply as FastifyReply).code(error.statusCode ?? 400).send({ message: shortened(error.message) });
    },
    requestTimeout: 60_000,
    // request.ip (the rate limits' key without auth) from X-Forwarded-For only through trusted proxies
    trustProxy: ops.trustProxy,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(createSerializerCompiler({ replacer: bigintReplacer }));
  installErrorHandling(app);
  installUrlLimit(app, ops.limits);
  await installCors(app, ops.cors); // before auth: preflights carry no key
  installMetrics(app, options.ctx, ops.metrics);
  installIndexFreshness(app, options.ctx, ops.readiness);
  const isOpenRoute = (route: string) => OPEN_PATHS.has(route) || isDocsPath(route) || (options.v1Open === true && route.startsWith('/v1/'));
  if (options.authRequired) installAuth(app, options.store, isOpenRoute, options.authFailures);
  await installRateLimit(app, ops.rateLimit, (route) => OPEN_PATHS.has(route));

  // before the routes: the OpenAPI documents collect them as they are registered
  await installApiDocs(app, { authRequired: options.authRequired, v1Open: options.v1Open === true });

  // one relay for both prefixes: a long poll under /v2 is woken by a post at the root
  const relay = new Relay(options.store, options.relay?.limits, options.relay?.now);
  const api = async (scope: FastifyInstance) => {
    await scope.register(addressRoutes(options.ctx));
    await scope.register(networkAddressRoutes(options.ctx));
    await scope.register(transactionRoutes(options.ctx));
    await scope.register(multisigRoutes(options.ctx));
    await scope.register(watchRoutes(options.ctx));
    await scope.register(feeRoutes(options.ctx));
    await scope.register(blockRoutes(options.ctx));
    await scope.register(ethereumRoutes(options.ctx));
    await scope.register(erc20TokenRoutes(options.ctx));
    await scope.register(priceRoutes(options.ctx));
    await scope.register(relayRoutes(relay));
    scope.withTypeProvider<ZodTypeProvider>().get('/status', { schema: { response: { 200: Status } } }, async () => ({ coins: await coinStatuses(options.ctx) }));
  };
  // v2 at the root and under /v2 (docs/api-decisions.md)
  await app.register(api);
  await app.register(api, { prefix: '/v2' });
  // the earlier revision (spec section 9)
  await app.register(v1Routes(options.ctx), { prefix: '/v1' });
  await app.register(healthRoutes(options.ctx, ops.readiness));
  return app;
}
