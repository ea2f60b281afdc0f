// Ethereum addresses of secp256k1 keys: keccak256 of the uncompressed point, EIP-55 checksummed.
import { keccak_256 } from '@noble/hashes/sha3.js';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex } from './bytes.ts';
import { CoinError } from './errors.ts';

export function checksumEthereumAddress(lowerHex40: string): string {
  const digest = bytesToHex(keccak_256(new TextEncoder().encode(lowerHex40)));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lowerHex40[i]!;
    out += parseInt(digest[i]!, 16) >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

export function ethereumAddressOfPublicKey(publicKey: Uint8Array): string {
  const uncompressed = ecc.pointCompress(publicKey, false);
  if (!uncompressed) throw new CoinError('not a valid secp256k1 public key');
  const hash = keccak_256(uncompressed.subarray(1));
  return checksumEthereumAddress(bytesToHex(hash.subarray(12)));
}
