// Units for display: ticker and URI scheme are fields of the coin's row (shared/coins/coin-data.ts).
import { coinRow, type CoinName } from '../../shared/coins/index.ts';
import type { Unit } from './contract.ts';

/** Regtest and testnet coins are shown with their network so nobody mistakes them for real funds. */
export function unitOf(coin: CoinName, network: string, decimals: number): Unit {
  const ticker = coinRow(coin).ticker;
  return { ticker: network === 'mainnet' ? ticker : `${ticker} (${network})`, decimals };
}

/** Payment URI scheme per coin (BIP21-style), for the receive QR code. */
export const uriScheme = (coin: CoinName): string => coinRow(coin).uriScheme;
