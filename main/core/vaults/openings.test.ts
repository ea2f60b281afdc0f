import { describe, expect, it } from 'vitest';
import { typedPathDays, typedTimelock, vaultCoinOpenings, type VaultPathView } from './vaults.ts';

const paths: VaultPathView[] = [
  { threshold: 2, keys: ['Alice', 'Bob', 'Carol'], blocks: 0, opens: 'now' },
  { threshold: 1, keys: ['Lawyer'], blocks: 144, opens: '144 blocks' },
];

describe('typed recovery days', () => {
  it('shows days with the blocks of the coin', () => {
    expect(typedTimelock('litecoin', 'mainnet', ' 90 ').words).toBe('90 days (51,840 blocks on litecoin)');
    expect(typedTimelock('bitcoin', 'mainnet', '90')).toMatchObject({ days: 90, blocks: 12_960, words: '90 days (12,960 blocks on bitcoin)' });
  });
  it('refuses a hurried entry or one beyond BIP68 in words, at the days field', () => {
    expect(() => typedTimelock('litecoin', 'regtest', '90 days')).toThrow(/type the days as a whole number, like 90; "90 days" is not one/);
    expect(() => typedTimelock('litecoin', 'regtest', '500')).toThrow(/500 days is 288,000 blocks on litecoin regtest; a relative timelock counts at most 65,535 blocks \(BIP68\), 113 days there/);
    expect(() => typedTimelock('litecoin', 'regtest', '0')).toThrow(/at least 1/);
    expect(() => typedTimelock('bitcoin', 'mainnet', '')).toThrow(/in whole days/);
    expect(() => typedTimelock('litecoin', 'regtest', '-5')).toThrow('a path opens after a number of days from now on, not before; "-5" is negative');
    expect(() => typedTimelock('litecoin', 'regtest', '1,5')).toThrow('type whole days, like 90; "1,5" has a fraction (a relative timelock counts whole blocks, days here)');
    expect(() => typedTimelock('litecoin', 'regtest', '113').blocks).not.toThrow();
    expect(() => typedTimelock('litecoin', 'regtest', '114')).toThrow(/114 days is 65,664 blocks on litecoin regtest; a relative timelock counts at most 65,535 blocks \(BIP68\), 113 days there/);
  });
  it('refuses a later path that opens no later than the one before it, naming the paths', () => {
    expect(typedTimelock('litecoin', 'regtest', '100', 90).days).toBe(100);
    expect(() => typedTimelock('litecoin', 'regtest', '60', 90)).toThrow('each recovery path opens later than the one before it: this one needs more than 90 days (the path above opens after 90); 60 is not later');
    expect(() => typedTimelock('litecoin', 'regtest', '90', 90)).toThrow(/90 is not later/);
    expect(typedPathDays('litecoin', 'regtest', ['30', '90'], 1)).toBe(90);
    expect(() => typedPathDays('litecoin', 'regtest', ['90', '30'], 1)).toThrow('recovery path 2: each recovery path opens later than the one before it');
    expect(() => typedPathDays('litecoin', 'regtest', ['90 days', '100'], 1)).toThrow('recovery path 1: type the days as a whole number, like 90; "90 days" is not one');
  });
});

describe('when a recovery path opens for a coin', () => {
  const coin = (height: number | null) => ({ txid: 'aa', vout: 0, amount: 5n, height });
  it('counts from the block that confirmed the coin (BIP68)', () => {
    // Confirmed at 1001 (tip 1010): a 144-block path may be spent in block 1145.
    const [o] = vaultCoinOpenings({ blockSeconds: 150 }, paths, [coin(1001)], 1010, 0);
    expect(o).toMatchObject({ opensAtBlock: 1145, blocksLeft: 134, opensAround: new Date(134 * 150_000).toISOString() });
    expect(o!.path.keys).toEqual(['Lawyer']);
  });
  it('is open once the coin is as old as the path, and waits the whole path while unconfirmed', () => {
    expect(vaultCoinOpenings({ blockSeconds: 150 }, paths, [coin(1857)], 2000, 0)[0]).toMatchObject({ blocksLeft: 0, opensAtBlock: 2001 });
    expect(vaultCoinOpenings({ blockSeconds: 150 }, paths, [coin(null)], 2000, 0)[0]).toMatchObject({ blocksLeft: 144, opensAtBlock: null, opensAround: null });
  });
});
