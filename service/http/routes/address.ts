// Endpoints 1-4: balances, history and unspent outputs of addresses (use-cases/address-queries.ts,
// evm-address-queries.ts for ethereum).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AddressesParams, AddressParams, Balance, Balances, History, HistoryQuery, TokenQuery, Utxos, UtxosQuery } from '../../../shared/api/schemas.ts';
import { isEvmCoin } from '../../../shared/coins/coin-table.ts';
import { addressBalance, addressBalances, addressHistory, unspentOutputsWithDepth } from '../../use-cases/address-queries.ts';
import { evmBalance, evmBalances, evmHistory } from '../../use-cases/evm-address-queries.ts';
import { evmBackendFor, type ServiceContext, utxoBackendAs } from '../../use-cases/service-context.ts';
import { utxoDepthBody } from '../bodies.ts';
import { NEXT_CURSOR_HEADER } from '../../../shared/api/client.ts';

export function addressRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get('/address/balance/:coin/:address', { schema: { params: AddressParams, querystring: TokenQuery, response: { 200: Balance } } }, async (req) => {
      if (isEvmCoin(req.params.coin)) return evmBalance(evmBackendFor(ctx), ctx.usdRate, req.params.address, req.query);
      return addressBalance(utxoBackendAs(ctx, req.params.coin, req.apiKeyId, req.indexGate), ctx.usdRate, req.params.address, req.query);
    });

    app.get('/address/balances/:coin/:addresses', { schema: { params: AddressesParams, querystring: TokenQuery, response: { 200: Balances } } }, async (req) => {
      if (isEvmCoin(req.params.coin)) return evmBalances(evmBackendFor(ctx), ctx.usdRate, req.params.addresses, req.query);
      return addressBalances(utxoBackendAs(ctx, req.params.coin, req.apiKeyId, req.indexGate), ctx.usdRate, req.params.addresses, req.query);
    });

    app.get('/address/history/:coin/:addresses', { schema: { params: AddressesParams, querystring: HistoryQuery, response: { 200: History } } }, async (req) => {
      if (isEvmCoin(req.params.coin)) return evmHistory(evmBackendFor(ctx), req.params.addresses, req.query);
      return addressHistory(utxoBackendAs(ctx, req.params.coin, req.apiKeyId, req.indexGate), req.params.addresses, req.query);
    });

    // A page (docs/api-decisions.md, section 6): a cut answer says so in next_cursor and the header.
    app.get('/address/utxos/:coin/:addresses', { schema: { params: AddressesParams, querystring: UtxosQuery, response: { 200: Utxos } } }, async (req, reply) => {
      const page = await unspentOutputsWithDepth(utxoBackendAs(ctx, req.params.coin, req.apiKeyId, req.indexGate), req.params.addresses, { limit: req.query.limit, after: req.query.cursor });
      if (page.next === null) return { utxos: utxoDepthBody(page.rows) };
      void reply.header(NEXT_CURSOR_HEADER, page.next);
      return { utxos: utxoDepthBody(page.rows), next_cursor: page.next };
    });
  };
}
