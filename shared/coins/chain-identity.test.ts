import { describe, expect, it } from 'vitest';
import { wrongChain } from './chain-identity.ts';
import { chainParams, UTXO_COIN_NAMES, NETWORK_NAMES } from './coin-table.ts';

const LITECOIN_REGTEST = '530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9';
const LITECOIN_MAIN = '12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2';
const BITCOIN_REGTEST = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
const who = 'the node at 127.0.0.1:19443';

describe('wrongChain', () => {
  it('accepts the configured network, named and by its block 0', () => {
    expect(wrongChain(chainParams('litecoin', 'regtest'), { chain: 'regtest', genesis: LITECOIN_REGTEST }, who)).toBeNull();
    expect(wrongChain(chainParams('litecoin', 'mainnet'), { chain: 'main', genesis: LITECOIN_MAIN.toUpperCase() }, who)).toBeNull();
    // testnet3's "mainnet" is Bitcoin's test chain
    expect(wrongChain(chainParams('testnet3', 'mainnet'), { chain: 'test', genesis: '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943' }, who)).toBeNull();
  });

  it('refuses a node of another network of the coin, in words', () => {
    expect(wrongChain(chainParams('litecoin', 'mainnet'), { chain: 'regtest', genesis: LITECOIN_REGTEST }, who)).toBe(
      'the node at 127.0.0.1:19443 is on regtest, but this coin is configured for mainnet',
    );
    expect(wrongChain(chainParams('litecoin', 'testnet'), { chain: 'regtest', genesis: null }, who)).toBe('the node at 127.0.0.1:19443 is on regtest, but this coin is configured for testnet');
  });

  it('refuses another coin of the same network by its block 0', () => {
    expect(wrongChain(chainParams('litecoin', 'regtest'), { chain: 'regtest', genesis: BITCOIN_REGTEST }, who)).toBe(
      'the node at 127.0.0.1:19443 is on bitcoin regtest, but this coin is configured for regtest',
    );
    expect(wrongChain(chainParams('dash', 'mainnet'), { chain: 'main', genesis: 'ab'.repeat(32) }, who)).toMatch(/is on a "main" chain whose block 0 \(abab.*\) is none of dash's/);
  });

  it('names a chain of no network of the API (signet)', () => {
    expect(wrongChain(chainParams('bitcoin', 'testnet'), { chain: 'signet', genesis: null }, who)).toBe('the node at 127.0.0.1:19443 is on the "signet" chain, but this coin is configured for testnet');
  });

  it("takes the operator's block 0 for a chain the table does not hold", () => {
    const dash = chainParams('dash', 'regtest');
    expect(wrongChain(dash, { chain: 'regtest', genesis: LITECOIN_REGTEST }, who)).toMatch(/is on litecoin regtest/);
    expect(wrongChain(dash, { chain: 'regtest', genesis: LITECOIN_REGTEST }, who, { genesis: LITECOIN_REGTEST })).toBeNull();
    expect(wrongChain(dash, { chain: 'main', genesis: LITECOIN_REGTEST }, who, { genesis: LITECOIN_REGTEST })).toMatch(/is on litecoin regtest, but this coin is configured for regtest with block 0 5308/);
  });

  it('holds no block 0 twice within one coin, and every hash is 64 hex digits', () => {
    for (const coin of UTXO_COIN_NAMES) {
      const seen = new Map<string, string>();
      for (const network of NETWORK_NAMES) {
        for (const g of chainParams(coin, network).identity.genesis) {
          expect(g).toMatch(/^[0-9a-f]{64}$/);
          // testnet3's mainnet is its testnet
          if (seen.has(g) && coin !== 'testnet3') throw new Error(`${coin}: ${network} and ${seen.get(g)} share block 0`);
          seen.set(g, network);
        }
      }
    }
  });
});
