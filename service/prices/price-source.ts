// Where USD rates come from (docs/api-decisions.md "Amounts": usd_balance = human_balance x the coin's rate).
// Sources answer per coin; the cache in price-cache.ts is what routes read.
import type { CoinName } from '../../shared/coins/coin-table.ts';

export interface PriceSource {
  /** Names the source in logs, e.g. "coingecko". */
  readonly name: string;
  /**
   * USD per whole coin. null when the source has no price for this coin (not listed, no ticker):
   * that is an answer, not a failure. Throws when the source fails (unreachable, timeout, garbage).
   */
  usdPrice(coin: CoinName): Promise<number | null>;
  /**
   * USD per whole coin on the UTC day of `at` (unix seconds): the books' value of a transaction when
   * it confirmed. null and throws as usdPrice.
   */
  usdPriceAt(coin: CoinName, at: number): Promise<number | null>;
}

/** The UTC day (YYYY-MM-DD) of a unix time in seconds: historical rates are daily. */
export const utcDay = (at: number): string => new Date(at * 1000).toISOString().slice(0, 10);

/** A positive, finite rate, or null: a source's "no price" (0, -1, missing) is never a price. */
export function priceOrNull(value: number | undefined): number | null {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : null;
}
