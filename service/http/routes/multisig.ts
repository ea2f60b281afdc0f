// Endpoints 9-10: M-of-N payments (use-cases/build-payment.ts, sign-and-send.ts). Without the
// extension fields: P2SH, keys in the order given (no BIP67); docs/api-decisions.md, section 8.
// Miniscript vaults on a chosen path: use-cases/miniscript-payment.ts, section 12.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CoinParams, MultisigHashesToSign, MultiSigPayment, SendStatus, Signatures } from '../../../shared/api/schemas.ts';
import { buildUnsignedPayment, multisigSources } from '../../use-cases/build-payment.ts';
import { buildMiniscriptPayment, isMiniscriptEntry } from '../../use-cases/miniscript-payment.ts';
import { type ServiceContext, utxoBackendAs, utxoBackendFor } from '../../use-cases/service-context.ts';
import { signAndSend } from '../../use-cases/sign-and-send.ts';
import { hashesToSignBody, sentBody } from '../bodies.ts';

export function multisigRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.post('/multi_sig/create/:coin', { schema: { params: CoinParams, body: MultiSigPayment, response: { 200: MultisigHashesToSign } } }, async (req) => {
      const backend = utxoBackendAs(ctx, req.params.coin, req.apiKeyId, req.indexGate);
      if (req.body.redeem_scripts.some(isMiniscriptEntry)) return hashesToSignBody(await buildMiniscriptPayment(backend, req.body.redeem_scripts, req.body), true);
      const sources = multisigSources(backend.params, req.body.number_of_required_signatures, req.body.redeem_scripts);
      const extended = req.body.redeem_scripts.some((rs) => rs.script_type !== undefined || rs.sort_keys !== undefined);
      return hashesToSignBody(await buildUnsignedPayment(backend, sources, req.body), extended);
    });

    app.post('/multi_sig/sign_and_send/:coin', { schema: { params: CoinParams, body: Signatures, response: { 200: SendStatus } } }, async (req) => {
      return sentBody(await signAndSend(utxoBackendFor(ctx, req.params.coin), req.body));
    });
  };
}
