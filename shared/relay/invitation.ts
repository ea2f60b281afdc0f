// Invitations and the ways a device is tied to a person. The treasurer's desk makes a code of 120
// random bits and passes it out of band (read aloud, a chat, a file). From the code come the
// invitation's id (all the service learns: a hash it cannot reverse) and a key that seals what the
// invitee needs (the room and the owner's device keys) and keys the invitee's proof of holding the
// code. So the service can neither read an invitation nor answer one in the invitee's place.
import { base32crockford } from '@scure/base';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { z } from 'zod';
import { bytesToHex, concatBytes, equalBytes, hexToBytes } from '../coins/bytes.ts';
import { type DevicePublic, devicePublicFromHex, label } from './device.ts';
import { RelayRefusal } from './errors.ts';

const CODE_BYTES = 15;

export interface InvitationSecret {
  /** What the treasurer passes on: 24 Crockford base32 characters in groups of four. */
  code: string;
  /** 64 hex characters: the service's name for the invitation. */
  id: string;
  key: Uint8Array;
}

export function newInvitation(): InvitationSecret {
  return invitationFromCode(base32crockford.encode(randomBytes(CODE_BYTES)));
}

/** Reads a code as typed: case, spaces and dashes do not matter; O, I and L read as 0, 1 and 1. */
export function invitationFromCode(typed: string): InvitationSecret {
  const cleaned = typed.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (cleaned.length !== 24) throw new RelayRefusal(`an invitation code has 24 characters; this one has ${cleaned.length}`, 'malformed');
  let raw: Uint8Array;
  try {
    raw = base32crockford.decode(cleaned);
  } catch {
    throw new RelayRefusal('this is not an invitation code: it has letters an invitation code never has', 'malformed');
  }
  if (raw.length !== CODE_BYTES) throw new RelayRefusal('this is not an invitation code', 'malformed');
  const code = base32crockford.encode(raw).match(/.{4}/g)!.join('-');
  return { code, id: bytesToHex(sha256(concatBytes(label('invitation id'), raw))), key: hkdf(sha256, raw, undefined, label('invitation key'), 32) };
}

export const InvitationBody = z.object({
  room: z.string().regex(/^[0-9a-f]{32}$/),
  owner: z.object({ sign: z.string().regex(/^[0-9a-f]{64}$/), box: z.string().regex(/^[0-9a-f]{64}$/) }),
  role: z.enum(['cosigner', 'approver']),
  wallet: z.string().max(100),
  /** The co-signer's key in the wallet this invitation is for, when it is for a co-signer. */
  xpub: z.string().max(200).optional(),
  /** Where that key sits below its master key (a co-signer typing recovery words signs the binding there). */
  path: z.string().max(100).optional(),
  coin: z.string().max(40),
  network: z.string().max(20).optional(),
});
export type InvitationBody = z.infer<typeof InvitationBody>;

export function sealInvitation(secret: InvitationSecret, body: InvitationBody): Uint8Array {
  const nonce = randomBytes(24);
  const plain = new TextEncoder().encode(JSON.stringify(InvitationBody.parse(body)));
  return concatBytes(nonce, xchacha20poly1305(secret.key, nonce, hexToBytes(secret.id)).encrypt(plain));
}

export function openInvitation(secret: InvitationSecret, sealed: Uint8Array): InvitationBody & { ownerDevice: DevicePublic } {
  let plain: Uint8Array;
  try {
    plain = xchacha20poly1305(secret.key, sealed.subarray(0, 24), hexToBytes(secret.id)).decrypt(sealed.subarray(24));
  } catch {
    throw new RelayRefusal('the invitation does not open with this code: it was altered, or the code is not this invitation\'s', 'forged');
  }
  const parsed = InvitationBody.safeParse(JSON.parse(new TextDecoder().decode(plain)));
  if (!parsed.success) throw new RelayRefusal('the invitation opened but does not say what an invitation says', 'malformed');
  return { ...parsed.data, ownerDevice: devicePublicFromHex(parsed.data.owner.sign, parsed.data.owner.box) };
}

/** The invitee's proof that it holds the code: HMAC over the room and its device keys. */
export function joinProof(secret: Pick<InvitationSecret, 'key'>, room: string, device: DevicePublic): Uint8Array {
  return hmac(sha256, secret.key, concatBytes(label('join proof'), hexToBytes(room), device.sign, device.box));
}

export function joinProofHolds(secret: Pick<InvitationSecret, 'key'>, room: string, device: DevicePublic, proof: Uint8Array): boolean {
  return equalBytes(joinProof(secret, room, device), proof);
}

/**
 * The text a co-signer's wallet key signs (Bitcoin signed-message format, at the key's own path)
 * to say that this device speaks for it in this room.
 */
export function bindingMessage(room: string, device: DevicePublic): string {
  return `Countersign relay: device ${device.id} speaks for this key in room ${room}`;
}

/**
 * A safety number both screens show (as Signal's): 12 digits from a hash of the room and both
 * devices' keys. Both keys are already authenticated by the invitation code, so the comparison
 * proves the person who used the code is the one the treasurer meant.
 */
export function comparisonCode(room: string, owner: DevicePublic, member: DevicePublic): string {
  const h = sha256(concatBytes(label('comparison code'), hexToBytes(room), owner.sign, owner.box, member.sign, member.box));
  let n = 0n;
  for (const b of h.subarray(0, 8)) n = (n << 8n) | BigInt(b);
  const digits = (n % 10n ** 12n).toString().padStart(12, '0');
  return `${digits.slice(0, 4)} ${digits.slice(4, 8)} ${digits.slice(8)}`;
}
