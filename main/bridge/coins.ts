// The coin table as the renderer sees it: the renderer imports no coin code (docs/architecture.md), so the
// coin list and each coin's capabilities reach it through the 'coins.list' channel.
import { COIN_NAMES, coinRow, type CoinName } from '../../shared/coins/index.ts';
import type { CoinView } from './contract.ts';

export function coinView(coin: CoinName): CoinView {
  const row = coinRow(coin);
  const utxo = row.family === 'utxo' ? row : null;
  return {
    coin,
    family: row.family,
    ticker: row.ticker,
    decimals: row.decimals,
    ledger: row.ledger !== null,
    psbt: utxo?.psbt ?? false,
    caravan: utxo?.caravan ?? false,
    segwit: utxo?.segwit ?? false,
    bip125: utxo?.bip125 ?? false,
    test_coin: utxo?.testCoin ?? false,
  };
}

/** Every coin of the table, in its order. */
export const coinViews = (): CoinView[] => COIN_NAMES.map(coinView);
