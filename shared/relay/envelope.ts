// The relay's sealed and signed envelope (format v1). The service sees its header: room, sequence
// number, the hash of the message before it, the sender's device id, the time, and how many
// recipients there are (not who: a recipient finds its copy of the content key by trying each, as
// age does). It never sees the content, whose length is padded to a power of two.
//
//   "CSR1" | room (16) | seq u64 | prev (32) | sent_at u64 (ms) | sender (16)
//   | n (varint, 1..MAX_RECIPIENTS) | n x (ephemeral X25519 public key (32) | sealed content key (48))
//   | nonce (24) | ciphertext (varbytes) | Ed25519 signature (64)
//
// Sealing: a fresh 32-byte content key encrypts the padded content with XChaCha20-Poly1305, the
// header and every sealed key as associated data. For each recipient, a fresh X25519 key pair meets
// the recipient's X25519 key; HKDF-SHA256 (salt: both public keys) turns the shared secret into a
// key that seals the content key with XChaCha20-Poly1305 (zero nonce: every such key is used
// once). This is age's X25519 recipient stanza with XChaCha20-Poly1305. The sender's Ed25519 key
// signs everything before the signature, so the service can check who sent it and nobody can alter
// it. The message's hash (SHA-256 of all of it) is the next message's `prev`: a hash chain per room.
import { x25519 } from '@noble/curves/ed25519.js';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { ByteReader, ByteWriter, bytesToHex, concatBytes, hexToBytes } from '../coins/bytes.ts';
import { type DeviceKeys, type DevicePublic, label, signAs, verifyAs } from './device.ts';
import { RelayRefusal } from './errors.ts';

const MAGIC = new TextEncoder().encode('CSR1');
export const MAX_RECIPIENTS = 64;
/** Padded content at most this long: a payment larger than that travels as a file. */
export const MAX_CONTENT_BYTES = 512 * 1024;
const MIN_PADDED = 1024;
const WRAP_BYTES = 32 + 48;
export const ZERO_HASH = new Uint8Array(32);
/** The most bytes an envelope can have: header, all seals, padded content and tag, signature. */
export const MAX_ENVELOPE_BYTES = 4 + 16 + 8 + 32 + 8 + 16 + 3 + MAX_RECIPIENTS * WRAP_BYTES + 24 + 5 + MAX_CONTENT_BYTES + 16 + 64;

export interface EnvelopeHeader {
  /** 32 hex characters. */
  room: string;
  seq: bigint;
  prev: Uint8Array;
  sentAt: bigint;
  /** The sender's device id (32 hex characters). */
  sender: string;
}

/** What anyone holding the bytes can read, and what the signature covers. */
export interface PublicEnvelope {
  header: EnvelopeHeader;
  recipients: number;
  signed: Uint8Array;
  signature: Uint8Array;
  /** SHA-256 of the whole envelope: the next message's `prev`. */
  hash: Uint8Array;
  bytes: Uint8Array;
}

function pad(content: Uint8Array): Uint8Array {
  const needed = content.length + 4;
  let size = MIN_PADDED;
  while (size < needed) size *= 2;
  if (size > MAX_CONTENT_BYTES) throw new RelayRefusal(`this message is ${content.length} bytes, more than the relay carries (${MAX_CONTENT_BYTES - 4}): send it as a file`, 'too_large');
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, content.length, true);
  out.set(content, 4);
  return out;
}

function unpad(padded: Uint8Array): Uint8Array {
  if (padded.length < 4) throw new RelayRefusal('the sealed content is shorter than its length field', 'malformed');
  const n = new DataView(padded.buffer, padded.byteOffset, padded.byteLength).getUint32(0, true);
  if (n > padded.length - 4) throw new RelayRefusal('the sealed content says it is longer than it is', 'malformed');
  return padded.slice(4, 4 + n);
}

function wrapKey(shared: Uint8Array, ephemeral: Uint8Array, recipient: Uint8Array): Uint8Array {
  return hkdf(sha256, shared, concatBytes(ephemeral, recipient), label('seal content key'), 32);
}

function writeHeader(w: ByteWriter, h: EnvelopeHeader): ByteWriter {
  if (h.prev.length !== 32) throw new RelayRefusal('prev is a 32-byte hash', 'malformed');
  return w
    .writeBytes(MAGIC)
    .writeBytes(hexToBytes(h.room, 'room'))
    .writeU64LE(h.seq)
    .writeBytes(h.prev)
    .writeU64LE(h.sentAt)
    .writeBytes(hexToBytes(h.sender, 'sender'));
}

/** Seals `content` to `recipients` (the sender includes itself to read its own messages back) and signs it. */
export function sealEnvelope(sender: DeviceKeys, header: Omit<EnvelopeHeader, 'sender'>, recipients: readonly DevicePublic[], content: Uint8Array): Uint8Array {
  if (recipients.length < 1 || recipients.length > MAX_RECIPIENTS) throw new RelayRefusal(`a message goes to 1 to ${MAX_RECIPIENTS} devices, not ${recipients.length}`, 'malformed');
  const full: EnvelopeHeader = { ...header, sender: sender.public.id };
  const contentKey = randomBytes(32);
  const w = writeHeader(new ByteWriter(), full).writeVarInt(recipients.length);
  for (const r of recipients) {
    const ephemeralSecret = x25519.utils.randomSecretKey();
    const ephemeral = x25519.getPublicKey(ephemeralSecret);
    const key = wrapKey(x25519.getSharedSecret(ephemeralSecret, r.box), ephemeral, r.box);
    w.writeBytes(ephemeral).writeBytes(xchacha20poly1305(key, new Uint8Array(24)).encrypt(contentKey));
  }
  const aad = w.toBytes();
  const nonce = randomBytes(24);
  const ciphertext = xchacha20poly1305(contentKey, nonce, aad).encrypt(pad(content));
  const signed = new ByteWriter().writeBytes(aad).writeBytes(nonce).writeVarBytes(ciphertext).toBytes();
  return concatBytes(signed, signAs(sender, 'envelope', signed));
}

interface Parsed extends PublicEnvelope {
  aad: Uint8Array;
  seals: { ephemeral: Uint8Array; sealed: Uint8Array }[];
  nonce: Uint8Array;
  ciphertext: Uint8Array;
}

function parse(bytes: Uint8Array): Parsed {
  if (bytes.length > MAX_ENVELOPE_BYTES) throw new RelayRefusal(`the message is ${bytes.length} bytes, more than an envelope can be (${MAX_ENVELOPE_BYTES})`, 'too_large');
  try {
    const r = new ByteReader(bytes, 'relay envelope');
    const magic = r.readBytes(4);
    if (bytesToHex(magic) !== bytesToHex(MAGIC)) throw new RelayRefusal('this is not a Countersign relay envelope (v1)', 'malformed');
    const header: EnvelopeHeader = { room: bytesToHex(r.readBytes(16)), seq: r.readU64LE(), prev: r.readBytes(32), sentAt: r.readU64LE(), sender: bytesToHex(r.readBytes(16)) };
    const n = r.readVarInt();
    if (n < 1 || n > MAX_RECIPIENTS) throw new RelayRefusal(`the envelope names ${n} recipients; 1 to ${MAX_RECIPIENTS} are allowed`, 'malformed');
    const seals = Array.from({ length: n }, () => ({ ephemeral: r.readBytes(32), sealed: r.readBytes(48) }));
    const aad = bytes.slice(0, r.position);
    const nonce = r.readBytes(24);
    const ciphertext = r.readVarBytes();
    const signed = bytes.slice(0, r.position);
    const signature = r.readBytes(64);
    if (!r.done()) throw new RelayRefusal('the envelope has bytes after its signature', 'malformed');
    return { header, recipients: n, signed, signature, hash: sha256(bytes), bytes, aad, seals, nonce, ciphertext };
  } catch (err) {
    if (err instanceof RelayRefusal) throw err;
    throw new RelayRefusal(`the envelope is malformed: ${err instanceof Error ? err.message : String(err)}`, 'malformed');
  }
}

/** The public parts, with no check of the signature (the service checks it against the member's key). */
export function readEnvelope(bytes: Uint8Array): PublicEnvelope {
  const { header, recipients, signed, signature, hash } = parse(bytes);
  return { header, recipients, signed, signature, hash, bytes };
}

export function envelopeSignedBy(envelope: PublicEnvelope, sender: DevicePublic): boolean {
  return envelope.header.sender === sender.id && verifyAs(sender.sign, 'envelope', envelope.signed, envelope.signature);
}

/**
 * Checks the signature against the sender's keys and opens the content sealed to `me`; null when
 * the message was not sealed to this device (the desk then only follows the chain past it).
 */
export function openEnvelope(bytes: Uint8Array, sender: DevicePublic, me: DeviceKeys): { envelope: PublicEnvelope; content: Uint8Array | null } {
  const p = parse(bytes);
  if (!envelopeSignedBy(p, sender)) throw new RelayRefusal(`message ${p.header.seq} does not carry a valid signature of the device it names: it was forged or altered on the way`, 'forged');
  for (const s of p.seals) {
    let contentKey: Uint8Array;
    try {
      const key = wrapKey(x25519.getSharedSecret(me.boxSecret, s.ephemeral), s.ephemeral, me.public.box);
      contentKey = xchacha20poly1305(key, new Uint8Array(24)).decrypt(s.sealed);
    } catch {
      continue; // another recipient's copy (or a low-order point, which seals nothing)
    }
    try {
      return { envelope: p, content: unpad(xchacha20poly1305(contentKey, p.nonce, p.aad).decrypt(p.ciphertext)) };
    } catch (err) {
      if (err instanceof RelayRefusal) throw err;
      throw new RelayRefusal(`message ${p.header.seq} does not decrypt: it was altered on the way`, 'forged');
    }
  }
  return { envelope: p, content: null };
}
