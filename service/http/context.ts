// What every route needs: the coin's backend, its USD rate and the number formatting of SEMANTICS.md.
import type { CoinName } from '../../shared/coins/coin-table.ts';
import { isCoinName } from '../../shared/coins/coin-table.ts';
import { decodeAddress } from '../../shared/coins/address.ts';
import { unitsToDecimal } from '../../shared/coins/units.ts';
import type { UtxoBackend } from '../chains/backend.ts';
import { badRequest, notFound } from './errors.ts';

export interface ServiceContext {
  utxo: ReadonlyMap<CoinName, UtxoBackend>;
  usdRate(coin: CoinName): number;
}

export const MAX_ADDRESSES = 200;

export function utxoBackendFor(ctx: ServiceContext, coin: string): UtxoBackend {
  if (!isCoinName(coin)) throw notFound(`unknown coin "${coin}": expected one of the API's coins (bitcoin, testnet3, litecoin, dash, ...)`);
  const backend = ctx.utxo.get(coin);
  if (!backend) throw notFound(`coin ${coin} is not served by this deployment`);
  return backend;
}

/** Splits, trims, de-duplicates and validates a comma-separated address list. */
export function parseAddressList(backend: UtxoBackend, list: string, field = 'addresses'): string[] {
  const unique = [...new Set(list.split(',').map((a) => a.trim()).filter((a) => a.length > 0))];
  if (unique.length === 0) throw badRequest(`${field} is empty`);
  if (unique.length > MAX_ADDRESSES) throw badRequest(`${field} lists ${unique.length} addresses; at most ${MAX_ADDRESSES} per request`);
  for (const address of unique) decodeAddress(backend.params, address, field);
  return unique;
}

/** Smallest units as the decimal number a person reads (exact digits, then one rounding). */
export function human(units: bigint, decimals: number): number {
  return Number(unitsToDecimal(units, decimals));
}

export function usd(humanAmount: number, rate: number): number {
  return Math.round(humanAmount * rate * 100) / 100;
}
