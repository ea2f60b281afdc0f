/**
 * Bitcoin's signed-message format (the "legacy" signatures BIP129 key records carry, and that
 * BIP322 still accepts): a 65-byte compact signature, base64, over
 * sha256d(varstr("\x18Bitcoin Signed Message:\n") || varstr(message)). Verification recovers the
 * public key from the signature and compares it with the key the message claims.
 */
import { base64 } from '@scure/base';
import * as ecc from 'tiny-secp256k1';
import { ByteWriter, equalBytes, sha256d } from '../coins/index.ts';

const MAGIC = 'Bitcoin Signed Message:\n';

export function messageHash(message: string, magic = MAGIC): Uint8Array {
  const enc = new TextEncoder();
  return sha256d(new ByteWriter().writeVarBytes(enc.encode(magic)).writeVarBytes(enc.encode(message)).toBytes());
}

export type MessageCheck = { ok: true } | { ok: false; why: string };

/**
 * Whether `signature` (base64) signs `message` with `publicKey` (compressed). Header bytes 27-42
 * cover uncompressed, compressed, and the segwit-address variants some wallets write (35-42).
 */
export function verifyMessage(message: string, signature: string, publicKey: Uint8Array): MessageCheck {
  let bytes: Uint8Array;
  try {
    bytes = base64.decode(signature.trim());
  } catch {
    return { ok: false, why: 'the signature is not base64' };
  }
  if (bytes.length !== 65) return { ok: false, why: `the signature is ${bytes.length} bytes, not a 65-byte legacy message signature (BIP322 full signatures are not supported)` };
  const header = bytes[0]!;
  if (header < 27 || header > 42) return { ok: false, why: `the signature header ${header} is not a message signature's` };
  const recovery = ((header - 27) & 3) as 0 | 1 | 2 | 3;
  const compressed = header >= 31;
  const hash = messageHash(message);
  let recovered: Uint8Array | null;
  try {
    recovered = ecc.recover(hash, bytes.subarray(1), recovery, compressed);
  } catch {
    recovered = null;
  }
  if (!recovered) return { ok: false, why: 'no public key can be recovered from the signature' };
  const key = compressed ? recovered : ecc.pointCompress(recovered, true);
  return equalBytes(key, publicKey) ? { ok: true } : { ok: false, why: 'it was made by another key' };
}

/** Signs `message` in the same format with a private key whose public key is compressed (a software co-signer). */
export function signMessage(message: string, privateKey: Uint8Array): string {
  const { signature, recoveryId } = ecc.signRecoverable(messageHash(message), privateKey);
  const out = new Uint8Array(65);
  out[0] = 27 + 4 + recoveryId;
  out.set(signature, 1);
  return base64.encode(out);
}
