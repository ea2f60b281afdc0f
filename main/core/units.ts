// A coin's unit as people read it: ticker (with the network off mainnet), decimals and the smallest
// unit's name, all from the coin's row (shared/coins/coin-data.ts). The bridge's views and the
// desk's own words (the audit log, refusals) use the same.
import { coinRow, type CoinName } from '../../shared/coins/index.ts';
import { coinAmount, tickerOf, unitsToDecimal } from '../../shared/coins/units.ts';

export interface CoinUnit {
  ticker: string;
  decimals: number;
  /** The smallest unit's name, for fee rates: "sat", "litoshi", "duff", "zat", "wei". */
  smallest: string;
}

/** Regtest and testnet coins are shown with their network so nobody mistakes them for real funds. */
export function unitOf(coin: CoinName, network: string, decimals: number): CoinUnit {
  return { ticker: tickerOf(coin, network), decimals, smallest: coinRow(coin).smallestUnit };
}

/** An amount as messages write it: "50.0002 LTC", exact, no float on the way. */
export const amountText = (units: bigint, unit: Pick<CoinUnit, 'ticker' | 'decimals'>): string => `${unitsToDecimal(units, unit.decimals)} ${unit.ticker}`;

/** An amount of a wallet's coin, for its audit entries and messages. */
export { coinAmount };

/** A fee rate in the coin's smallest unit per virtual byte: "2 litoshi/vB". */
export const feeRateText = (params: { coin: CoinName }, rate: bigint): string => `${rate} ${coinRow(params.coin).smallestUnit}/vB`;
