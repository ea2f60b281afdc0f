// The earlier revision (spec section 9) under /v1: the same use cases as v2, reshaped. Multi-signature
// (9, 10) and the extended-key conversion (5) did not exist then; Ether and ERC20 (11-14) are v2's
// own routes.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AddressesParams, AddressParams, CoinParams, HistoryQuery, SendRawQuery, SendStatus, Signatures, TokenQuery, UtxosQuery } from '../../../shared/api/schemas.ts';
import { isEvmCoin } from '../../../shared/coins/coin-table.ts';
import {
  BalancesV1,
  BalanceV1,
  CreateTransactionQueryV1,
  HashesToSignV1,
  HistoryV1,
  SignAndSendQueryV1,
  UtxosV1,
  V1_ARRAY_PARAMS,
} from '../../../shared/api/schemas-v1.ts';
import { addressBalance, addressBalances, unspentOutputs } from '../../use-cases/address-queries.ts';
import { buildUnsignedPayment, singleSigSources } from '../../use-cases/build-payment.ts';
import { evmBalance, evmBalances } from '../../use-cases/evm-address-queries.ts';
import { evmBackendFor, type ServiceContext, utxoBackendAs, utxoBackendFor } from '../../use-cases/service-context.ts';
import { sendRaw, signAndSend } from '../../use-cases/sign-and-send.ts';
import { v1History } from '../../use-cases/v1-history.ts';
import { hashesToSignBody, sentBody, utxoBody } from '../bodies.ts';
import { badRequest } from '../errors.ts';
import { NEXT_CURSOR_HEADER } from '../../../shared/api/client.ts';
import { ethereumRoutes } from '../routes/ethereum.ts';

/** v1's integer usd_balance: whole dollars. */
function v1Balance<T extends { usd_balance: number }>(b: T): T {
  return { ...b, usd_balance: Math.round(b.usd_balance) };
}

/** Repeated query parameters arrive as arrays, a single one as a string: both, or comma lists, become arrays. */
function arrayParams(query: Record<string, unknown>): void {
  for (const key of V1_ARRAY_PARAMS) {
    const value = query[key];
    if (value === undefined) continue;
    const list = Array.isArray(value) ? value : [value];
    query[key] = list.flatMap((v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter((s) => s.length > 0) : [v]));
  }
}

export function v1Routes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get('/address/balance/:coin/:address', { schema: { params: AddressParams, querystring: TokenQuery, response: { 200: BalanceV1 } } }, async (req) => {
      if (isEvmCoin(req.params.coin)) return v1Balance(await evmBalance(evmBackendFor(ctx), ctx.usdRate, req.params.address, req.query));
      return v1Balance(await addressBalance(utxoBackendAs(ctx, req.params.coin, req.apiKeyId, req.indexGate), ctx.usdRate, req.params.address, req.query));
    });

    app.get('/address/balances/:coin/:addresses', { schema: { params: AddressesParams, querystring: TokenQuery, response: { 200: BalancesV1 } } }, async (req) => {
      const body =
        isEvmCoin(req.params.coin)
          ? await evmBalances(evmBackendFor(ctx), ctx.usdRate, req.params.addresses, req.query)
          : await addressBalances(utxoBackendAs(ctx, req.params.coin, req.apiKeyId, req.indexGate), ctx.usdRate, req.params.addresses, req.query);
      return { totals: v1Balance(body.totals), addresses: body.addresses.map(v1Balance) };
    });

    app.get('/address/history/:coin/:addresses', { schema: { params: AddressesParams, querystring: HistoryQuery, response: { 200: HistoryV1 } } }, async (req) => {
      if (isEvmCoin(req.params.coin)) {
        throw badRequest('v1 history entries (vins, vouts, fees) describe UTXO transactions: ethereum history is served by /v2/address/history/ethereum/{addresses}');
      }
      return v1History(utxoBackendAs(ctx, req.params.coin, req.apiKeyId, req.indexGate), req.params.addresses, req.query);
    });

    // A bare array has no room for a field: a cut answer says so in the header alone.
    app.get('/address/utxo/:coin/:addresses', { schema: { params: AddressesParams, querystring: UtxosQuery, response: { 200: UtxosV1 } } }, async (req, reply) => {
      const page = await unspentOutputs(utxoBackendAs(ctx, req.params.coin, req.apiKeyId, req.indexGate), req.params.addresses, { limit: req.query.limit, after: req.query.cursor });
      if (page.next !== null) void reply.header(NEXT_CURSOR_HEADER, page.next);
      return utxoBody(page.rows);
    });

    app.post('/transaction/create/:coin', { schema: { params: CoinParams, querystring: CreateTransactionQueryV1, response: { 200: HashesToSignV1 } } }, async (req) => {
      const backend = utxoBackendAs(ctx, req.params.coin, req.apiKeyId, req.indexGate);
      const { tx, hashes } = hashesToSignBody(await buildUnsignedPayment(backend, singleSigSources(req.query.from), req.query));
      return { tx, hashes };
    });

    app.post(
      '/transaction/sign_and_send/:coin',
      { schema: { params: CoinParams, querystring: SignAndSendQueryV1, response: { 200: SendStatus } }, preValidation: async (req) => arrayParams(req.query as Record<string, unknown>) },
      async (req) => {
        const backend = utxoBackendFor(ctx, req.params.coin);
        const q = req.query;
        const n = q.signatures.length;
        const mismatch = [
          ['public_keys', q.public_keys.length],
          ['input_indexes', q.input_indexes.length],
          ...(q.hashes_to_sign ? [['hashes_to_sign', q.hashes_to_sign.length] as const] : []),
        ].filter(([, len]) => len !== n);
        if (mismatch.length > 0) {
          throw badRequest(`signatures lists ${n} entries but ${mismatch.map(([k, len]) => `${k} lists ${len}`).join(', ')}: the i-th entries of each list describe one signature`);
        }
        const body = Signatures.safeParse({
          tx: q.tx,
          signatures: q.signatures.map((signature, i) => ({ signature, public_key: q.public_keys[i]!, input_index: q.input_indexes[i]!, hash_to_sign: q.hashes_to_sign?.[i] ?? '' })),
        });
        if (!body.success) throw badRequest(`invalid request: ${body.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
        return sentBody(await signAndSend(backend, body.data));
      },
    );

    app.post('/transaction/send_raw/:coin', { schema: { params: CoinParams, querystring: SendRawQuery, response: { 200: SendStatus } } }, async (req) => {
      return sentBody(await sendRaw(utxoBackendFor(ctx, req.params.coin), req.query.rawtx));
    });

    await fastify.register(ethereumRoutes(ctx));
  };
}
