// Endpoints 1-3 for ethereum: Ether in wei, or an ERC20 token's units with contract_id and
// decimal_places (SEMANTICS.md "Amounts"), from the coin's EVM backend.
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import { parseEthereumAddress } from '../../../shared/coins/ethereum-address.ts';
import type { EvmChain } from '../../chains/evm/evm-chain.ts';
import { badRequest } from '../errors.ts';
import { human, MAX_ADDRESSES, type ServiceContext, usd } from '../context.ts';

export const ETHER_DECIMALS = 18;

export interface TokenChoice {
  /** lower-case contract address, null for Ether */
  token: string | null;
  decimals: number;
}

interface QueriedEvmAddress {
  address: string;
  lower: string;
}

/** Lower-case 0x hex of a validated address (the index and the node take this form). */
export function evmAddress(text: string, field: string): string {
  return `0x${bytesToHex(parseEthereumAddress(text, field))}`;
}

export async function tokenChoice(backend: EvmChain, query: { contract_id?: string | undefined; decimal_places?: number | undefined }): Promise<TokenChoice> {
  if (query.contract_id === undefined && query.decimal_places === undefined) return { token: null, decimals: ETHER_DECIMALS };
  if (query.contract_id === undefined || query.decimal_places === undefined) {
    throw badRequest('contract_id and decimal_places go together: pass both for an ERC20 token, neither for Ether');
  }
  const token = evmAddress(query.contract_id, 'contract_id');
  await backend.requireContract(token);
  return { token, decimals: query.decimal_places };
}

export function parseEvmAddressList(list: string, field = 'addresses'): QueriedEvmAddress[] {
  const texts = list.split(',').map((a) => a.trim()).filter((a) => a.length > 0);
  if (texts.length === 0) throw badRequest(`${field} is empty`);
  if (texts.length > MAX_ADDRESSES) throw badRequest(`${field} lists ${texts.length} addresses; at most ${MAX_ADDRESSES} per request`);
  const byLower = new Map<string, QueriedEvmAddress>();
  for (const address of texts) {
    const lower = evmAddress(address, field);
    if (!byLower.has(lower)) byLower.set(lower, { address, lower });
  }
  return [...byLower.values()];
}

function balanceBody(choice: TokenChoice, b: { confirmed: bigint; unconfirmed: bigint }, etherRate: number) {
  const human_balance = human(b.confirmed, choice.decimals);
  return {
    // Tokens have no configured rate (SEMANTICS.md: 0 for tokens without a rate).
    usd_balance: choice.token === null ? usd(human_balance, etherRate) : 0,
    balance: b.confirmed,
    unconfirmed_balance: b.unconfirmed,
    human_balance,
    human_unconfirmed_balance: human(b.unconfirmed, choice.decimals),
  };
}

export async function evmBalances(ctx: ServiceContext, backend: EvmChain, list: string, query: { contract_id?: string | undefined; decimal_places?: number | undefined }, field = 'addresses') {
  const queried = parseEvmAddressList(list, field);
  const choice = await tokenChoice(backend, query);
  const [rows, rate] = await Promise.all([Promise.all(queried.map((q) => backend.balance(q.lower, choice.token))), choice.token === null ? ctx.usdRate('ethereum') : 0]);
  const total = rows.reduce((t, r) => ({ confirmed: t.confirmed + r.confirmed, unconfirmed: t.unconfirmed + r.unconfirmed }), { confirmed: 0n, unconfirmed: 0n });
  return {
    totals: balanceBody(choice, total, rate),
    addresses: rows.map((r, i) => ({ address: queried[i]!.address, ...balanceBody(choice, r, rate) })),
  };
}

export async function evmHistory(
  backend: EvmChain,
  list: string,
  query: { contract_id?: string | undefined; decimal_places?: number | undefined; limit: number; offset: number },
) {
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
      };
    }),
  };
}
