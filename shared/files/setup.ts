/**
 * What every wallet set-up format (descriptor, BSMS, Caravan, Coldcard, Specter) reads into: M,
 * the co-signers' keys in the file's order, the script type and key order (given or BIP67-sorted),
 * and whatever the file says of its chain. The checks every format shares live here: xpubs only
 * (never a private key), one network, a possible policy.
 */
import { allChainParams, looksLikePrivateKey, repeatedExtendedKey, tryDecodeBase58Check, utxoCoinRow, type MultisigScriptType, type NetworkName } from '../coins/index.ts';
import { FileFormatError } from './errors.ts';

export interface SetupKey {
  name: string;
  xpub: string;
  /** Master key fingerprint, 8 lower-case hex digits ('00000000' when the file does not say). */
  fingerprint: string;
  /** Master key to xpub, "m/48'/0'/0'/1'" ('m' when the file does not say). */
  derivationPath: string;
}

/** Whether a key is for a main network or a test network (testnet, regtest share versions). */
export type KeyNetwork = 'mainnet' | 'test';

export type SetupFormat = 'descriptor' | 'bsms' | 'caravan' | 'coldcard' | 'specter';

/** How a wallet's keys make its scripts: the script type, and whether the keys are sorted (BIP67). */
export interface WalletScript {
  scriptType: MultisigScriptType;
  /** True: sortedmulti (BIP67 order, as Caravan, Coldcard, Sparrow, Nunchuk, Specter make); false: multi, keys in the order given. */
  sortKeys: boolean;
}

/** This desk's wallets before script types: P2SH, keys in the order given. */
export const P2SH_GIVEN_ORDER: WalletScript = Object.freeze({ scriptType: 'p2sh', sortKeys: false });

/** What the formats write and their readers say, per script type. */
export const SCRIPT_TYPE_LABEL: Readonly<Record<MultisigScriptType, string>> = { p2sh: 'P2SH', 'p2sh-p2wsh': 'P2SH-P2WSH', p2wsh: 'P2WSH' };

export interface WalletSetup extends WalletScript {
  format: SetupFormat;
  name: string | null;
  m: number;
  keys: SetupKey[];
  keyNetwork: KeyNetwork;
  /** Only files that name their chain (Caravan and Coldcard are Bitcoin-only). */
  chain: { coin: 'bitcoin' | 'testnet3'; network: NetworkName } | null;
  /** A BSMS descriptor record's first receive address, to compare with ours. */
  firstAddress: string | null;
  /** The first block that can concern the wallet, where the format carries one (Specter's blockheight). */
  birthday?: number;
}

// SLIP-132 versions: script-specific xpubs of segwit wallets, refused by name.
const SLIP132: Readonly<Record<number, string>> = {
  0x049d7cb2: 'ypub (P2SH-P2WPKH)',
  0x04b24746: 'zpub (P2WPKH)',
  0x0295b43f: 'Ypub (P2SH-P2WSH multisig)',
  0x02aa7ed3: 'Zpub (P2WSH multisig)',
  0x044a5262: 'upub (testnet P2SH-P2WPKH)',
  0x045f1cf6: 'vpub (testnet P2WPKH)',
  0x024289ef: 'Upub (testnet P2SH-P2WSH multisig)',
  0x02575483: 'Vpub (testnet P2WSH multisig)',
};

/** Which kind of network an xpub is for; refuses private keys and non-xpubs by name. */
export function keyNetworkOf(xpub: string, what: string): KeyNetwork {
  const secret = looksLikePrivateKey(xpub);
  if (secret !== null) throw new FileFormatError(`${what} is ${secret}: a set-up file must carry public keys only (treat that private key as exposed)`);
  const decoded = tryDecodeBase58Check(xpub);
  if (!decoded.ok || decoded.data.length !== 78) throw new FileFormatError(`${what} "${xpub.slice(0, 12)}..." is not an extended public key`);
  const version = new DataView(decoded.data.buffer, decoded.data.byteOffset).getUint32(0);
  const slip = SLIP132[version];
  if (slip) throw new FileFormatError(`${what} is a ${slip} key, made for segwit scripts; write it as a plain xpub/tpub key (the descriptor or the file's format says the script type)`);
  const chains = allChainParams().filter((p) => p.xpubVersions.includes(version));
  if (chains.length === 0) throw new FileFormatError(`${what} has an unknown extended key version 0x${version.toString(16).padStart(8, '0')}`);
  return chains.some((p) => p.network === 'mainnet' && !utxoCoinRow(p.coin).testCoin) ? 'mainnet' : 'test';
}

/** The checks every format shares; returns the keys' network. */
export function checkSetup(m: number, keys: readonly SetupKey[]): KeyNetwork {
  const n = keys.length;
  if (n === 0) throw new FileFormatError('the file lists no keys');
  if (!Number.isInteger(m) || m < 1 || m > n || n > 15) {
    const why = Number.isInteger(m) && m > n ? ` (the threshold ${m} is larger than the ${n} keys)` : '';
    throw new FileFormatError(`the policy ${m} of ${n} is impossible: a wallet needs 1 <= M <= N <= 15${why}`);
  }
  const networks = keys.map((k, i) => keyNetworkOf(k.xpub, `key ${i + 1} (${k.name})`));
  const first = networks[0]!;
  const other = networks.findIndex((x) => x !== first);
  if (other >= 0) {
    throw new FileFormatError(`the keys mix networks: key 1 (${keys[0]!.name}) is a ${first === 'mainnet' ? 'mainnet' : 'test network'} key, key ${other + 1} (${keys[other]!.name}) is not`);
  }
  const repeated = repeatedExtendedKey(keys.map((k) => k.xpub));
  if (repeated !== null) {
    const [a, b] = repeated;
    throw new FileFormatError(`key ${b + 1} (${keys[b]!.name}) is key ${a + 1} (${keys[a]!.name}) again${keys[a]!.xpub.trim() === keys[b]!.xpub.trim() ? '' : ', written in another encoding'}: one holder would sign in two places; each co-signer needs an own key`);
  }
  return first;
}

export const isFingerprint = (s: string) => /^[0-9a-fA-F]{8}$/.test(s);
