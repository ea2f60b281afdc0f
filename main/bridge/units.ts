// Units for display: ticker and URI scheme are fields of the coin's row (shared/coins/coin-data.ts).
import { coinRow, type CoinName } from '../../shared/coins/index.ts';
import { tickerOf, unitsToDecimal } from '../../shared/coins/units.ts';
import type { Unit } from './contract.ts';

/** Regtest and testnet coins are shown with their network so nobody mistakes them for real funds. */
export function unitOf(coin: CoinName, network: string, decimals: number): Unit {
  return { ticker: tickerOf(coin, network), decimals, smallest: coinRow(coin).smallestUnit };
}

/** Payment URI scheme per coin (BIP21-style), for the receive QR code. */
export const uriScheme = (coin: CoinName): string => coinRow(coin).uriScheme;

/** An amount as the screens write it in messages: "50.0002 LTC", exact, no float on the way. */
export const amountText = (units: bigint, unit: Unit): string => `${unitsToDecimal(units, unit.decimals)} ${unit.ticker}`;
