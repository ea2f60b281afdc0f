// Smallest units as exact decimal text, for people and for messages.
import { coinRow, type CoinName } from './coin-table.ts';

/** 150000000n, 8 -> "1.5"; never loses a digit. */
export function unitsToDecimal(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const frac = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

const MAX_EXACT_NUMBER = BigInt(Number.MAX_SAFE_INTEGER);

/** Whether a double holds this amount exactly (|units| < 2^53), so Number(units) loses nothing. */
export function isExactAsNumber(units: bigint): boolean {
  return units <= MAX_EXACT_NUMBER && units >= -MAX_EXACT_NUMBER;
}

/** The ticker as people are shown it: test networks carry their network, so nobody takes them for real funds. */
export function tickerOf(coin: CoinName, network: string): string {
  const { ticker } = coinRow(coin);
  return network === 'mainnet' ? ticker : `${ticker} (${network})`;
}

/** "50.0002 LTC (regtest)": an amount in a message, in the coin's unit with its ticker. Pure. */
export const coinAmount = (params: { coin: CoinName; network: string; decimals: number }, units: bigint): string => `${unitsToDecimal(units, params.decimals)} ${tickerOf(params.coin, params.network)}`;
