// What a token contract says of itself, as the desk follows it: the chain's decimals and symbol,
// never a person's typing, because a mistyped decimals value shifts every amount the treasurer
// reads and sends by powers of ten.
import { ApiClientError } from '../../../shared/api/client.ts';
import type { Erc20Token } from '../../../shared/api/schemas.ts';
import type { CoordinatorApi } from '../api.ts';
import { CoordinatorError } from '../errors.ts';
import type { TokenRow } from '../store/account-store.ts';

/** The desk's amount formatting and the bridge's amounts go this far. */
export const MAX_TOKEN_DECIMALS = 36;
/** What the desk shows as a ticker next to amounts. */
const SYMBOL_RE = /^[A-Za-z0-9.$_-]{1,12}$/;

export interface ChainToken extends Erc20Token {
  /** The contract's symbol is missing or not one the desk shows: the person names the token. */
  symbolNeeded: boolean;
}

/** The token as its contract reports it through the service; refusals name the contract. */
export async function readChainToken(api: Pick<CoordinatorApi, 'tokenInfo'>, contract: string): Promise<ChainToken> {
  let info: Erc20Token;
  try {
    info = await api.tokenInfo(contract);
  } catch (err) {
    // 400: no contract at that address; 422: a contract that is no usable ERC20 token
    if (err instanceof ApiClientError && (err.status === 400 || err.status === 422)) throw new CoordinatorError('bad_token', `the service refuses this token: ${err.message}`);
    throw err;
  }
  if (info.contract.toLowerCase() !== contract.toLowerCase()) {
    throw new CoordinatorError('bad_token', `the service answered for contract ${info.contract} when asked about ${contract}: nothing was added`);
  }
  if (info.decimals > MAX_TOKEN_DECIMALS) {
    throw new CoordinatorError('bad_token', `${contract} reports ${info.decimals} decimals; this desk handles tokens of 0 to ${MAX_TOKEN_DECIMALS}`);
  }
  return { ...info, contract, symbolNeeded: info.symbol === null || !SYMBOL_RE.test(info.symbol) };
}

/**
 * The row to store: the chain's decimals and symbol. What the person typed is a check (any
 * difference is refused, naming both) or, only where the contract has no showable symbol, its name.
 */
export function tokenToFollow(chain: ChainToken, typed: { symbol?: string | undefined; decimals?: number | undefined }): TokenRow {
  const { contract } = chain;
  if (typed.decimals !== undefined && typed.decimals !== chain.decimals) {
    const off = Math.abs(typed.decimals - chain.decimals);
    throw new CoordinatorError(
      'bad_token',
      `${contract} has ${chain.decimals} decimals on the chain, not the ${typed.decimals} typed: every amount would be off by a factor of 10^${off}. Nothing was added.`,
    );
  }
  const symbol = typed.symbol?.trim() || undefined;
  if (!chain.symbolNeeded) {
    if (symbol !== undefined && symbol.toLowerCase() !== chain.symbol!.toLowerCase()) {
      throw new CoordinatorError('bad_token', `${contract} is ${chain.symbol} on the chain, not the ${symbol} typed. Nothing was added.`);
    }
    return { contract, symbol: chain.symbol!, decimals: chain.decimals };
  }
  const reported = chain.symbol === null ? 'reports no symbol' : `reports the symbol "${chain.symbol}", which this desk does not show`;
  if (symbol === undefined) throw new CoordinatorError('bad_token', `${contract} ${reported}: type a symbol (1 to 12 letters or digits) to name it`);
  if (!SYMBOL_RE.test(symbol)) throw new CoordinatorError('bad_token', 'the token symbol is 1 to 12 letters or digits');
  return { contract, symbol, decimals: chain.decimals };
}
