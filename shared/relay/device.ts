// A desk's relay identity: one 32-byte secret from which an Ed25519 key (signs what the desk sends)
// and an X25519 key (what others encrypt to) are derived with HKDF-SHA256, so the desk keeps one
// secret in its secret store. Only the two public keys leave the desk; the device id is a hash of both.
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { bytesToHex, concatBytes, hexToBytes } from '../coins/bytes.ts';
import { RelayRefusal } from './errors.ts';

const enc = new TextEncoder();
export const label = (text: string): Uint8Array => enc.encode(`countersign-relay v1 ${text}`);

export interface DevicePublic {
  /** Ed25519 public key (32 bytes): verifies what the device sends. */
  sign: Uint8Array;
  /** X25519 public key (32 bytes): what is sealed to the device. */
  box: Uint8Array;
  /** 32 hex characters: the first 16 bytes of SHA-256 over the label and both keys. */
  id: string;
}

export interface DeviceKeys {
  secret: Uint8Array;
  signSecret: Uint8Array;
  boxSecret: Uint8Array;
  public: DevicePublic;
}

export function newDeviceSecret(): Uint8Array {
  return randomBytes(32);
}

export function deviceKeys(secret: Uint8Array): DeviceKeys {
  if (secret.length !== 32) throw new RelayRefusal(`a relay device secret is 32 bytes, not ${secret.length}`, 'malformed');
  const signSecret = hkdf(sha256, secret, undefined, label('device sign'), 32);
  const boxSecret = hkdf(sha256, secret, undefined, label('device box'), 32);
  return { secret, signSecret, boxSecret, public: devicePublic(ed25519.getPublicKey(signSecret), x25519.getPublicKey(boxSecret)) };
}

export function deviceId(sign: Uint8Array, box: Uint8Array): string {
  return bytesToHex(sha256(concatBytes(label('device id'), sign, box)).subarray(0, 16));
}

/** A device's public keys as received (from a peer, the service or a roster): checked to be usable keys. */
export function devicePublic(sign: Uint8Array, box: Uint8Array): DevicePublic {
  if (sign.length !== 32 || box.length !== 32) throw new RelayRefusal('a relay device key is two 32-byte public keys (Ed25519, X25519)', 'malformed');
  try {
    ed25519.Point.fromBytes(sign);
  } catch {
    throw new RelayRefusal('the device signing key is not an Ed25519 point', 'malformed');
  }
  return { sign, box, id: deviceId(sign, box) };
}

export function devicePublicFromHex(sign: string, box: string): DevicePublic {
  return devicePublic(hexToBytes(sign, 'device signing key'), hexToBytes(box, 'device encryption key'));
}

/** Ed25519 signature of `message` under a domain label, so a signature made for one purpose fits no other. */
export function signAs(keys: DeviceKeys, purpose: string, message: Uint8Array): Uint8Array {
  return ed25519.sign(concatBytes(label(purpose), message), keys.signSecret);
}

/** Strict RFC 8032 verification (no ZIP-215 leniency): one message, one valid signature encoding. */
export function verifyAs(sign: Uint8Array, purpose: string, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  try {
    return ed25519.verify(signature, concatBytes(label(purpose), message), sign, { zip215: false });
  } catch {
    return false;
  }
}
