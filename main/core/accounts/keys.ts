// A software account's key: BIP39 recovery words (derived at m/44'/60'/0'/0/0, the path Ethereum
// wallets use) or a raw 32-byte private key. Kept only in a SecretStore per account, never in
// SQLite and never in a bridge answer; turned into an EtherSigner only for the moment of signing.
import { BIP32Factory } from 'bip32';
import { generateMnemonic, mnemonicToSeedSync, validateMnemonic, wordlists } from 'bip39';
import * as ecc from 'tiny-secp256k1';
import { z } from 'zod';
import { hexToBytes } from '../../../shared/coins/bytes.ts';
import { ethereumAddressOfPublicKey } from '../../../shared/coins/ethereum-address.ts';
import { CoordinatorError } from '../errors.ts';
import { softwareEtherSigner, type EtherSigner } from '../ether-signer.ts';
import { MemorySecretStore, type SecretStore } from '../secrets.ts';

const bip32 = BIP32Factory(ecc);
const wordlist = wordlists.english!;

export const ETHER_PATH = "m/44'/60'/0'/0/0";

const StoredSecret = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('mnemonic'), words: z.string().min(1), passphrase: z.string(), path: z.string().regex(/^m(\/[0-9]+'?)*$/) }),
  z.object({ kind: z.literal('private_key'), hex: z.string().regex(/^[0-9a-f]{64}$/) }),
]);
export type SoftwareSecret = z.infer<typeof StoredSecret>;

/** Where the desk keeps one account's secret: a SecretStore per account id. */
export type AccountSecrets = (accountId: string) => SecretStore;

/** Web mode and tests: secrets live in this process only and are gone when it stops. */
export function memoryAccountSecrets(): AccountSecrets {
  const stores = new Map<string, SecretStore>();
  return (id) => {
    let s = stores.get(id);
    if (!s) stores.set(id, (s = new MemorySecretStore()));
    return s;
  };
}

export type KeySource = { source: 'generate' } | { source: 'mnemonic'; words: string; passphrase?: string | undefined } | { source: 'private_key'; privateKey: string };

/** Checks what was typed (or makes new words) and returns the secret to keep. */
export function softwareSecretOf(key: KeySource): SoftwareSecret {
  if (key.source === 'generate') return { kind: 'mnemonic', words: generateMnemonic(256, undefined, wordlist), passphrase: '', path: ETHER_PATH };
  if (key.source === 'mnemonic') {
    const words = key.words.trim().toLowerCase().split(/\s+/).join(' ');
    if (!validateMnemonic(words, wordlist)) {
      throw new CoordinatorError('bad_key', 'the words given are not a valid BIP39 mnemonic (a word is misspelled, missing, or out of order)');
    }
    return { kind: 'mnemonic', words, passphrase: key.passphrase ?? '', path: ETHER_PATH };
  }
  const hex = key.privateKey.trim().toLowerCase().replace(/^0x/, '');
  if (!/^[0-9a-f]{64}$/.test(hex) || !ecc.isPrivate(hexToBytes(hex))) throw new CoordinatorError('bad_key', 'the private key must be 32 bytes of hex (64 digits), a valid secp256k1 key');
  return { kind: 'private_key', hex };
}

export function privateKeyOf(secret: SoftwareSecret): Uint8Array {
  if (secret.kind === 'private_key') return hexToBytes(secret.hex);
  const node = bip32.fromSeed(mnemonicToSeedSync(secret.words, secret.passphrase)).derivePath(secret.path);
  if (!node.privateKey) throw new CoordinatorError('bad_key', `no private key at ${secret.path}`);
  return new Uint8Array(node.privateKey);
}

export function addressOfSecret(secret: SoftwareSecret): string {
  const publicKey = ecc.pointFromScalar(privateKeyOf(secret), true);
  if (!publicKey) throw new CoordinatorError('bad_key', 'the private key is not a valid secp256k1 key');
  return ethereumAddressOfPublicKey(publicKey);
}

export function saveSecret(store: SecretStore, secret: SoftwareSecret): void {
  store.save(JSON.stringify(secret));
}

/** The signer of a software account, or a clear refusal when its key is not (or no longer) kept here. */
export function loadSigner(store: SecretStore, accountName: string): EtherSigner {
  const text = store.load();
  if (text === null) {
    throw new CoordinatorError(
      'key_missing',
      `the key of account "${accountName}" is not kept by this desk any more${store.persistent ? ' (it could not be read)' : ' (web mode forgets keys when the desk stops)'}: nothing was signed`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const secret = StoredSecret.safeParse(parsed);
  if (!secret.success) throw new CoordinatorError('key_missing', `the key kept for account "${accountName}" is unreadable: nothing was signed`);
  return softwareEtherSigner(privateKeyOf(secret.data));
}
