// Watch mode takes a vault's descriptor (issue 27): the scripts it watches are the vault's own
// P2WSH scripts, receive and change; a vault descriptor that is not sane is a 400 in words.
import { describe, expect, test } from 'vitest';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import { chainParams } from '../../../shared/coins/coin-table.ts';
import { vaultAddress } from '../../../shared/coins/vault-policy.ts';
import { recoveryVault } from '../../../shared/coins/vault-templates.ts';
import { formatVaultDescriptor } from '../../../shared/files/miniscript-descriptor.ts';
import { deriveScripts, walletKeys } from './watch.ts';

const params = chainParams('litecoin', 'regtest');
const key = (n: string) => {
  const c = testCosigner(n, params);
  return { xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath };
};
const policy = recoveryVault(params, { threshold: 2, keys: [key('a'), key('b'), key('c')] }, [{ threshold: 1, keys: [key('d'), key('e')], after: { blocks: 144 } }]);

describe('watching a vault', () => {
  test('its one multipath descriptor gives both branches, derived as the vault derives them', () => {
    const { keys, branches } = walletKeys([formatVaultDescriptor(policy)]);
    expect(branches).toEqual([0, 1]);
    for (const branch of [0, 1] as const) {
      expect(deriveScripts(params, keys, branch, 0, 5).map(bytesToHex)).toEqual([0, 1, 2, 3, 4].map((i) => bytesToHex(vaultAddress(params, policy, branch === 1, i).scriptPubKey)));
    }
  });
  test('refused in words: not sane, or given as two descriptors', () => {
    const insane = formatVaultDescriptor(policy, false).replace(/and_v\(v:multi\([^)]*\),older\(144\)\)/, 'older(144)');
    expect(() => walletKeys([insane])).toThrow('descriptors[0]: the miniscript is refused: a spending path needs no signature');
    const d = formatVaultDescriptor(policy);
    expect(() => walletKeys([d, d])).toThrow('registered with its one multipath descriptor');
  });
});
