import { describe, expect, test } from 'vitest';
import { bytesToHex } from './bytes.ts';
import { COIN_NAMES, NETWORK_NAMES, chainParams, implementedUtxoCoins, isCoinName, isUtxoCoin } from './coin-table.ts';
import type { CoinName, NetworkName } from './coin-table.ts';
import { CoinError } from './errors.ts';

// Expected constants, from SEMANTICS.md and the coins' chainparams.cpp.
const EXPECTED: Record<string, { p2pkh: string; p2sh: string[]; hrp?: string; xpub: number[]; wif: number }> = {
  'bitcoin mainnet': { p2pkh: '00', p2sh: ['05'], hrp: 'bc', xpub: [0x0488b21e], wif: 0x80 },
  'bitcoin testnet': { p2pkh: '6f', p2sh: ['c4'], hrp: 'tb', xpub: [0x043587cf], wif: 0xef },
  'bitcoin regtest': { p2pkh: '6f', p2sh: ['c4'], hrp: 'bcrt', xpub: [0x043587cf], wif: 0xef },
  'testnet3 mainnet': { p2pkh: '6f', p2sh: ['c4'], hrp: 'tb', xpub: [0x043587cf], wif: 0xef },
  'testnet3 testnet': { p2pkh: '6f', p2sh: ['c4'], hrp: 'tb', xpub: [0x043587cf], wif: 0xef },
  'testnet3 regtest': { p2pkh: '6f', p2sh: ['c4'], hrp: 'bcrt', xpub: [0x043587cf], wif: 0xef },
  'litecoin mainnet': { p2pkh: '30', p2sh: ['32', '05'], hrp: 'ltc', xpub: [0x0488b21e, 0x019da462], wif: 0xb0 },
  'litecoin testnet': { p2pkh: '6f', p2sh: ['3a', 'c4'], hrp: 'tltc', xpub: [0x043587cf], wif: 0xef },
  'litecoin regtest': { p2pkh: '6f', p2sh: ['3a', 'c4'], hrp: 'rltc', xpub: [0x043587cf], wif: 0xef },
  'dash mainnet': { p2pkh: '4c', p2sh: ['10'], xpub: [0x0488b21e, 0x02fe52f8], wif: 0xcc },
  'dash testnet': { p2pkh: '8c', p2sh: ['13'], xpub: [0x043587cf, 0x3a8061a0], wif: 0xef },
  'dash regtest': { p2pkh: '8c', p2sh: ['13'], xpub: [0x043587cf], wif: 0xef },
};
const BIP44: Record<string, number> = { bitcoin: 0, testnet3: 1, litecoin: 2, dash: 5 };

describe('coin table', () => {
  test('the API enumeration has all ten coins', () => {
    expect(COIN_NAMES).toEqual([
      'bitcoin', 'testnet3', 'litecoin', 'bitcoin_cash', 'bitcoin_gold', 'dash', 'zcash', 'zclassic', 'bitcoin_private', 'ethereum',
    ]);
    expect(isCoinName('dash')).toBe(true);
    expect(isCoinName('dogecoin')).toBe(false);
    expect(COIN_NAMES.filter(isUtxoCoin)).toHaveLength(9);
    expect(isUtxoCoin('ethereum')).toBe(false);
  });

  test('implemented now: bitcoin, testnet3, litecoin, dash', () => {
    expect(implementedUtxoCoins().sort()).toEqual(['bitcoin', 'dash', 'litecoin', 'testnet3']);
  });

  test.each(Object.entries(EXPECTED))('%s', (key, want) => {
    const [coin, network] = key.split(' ') as [CoinName, NetworkName];
    const p = chainParams(coin, network);
    expect(p.coin).toBe(coin);
    expect(p.network).toBe(network);
    expect(bytesToHex(p.p2pkhVersion)).toBe(want.p2pkh);
    expect(bytesToHex(p.p2shVersion)).toBe(want.p2sh[0]);
    expect(p.p2shVersions.map(bytesToHex)).toEqual(want.p2sh);
    expect(p.bech32Hrp).toBe(want.hrp);
    expect(p.xpubVersions).toEqual(want.xpub);
    expect(p.wifVersion).toBe(want.wif);
    expect(p.decimals).toBe(8);
    expect(p.dustLimit).toBe(coin === 'litecoin' ? 5460n : 546n);
    expect(p.sighashAlgorithm).toBe('legacy');
    expect(p.hashType).toBe(0x01);
    expect(p.txVersion).toBe(1);
    expect(p.bip44CoinType).toBe(BIP44[coin]);
  });

  test('every implemented coin has every network', () => {
    for (const coin of implementedUtxoCoins()) for (const network of NETWORK_NAMES) expect(() => chainParams(coin, network)).not.toThrow();
  });

  test('coins not implemented yet are named in the error', () => {
    expect(() => chainParams('bitcoin_cash', 'mainnet')).toThrow(CoinError);
    expect(() => chainParams('zcash', 'mainnet')).toThrow('coin "zcash" is not supported yet');
    expect(() => chainParams('ethereum', 'mainnet')).toThrow(/ethereum is not a UTXO coin/);
  });

  test('returned byte arrays are copies', () => {
    const a = chainParams('bitcoin', 'mainnet');
    a.p2pkhVersion[0] = 0x99;
    expect(chainParams('bitcoin', 'mainnet').p2pkhVersion[0]).toBe(0x00);
  });
});
