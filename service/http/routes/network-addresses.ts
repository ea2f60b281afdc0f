// Endpoint 5: extended public keys to addresses on every coin that can hold them
// (use-cases/network-addresses.ts).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ExtendedKeys, NetworkAddressesList } from '../../../shared/api/schemas.ts';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import { networkAddresses } from '../../use-cases/network-addresses.ts';
import type { ServiceContext } from '../../use-cases/service-context.ts';

export function networkAddressRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.post('/address/to_network_addresses', { schema: { body: ExtendedKeys, response: { 200: NetworkAddressesList } } }, async (req) =>
      networkAddresses(ctx.utxo, req.body.master_keys, req.body.number_of_required_signatures, {
        ...(req.body.script_type !== undefined ? { scriptType: req.body.script_type } : {}),
        ...(req.body.sort_keys !== undefined ? { sortKeys: req.body.sort_keys } : {}),
      }).map((entry) => ({
        addresses: entry.addresses.map((a) => ({ network_address: a.address, coin: a.coin })),
        public_keys: entry.publicKeys.map(bytesToHex),
      })),
    );
  };
}
