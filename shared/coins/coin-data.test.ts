// The facts that were typed in lists across the code before the table carried them: each is now a
// field of a row, and these are the values those lists had.
import { describe, expect, test } from 'vitest';
import { COIN_NAMES, EVM_COIN_NAMES, LEDGER_UTXO_COIN_NAMES, PSBT_COIN_NAMES, UTXO_COIN_NAMES, coinRow, isCoinName, isEvmCoin, utxoCoinRow } from './coin-table.ts';

const of = <T>(f: (coin: (typeof COIN_NAMES)[number]) => T) => Object.fromEntries(COIN_NAMES.map((c) => [c, f(c)]));
const utxo = (pick: (row: ReturnType<typeof utxoCoinRow>) => boolean) => UTXO_COIN_NAMES.filter((c) => pick(utxoCoinRow(c)));

describe('coin rows', () => {
  test('ticker, decimals, CoinGecko id and URI scheme of every coin', () => {
    expect(of((c) => coinRow(c).ticker)).toEqual({
      bitcoin: 'BTC', testnet3: 'tBTC', litecoin: 'LTC', bitcoin_cash: 'BCH', bitcoin_gold: 'BTG', dash: 'DASH', zcash: 'ZEC', zclassic: 'ZCL', bitcoin_private: 'BTCP', ethereum: 'ETH',
    });
    expect(of((c) => coinRow(c).decimals)).toMatchObject({ bitcoin: 8, zcash: 8, ethereum: 18 });
    expect(of((c) => coinRow(c).coingeckoId)).toEqual({
      bitcoin: 'bitcoin', testnet3: null, litecoin: 'litecoin', bitcoin_cash: 'bitcoin-cash', bitcoin_gold: 'bitcoin-gold', dash: 'dash', zcash: 'zcash', zclassic: 'zclassic', bitcoin_private: 'bitcoin-private', ethereum: 'ethereum',
    });
    expect(of((c) => coinRow(c).uriScheme)).toEqual({
      bitcoin: 'bitcoin', testnet3: 'bitcoin', litecoin: 'litecoin', bitcoin_cash: 'bitcoincash', bitcoin_gold: 'bitcoingold', dash: 'dash', zcash: 'zcash', zclassic: 'zclassic', bitcoin_private: 'bitcoinprivate', ethereum: 'ethereum',
    });
  });

  test('families and capabilities', () => {
    expect(EVM_COIN_NAMES).toEqual(['ethereum']);
    expect(isEvmCoin('ethereum')).toBe(true);
    expect(isEvmCoin('litecoin')).toBe(false);
    expect(isCoinName('constructor')).toBe(false);
    expect(LEDGER_UTXO_COIN_NAMES).toEqual(['bitcoin', 'testnet3', 'litecoin', 'bitcoin_cash', 'bitcoin_gold', 'dash', 'zcash']);
    expect(PSBT_COIN_NAMES).toEqual(['bitcoin', 'testnet3', 'litecoin', 'dash']);
    expect(utxo((r) => r.segwit)).toEqual(['bitcoin', 'testnet3', 'litecoin', 'bitcoin_gold']);
    expect(utxo((r) => !r.bip125)).toEqual(['bitcoin_cash', 'dash', 'zcash', 'zclassic', 'bitcoin_private']);
    expect(utxo((r) => r.caravan)).toEqual(['bitcoin', 'testnet3']);
    expect(utxo((r) => r.testCoin)).toEqual(['testnet3']);
    expect(utxo((r) => r.specialTx === 'dash-dip2')).toEqual(['dash']);
  });

  test('Ledger apps: names, protocol, address format and key-path rule', () => {
    expect(coinRow('bitcoin').ledger).toMatchObject({ names: ['Bitcoin', 'Bitcoin Legacy'], testNames: ['Bitcoin Test', 'Bitcoin Test Legacy'], psbtFrom: '2.1.0', protocol: 'legacy' });
    expect(coinRow('testnet3').ledger).toMatchObject({ names: ['Bitcoin Test', 'Bitcoin Test Legacy'], psbtFrom: '2.1.0' });
    expect(coinRow('bitcoin_cash').ledger).toMatchObject({ names: ['Bitcoin Cash'], addressFormat: 'cashaddr', keyPath: 'bip32' });
    expect(coinRow('zcash').ledger).toMatchObject({ names: ['Zcash'], minimum: '2.4.0', keyPath: 'zcash-account', addressFormat: 'legacy' });
    expect(coinRow('ethereum').ledger).toEqual({ names: ['Ethereum'], minimum: '1.9.0', protocol: 'ethereum' });
    expect(coinRow('zclassic').ledger).toBeNull();
    expect(coinRow('bitcoin_private').ledger).toBeNull();
  });
});
