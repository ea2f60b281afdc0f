// Extension: an ERC20 token's own name, symbol and decimals, so a client never has to type decimals
// (endpoints 1, 3, 13 and 14 take decimal_places from the caller).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ContractParams, Erc20Token } from '../../../shared/api/schemas.ts';
import { evmAddress } from '../../use-cases/address-list.ts';
import { evmBackendFor, type ServiceContext } from '../../use-cases/service-context.ts';

export function erc20TokenRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get('/erc20/token/:contract', { schema: { params: ContractParams, response: { 200: Erc20Token } } }, async (req) => {
      const backend = evmBackendFor(ctx);
      return backend.tokenInfo(evmAddress(req.params.contract, 'contract'));
    });
  };
}
