/**
 * BIP32 extended public keys: parsing (with the coin's accepted versions), serialization, and
 * non-hardened child derivation (CKDpub). The service only ever holds public keys, so a hardened
 * step is an error, not a feature gap.
 */
import * as ecc from 'tiny-secp256k1';
import { base58checkEncode, tryDecodeBase58Check } from './base58.ts';
import { bytesToHex } from './bytes.ts';
import { allChainParams, describeChain } from './coin-table.ts';
import type { ChainParams } from './coin-table.ts';
import { CoinError, quoted, subject } from './errors.ts';
import { hash160, hmacSha512 } from './hash.ts';
import { looksLikePrivateKey, privateKeyRefused } from './keys.ts';

export interface ExtendedPublicKey {
  readonly version: number;
  readonly depth: number;
  /** First 4 bytes of the parent's hash160, as a uint32 (0 for a master key). */
  readonly parentFingerprint: number;
  readonly index: number;
  readonly chainCode: Uint8Array;
  /** 33-byte compressed public key. */
  readonly publicKey: Uint8Array;
}

const HARDENED = 0x80000000;
const MAX_DEPTH = 255;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function hex8(v: number): string {
  return `0x${v.toString(16).padStart(8, '0')}`;
}

/** Parses an extended public key for `params`, refusing private and foreign keys by name. */
export function parseXpub(params: ChainParams, text: string, field?: string): ExtendedPublicKey {
  const what = subject(field, 'extended public key');
  const fail = (reason: string): CoinError => new CoinError(`${what} is not a valid ${describeChain(params)} xpub: ${reason}`, field);

  const privateKind = looksLikePrivateKey(text);
  if (privateKind !== null) throw privateKeyRefused(field, privateKind);

  const decoded = tryDecodeBase58Check(text);
  if (!decoded.ok) throw fail(decoded.reason);
  const data = decoded.data;
  if (data.length !== 78) throw fail(`wrong length (${data.length} bytes decoded, an extended key has 78)`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const version = view.getUint32(0);
  const depth = data[4] ?? 0;
  const parentFingerprint = view.getUint32(5);
  const index = view.getUint32(9);
  const chainCode = data.slice(13, 45);
  const publicKey = data.slice(45, 78);

  if (params.xprvVersions.includes(version)) throw privateKeyRefused(field, `an extended private key (${text.slice(0, 4)}...)`);
  if (!params.xpubVersions.includes(version)) {
    const owners = allChainParams().filter((p) => p.xpubVersions.includes(version));
    const sameCoin = owners.filter((p) => p.coin === params.coin);
    const named = (sameCoin.length > 0 ? sameCoin : owners).map(describeChain);
    const reason = named.length > 0
      ? `its version ${hex8(version)} ("${text.slice(0, 4)}") is for ${[...new Set(named)].join(', ')}`
      : `unknown version ${hex8(version)} ("${text.slice(0, 4)}")`;
    throw fail(reason);
  }
  if (publicKey[0] !== 0x02 && publicKey[0] !== 0x03) throw fail('its key data is not a compressed public key');
  if (!ecc.isPoint(publicKey)) throw fail('its key is not a point on the secp256k1 curve');
  if (depth === 0 && parentFingerprint !== 0) throw fail('a master key (depth 0) cannot have a parent fingerprint');
  if (depth === 0 && index !== 0) throw fail('a master key (depth 0) cannot have a child index');
  return { version, depth, parentFingerprint, index, chainCode, publicKey };
}

/** The base58check form of an extended public key (with its own version). */
export function encodeXpub(key: ExtendedPublicKey): string {
  const data = new Uint8Array(78);
  const view = new DataView(data.buffer);
  view.setUint32(0, key.version);
  data[4] = key.depth;
  view.setUint32(5, key.parentFingerprint);
  view.setUint32(9, key.index);
  data.set(key.chainCode, 13);
  data.set(key.publicKey, 45);
  // base58checkEncode takes 1- or 2-byte versions; the 4-byte BIP32 version travels in the payload.
  return base58checkEncode(data.subarray(0, 1), data.subarray(1));
}

// Children derived lately, by parent and index: a wallet's addresses derive the same branch key
// (".../0", ".../1") for every address, and a payment re-derives each input's keys at each check;
// each derivation is a curve multiplication. Bounded: the oldest goes first.
const CHILD_CACHE_SIZE = 4096;
const children = new Map<string, ExtendedPublicKey>();

/** CKDpub: the non-hardened child `index` of `parent`. */
export function deriveXpubChild(parent: ExtendedPublicKey, index: number): ExtendedPublicKey {
  if (!Number.isInteger(index) || index < 0 || index >= HARDENED) {
    throw new CoinError(`child index ${index} is not a non-hardened index (0 to ${HARDENED - 1})`);
  }
  if (parent.depth >= 255) throw new CoinError('cannot derive below depth 255');
  const id = `${parent.version} ${parent.depth} ${bytesToHex(parent.chainCode)} ${bytesToHex(parent.publicKey)} ${index}`;
  let child = children.get(id);
  if (child === undefined) {
    child = ckdPub(parent, index);
    if (children.size >= CHILD_CACHE_SIZE) children.delete(children.keys().next().value!);
    children.set(id, child);
  }
  // Copies of the bytes: a caller that changed them would otherwise change the cached key.
  return { ...child, chainCode: child.chainCode.slice(), publicKey: child.publicKey.slice() };
}

function ckdPub(parent: ExtendedPublicKey, index: number): ExtendedPublicKey {
  const data = new Uint8Array(37);
  data.set(parent.publicKey, 0);
  new DataView(data.buffer).setUint32(33, index);
  const I = hmacSha512(parent.chainCode, data);
  const IL = I.slice(0, 32);
  const child = BigInt(`0x${bytesToHex(IL)}`) < N ? ecc.pointAddScalar(parent.publicKey, IL, true) : null;
  if (child === null) {
    // Probability below 2^-127; BIP32 says to skip to the next index.
    throw new CoinError(`child ${index} of this xpub is invalid (BIP32: use the next index)`);
  }
  const fp = hash160(parent.publicKey);
  return {
    version: parent.version,
    depth: parent.depth + 1,
    parentFingerprint: new DataView(fp.buffer, fp.byteOffset).getUint32(0),
    index,
    chainCode: I.slice(32),
    publicKey: child,
  };
}

/**
 * Parses a derivation path relative to an xpub: "m/0/5", "0/5", "m" or "". Hardened steps
 * ("0'", "0h") are refused: an xpub cannot derive hardened children.
 */
export function parseXpubPath(path: string, field?: string): number[] {
  const what = subject(field, 'path');
  let rest = path.trim();
  if (rest === '' || rest === 'm' || rest === 'M') return [];
  if (rest.startsWith('m/') || rest.startsWith('M/')) rest = rest.slice(2);
  const steps = rest.split('/');
  // An extended key's depth is one byte: no path goes deeper (and each step is a curve multiplication).
  if (steps.length > MAX_DEPTH) throw new CoinError(`${what} ${quoted(path)} has ${steps.length} steps; an extended key's depth is at most ${MAX_DEPTH}`, field);
  return steps.map((step) => {
    if (/^\d+['hH]$/.test(step)) {
      throw new CoinError(
        `${what} ${quoted(path)} has the hardened step ${quoted(step)}: an xpub cannot derive hardened children (derive those on the signing device and share the resulting xpub)`,
        field,
      );
    }
    if (!/^\d+$/.test(step)) throw new CoinError(`${what} ${quoted(path)} has an invalid step ${quoted(step)}: expected a number such as 0 or 5`, field);
    const n = Number(step);
    if (n >= HARDENED) throw new CoinError(`${what} ${quoted(path)} has the step ${step}, beyond the largest non-hardened index ${HARDENED - 1}`, field);
    return n;
  });
}

export function deriveXpubPath(key: ExtendedPublicKey, path: string, field?: string): ExtendedPublicKey {
  return parseXpubPath(path, field).reduce(deriveXpubChild, key);
}

/** The 33-byte public key at `path` below the xpub `text`, for `params`. */
export function derivePublicKey(params: ChainParams, text: string, path: string, fields?: { xpub?: string; path?: string }): Uint8Array {
  const key = parseXpub(params, text, fields?.xpub);
  return deriveXpubPath(key, path, fields?.path).publicKey;
}

/** The fingerprint of a key: first 4 bytes of hash160(public key), e.g. for BSMS/descriptors. */
export function fingerprintHex(publicKey: Uint8Array): string {
  return bytesToHex(hash160(publicKey).subarray(0, 4));
}

/**
 * Which key an extended public key is, whatever its encoding (xpub, Ltub, tpub, zpub, Zpub, ...: the
 * version bytes differ, the key does not): its compressed public key in hex. One account key is one
 * holder, so two places with the same key are one co-signer signing twice (BIP388 requires every
 * key of a policy to be distinct); the chain code is left out on purpose, so a copy with an altered
 * chain code is the same holder too. Null for a text that is no extended key: the caller's own
 * parsing says why.
 */
export function extendedKeyIdentity(text: string): string | null {
  const decoded = tryDecodeBase58Check(text.trim());
  if (!decoded.ok || decoded.data.length !== 78) return null;
  return bytesToHex(decoded.data.slice(45, 78));
}

/**
 * The first key that repeats an earlier one by identity (extendedKeyIdentity), as positions
 * [earlier, later] into `xpubs`; null when every key is distinct. The one duplicate check every
 * maker and reader of an M-of-N wallet or a vault uses.
 */
export function repeatedExtendedKey(xpubs: readonly string[]): [number, number] | null {
  const seen = new Map<string, number>();
  for (const [i, x] of xpubs.entries()) {
    const id = extendedKeyIdentity(x);
    if (id === null) continue;
    const earlier = seen.get(id);
    if (earlier !== undefined) return [earlier, i];
    seen.set(id, i);
  }
  return null;
}
