// Watch mode's registration API (docs/api-decisions.md): wallets a node backend with index 'watch'
// indexes, from their birthdays (use-cases/watch-wallets.ts).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ErrorMessage, WatchParams, WatchRegistration, WatchRescan, WatchStatus, WatchWindow } from '../../../shared/api/schemas.ts';
import { type ServiceContext, utxoBackendFor } from '../../use-cases/service-context.ts';
import { found, ownerOf, walletWatch } from '../../use-cases/watch-wallets.ts';

export function watchRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    // 404: a wallet this key did not register; 409: the coin runs the full index (nothing to register).
    const answers = { 200: WatchStatus, 404: ErrorMessage.describe('No such registration for this key'), 409: ErrorMessage.describe('The coin runs the full index') };

    app.put('/watch/:coin/:wallet_id', { schema: { params: WatchParams, body: WatchRegistration, response: answers } }, async (req) => {
      const watch = walletWatch(utxoBackendFor(ctx, req.params.coin));
      const b = req.body;
      return watch.register(ownerOf(req.apiKeyId), req.params.wallet_id, { descriptors: b.descriptors, birthdayHeight: b.birthday_height, gapLimit: b.gap_limit, ...(b.shown ? { shown: b.shown } : {}) });
    });

    app.get('/watch/:coin/:wallet_id', { schema: { params: WatchParams, response: answers } }, async (req) => {
      const watch = walletWatch(utxoBackendFor(ctx, req.params.coin));
      return found(await watch.status(ownerOf(req.apiKeyId), req.params.wallet_id), req.params.wallet_id);
    });

    app.post('/watch/:coin/:wallet_id/rescan', { schema: { params: WatchParams, body: WatchRescan, response: answers } }, async (req) => {
      const watch = walletWatch(utxoBackendFor(ctx, req.params.coin));
      return found(await watch.rescan(ownerOf(req.apiKeyId), req.params.wallet_id, req.body.from_height), req.params.wallet_id);
    });

    // The owner has shown addresses further out (a new receive address, change of payments in
    // flight): they are watched with the gap past them; blocks are read again only for new ones.
    app.post('/watch/:coin/:wallet_id/window', { schema: { params: WatchParams, body: WatchWindow, response: answers } }, async (req) => {
      const watch = walletWatch(utxoBackendFor(ctx, req.params.coin));
      return found(await watch.extend(ownerOf(req.apiKeyId), req.params.wallet_id, req.body.shown), req.params.wallet_id);
    });
  };
}
