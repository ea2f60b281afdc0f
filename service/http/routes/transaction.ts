// Endpoints 6-8: single-signature payments from public keys, and raw broadcast; raw tx lookup (extension).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CoinParams, CreateTransactionQuery, HashesToSign, RawTransaction, SendRawQuery, SendStatus, Signatures, TxidParams } from '../../../shared/api/schemas.ts';
import { hash160 } from '../../../shared/coins/hash.ts';
import { p2pkhScript } from '../../../shared/coins/script.ts';
import { parsePublicKeyHex } from '../../../shared/coins/keys.ts';
import type { PaymentSource } from '../../../shared/coins/payment.ts';
import { badRequest, notFound } from '../errors.ts';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import type { ServiceContext } from '../context.ts';
import { utxoBackendFor } from '../context.ts';
import { createPayment, decodeTxField, signAndSend, spendable } from '../payments.ts';
import type { UtxoBackend } from '../../chains/backend.ts';

export async function singleSigSources(backend: UtxoBackend, from: string): Promise<PaymentSource[]> {
  const keys = from.split(',').map((k) => k.trim()).filter((k) => k.length > 0);
  if (keys.length === 0) throw badRequest('from must list at least one public key (hex, comma-separated)');
  const sources: PaymentSource[] = [];
  for (const [i, hex] of keys.entries()) {
    const publicKey = parsePublicKeyHex(hex, keys.length > 1 ? `from[${i}]` : 'from');
    const scriptPubKey = p2pkhScript(hash160(publicKey));
    sources.push({ scriptCode: scriptPubKey, publicKeys: [publicKey], required: 1, scriptPubKey, unspent: await spendable(backend, scriptPubKey) });
  }
  return sources;
}

export function transactionRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.post('/transaction/create/:coin', { schema: { params: CoinParams, querystring: CreateTransactionQuery, response: { 200: HashesToSign } } }, async (req) => {
      const backend = utxoBackendFor(ctx, req.params.coin);
      const sources = await singleSigSources(backend, req.query.from);
      return createPayment(backend, sources, req.query);
    });

    app.post('/transaction/sign_and_send/:coin', { schema: { params: CoinParams, body: Signatures, response: { 200: SendStatus } } }, async (req) => {
      const backend = utxoBackendFor(ctx, req.params.coin);
      return signAndSend(backend, req.body);
    });

    app.post('/transaction/send_raw/:coin', { schema: { params: CoinParams, querystring: SendRawQuery, response: { 200: SendStatus } } }, async (req) => {
      const backend = utxoBackendFor(ctx, req.params.coin);
      // a clear 400 for bytes that are no transaction, before the node sees them
      const { bytes } = decodeTxField(backend.params, req.query.rawtx, 'rawtx');
      return { status_code: 200, message: await backend.broadcast(bytes) };
    });

    // Extension beyond the spec: PSBT signers and Ledger's legacy protocol need whole previous txs.
    app.get('/transaction/raw/:coin/:txid', { schema: { params: TxidParams, response: { 200: RawTransaction } } }, async (req) => {
      const backend = utxoBackendFor(ctx, req.params.coin);
      const txid = req.params.txid.toLowerCase();
      const bytes = await backend.rawTransaction(txid);
      if (!bytes) throw notFound(`transaction ${txid} is neither in the ${req.params.coin} chain this service has indexed nor in its mempool`);
      return { txid, hex: bytesToHex(bytes) };
    });
  };
}
