/**
 * BLAKE2b-256 with a 16-byte personalization: every Zcash digest (ZIP-243, ZIP-244) is one,
 * told apart by its tag, some tags ending in the little-endian consensus branch id.
 */
import { blake2b } from '@noble/hashes/blake2.js';
import { CoinError } from '../errors.ts';

/** `tag` (ASCII) followed, when given, by the 4-byte little-endian branch id: 16 bytes in all. */
export function personalization(tag: string, branchId?: number): Uint8Array {
  const out = new Uint8Array(16);
  for (let i = 0; i < tag.length; i++) out[i] = tag.charCodeAt(i);
  const length = tag.length + (branchId === undefined ? 0 : 4);
  if (length !== 16) throw new CoinError(`internal error: BLAKE2b personalization "${tag}" is ${length} bytes, not 16`);
  if (branchId !== undefined) new DataView(out.buffer).setUint32(tag.length, branchId >>> 0, true);
  return out;
}

/** BLAKE2b-256 of the concatenated parts, personalised with `person`. */
export function blake2b256(person: Uint8Array, ...parts: Uint8Array[]): Uint8Array {
  const h = blake2b.create({ dkLen: 32, personalization: person });
  for (const p of parts) h.update(p);
  return h.digest();
}

/** BLAKE2b-256 personalised with the 16-character `tag`. */
export function taggedHash(tag: string, ...parts: Uint8Array[]): Uint8Array {
  return blake2b256(personalization(tag), ...parts);
}
