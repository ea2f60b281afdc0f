// A 2-of-3 vault of test keys for the watch-mode tests: its multipath descriptor and its addresses.
import { BIP32Factory } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex, chainParams, sha256 } from '../../shared/coins/index.ts';
import { deriveAddress } from '../../shared/coins/multisig-address.ts';
import type { MultisigScriptType } from '../../shared/coins/index.ts';
import { type DescriptorBranches, formatMultisigDescriptor } from '../../shared/files/descriptor.ts';

const bip32 = BIP32Factory(ecc);
const TEST_NET = { messagePrefix: '', bech32: 'tb', bip32: { public: 0x043587cf, private: 0x04358394 }, pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };
const params = chainParams('litecoin', 'regtest');

export interface TestVault {
  descriptor(branches?: DescriptorBranches): string;
  address(change: boolean, index: number): { address: string; scriptPubKey: Uint8Array };
}

/** Keys made from fixed seeds (`label` and the co-signer's name), at m/48'/1'/0'/2'. */
export function testVault(label: string, scriptType: MultisigScriptType = 'p2wsh'): TestVault {
  const keys = ['alice', 'bob', 'carol'].map((who) => {
    const root = bip32.fromSeed(Buffer.from(sha256(new TextEncoder().encode(`${label} ${who}`))), TEST_NET);
    return { name: who, xpub: root.derivePath("m/48'/1'/0'/2'").neutered().toBase58(), fingerprint: bytesToHex(root.fingerprint), derivationPath: "m/48'/1'/0'/2'" };
  });
  const script = { scriptType, sortKeys: true };
  return {
    descriptor: (branches = '/<0;1>/*') => formatMultisigDescriptor(2, keys, branches, true, script),
    address: (change, index) => deriveAddress(params, 2, keys.map((k) => k.xpub), change, index, script),
  };
}
