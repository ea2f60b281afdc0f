// Endpoints 6-8: single-signature payments from public keys, and raw broadcast; raw tx lookup
// (extension). The work is in use-cases/build-payment.ts, sign-and-send.ts, raw-transaction.ts.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CoinParams, CreateTransactionBody, CreateTransactionQueryV2, HashesToSign, RawTransaction, SendRawQuery, SendStatus, Signatures, TxidParams } from '../../../shared/api/schemas.ts';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import { buildUnsignedPayment, singleSigSources } from '../../use-cases/build-payment.ts';
import { rawTransaction } from '../../use-cases/raw-transaction.ts';
import { type ServiceContext, utxoBackendAs, utxoBackendFor } from '../../use-cases/service-context.ts';
import { sendRaw, signAndSend } from '../../use-cases/sign-and-send.ts';
import { hashesToSignBody, sentBody } from '../bodies.ts';

export function transactionRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    // The treasury extensions come as an optional JSON body (docs/api-decisions.md, section 8).
    app.post(
      '/transaction/create/:coin',
      { schema: { params: CoinParams, querystring: CreateTransactionQueryV2, body: CreateTransactionBody, response: { 200: HashesToSign } } },
      async (req) => {
        const backend = utxoBackendAs(ctx, req.params.coin, req.apiKeyId, req.indexGate);
        const sources = singleSigSources(req.query.from);
        return hashesToSignBody(await buildUnsignedPayment(backend, sources, { ...req.query, ...req.body }));
      },
    );

    app.post('/transaction/sign_and_send/:coin', { schema: { params: CoinParams, body: Signatures, response: { 200: SendStatus } } }, async (req) => {
      return sentBody(await signAndSend(utxoBackendFor(ctx, req.params.coin), req.body));
    });

    app.post('/transaction/send_raw/:coin', { schema: { params: CoinParams, querystring: SendRawQuery, response: { 200: SendStatus } } }, async (req) => {
      return sentBody(await sendRaw(utxoBackendFor(ctx, req.params.coin), req.query.rawtx));
    });

    app.get('/transaction/raw/:coin/:txid', { schema: { params: TxidParams, response: { 200: RawTransaction } } }, async (req) => {
      const { txid, bytes } = await rawTransaction(utxoBackendFor(ctx, req.params.coin), req.params.txid);
      return { txid, hex: bytesToHex(bytes) };
    });
  };
}
