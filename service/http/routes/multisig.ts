// Endpoints 9-10: M-of-N P2SH payments. Keys stay in the order given (no BIP67), docs/api-decisions.md.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CoinParams, HashesToSign, MultiSigPayment, SendStatus, Signatures } from '../../../shared/api/schemas.ts';
import { hash160 } from '../../../shared/coins/hash.ts';
import { parsePublicKeyHex } from '../../../shared/coins/keys.ts';
import { multisigSource } from '../../../shared/coins/payment.ts';
import { multisigRedeemScript, p2shScript } from '../../../shared/coins/script.ts';
import type { ServiceContext } from '../context.ts';
import { utxoBackendFor } from '../context.ts';
import { badRequest } from '../errors.ts';
import { createPayment, signAndSend, spendable } from '../payments.ts';

export function multisigRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.post('/multi_sig/create/:coin', { schema: { params: CoinParams, body: MultiSigPayment, response: { 200: HashesToSign } } }, async (req) => {
      const backend = utxoBackendFor(ctx, req.params.coin);
      const m = req.body.number_of_required_signatures;
      const sources = [];
      for (const [i, rs] of req.body.redeem_scripts.entries()) {
        const keys = rs.public_keys.map((hex, j) => parsePublicKeyHex(hex, `redeem_scripts[${i}].public_keys[${j}]`));
        if (m > keys.length) throw badRequest(`redeem_scripts[${i}]: ${m} signatures required but only ${keys.length} public keys given`);
        const redeemScript = multisigRedeemScript(m, keys);
        const scriptPubKey = p2shScript(hash160(redeemScript));
        sources.push(multisigSource(redeemScript, scriptPubKey, await spendable(backend, scriptPubKey)));
      }
      return createPayment(backend, sources, req.body);
    });

    app.post('/multi_sig/sign_and_send/:coin', { schema: { params: CoinParams, body: Signatures, response: { 200: SendStatus } } }, async (req) => {
      const backend = utxoBackendFor(ctx, req.params.coin);
      return signAndSend(backend, req.body);
    });
  };
}
