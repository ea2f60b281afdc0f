import * as ecc from 'tiny-secp256k1';
import { tryDecodeBase58Check } from './base58.ts';
import { hexToBytes } from './bytes.ts';
import { knownWifVersions, knownXprvVersions } from './coin-table.ts';
import { CoinError, subject } from './errors.ts';

const SECRET_HEX_RE = /^(0x)?[0-9a-fA-F]{64}$/;
const MNEMONIC_RE = /^[a-z]+(\s+[a-z]+)*$/;

/**
 * Says what kind of private key `s` looks like ("a private key (WIF)", ...), or null. Any field
 * that takes keys or addresses checks this first, so a pasted secret is refused by name and
 * never echoed back in an error message or a log.
 */
export function looksLikePrivateKey(s: string): string | null {
  const text = s.trim();
  if (SECRET_HEX_RE.test(text)) return 'a 32-byte private key in hex (64 hex digits)';

  const words = text.split(/\s+/);
  if (MNEMONIC_RE.test(text) && [12, 15, 18, 21, 24].includes(words.length)) {
    return 'a recovery phrase (seed words)';
  }

  const decoded = tryDecodeBase58Check(text);
  if (!decoded.ok) return null;
  const data = decoded.data;
  if (data.length === 78) {
    const version = new DataView(data.buffer, data.byteOffset).getUint32(0);
    // Key data of an extended private key is 0x00 || 32-byte secret.
    if (data[45] === 0x00 || knownXprvVersions().has(version)) {
      return `an extended private key (${text.slice(0, 4)}...)`;
    }
    return null;
  }
  const wifShaped = data.length === 33 || (data.length === 34 && data[33] === 0x01);
  if (wifShaped) {
    const known = knownWifVersions().has(data[0] ?? -1);
    return known ? 'a private key (WIF)' : 'what looks like a private key (WIF-shaped)';
  }
  return null;
}

/** The error for a private key found in `field`; the key itself is never repeated. */
export function privateKeyRefused(field: string | undefined, description: string): CoinError {
  const where = subject(field, 'the value');
  return new CoinError(
    `${where} holds ${description}; the service never accepts private keys. Send the public key (or xpub) instead, and treat that private key as exposed.`,
    field,
  );
}

/** Throws the private-key refusal when `text` looks like one. */
export function refusePrivateKey(text: string, field?: string): void {
  const description = looksLikePrivateKey(text);
  if (description !== null) throw privateKeyRefused(field, description);
}

/** A 33-byte compressed secp256k1 point, checked to be on the curve. */
export function parsePublicKey(bytes: Uint8Array, field?: string): Uint8Array {
  const where = subject(field, 'public key');
  if (bytes.length === 65 && (bytes[0] === 0x04 || bytes[0] === 0x06 || bytes[0] === 0x07)) {
    throw new CoinError(
      `${where} is an uncompressed public key (65 bytes); only compressed keys (33 bytes, starting with 02 or 03) are accepted`,
      field,
    );
  }
  if (bytes.length !== 33) {
    throw new CoinError(
      `${where} must be a compressed public key of 33 bytes (66 hex digits), got ${bytes.length} bytes`,
      field,
    );
  }
  if (bytes[0] !== 0x02 && bytes[0] !== 0x03) {
    throw new CoinError(`${where} is not a compressed public key: it must start with 02 or 03`, field);
  }
  if (!ecc.isPoint(bytes)) {
    throw new CoinError(`${where} is not a valid public key: it is not a point on the secp256k1 curve`, field);
  }
  return Uint8Array.from(bytes);
}

/** Parses a compressed public key given in hex; refuses private keys and uncompressed keys by name. */
export function parsePublicKeyHex(hex: string, field: string): Uint8Array {
  refusePrivateKey(hex, field);
  return parsePublicKey(hexToBytes(hex, field), field);
}

export function isCompressedPublicKey(bytes: Uint8Array): boolean {
  return bytes.length === 33 && (bytes[0] === 0x02 || bytes[0] === 0x03) && ecc.isPoint(bytes);
}
