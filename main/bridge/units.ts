// Tickers for display: the coin table has decimals but no ticker (a display concern, kept here).
import type { Unit } from './contract.ts';

const TICKERS: Readonly<Record<string, string>> = {
  bitcoin: 'BTC',
  testnet3: 'tBTC',
  litecoin: 'LTC',
  bitcoin_cash: 'BCH',
  bitcoin_gold: 'BTG',
  dash: 'DASH',
  zcash: 'ZEC',
  zclassic: 'ZCL',
  bitcoin_private: 'BTCP',
  ethereum: 'ETH',
};

/** Regtest and testnet coins are shown with their network so nobody mistakes them for real funds. */
export function unitOf(coin: string, network: string, decimals: number): Unit {
  const ticker = TICKERS[coin] ?? coin.toUpperCase();
  return { ticker: network === 'mainnet' ? ticker : `${ticker} (${network})`, decimals };
}

/** Payment URI scheme per coin (BIP21-style), for the receive QR code. */
export const uriScheme = (coin: string): string => (coin === 'testnet3' ? 'bitcoin' : coin.replace('_', ''));
