// The earlier revision (spec section 9) under /v1: the same logic as v2, reshaped. Multi-signature
// (9, 10) and the extended-key conversion (5) did not exist then; Ether and ERC20 (11-14) are v2's
// own routes.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AddressesParams, AddressParams, CoinParams, HistoryQuery, SendRawQuery, SendStatus, Signatures, TokenQuery } from '../../../shared/api/schemas.ts';
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
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import { isEvmCoin } from '../../../shared/coins/coin-table.ts';
import { evmBackendFor, parseAddressList, type ServiceContext, utxoBackendFor } from '../context.ts';
import { badRequest } from '../errors.ts';
import { createPayment, decodeTxField, signAndSend } from '../payments.ts';
import { balanceOf } from '../routes/address.ts';
import { ethereumRoutes } from '../routes/ethereum.ts';
import { evmBalances } from '../routes/evm-address.ts';
import { singleSigSources } from '../routes/transaction.ts';
import { v1Entries } from './history.ts';

function refuseToken(query: { contract_id?: string | undefined; decimal_places?: number | undefined }, coin: string): void {
  if (query.contract_id !== undefined || query.decimal_places !== undefined) {
    throw badRequest(`contract_id and decimal_places apply to ethereum tokens only, not to ${coin}`);
  }
}

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
      if (isEvmCoin(req.params.coin)) {
        const { addresses } = await evmBalances(ctx, evmBackendFor(ctx), req.params.address, req.query, 'address');
        const { address: _address, ...balance } = addresses[0]!;
        return v1Balance(balance);
      }
      const backend = utxoBackendFor(ctx, req.params.coin);
      refuseToken(req.query, req.params.coin);
      const [queried] = parseAddressList(backend, req.params.address, 'address');
      const [[b], rate] = await Promise.all([backend.balances([queried!.script]), ctx.usdRate(backend.params.coin)]);
      return v1Balance(balanceOf(backend, b!, rate));
    });

    app.get('/address/balances/:coin/:addresses', { schema: { params: AddressesParams, querystring: TokenQuery, response: { 200: BalancesV1 } } }, async (req) => {
      if (isEvmCoin(req.params.coin)) {
        const body = await evmBalances(ctx, evmBackendFor(ctx), req.params.addresses, req.query);
        return { totals: v1Balance(body.totals), addresses: body.addresses.map(v1Balance) };
      }
      const backend = utxoBackendFor(ctx, req.params.coin);
      refuseToken(req.query, req.params.coin);
      const queried = parseAddressList(backend, req.params.addresses);
      const [rows, rate] = await Promise.all([backend.balances(queried.map((q) => q.script)), ctx.usdRate(backend.params.coin)]);
      const total = rows.reduce((t, r) => ({ confirmed: t.confirmed + r.confirmed, unconfirmed: t.unconfirmed + r.unconfirmed }), { confirmed: 0n, unconfirmed: 0n });
      return {
        totals: v1Balance(balanceOf(backend, total, rate)),
        addresses: rows.map((r, i) => ({ address: queried[i]!.address, ...v1Balance(balanceOf(backend, r, rate)) })),
      };
    });

    app.get('/address/history/:coin/:addresses', { schema: { params: AddressesParams, querystring: HistoryQuery, response: { 200: HistoryV1 } } }, async (req) => {
      if (isEvmCoin(req.params.coin)) {
        throw badRequest('v1 history entries (vins, vouts, fees) describe UTXO transactions: ethereum history is served by /v2/address/history/ethereum/{addresses}');
      }
      const backend = utxoBackendFor(ctx, req.params.coin);
      refuseToken(req.query, req.params.coin);
      const queried = parseAddressList(backend, req.params.addresses);
      const page = await backend.history(queried.map((q) => q.script), req.query.limit, req.query.offset);
      return { total_txs: page.total, txs: await v1Entries(backend, page.rows) };
    });

    app.get('/address/utxo/:coin/:addresses', { schema: { params: AddressesParams, response: { 200: UtxosV1 } } }, async (req) => {
      const backend = utxoBackendFor(ctx, req.params.coin);
      const queried = parseAddressList(backend, req.params.addresses);
      const rows = await backend.unspent(queried.map((q) => q.script));
      return rows.map((r) => ({ amount: r.amount, vout: r.vout, txid: r.txid, script_pub_key: bytesToHex(r.script) }));
    });

    app.post('/transaction/create/:coin', { schema: { params: CoinParams, querystring: CreateTransactionQueryV1, response: { 200: HashesToSignV1 } } }, async (req) => {
      const backend = utxoBackendFor(ctx, req.params.coin);
      const { tx, hashes } = await createPayment(backend, await singleSigSources(backend, req.query.from), req.query);
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
        return signAndSend(backend, body.data);
      },
    );

    app.post('/transaction/send_raw/:coin', { schema: { params: CoinParams, querystring: SendRawQuery, response: { 200: SendStatus } } }, async (req) => {
      const backend = utxoBackendFor(ctx, req.params.coin);
      const { bytes } = decodeTxField(backend.params, req.query.rawtx, 'rawtx');
      return { status_code: 200, message: await backend.broadcast(bytes) };
    });

    await fastify.register(ethereumRoutes(ctx));
  };
}
