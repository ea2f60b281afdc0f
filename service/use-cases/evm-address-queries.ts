// Endpoints 1-3 for ethereum: Ether in wei, or an ERC20 token's units with contract_id and
// decimal_places (docs/api-decisions.md "Amounts"), from the coin's EVM backend.
import type { EvmChain } from '../chains/evm/evm-chain.ts';
import { badRequest } from '../errors.ts';
import { evmAddress, parseEvmAddressList } from './address-list.ts';
import { human, usd } from './amounts.ts';
import type { UsdRate } from './service-context.ts';
import type { TokenQuery } from './address-queries.ts';

export const ETHER_DECIMALS = 18;

export interface TokenChoice {
  /** lower-case contract address, null for Ether */
  token: string | null;
  decimals: number;
}

export async function tokenChoice(backend: EvmChain, query: TokenQuery): Promise<TokenChoice> {
  if (query.contract_id === undefined && query.decimal_places === undefined) return { token: null, decimals: ETHER_DECIMALS };
  if (query.contract_id === undefined || query.decimal_places === undefined) {
    throw badRequest('contract_id and decimal_places go together: pass both for an ERC20 token, neither for Ether');
  }
  const token = evmAddress(query.contract_id, 'contract_id');
  await backend.requireContract(token);
  return { token, decimals: query.decimal_places };
}

function balanceBody(choice: TokenChoice, b: { confirmed: bigint; unconfirmed: bigint }, etherRate: number) {
  const human_balance = human(b.confirmed, choice.decimals);
  return {
    // Tokens have no configured rate (docs/api-decisions.md: 0 for tokens without a rate).
    usd_balance: choice.token === null ? usd(human_balance, etherRate) : 0,
    balance: b.confirmed,
    unconfirmed_balance: b.unconfirmed,
    human_balance,
    human_unconfirmed_balance: human(b.unconfirmed, choice.decimals),
  };
}

export async function evmBalances(backend: EvmChain, usdRate: UsdRate, list: string, query: TokenQuery, field = 'addresses') {
  const queried = parseEvmAddressList(list, field);
  const choice = await tokenChoice(backend, query);
  const [rows, rate] = await Promise.all([Promise.all(queried.map((q) => backend.balance(q.lower, choice.token))), choice.token === null ? usdRate('ethereum') : 0]);
  const total = rows.reduce((t, r) => ({ confirmed: t.confirmed + r.confirmed, unconfirmed: t.unconfirmed + r.unconfirmed }), { confirmed: 0n, unconfirmed: 0n });
  return {
    totals: balanceBody(choice, total, rate),
    addresses: rows.map((r, i) => ({ address: queried[i]!.address, ...balanceBody(choice, r, rate) })),
  };
}

/** One address's balance (the path names it "address"). */
export async function evmBalance(backend: EvmChain, usdRate: UsdRate, address: string, query: TokenQuery) {
  const { addresses } = await evmBalances(backend, usdRate, address, query, 'address');
  const { address: _address, ...balance } = addresses[0]!;
  return balance;
}

export async function evmHistory(backend: EvmChain, list: string, query: TokenQuery & { limit: number; offset: number }) {
  const queried = parseEvmAddressList(list);
  const choice = await tokenChoice(backend, query);
  const shown = new Map(queried.map((q) => [q.lower, q.address]));
  const [page, tip] = await Promise.all([backend.history([...shown.keys()], choice.token, query.limit, query.offset), backend.indexedHeight()]);
  return {
    total_txs: page.total,
    txs: page.rows.map((r) => {
      const amount = r.delta < 0n ? -r.delta : r.delta;
      return {
        confirmations: tip === null ? 0 : Math.max(0, tip - r.height + 1),
        time: r.time,
        is_deposit: r.delta > 0n,
        address: shown.get(r.address) ?? r.address,
        amount,
        human_amount: human(amount, choice.decimals),
        txid: r.txid,
        block_height: r.height,
      };
    }),
  };
}
