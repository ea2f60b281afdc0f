import { sha256 as nobleSha256, sha512 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { hmac } from '@noble/hashes/hmac.js';

export function sha256(data: Uint8Array): Uint8Array {
  return nobleSha256(data);
}

/** Double SHA-256: txids, base58check checksums, legacy sighash. */
export function sha256d(data: Uint8Array): Uint8Array {
  return nobleSha256(nobleSha256(data));
}

/** RIPEMD-160 of SHA-256: public key and script hashes in addresses. */
export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(nobleSha256(data));
}

/** HMAC-SHA512, the BIP32 child key function. */
export function hmacSha512(key: Uint8Array, data: Uint8Array): Uint8Array {
  return hmac(sha512, key, data);
}
