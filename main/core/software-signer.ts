// Co-signer mode: open a signing request, verify it offline, sign with a software key held only in
// memory for the call (never stored), and write the signature file.
import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { mnemonicToSeedSync, validateMnemonic, wordlists } from 'bip39';
import { bytesToHex, equalBytes, parseXpub, signDer, type ChainParams } from '../../shared/coins/index.ts';
import { plural } from '../../shared/api/words.ts';
import type { OpenedRequest } from '../../shared/files/signing-request.ts';
import { SIGNATURE_FORMAT, type SignatureFileV1 } from '../../shared/files/signing-files.ts';
import { CoordinatorError } from './errors.ts';
import { fileSafe } from './file-names.ts';
import { openSigningRequest } from './payments/signing-request.ts';

const bip32 = BIP32Factory(ecc);
const wordlist = wordlists.english!;

/**
 * A co-signer's software key: an extended private key of the coin/network (the co-signer's own,
 * or the master key above it), or a BIP39 mnemonic (with its optional passphrase) whose master key
 * is above it. Used for one call and dropped.
 */
export type SoftwareKey = { xprv: string } | { mnemonic: string; passphrase?: string };

/** One field in the UI takes either: words separated by spaces are a mnemonic. */
export function softwareKeyFrom(secret: string, passphrase = ''): SoftwareKey {
  const text = secret.trim();
  return /\s/.test(text) ? { mnemonic: text.toLowerCase().split(/\s+/).join(' '), passphrase } : { xprv: text };
}

function bip32Network(params: ChainParams) {
  const pub = params.xpubVersions[0];
  const priv = params.xprvVersions[0];
  if (pub === undefined || priv === undefined) throw new CoordinatorError('bad_key', `${params.coin} has no extended key versions`);
  return { messagePrefix: '', bech32: params.bech32Hrp ?? '', bip32: { public: pub, private: priv }, pubKeyHash: params.p2pkhVersion[0] ?? 0, scriptHash: params.p2shVersion[0] ?? 0, wif: params.wifVersion };
}

/**
 * The node of `xprv` that is this wallet's co-signer `position`: the key itself, or derived along
 * the co-signer's recorded path from a master key.
 */
function rootOf(params: ChainParams, key: SoftwareKey): BIP32Interface {
  if ('mnemonic' in key) {
    if (!validateMnemonic(key.mnemonic, wordlist)) {
      throw new CoordinatorError('bad_key', 'the words given are not a valid BIP39 mnemonic (a word is misspelled, missing, or out of order)');
    }
    return bip32.fromSeed(mnemonicToSeedSync(key.mnemonic, key.passphrase ?? ''), bip32Network(params));
  }
  for (const v of params.xprvVersions) {
    try {
      const root = bip32.fromBase58(key.xprv.trim(), { ...bip32Network(params), bip32: { public: params.xpubVersions[0]!, private: v } });
      if (!root.isNeutered()) return root;
    } catch {
      // try the next accepted version
    }
  }
  throw new CoordinatorError('bad_key', `the key given is not an extended private key of ${params.coin} ${params.network}`);
}

/**
 * The private key of the co-signer whose key in the wallet is `xpub` (at `derivationPath` from a
 * master key): what signs the relay's binding of a device to that co-signer.
 */
export function cosignerPrivateKey(params: ChainParams, key: SoftwareKey, xpub: string, derivationPath: string): Uint8Array {
  const node = cosignerNode(rootOf(params, key), parseXpub(params, xpub).publicKey, derivationPath);
  if (!node?.privateKey) throw new CoordinatorError('foreign', "this key is not the co-signer's key the invitation names");
  return node.privateKey;
}

/** `root` itself when it is the key `want`, or its child along `derivationPath` from a master key; null otherwise. */
function cosignerNode(root: BIP32Interface, want: Uint8Array, derivationPath: string): BIP32Interface | null {
  if (equalBytes(root.publicKey, want)) return root;
  if (root.depth === 0 && derivationPath !== 'm') {
    try {
      const child = root.derivePath(derivationPath);
      if (equalBytes(child.publicKey, want)) return child;
    } catch {
      // not derivable along this path
    }
  }
  return null;
}

function matchCosigner(opened: OpenedRequest, key: SoftwareKey): { node: BIP32Interface; position: number } {
  const { params, request } = opened;
  const root = rootOf(params, key);
  for (const [position, c] of request.wallet.cosigners.entries()) {
    const node = cosignerNode(root, parseXpub(params, c.xpub).publicKey, c.derivation_path);
    if (node) return { node, position };
  }
  throw new CoordinatorError('foreign', 'this key is not one of the wallet\'s co-signers: it would sign nothing');
}

/** Signs every input of a verified request with the co-signer's key; returns the signature file text. */
export function signRequest(requestText: string, key: SoftwareKey, now: Date = new Date()): { file: string; fileName: string; opened: OpenedRequest; signer: string } {
  const opened = openSigningRequest(requestText);
  const { node, position } = matchCosigner(opened, key);
  const cosigner = opened.request.wallet.cosigners[position]!;
  const sign = (hash: Uint8Array, below: string, expected: Uint8Array, index: number) => {
    const child = node.derivePath(below);
    if (!equalBytes(child.publicKey, expected)) throw new CoordinatorError('foreign', `input ${index}'s key at ${below} is not this co-signer's`);
    if (!child.privateKey) throw new CoordinatorError('bad_key', 'the key has no private part');
    return { input_index: index, public_key: bytesToHex(expected), signature: bytesToHex(signDer(hash, child.privateKey)) };
  };
  const vault = opened.request.vault_path !== undefined;
  const signatures = vault
    ? // A vault: only this co-signer's keys on the chosen path (a key of another path would be refused).
      opened.verified.inputs.flatMap((input) => (input.pathKeys ?? []).filter((k) => k.key === position).map((k) => sign(input.hash, k.path, k.publicKey, input.index)))
    : opened.verified.inputs.map((input) => sign(input.hash, input.path, input.publicKeys[position]!, input.index));
  if (vault && signatures.length === 0) {
    const blocks = opened.request.vault_path!;
    throw new CoordinatorError('foreign', `${cosigner.name} holds no key of the path this payment is spent on (${blocks === 0 ? 'the primary path' : `the path that opens after ${plural(blocks, 'block')}`}): there is nothing to sign`);
  }
  const file: SignatureFileV1 = {
    format: SIGNATURE_FORMAT,
    version: 1,
    request_id: opened.request.request_id,
    payment_hash: opened.request.payment_hash,
    signer: { name: cosigner.name, xpub: cosigner.xpub },
    signatures,
    created_at: now.toISOString(),
  };
  const fileName = `signature-${fileSafe(cosigner.name)}-${file.request_id.slice(0, 8)}.json`;
  return { file: JSON.stringify(file, null, 2), fileName, opened, signer: cosigner.name };
}
