// Endpoints 11-14: Ether and ERC20 transfers signed by the caller as (r, s, v)
// (use-cases/ether-transfer.ts).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Erc20CreateQuery, Erc20SendQuery, EthereumCreateQuery, EthereumSendQuery, EthereumToSign, SendStatus } from '../../../shared/api/schemas.ts';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import { createTransfer, signAndSendTransfer, type TransferToSign } from '../../use-cases/ether-transfer.ts';
import { evmBackendFor, type ServiceContext } from '../../use-cases/service-context.ts';
import { sentBody } from '../bodies.ts';

const toSignBody = (t: TransferToSign) => ({ tx: `0x${bytesToHex(t.payload)}`, hash_to_sign: `0x${bytesToHex(t.hash)}` });

export function ethereumRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.post('/ethereum/create/', { schema: { querystring: EthereumCreateQuery, response: { 200: EthereumToSign } } }, async (req) =>
      toSignBody(await createTransfer(evmBackendFor(ctx), req.query)),
    );
    app.post('/ethereum/sign_and_send/', { schema: { querystring: EthereumSendQuery, response: { 200: SendStatus } } }, async (req) =>
      sentBody(await signAndSendTransfer(evmBackendFor(ctx), req.query)),
    );
    app.post('/erc20/create/', { schema: { querystring: Erc20CreateQuery, response: { 200: EthereumToSign } } }, async (req) =>
      toSignBody(await createTransfer(evmBackendFor(ctx), req.query)),
    );
    app.post('/erc20/sign_and_send/', { schema: { querystring: Erc20SendQuery, response: { 200: SendStatus } } }, async (req) =>
      sentBody(await signAndSendTransfer(evmBackendFor(ctx), req.query)),
    );
  };
}
