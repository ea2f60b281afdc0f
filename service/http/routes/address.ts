// Endpoints 1-4: balances, history and unspent outputs of addresses, from the coin's backend.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AddressesParams,
  AddressParams,
  Balance,
  Balances,
  History,
  HistoryQuery,
  TokenQuery,
  Utxos,
} from '../../../shared/api/schemas.ts';
import type { ScriptBalance } from '../../store/utxo-index.ts';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import { isEvmCoin } from '../../../shared/coins/coin-table.ts';
import type { UtxoBackend } from '../../chains/backend.ts';
import { badRequest } from '../errors.ts';
import { addressOfScript, evmBackendFor, human, parseAddressList, type ServiceContext, usd, utxoBackendFor } from '../context.ts';
import { evmBalances, evmHistory } from './evm-address.ts';

function refuseToken(query: { contract_id?: string | undefined; decimal_places?: number | undefined }, coin: string): void {
  if (query.contract_id !== undefined || query.decimal_places !== undefined) {
    throw badRequest(`contract_id and decimal_places apply to ethereum tokens only, not to ${coin}`);
  }
}

/** A balance body; usdRate from ctx.usdRate (read once per request). */
export function balanceOf(backend: UtxoBackend, b: ScriptBalance, usdRate: number) {
  const { decimals } = backend.params;
  const human_balance = human(b.confirmed, decimals);
  return {
    usd_balance: usd(human_balance, usdRate),
    balance: b.confirmed,
    unconfirmed_balance: b.unconfirmed,
    human_balance,
    human_unconfirmed_balance: human(b.unconfirmed, decimals),
  };
}

export function addressRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get('/address/balance/:coin/:address', { schema: { params: AddressParams, querystring: TokenQuery, response: { 200: Balance } } }, async (req) => {
      if (isEvmCoin(req.params.coin)) {
        const { addresses } = await evmBalances(ctx, evmBackendFor(ctx), req.params.address, req.query, 'address');
        const { address: _address, ...balance } = addresses[0]!;
        return balance;
      }
      const backend = utxoBackendFor(ctx, req.params.coin);
      refuseToken(req.query, req.params.coin);
      const [queried] = parseAddressList(backend, req.params.address, 'address');
      const [[b], rate] = await Promise.all([backend.balances([queried!.script]), ctx.usdRate(backend.params.coin)]);
      return balanceOf(backend, b!, rate);
    });

    app.get('/address/balances/:coin/:addresses', { schema: { params: AddressesParams, querystring: TokenQuery, response: { 200: Balances } } }, async (req) => {
      if (isEvmCoin(req.params.coin)) return evmBalances(ctx, evmBackendFor(ctx), req.params.addresses, req.query);
      const backend = utxoBackendFor(ctx, req.params.coin);
      refuseToken(req.query, req.params.coin);
      const queried = parseAddressList(backend, req.params.addresses);
      const [rows, rate] = await Promise.all([backend.balances(queried.map((q) => q.script)), ctx.usdRate(backend.params.coin)]);
      const total = rows.reduce((t, r) => ({ confirmed: t.confirmed + r.confirmed, unconfirmed: t.unconfirmed + r.unconfirmed }), { confirmed: 0n, unconfirmed: 0n });
      return { totals: balanceOf(backend, total, rate), addresses: rows.map((r, i) => ({ address: queried[i]!.address, ...balanceOf(backend, r, rate) })) };
    });

    app.get('/address/history/:coin/:addresses', { schema: { params: AddressesParams, querystring: HistoryQuery, response: { 200: History } } }, async (req) => {
      if (isEvmCoin(req.params.coin)) return evmHistory(evmBackendFor(ctx), req.params.addresses, req.query);
      const backend = utxoBackendFor(ctx, req.params.coin);
      refuseToken(req.query, req.params.coin);
      const queried = parseAddressList(backend, req.params.addresses);
      const addressOf = addressOfScript(queried);
      const [page, tip] = await Promise.all([backend.history(queried.map((q) => q.script), req.query.limit, req.query.offset), backend.indexedHeight()]);
      return {
        total_txs: page.total,
        txs: page.rows.map((r) => {
          const amount = r.delta < 0n ? -r.delta : r.delta;
          return {
            confirmations: r.height === null || tip === null ? 0 : Math.max(0, tip - r.height + 1),
            time: r.time,
            is_deposit: r.delta > 0n,
            address: addressOf(r.script),
            amount,
            human_amount: human(amount, backend.params.decimals),
            txid: r.txid,
          };
        }),
      };
    });

    app.get('/address/utxos/:coin/:addresses', { schema: { params: AddressesParams, response: { 200: Utxos } } }, async (req) => {
      const backend = utxoBackendFor(ctx, req.params.coin);
      const queried = parseAddressList(backend, req.params.addresses);
      const rows = await backend.unspent(queried.map((q) => q.script));
      return { utxos: rows.map((r) => ({ amount: r.amount, vout: r.vout, txid: r.txid, script_pub_key: bytesToHex(r.script) })) };
    });
  };
}
