// Deterministic co-signer keys for tests: BIP32 masters from fixed seeds, an account xpub below a
// hardened path (what a device would export), and the xprvs a software co-signer would type in.
import { BIP32Factory } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { entropyToMnemonic, mnemonicToSeedSync } from 'bip39';
import { networks, type Network } from 'bitcoinjs-lib';
import { chainParams, sha256, type ChainParams } from '../../shared/coins/index.ts';
import type { NewRecoveryVault } from '../../main/core/vaults/vaults.ts';

const bip32 = BIP32Factory(ecc);
export const ACCOUNT_PATH = "m/45'/0'";

export interface TestCosigner {
  name: string;
  xpub: string;
  fingerprint: string;
  derivationPath: string;
  /** The master xprv (signing derives the account along derivationPath). */
  masterXprv: string;
  /** BIP39 recovery words of the master key (no passphrase). */
  mnemonic: string;
  accountXprv: string;
}

export function testCosigner(name: string, params: ChainParams = chainParams('litecoin', 'regtest')): TestCosigner {
  const network = {
    messagePrefix: '',
    bech32: '',
    bip32: { public: params.xpubVersions[0]!, private: params.xprvVersions[0]! },
    pubKeyHash: params.p2pkhVersion[0]!,
    scriptHash: params.p2shVersion[0]!,
    wif: params.wifVersion,
  };
  const mnemonic = entropyToMnemonic(Buffer.from(sha256(new TextEncoder().encode(`countersign core ${name}`)).subarray(0, 16)));
  const root = bip32.fromSeed(mnemonicToSeedSync(mnemonic), network);
  const account = root.derivePath(ACCOUNT_PATH);
  return {
    name,
    xpub: account.neutered().toBase58(),
    fingerprint: Buffer.from(root.fingerprint).toString('hex'),
    derivationPath: ACCOUNT_PATH,
    masterXprv: root.toBase58(),
    mnemonic,
    accountXprv: account.toBase58(),
  };
}

/**
 * Issue 27's proof vault on litecoin regtest: 2 of alice, bob, carol now, or 1 of dave, erin once a
 * coin is 144 blocks deep (createVault's input).
 */
export function treasuryVault(name = 'Treasury vault'): NewRecoveryVault {
  const co = (n: string) => {
    const c = testCosigner(n);
    return { name: c.name, xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath };
  };
  return {
    template: 'recovery',
    coin: 'litecoin',
    network: 'regtest',
    name,
    primary: { threshold: 2, cosigners: ['alice', 'bob', 'carol'].map(co) },
    recovery: [{ threshold: 1, cosigners: ['dave', 'erin'].map(co), after: { blocks: 144 } }],
  };
}

/** bitcoinjs-lib's view of a chain: the prefixes only (it never sees a node). */
export function jsNetwork(params: ChainParams): Network {
  return { ...networks.regtest, bech32: params.bech32Hrp ?? 'rltc', bip32: { public: params.xpubVersions[0]!, private: params.xprvVersions[0]! }, pubKeyHash: params.p2pkhVersion[0]!, scriptHash: params.p2shVersion[0]!, wif: params.wifVersion };
}
