import { describe, expect, test } from 'vitest';
import { bytesToHex } from './bytes.ts';
import {
  COIN_NAMES,
  NETWORK_NAMES,
  activeNetworkUpgrade,
  chainParams,
  consensusBranchId,
  implementedUtxoCoins,
  isCoinName,
  isUtxoCoin,
  latestConsensusBranchId,
  sighashTypeInDigest,
} from './coin-table.ts';
import type { CoinName, NetworkName, SighashAlgorithmName, TxFormat } from './coin-table.ts';
import { CoinError } from './errors.ts';

// Expected constants, from docs/api-decisions.md and the coins' chainparams.cpp.
type Expected = { p2pkh: string; p2sh: string[]; hrp?: string; cashaddr?: string; xpub: number[]; wif: number };
const TEST_FORK: Expected = { p2pkh: '6f', p2sh: ['c4'], xpub: [0x043587cf], wif: 0xef };
const ZEC_MAIN: Expected = { p2pkh: '1cb8', p2sh: ['1cbd'], xpub: [0x0488b21e], wif: 0x80 };
const ZEC_TEST: Expected = { p2pkh: '1d25', p2sh: ['1cba'], xpub: [0x043587cf], wif: 0xef };
const BTCP_TEST: Expected = { p2pkh: '1957', p2sh: ['19e0'], xpub: [0x043587cf], wif: 0xef };
const EXPECTED: Record<string, Expected> = {
  'bitcoin mainnet': { p2pkh: '00', p2sh: ['05'], hrp: 'bc', xpub: [0x0488b21e], wif: 0x80 },
  'bitcoin testnet': { p2pkh: '6f', p2sh: ['c4'], hrp: 'tb', xpub: [0x043587cf], wif: 0xef },
  'bitcoin regtest': { p2pkh: '6f', p2sh: ['c4'], hrp: 'bcrt', xpub: [0x043587cf], wif: 0xef },
  'testnet3 mainnet': { p2pkh: '6f', p2sh: ['c4'], hrp: 'tb', xpub: [0x043587cf], wif: 0xef },
  'testnet3 testnet': { p2pkh: '6f', p2sh: ['c4'], hrp: 'tb', xpub: [0x043587cf], wif: 0xef },
  'testnet3 regtest': { p2pkh: '6f', p2sh: ['c4'], hrp: 'bcrt', xpub: [0x043587cf], wif: 0xef },
  'litecoin mainnet': { p2pkh: '30', p2sh: ['32', '05'], hrp: 'ltc', xpub: [0x0488b21e, 0x019da462], wif: 0xb0 },
  'litecoin testnet': { p2pkh: '6f', p2sh: ['3a', 'c4'], hrp: 'tltc', xpub: [0x043587cf], wif: 0xef },
  'litecoin regtest': { p2pkh: '6f', p2sh: ['3a', 'c4'], hrp: 'rltc', xpub: [0x043587cf], wif: 0xef },
  'bitcoin_cash mainnet': { p2pkh: '00', p2sh: ['05'], cashaddr: 'bitcoincash', xpub: [0x0488b21e], wif: 0x80 },
  'bitcoin_cash testnet': { ...TEST_FORK, cashaddr: 'bchtest' },
  'bitcoin_cash regtest': { ...TEST_FORK, cashaddr: 'bchreg' },
  'bitcoin_gold mainnet': { p2pkh: '26', p2sh: ['17'], hrp: 'btg', xpub: [0x0488b21e], wif: 0x80 },
  'bitcoin_gold testnet': { ...TEST_FORK, hrp: 'tbtg' },
  'bitcoin_gold regtest': { ...TEST_FORK, hrp: 'btgrt' },
  'dash mainnet': { p2pkh: '4c', p2sh: ['10'], xpub: [0x0488b21e, 0x02fe52f8], wif: 0xcc },
  'dash testnet': { p2pkh: '8c', p2sh: ['13'], xpub: [0x043587cf, 0x3a8061a0], wif: 0xef },
  'dash regtest': { p2pkh: '8c', p2sh: ['13'], xpub: [0x043587cf], wif: 0xef },
  'zcash mainnet': ZEC_MAIN,
  'zcash testnet': ZEC_TEST,
  'zcash regtest': ZEC_TEST,
  'zclassic mainnet': ZEC_MAIN,
  'zclassic testnet': ZEC_TEST,
  'zclassic regtest': ZEC_TEST,
  'bitcoin_private mainnet': { p2pkh: '1325', p2sh: ['13af'], xpub: [0x0488b21e], wif: 0x80 },
  'bitcoin_private testnet': BTCP_TEST,
  'bitcoin_private regtest': BTCP_TEST,
};
const BIP44: Record<string, number> = {
  bitcoin: 0, testnet3: 1, litecoin: 2, dash: 5, bitcoin_cash: 145, bitcoin_gold: 156, zcash: 133, zclassic: 147, bitcoin_private: 183,
};
/** algorithm, appended byte, 32-bit type in the digest, tx format, tx version */
const SIGNING: Record<string, [SighashAlgorithmName, number, number, TxFormat, number]> = {
  bitcoin: ['legacy', 0x01, 0x01, 'bitcoin', 1],
  testnet3: ['legacy', 0x01, 0x01, 'bitcoin', 1],
  litecoin: ['legacy', 0x01, 0x01, 'bitcoin', 1],
  dash: ['legacy', 0x01, 0x01, 'bitcoin', 1],
  bitcoin_cash: ['forkid', 0x41, 0x00000041, 'bitcoin', 1],
  bitcoin_gold: ['forkid', 0x41, 0x00004f41, 'bitcoin', 1],
  bitcoin_private: ['legacy-forkid', 0x41, 0x00002a41, 'bitcoin', 1],
  zcash: ['zip244', 0x01, 0x01, 'zcash-v5', 5],
  zclassic: ['zip243', 0x01, 0x01, 'zcash-v4', 4],
};

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

  test('every UTXO coin of the enumeration has a row', () => {
    expect(implementedUtxoCoins().sort()).toEqual(COIN_NAMES.filter(isUtxoCoin).sort());
    expect(Object.keys(EXPECTED)).toHaveLength(27);
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
    expect(p.cashAddrPrefix).toBe(want.cashaddr);
    expect(p.xpubVersions).toEqual(want.xpub);
    expect(p.wifVersion).toBe(want.wif);
    expect(p.decimals).toBe(8);
    expect(p.dustLimit).toBe(coin === 'litecoin' ? 5460n : 546n);
    const [algorithm, hashType, inDigest, format, version] = SIGNING[coin] ?? [];
    expect(p.sighashAlgorithm).toBe(algorithm);
    expect(p.hashType).toBe(hashType);
    expect(sighashTypeInDigest(p)).toBe(inDigest);
    expect(p.txFormat).toBe(format);
    expect(p.txVersion).toBe(version);
    expect(p.bip44CoinType).toBe(BIP44[coin]);
    expect(p.networkUpgrades.length > 0).toBe(format !== 'bitcoin');
  });

  test('every implemented coin has every network', () => {
    for (const coin of implementedUtxoCoins()) for (const network of NETWORK_NAMES) expect(() => chainParams(coin, network)).not.toThrow();
  });

  test('ethereum has no UTXO row', () => {
    expect(() => chainParams('ethereum', 'mainnet')).toThrow(CoinError);
    expect(() => chainParams('ethereum', 'mainnet')).toThrow(/ethereum is not a UTXO coin/);
  });

  test('zcash version group ids', () => {
    expect(chainParams('zcash', 'mainnet').versionGroupId).toBe(0x26a7270a);
    expect(chainParams('zclassic', 'mainnet').versionGroupId).toBe(0x892f2085);
    expect(chainParams('bitcoin', 'mainnet').versionGroupId).toBeUndefined();
  });
});

describe('network upgrades and consensus branch ids', () => {
  const main = chainParams('zcash', 'mainnet');
  const test_ = chainParams('zcash', 'testnet');

  test.each([
    [1_687_103, 0xe9ff75a6], // last Canopy block
    [1_687_104, 0xc2d6d0b4], // NU5
    [2_726_399, 0xc2d6d0b4],
    [2_726_400, 0xc8e71055], // NU6
    [3_146_399, 0xc8e71055],
    [3_146_400, 0x4dec4df0], // NU6.1
    [3_364_600, 0x5437f330], // NU6.2
    [3_428_142, 0x5437f330],
    [3_428_143, 0x37a5165b], // NU6.3
    [9_999_999, 0x37a5165b],
  ])('zcash mainnet at %i', (height, branchId) => {
    expect(consensusBranchId(main, height)).toBe(branchId);
  });

  test('zcash testnet heights', () => {
    expect(consensusBranchId(test_, 1_842_420)).toBe(0xc2d6d0b4);
    expect(consensusBranchId(test_, 2_976_000)).toBe(0xc8e71055);
    expect(consensusBranchId(test_, 3_536_500)).toBe(0x4dec4df0);
    expect(consensusBranchId(test_, 4_052_000)).toBe(0x5437f330);
    expect(consensusBranchId(test_, 4_134_000)).toBe(0x37a5165b);
  });

  test('regtest: every upgrade active from height 1, so the newest applies', () => {
    const reg = chainParams('zcash', 'regtest');
    expect(consensusBranchId(reg, 1)).toBe(0x37a5165b);
    expect(latestConsensusBranchId(reg)).toBe(0x37a5165b);
    expect(() => consensusBranchId(reg, 0)).toThrow(/before its first network upgrade/);
    expect(consensusBranchId(chainParams('zclassic', 'regtest'), 1)).toBe(0x930b540d);
  });

  test('zclassic: Buttercup 0x930b540d (already from Bubbly at 585,322)', () => {
    const zcl = chainParams('zclassic', 'mainnet');
    expect(consensusBranchId(zcl, 476_969)).toBe(0x76b809bb);
    expect(consensusBranchId(zcl, 585_318)).toBe(0x821a451c);
    expect(consensusBranchId(zcl, 585_322)).toBe(0x930b540d);
    expect(activeNetworkUpgrade(zcl, 707_000).name).toBe('Buttercup');
    expect(latestConsensusBranchId(zcl)).toBe(0x930b540d);
    expect(consensusBranchId(chainParams('zclassic', 'testnet'), 78_856)).toBe(0x930b540d);
  });

  test('heights before any upgrade, and coins without upgrades, are refused', () => {
    expect(() => consensusBranchId(main, 100)).toThrow(/before its first network upgrade/);
    expect(() => consensusBranchId(main, -1)).toThrow(CoinError);
    expect(() => consensusBranchId(chainParams('bitcoin', 'mainnet'), 800_000)).toThrow(/no network upgrades/);
  });

  test('upgrade lists are copies', () => {
    const a = chainParams('zcash', 'mainnet');
    Object.assign(a.networkUpgrades[0] ?? {}, { activationHeight: 5 });
    expect(chainParams('zcash', 'mainnet').networkUpgrades[0]?.activationHeight).toBe(347_500);
  });

  test('returned byte arrays are copies', () => {
    const a = chainParams('bitcoin', 'mainnet');
    a.p2pkhVersion[0] = 0x99;
    expect(chainParams('bitcoin', 'mainnet').p2pkhVersion[0]).toBe(0x00);
  });
});
