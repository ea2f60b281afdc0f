// The fastify application: contract validation, auth, error mapping and the routes of each API
// section. Process concerns (listening, signals) live in service.ts and cli.ts.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { createSerializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { bigintReplacer } from '../../shared/api/json.ts';
import { Status } from '../../shared/api/schemas.ts';
import type { Store } from '../store/database.ts';
import { installAuth } from './auth.ts';
import type { ServiceContext } from './context.ts';
import { installErrorHandling } from './errors.ts';
import { addressRoutes } from './routes/address.ts';
import { ethereumRoutes } from './routes/ethereum.ts';
import { multisigRoutes } from './routes/multisig.ts';
import { networkAddressRoutes } from './routes/network-addresses.ts';
import { transactionRoutes } from './routes/transaction.ts';

export interface AppOptions {
  ctx: ServiceContext;
  store: Store;
  authRequired: boolean;
  logger: FastifyServerOptions['loggerInstance'] | false;
}

const OPEN_PATHS = new Set(['/healthz']);

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: 1024 * 1024,
    // Address lists travel in the path (MAX_ADDRESSES of them).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 20_000 },
    frameworkErrors: (error, _request, reply) => {
      void (reply as FastifyReply).code(error.statusCode ?? 400).send({ message: error.message });
    },
    requestTimeout: 60_000,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(createSerializerCompiler({ replacer: bigintReplacer }));
  installErrorHandling(app);
  if (options.authRequired) installAuth(app, options.store, (url) => OPEN_PATHS.has(url.split('?')[0] ?? ''));

  const api = async (scope: FastifyInstance) => {
    await scope.register(addressRoutes(options.ctx));
    await scope.register(networkAddressRoutes(options.ctx));
    await scope.register(transactionRoutes(options.ctx));
    await scope.register(multisigRoutes(options.ctx));
    await scope.register(ethereumRoutes(options.ctx));
    scope.withTypeProvider<ZodTypeProvider>().get('/status', { schema: { response: { 200: Status } } }, async () => ({
      coins: await Promise.all(
        [
          ...[...options.ctx.utxo.values()].map((b) => ({ coin: b.params.coin, network: b.params.network, b })),
          ...(options.ctx.evm ? [{ coin: 'ethereum', network: options.ctx.evm.network, b: options.ctx.evm }] : []),
        ].map(async ({ coin, network, b }) => {
          const s = await b.status();
          return {
            coin,
            network,
            backend: s.backend,
            tip_height: s.tipHeight,
            indexed_height: s.indexedHeight,
            lag: s.tipHeight !== null && s.indexedHeight !== null ? s.tipHeight - s.indexedHeight : null,
            mempool_txs: s.mempoolTxs,
            error: s.error,
          };
        }),
      ),
    }));
  };
  // v2 at the root and under /v2 (SEMANTICS.md)
  await app.register(api);
  await app.register(api, { prefix: '/v2' });
  app.get('/healthz', async () => ({ status: 'ok' }));
  return app;
}
