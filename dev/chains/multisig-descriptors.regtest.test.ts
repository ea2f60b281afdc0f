// The node as the oracle for the set-up formats' descriptors: litecoind's getdescriptorinfo
// checksums what we write, and its deriveaddresses gives the addresses our reader's script type
// and key order derive, for wsh(sortedmulti), sh(wsh(sortedmulti)) and sh(multi) over three tpubs.
import { BIP32Factory } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, bytesToHex, chainParams, sha256 } from '../../shared/coins/index.ts';
import { deriveAddress } from '../../shared/coins/multisig-address.ts';
import { descriptorChecksum } from '../../shared/files/descriptor-checksum.ts';
import { formatMultisigDescriptor } from '../../shared/files/descriptor.ts';
import { parseSetupFile } from '../../shared/files/setup-file.ts';
import type { WalletScript, WalletSetup } from '../../shared/files/setup.ts';
import { startLitecoind, type RegtestNode } from './litecoind.ts';

const bip32 = BIP32Factory(ecc);
const TEST_NET = { messagePrefix: '', bech32: 'tb', bip32: { public: 0x043587cf, private: 0x04358394 }, pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };
const params = chainParams('litecoin', 'regtest');

// Three co-signers' account keys at m/48'/1'/0'/2', made here from fixed seeds.
const KEYS = ['alice', 'bob', 'carol'].map((who) => {
  const root = bip32.fromSeed(Buffer.from(sha256(new TextEncoder().encode(`descriptor oracle ${who}`))), TEST_NET);
  const account = root.derivePath("m/48'/1'/0'/2'").neutered();
  return { name: who, xpub: account.toBase58(), fingerprint: bytesToHex(root.fingerprint), derivationPath: "m/48'/1'/0'/2'" };
});

const SCRIPTS: Array<[string, WalletScript]> = [
  ['wsh(sortedmulti)', { scriptType: 'p2wsh', sortKeys: true }],
  ['sh(wsh(sortedmulti))', { scriptType: 'p2sh-p2wsh', sortKeys: true }],
  ['sh(multi) in the given order', { scriptType: 'p2sh', sortKeys: false }],
];

const readWallet = (text: string): WalletSetup => {
  const file = parseSetupFile(text, 'any-multisig');
  if (file.kind !== 'wallet') throw new Error('not a wallet');
  return file.setup;
};

describe('multisig descriptors against litecoind regtest', () => {
  let node: RegtestNode;
  beforeAll(async () => {
    node = await startLitecoind();
  });
  afterAll(async () => {
    await node?.stop();
  });

  it.each(SCRIPTS)('%s: our checksums are the node\'s, our derived addresses are the node\'s', async (_, script) => {
    const [receive, change] = (['/0/*', '/1/*'] as const).map((branch) => formatMultisigDescriptor(2, KEYS, branch, false, script));
    for (const single of [receive!, change!]) {
      const info = await node.rpc.call<{ checksum: string }>('getdescriptorinfo', [single]);
      expect(info.checksum).toBe(descriptorChecksum(single));
    }
    // The multipath form (which litecoind 0.21 does not parse) and the receive/change pair read the same.
    const multipath = readWallet(formatMultisigDescriptor(2, KEYS, '/<0;1>/*', true, script));
    const pair = readWallet(`${formatMultisigDescriptor(2, KEYS, '/0/*', true, script)}\n${formatMultisigDescriptor(2, KEYS, '/1/*', true, script)}\n`);
    expect(pair).toEqual(multipath);
    expect({ scriptType: multipath.scriptType, sortKeys: multipath.sortKeys }).toEqual(script);
    expect(multipath.keys.map((k) => k.xpub)).toEqual(KEYS.map((k) => k.xpub));

    for (const [isChange, single] of [[false, receive!], [true, change!]] as const) {
      const theirs = await node.rpc.call<string[]>('deriveaddresses', [`${single}#${descriptorChecksum(single)}`, [0, 19]]);
      expect(theirs).toHaveLength(20);
      const ours = theirs.map((_a, i) => deriveAddress(params, multipath.m, multipath.keys.map((k) => k.xpub), isChange, i, { scriptType: multipath.scriptType, sortKeys: multipath.sortKeys }));
      // The same output scripts; the node writes P2SH with its own prefix, segwit with hrp rltc like ours.
      expect(ours.map((o) => bytesToHex(o.scriptPubKey))).toEqual(theirs.map((a) => bytesToHex(addressToScript(params, a))));
      if (script.scriptType === 'p2wsh') {
        expect(theirs.every((a) => a.startsWith('rltc1q'))).toBe(true);
        expect(ours.map((o) => o.address)).toEqual(theirs);
      }
    }
  });

  it("origins written with h (as Sparrow writes them) checksum like the node's and read as the same keys", async () => {
    const single = formatMultisigDescriptor(2, KEYS, '/0/*', false, { scriptType: 'p2wsh', sortKeys: true }).replaceAll("'", 'h');
    const info = await node.rpc.call<{ checksum: string }>('getdescriptorinfo', [single]);
    expect(info.checksum).toBe(descriptorChecksum(single));
    const read = readWallet(`${single}#${info.checksum}`);
    expect(read.keys.map((k) => [k.fingerprint, k.derivationPath, k.xpub])).toEqual(KEYS.map((k) => [k.fingerprint, k.derivationPath, k.xpub]));
  });

  it('given order and sorted order are different wallets, and the node agrees', async () => {
    const given = formatMultisigDescriptor(2, KEYS, '/0/*', false, { scriptType: 'p2wsh', sortKeys: false });
    const sorted = formatMultisigDescriptor(2, KEYS, '/0/*', false, { scriptType: 'p2wsh', sortKeys: true });
    const [a, b] = await Promise.all([given, sorted].map((d) => node.rpc.call<string[]>('deriveaddresses', [`${d}#${descriptorChecksum(d)}`, [0, 4]])));
    const ours = (sortKeys: boolean) => [0, 1, 2, 3, 4].map((i) => deriveAddress(params, 2, KEYS.map((k) => k.xpub), false, i, { scriptType: 'p2wsh', sortKeys }).address);
    expect(ours(false)).toEqual(a);
    expect(ours(true)).toEqual(b);
    expect(a).not.toEqual(b);
  });
});
