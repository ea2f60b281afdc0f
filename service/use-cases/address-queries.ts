// Endpoints 1-4 for the UTXO coins: balances (with their USD value), history and unspent outputs
// of addresses, from the coin's backend. The ethereum side is evm-address-queries.ts.
import { BadCursor, type ScriptBalance, type UnspentPage, type UnspentPageRequest, type UnspentRow, type UtxoBackend } from '../chains/backend.ts';

import { badRequest } from '../errors.ts';
import { addressOfScript, parseAddressList } from './address-list.ts';
import { human, usd } from './amounts.ts';
import { pageReads } from './read-slots.ts';
import type { UsdRate } from './service-context.ts';

export interface TokenQuery {
  contract_id?: string | undefined;
  decimal_places?: number | undefined;
}

/** Token parameters name an ERC20 token: a UTXO coin has none, so they are a 400, not ignored. */
export function refuseToken(query: TokenQuery, coin: string): void {
  if (query.contract_id !== undefined || query.decimal_places !== undefined) {
    throw badRequest(`contract_id and decimal_places apply to ethereum tokens only, not to ${coin}`);
  }
}

/** A balance body at the given USD rate (read once per request). */
export function balanceOf(backend: Pick<UtxoBackend, 'params'>, b: ScriptBalance, usdRate: number) {
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

/** One address's balance. */
export async function addressBalance(backend: UtxoBackend, usdRate: UsdRate, address: string, query: TokenQuery) {
  refuseToken(query, backend.params.coin);
  const [queried] = parseAddressList(backend, address, 'address');
  const [[b], rate] = await Promise.all([backend.balances([queried!.script]), usdRate(backend.params.coin)]);
  return balanceOf(backend, b!, rate);
}

/** Each address's balance, in the order given (one script once), and their total. */
export async function addressBalances(backend: UtxoBackend, usdRate: UsdRate, addresses: string, query: TokenQuery) {
  refuseToken(query, backend.params.coin);
  const queried = parseAddressList(backend, addresses);
  const [rows, rate] = await Promise.all([backend.balances(queried.map((q) => q.script)), usdRate(backend.params.coin)]);
  const total = rows.reduce((t, r) => ({ confirmed: t.confirmed + r.confirmed, unconfirmed: t.unconfirmed + r.unconfirmed }), { confirmed: 0n, unconfirmed: 0n });
  return { totals: balanceOf(backend, total, rate), addresses: rows.map((r, i) => ({ address: queried[i]!.address, ...balanceOf(backend, r, rate) })) };
}

/** One page of the addresses' history, newest first: each row is one transaction's net effect on one address. */
export async function addressHistory(backend: UtxoBackend, addresses: string, query: TokenQuery & { limit: number; offset: number }) {
  refuseToken(query, backend.params.coin);
  const queried = parseAddressList(backend, addresses);
  const addressOf = addressOfScript(queried);
  const [page, tip] = await Promise.all([pageReads.run(() => backend.history(queried.map((q) => q.script), query.limit, query.offset)), backend.indexedHeight()]);
  return {
    total_txs: page.total,
    txs: page.rows.map((r) => {
      const amount = r.delta < 0n ? -r.delta : r.delta;
      return {
        confirmations: confirmationsAt(r.height, tip),
        time: r.time,
        is_deposit: r.delta > 0n,
        address: addressOf(r.script),
        amount,
        human_amount: human(amount, backend.params.decimals),
        txid: r.txid,
        ...(r.height === null ? {} : { block_height: r.height }),
      };
    }),
  };
}

/** Confirmations of a transaction at `height` (null: unconfirmed) when the index is at `tip`. Pure. */
export const confirmationsAt = (height: number | null, tip: number | null): number => (height === null || tip === null ? 0 : Math.max(0, tip - height + 1));

/** Endpoint 4 with its extension: a page of the outputs, each with its height and its confirmations at the indexed tip. */
export async function unspentOutputsWithDepth(backend: UtxoBackend, addresses: string, page: UnspentPageRequest): Promise<{ rows: (UnspentRow & { confirmations: number })[]; next: string | null }> {
  const [read, tip] = await Promise.all([unspentOutputs(backend, addresses, page), backend.indexedHeight()]);
  return { rows: read.rows.map((r) => ({ ...r, confirmations: confirmationsAt(r.height, tip) })), next: read.next };
}

/** A page of the addresses' unspent outputs (never all of them: docs/api-decisions.md, section 6); a cursor no page gave is a 400. */
export async function unspentOutputs(backend: UtxoBackend, addresses: string, page: UnspentPageRequest): Promise<UnspentPage> {
  const queried = parseAddressList(backend, addresses);
  try {
    return await pageReads.run(() => backend.unspent(queried.map((q) => q.script), page));
  } catch (err) {
    if (err instanceof BadCursor) throw badRequest(err.message);
    throw err;
  }
}
