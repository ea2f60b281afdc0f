// Vaults of test keys for the watch-mode tests: a 2-of-3 multisig, and a miniscript vault (issue 27:
// 2-of-3 now, or 1-of-2 recovery keys after 144 blocks); each its multipath descriptor and addresses.
import { BIP32Factory } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex, chainParams, sha256 } from '../../shared/coins/index.ts';
import { deriveAddress } from '../../shared/coins/multisig-address.ts';
import type { MultisigScriptType } from '../../shared/coins/index.ts';
import { vaultAddress } from '../../shared/coins/vault-policy.ts';
import { recoveryVault } from '../../shared/coins/vault-templates.ts';
import { type DescriptorBranches, formatMultisigDescriptor } from '../../shared/files/descriptor.ts';
import { formatVaultDescriptor } from '../../shared/files/miniscript-descriptor.ts';

const bip32 = BIP32Factory(ecc);
const TEST_NET = { messagePrefix: '', bech32: 'tb', bip32: { public: 0x043587cf, private: 0x04358394 }, pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };
const params = chainParams('litecoin', 'regtest');

export interface TestVault {
  descriptor(branches?: DescriptorBranches): string;
  /** The address, its script, and its public keys (in key order; sortedmulti sorts them). */
  address(change: boolean, index: number): { address: string; scriptPubKey: Uint8Array; publicKeys: Uint8Array[] };
}

/** Keys made from fixed seeds (`label` and the co-signer's name), at m/48'/1'/0'/2'. */
function testKeys(label: string, names: readonly string[]) {
  return names.map((who) => {
    const root = bip32.fromSeed(Buffer.from(sha256(new TextEncoder().encode(`${label} ${who}`))), TEST_NET);
    return { name: who, xpub: root.derivePath("m/48'/1'/0'/2'").neutered().toBase58(), fingerprint: bytesToHex(root.fingerprint), derivationPath: "m/48'/1'/0'/2'" };
  });
}

/** A miniscript vault (recoveryVault): its one multipath descriptor, as the desk registers it (main/core/wallets/birthday.ts). */
export function testMiniscriptVault(label: string): { descriptor: string; address(change: boolean, index: number): { address: string; scriptPubKey: Uint8Array } } {
  const [a, b, c, d, e] = testKeys(label, ['alice', 'bob', 'carol', 'dave', 'erin']).map(({ xpub, fingerprint, derivationPath }) => ({ xpub, fingerprint, derivationPath }));
  const policy = recoveryVault(params, { threshold: 2, keys: [a!, b!, c!] }, [{ threshold: 1, keys: [d!, e!], after: { blocks: 144 } }]);
  return { descriptor: formatVaultDescriptor(policy), address: (change, index) => vaultAddress(params, policy, change, index) };
}

/** A 2-of-3 sortedmulti vault of keys made from `label`. */
export function testVault(label: string, scriptType: MultisigScriptType = 'p2wsh'): TestVault {
  const keys = testKeys(label, ['alice', 'bob', 'carol']);
  const script = { scriptType, sortKeys: true };
  return {
    descriptor: (branches = '/<0;1>/*') => formatMultisigDescriptor(2, keys, branches, true, script),
    address: (change, index) => deriveAddress(params, 2, keys.map((k) => k.xpub), change, index, script),
  };
}
