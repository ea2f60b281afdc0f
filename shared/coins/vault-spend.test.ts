// The desk's side of a vault spend: the concrete miniscript it sends the service compiles to the
// address's own witness script (desk template and service compiler agree), the paths are numbered as
// the service numbers them, and a path not yet open is named with its block and an estimated date.
import { describe, expect, test } from 'vitest';
import { testCosigner } from '../../dev/desk-testing/keys.ts';
import { bytesToHex } from './bytes.ts';
import { chainParams } from './coin-table.ts';
import { estimateVsize } from './tx-size.ts';
import { vaultAddress, type VaultKey } from './vault-policy.ts';
import { pathNotOpen, vaultInputSpend } from './vault-spend.ts';
import { recoveryVault } from './vault-templates.ts';

const LTC_REG = chainParams('litecoin', 'regtest');
const key = (name: string): VaultKey => {
  const c = testCosigner(name, LTC_REG);
  return { xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath };
};
const [A, B, C, D, E] = ['a', 'b', 'c', 'd', 'e'].map(key) as [VaultKey, VaultKey, VaultKey, VaultKey, VaultKey];
const policy = recoveryVault(LTC_REG, { threshold: 2, keys: [A, B, C] }, [{ threshold: 1, keys: [D, E], after: { blocks: 144 } }]);

describe('vaultInputSpend', () => {
  test('the concrete miniscript compiles to the address\'s witness script, on each branch', () => {
    for (const [change, index] of [[false, 0], [true, 3], [false, 17]] as const) {
      const address = vaultAddress(LTC_REG, policy, change, index);
      const spend = vaultInputSpend(LTC_REG, policy, change, index, 0);
      expect(bytesToHex(spend.witnessScript)).toBe(bytesToHex(address.witnessScript));
      expect(spend.descriptor).toMatch(/^wsh\(or_d\(multi\(2,0[23][0-9a-f]{64},/);
      const keys = Object.values(address.derived).map((d) => bytesToHex(d.publicKey));
      expect(spend.path).toMatchObject({ index: 0, older: null, signatures: 2, keys: keys.slice(0, 3) });
    }
  });

  test('the recovery path is the service\'s path 1, 1 signature of the recovery keys, after 144 blocks', () => {
    const address = vaultAddress(LTC_REG, policy, false, 0);
    const keys = Object.values(address.derived).map((d) => bytesToHex(d.publicKey));
    const spend = vaultInputSpend(LTC_REG, policy, false, 0, 144);
    expect(spend.path).toMatchObject({ index: 1, older: 144, signatures: 1, keys: keys.slice(3) });
    // One signature and the primary multi's dissatisfaction (empty items) weigh less than two signatures.
    const primary = vaultInputSpend(LTC_REG, policy, false, 0, 0).path;
    expect(spend.path.largestWitness).toBeGreaterThan(spend.witnessScript.length + 73);
    expect(spend.path.largestWitness).toBeLessThan(primary.largestWitness);
    expect(estimateVsize(LTC_REG, [{ scriptType: 'witness', witness: primary.largestWitness }], [22])).toBeGreaterThan(estimateVsize(LTC_REG, [{ scriptType: 'witness', witness: spend.path.largestWitness }], [22]));
  });

  test('a path that is not the vault\'s is refused in words', () => {
    expect(() => vaultInputSpend(LTC_REG, policy, false, 0, 10)).toThrow('the vault has no path that opens after 10 blocks; its paths open after 0 blocks, 144 blocks');
  });
});

describe('pathNotOpen', () => {
  const now = new Date('2026-11-26T00:00:00Z');
  test('names the opening block, the blocks to go and an estimated date (2.5-minute blocks)', () => {
    expect(pathNotOpen(LTC_REG, 'aa:0', 205, 144, 300, now)).toBe('aa:0 confirmed in block 205, so this path opens at block 349; the chain is at block 300, 48 blocks to go (about 2026-11-26 02:00 UTC)');
    // A 90-day path on litecoin: the blocks to go grouped as the vault form writes them.
    expect(pathNotOpen(LTC_REG, 'aa:0', 205, 51840, 300, now)).toContain('51,744 blocks to go');
    expect(pathNotOpen(LTC_REG, 'aa:0', null, 51840, 300, now)).toBe('aa:0 is not confirmed yet; this path opens 51,840 blocks (about 90 days) after the block that confirms it');
  });
  test('open once the tip is the opening block - 1 (the next block can hold the spend); the primary path always', () => {
    expect(pathNotOpen(LTC_REG, 'aa:0', 205, 144, 348, now)).toBeNull();
    expect(pathNotOpen(LTC_REG, 'aa:0', 205, 144, 347, now)).toContain('1 block to go');
    expect(pathNotOpen(LTC_REG, 'aa:0', null, 0, 300, now)).toBeNull();
  });
  test('an unconfirmed coin on a timelocked path is refused', () => {
    expect(pathNotOpen(LTC_REG, 'aa:0', null, 144, 300, now)).toBe('aa:0 is not confirmed yet; this path opens 144 blocks (about 0.3 days) after the block that confirms it');
  });
});
