/**
 * ECDSA signatures as Bitcoin scripts carry them: strict DER (BIP66), low S (BIP62/BIP146),
 * with the hash type byte appended only when placed in a scriptSig.
 */
import * as ecc from 'tiny-secp256k1';
import { bytesToHex, concatBytes } from './bytes.ts';
import { CoinError } from './errors.ts';
import { isCompressedPublicKey } from './keys.ts';

/** The secp256k1 group order n, and n/2: S above it is "high". */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = N >> 1n;

function toBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${bytesToHex(bytes)}`);
}

function to32(value: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(value, 32 - value.length);
  return out;
}

function bad(reason: string): CoinError {
  return new CoinError(`signature is not a valid strict DER signature: ${reason}`);
}

/**
 * Decodes a DER signature (without hash type byte) under BIP66's rules, to r and s as 32-byte
 * big-endian arrays. Does not judge S; see isLowS / parseSignatureDer.
 */
export function decodeDerSignature(der: Uint8Array): { r: Uint8Array; s: Uint8Array } {
  const len = der.length;
  if (len < 8) throw bad(`too short (${len} bytes)`);
  if (len > 72) throw bad(`too long (${len} bytes; a trailing hash type byte must not be included)`);
  if (der[0] !== 0x30) throw bad('it does not start with 0x30 (a DER sequence)');
  if (der[1] !== len - 2) throw bad('the sequence length does not match the signature length');
  const lenR = der[3] ?? 0;
  if (5 + lenR >= len) throw bad('the length of R runs past the end');
  const lenS = der[5 + lenR] ?? 0;
  if (lenR + lenS + 6 !== len) throw bad('the lengths of R and S do not add up to the signature length');
  const parts: [string, number, number][] = [
    ['R', 2, lenR],
    ['S', 4 + lenR, lenS],
  ];
  const values: Uint8Array[] = [];
  for (const [name, at, n] of parts) {
    if (der[at] !== 0x02) throw bad(`${name} is not a DER integer`);
    if (n === 0) throw bad(`${name} is empty`);
    const first = der[at + 2] ?? 0;
    if (first & 0x80) throw bad(`${name} is negative`);
    if (n > 1 && first === 0x00 && !((der[at + 3] ?? 0) & 0x80)) throw bad(`${name} has an unnecessary leading zero`);
    let value = der.subarray(at + 2, at + 2 + n);
    if (value[0] === 0x00) value = value.subarray(1);
    if (value.length > 32) throw bad(`${name} is longer than 32 bytes`);
    const v = toBigInt(value);
    if (v === 0n || v >= N) throw bad(`${name} is out of range (must be between 1 and the curve order)`);
    values.push(to32(value));
  }
  const [r, s] = values as [Uint8Array, Uint8Array];
  return { r, s };
}

export function isLowS(s: Uint8Array): boolean {
  return toBigInt(s) <= HALF_N;
}

/** Decodes strict DER and refuses high S; returns the 64-byte compact form r||s. */
export function parseSignatureDer(der: Uint8Array): Uint8Array {
  const { r, s } = decodeDerSignature(der);
  if (!isLowS(s)) {
    throw new CoinError(
      'signature has a high S value; nodes refuse such signatures as non-standard. Sign again with software that produces low-S signatures.',
    );
  }
  return concatBytes(r, s);
}

function derInteger(value32: Uint8Array): Uint8Array {
  let i = 0;
  while (i < 31 && value32[i] === 0) i++;
  let v = value32.subarray(i);
  if ((v[0] ?? 0) & 0x80) v = concatBytes(Uint8Array.of(0), v);
  return concatBytes(Uint8Array.of(0x02, v.length), v);
}

/** DER encoding of a 64-byte compact r||s signature. */
export function encodeDerSignature(compact: Uint8Array): Uint8Array {
  if (compact.length !== 64) throw new CoinError(`a compact signature must be 64 bytes, got ${compact.length}`);
  const body = concatBytes(derInteger(compact.subarray(0, 32)), derInteger(compact.subarray(32)));
  return concatBytes(Uint8Array.of(0x30, body.length), body);
}

/**
 * True when `der` is a valid signature of `hash32` by `pubkey33`. A signature that is not strict
 * DER or has a high S throws a CoinError saying why (a different failure from a wrong key).
 */
export function verifyDerSignature(hash32: Uint8Array, pubkey33: Uint8Array, der: Uint8Array): boolean {
  if (hash32.length !== 32) throw new CoinError(`the signed hash must be 32 bytes, got ${hash32.length}`);
  if (!isCompressedPublicKey(pubkey33)) throw new CoinError('the public key is not a valid compressed public key');
  return ecc.verify(hash32, pubkey33, parseSignatureDer(der), true);
}

/** Deterministic (RFC 6979), low-S, DER-encoded signature: for tests and the software co-signer. */
export function signDer(hash32: Uint8Array, privateKey32: Uint8Array): Uint8Array {
  if (hash32.length !== 32) throw new CoinError(`the hash to sign must be 32 bytes, got ${hash32.length}`);
  if (!ecc.isPrivate(privateKey32)) throw new CoinError('not a valid private key');
  return encodeDerSignature(ecc.sign(hash32, privateKey32));
}

/** The signature as placed in a scriptSig: DER followed by the hash type byte. */
export function withHashType(der: Uint8Array, hashType: number): Uint8Array {
  if (!Number.isInteger(hashType) || hashType < 0 || hashType > 0xff) {
    throw new CoinError(`hash type must be a single byte, got ${hashType}`);
  }
  return concatBytes(der, Uint8Array.of(hashType));
}

/** Splits a scriptSig signature into DER and hash type byte. */
export function splitHashType(sig: Uint8Array): { der: Uint8Array; hashType: number } {
  if (sig.length < 2) throw new CoinError('signature is too short to carry a hash type byte');
  return { der: sig.slice(0, -1), hashType: sig[sig.length - 1] ?? 0 };
}
