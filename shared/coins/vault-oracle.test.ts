// The second oracle for vault addresses: rust-miniscript (compiled to WASM, @bitgo/wasm-miniscript,
// a test-only dependency neither the desk nor the service uses) derives the first 20 receive and
// change scripts of each template from the same descriptor text; bitcoinjs-lib encodes them as
// addresses. Ours: @bitcoinerlab/miniscript's compiler, our assembler, BIP32 and bech32 encoder.
import { Descriptor } from '@bitgo/wasm-miniscript';
import { address as bjsAddress } from 'bitcoinjs-lib';
import { describe, expect, test } from 'vitest';
import { testCosigner } from '../../dev/desk-testing/keys.ts';
import { formatVaultDescriptor } from '../files/miniscript-descriptor.ts';
import { bytesToHex } from './bytes.ts';
import { chainParams, type ChainParams } from './coin-table.ts';
import { vaultAddress, type VaultKey, type VaultPolicy } from './vault-policy.ts';
import { decayingVault, recoveryVault } from './vault-templates.ts';

const N = 20;

/** The receive (0) or change (1) single-path descriptor: each <a;b> becomes a or b. */
const singlePath = (multipath: string, change: boolean) => multipath.replace(/<(\d+);(\d+)>/g, (_m, a: string, b: string) => (change ? b : a));

function oracleScripts(policy: VaultPolicy, change: boolean): string[] {
  const d = Descriptor.fromString(singlePath(formatVaultDescriptor(policy, false), change), 'derivable');
  return Array.from({ length: N }, (_, i) => bytesToHex(d.atDerivationIndex(i).scriptPubkey()));
}

function templates(params: ChainParams): [string, VaultPolicy][] {
  const key = (n: string): VaultKey => {
    const c = testCosigner(n, params);
    return { xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath };
  };
  const [a, b, c, d, e, f] = ['a', 'b', 'c', 'd', 'e', 'f'].map(key) as VaultKey[];
  return [
    ['recovery: 2-of-3, or 1-of-2 after 144 blocks', recoveryVault(params, { threshold: 2, keys: [a!, b!, c!] }, [{ threshold: 1, keys: [d!, e!], after: { blocks: 144 } }])],
    [
      'recovery: 2-of-3, or a key after 30 days, or 2-of-2 after 90 days',
      recoveryVault(params, { threshold: 2, keys: [a!, b!, c!] }, [
        { threshold: 1, keys: [d!], after: { days: 30 } },
        { threshold: 2, keys: [e!, f!], after: { days: 90 } },
      ]),
    ],
    ['recovery: one key, or another after 10 days', recoveryVault(params, { threshold: 1, keys: [a!] }, [{ threshold: 1, keys: [b!], after: { days: 10 } }])],
    ['decaying: 2-of-3, 1-of-3 after 60 days', decayingVault(params, { threshold: 2, keys: [a!, b!, c!] }, [{ threshold: 1, after: { days: 60 } }])],
    [
      'decaying: 3-of-4, 2-of-4 after 20 days, 1-of-4 after 40',
      decayingVault(params, { threshold: 3, keys: [a!, b!, c!, d!] }, [
        { threshold: 2, after: { days: 20 } },
        { threshold: 1, after: { days: 40 } },
      ]),
    ],
  ];
}

const networks: [string, ChainParams, { bech32: string }][] = [
  ['bitcoin', chainParams('bitcoin', 'mainnet'), { bech32: 'bc' }],
  ['litecoin regtest', chainParams('litecoin', 'regtest'), { bech32: 'rltc' }],
  ['testnet3', chainParams('testnet3', 'mainnet'), { bech32: 'tb' }],
];

describe.each(networks)('%s: the first 20 receive and change addresses equal rust-miniscript\'s', (_coin, params, hrp) => {
  test.each(templates(params))('%s', (_name, policy) => {
    for (const change of [false, true]) {
      const oracle = oracleScripts(policy, change);
      const ours = Array.from({ length: N }, (_, i) => vaultAddress(params, policy, change, i));
      expect(ours.map((a) => bytesToHex(a.scriptPubKey))).toEqual(oracle);
      const network = { bech32: hrp.bech32, pubKeyHash: 0, scriptHash: 5, wif: 0x80, messagePrefix: '', bip32: { public: 0, private: 0 } };
      expect(ours.map((a) => a.address)).toEqual(oracle.map((s) => bjsAddress.fromOutputScript(Buffer.from(s, 'hex'), network)));
    }
  });
});
