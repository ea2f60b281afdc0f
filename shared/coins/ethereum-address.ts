// Ethereum addresses of secp256k1 keys: keccak256 of the uncompressed point, EIP-55 checksummed.
import { keccak_256 } from '@noble/hashes/sha3.js';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex } from './bytes.ts';
import { CoinError, quoted } from './errors.ts';

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

/**
 * Parses an address given by a caller: 0x + 40 hex digits. All-lower or all-upper case carries no
 * checksum; mixed case must be the EIP-55 form, else it is likely a typo and is refused.
 */
export function parseEthereumAddress(text: string, field: string): Uint8Array {
  const m = /^0x([0-9a-fA-F]{40})$/.exec(text.trim());
  if (!m) throw new CoinError(`field "${field}": ${quoted(text)} is not an Ethereum address (0x followed by 40 hex digits)`, field);
  const body = m[1]!;
  const lower = body.toLowerCase();
  if (body !== lower && body !== body.toUpperCase() && checksumEthereumAddress(lower) !== `0x${body}`) {
    throw new CoinError(`field "${field}": ${quoted(text)} fails its EIP-55 checksum (expected ${checksumEthereumAddress(lower)})`, field);
  }
  const out = new Uint8Array(20);
  for (let i = 0; i < 20; i++) out[i] = parseInt(lower.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** 20 address bytes as the EIP-55 text shown to people. */
export function formatEthereumAddress(bytes: Uint8Array): string {
  return checksumEthereumAddress(bytesToHex(bytes));
}
