// Amounts in the desk's messages: always in the coin's unit with its ticker, never smallest units.
import { coinRow, type ChainParams, type CoinName } from '../../../shared/coins/index.ts';
import { unitsToDecimal } from '../../../shared/coins/units.ts';

/** The ticker as the desk shows it: test networks carry their network, so nobody takes them for real funds. */
export function tickerOf(coin: CoinName, network: string): string {
  const { ticker } = coinRow(coin);
  return network === 'mainnet' ? ticker : `${ticker} (${network})`;
}

/** "50.0002 LTC (regtest)": exact, no float on the way. Pure. */
export const coinAmount = (params: Pick<ChainParams, 'coin' | 'network' | 'decimals'>, units: bigint): string => `${unitsToDecimal(units, params.decimals)} ${tickerOf(params.coin, params.network)}`;
