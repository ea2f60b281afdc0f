// Fixed rates from the configuration: regtest, tests, and coins an operator pins by hand.
import type { CoinName } from '../../shared/coins/coin-table.ts';
import { priceOrNull, type PriceSource } from './price-source.ts';

export function staticPriceSource(rates: ReadonlyMap<CoinName, number>): PriceSource {
  return {
    name: 'static',
    usdPrice: async (coin) => priceOrNull(rates.get(coin)),
    // A pinned rate is the rate at every time.
    usdPriceAt: async (coin) => priceOrNull(rates.get(coin)),
  };
}
