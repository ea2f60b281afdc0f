/**
 * Uniform Resources (BCR-2020-005) for air-gapped signers: what the desk shows (crypto-psbt,
 * bytes, crypto-output, as BC-UR fountain-coded frames) and the assembly of frames read back.
 * The fountain codes and bytewords are @ngraveio/bc-ur's (Caravan's choice, the reference
 * port of bc-ur); the registry types are @keystonehq/bc-ur-registry's. Frames are written in
 * upper case so a QR holds them in alphanumeric mode (BCR-2020-005 says readers lower-case them).
 */
import { UR, URDecoder, UREncoder } from '@ngraveio/bc-ur';
import { FileFormatError } from '../files/errors.ts';

/** How much a frame holds: Sparrow's two settings, for good cameras and for weak ones. */
export type QrDensity = 'high' | 'low';

/** Bytes of the message in one UR frame. */
export const UR_FRAGMENT_BYTES: Readonly<Record<QrDensity, number>> = { high: 400, low: 80 };

/** The types the desk writes (the deprecated names every signer still reads, BCR-2020-006). */
export type UrWriteType = 'crypto-psbt' | 'bytes' | 'crypto-output';

/**
 * A message's frames for a loop: the pure fragments first, then as many fountain (mixed) parts
 * again twice over, so a reader that missed any frame finishes on the next pass or before.
 */
export function urFrames(type: UrWriteType, cbor: Uint8Array, density: QrDensity): string[] {
  const ur = new UR(Buffer.from(cbor), type);
  const encoder = new UREncoder(ur, UR_FRAGMENT_BYTES[density], 0, 10);
  const pure = encoder.fragmentsLength;
  if (pure === 1) return [UREncoder.encodeSinglePart(ur).toUpperCase()];
  return Array.from({ length: pure * 3 }, () => encoder.nextPart().toUpperCase());
}

/** CBOR of a byte string (major type 2): the body of crypto-psbt and bytes. */
export function cborByteString(bytes: Uint8Array): Uint8Array {
  const n = bytes.length;
  const head =
    n < 24 ? [0x40 | n] : n < 0x100 ? [0x58, n] : n < 0x10000 ? [0x59, n >> 8, n & 0xff] : [0x5a, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
  const out = new Uint8Array(head.length + n);
  out.set(head);
  out.set(bytes, head.length);
  return out;
}

/** Reads a CBOR byte string that is the whole body; anything else is refused. */
export function readCborByteString(cbor: Uint8Array, what: string): Uint8Array {
  const first = cbor[0];
  if (first === undefined || first >> 5 !== 2) throw new FileFormatError(`the ${what} does not hold a byte string`);
  const info = first & 0x1f;
  const width = info < 24 ? 0 : info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : -1;
  if (width < 0) throw new FileFormatError(`the ${what}'s length is not one this desk reads`);
  let n = info < 24 ? info : 0;
  for (let i = 1; i <= width; i++) n = n * 256 + (cbor[i] ?? 0);
  if (cbor.length !== 1 + width + n) throw new FileFormatError(`the ${what} is ${cbor.length} bytes, its byte string says ${1 + width + n}`);
  return cbor.slice(1 + width);
}

export const psbtUrFrames = (psbt: Uint8Array, density: QrDensity): string[] => urFrames('crypto-psbt', cborByteString(psbt), density);
export const textUrFrames = (text: string, density: QrDensity): string[] => urFrames('bytes', cborByteString(new TextEncoder().encode(text)), density);

/** A UR read whole: its type (lower case) and its CBOR body. */
export interface ReadUr {
  type: string;
  cbor: Uint8Array;
}

export type UrAssembly =
  | { state: 'reading'; type: string; received: number; expected: number; percent: number; skipped: string[] }
  | { state: 'done'; ur: ReadUr; skipped: string[] };

/** The type and sequence of one frame ("ur:type/3-9/..."), or why it is none. */
function frameHead(frame: string): { type: string; seq: string | null } | string {
  const m = /^ur:([a-z0-9-]+)\/(?:(\d+-\d+)\/)?[a-z]+$/.exec(frame.trim().toLowerCase());
  if (!m) return 'it is not a UR frame (ur:type/[seq/]bytewords)';
  return { type: m[1]!, seq: m[2] ?? null };
}

/**
 * Assembles UR frames in the order read; repeats are harmless. Frames of another type, or of
 * another message of the same type (other length or checksum), are skipped and said why; a frame
 * whose bytewords fail their checksum is skipped too. Nothing of a skipped frame is kept.
 */
export function assembleUr(frames: readonly string[]): UrAssembly {
  const skipped: string[] = [];
  let decoder: URDecoder | null = null;
  let type = '';
  for (const [i, raw] of frames.entries()) {
    const frame = raw.trim().toLowerCase();
    const head = frameHead(frame);
    if (typeof head === 'string') {
      skipped.push(`frame ${i + 1}: ${head}`);
      continue;
    }
    if (type && head.type !== type) {
      skipped.push(`frame ${i + 1} is a ur:${head.type}, the frames before it a ur:${type}`);
      continue;
    }
    if (head.seq === null) {
      let ur: UR;
      try {
        ur = URDecoder.decode(frame);
      } catch {
        skipped.push(`frame ${i + 1}: its bytewords do not check (misread or damaged)`);
        continue;
      }
      if (decoder) {
        skipped.push(`frame ${i + 1} is a whole ur:${head.type} of its own, not a part of the sequence being read`);
        continue;
      }
      return { state: 'done', ur: { type: head.type, cbor: new Uint8Array(ur.cbor) }, skipped };
    }
    decoder ??= new URDecoder();
    let accepted: boolean;
    try {
      accepted = decoder.receivePart(frame);
    } catch {
      accepted = false;
    }
    if (!accepted) {
      skipped.push(`frame ${i + 1} belongs to another sequence (another message) or is damaged`);
      continue;
    }
    type = head.type;
    if (decoder.isComplete()) break;
  }
  if (decoder?.isComplete()) {
    if (!decoder.isSuccess()) throw new FileFormatError(`the UR frames do not assemble: ${decoder.resultError()}`);
    const ur = decoder.resultUR();
    return { state: 'done', ur: { type: ur.type, cbor: new Uint8Array(ur.cbor) }, skipped };
  }
  if (!decoder) return { state: 'reading', type: '', received: 0, expected: 0, percent: 0, skipped };
  return {
    state: 'reading',
    type,
    received: decoder.receivedPartIndexes().length,
    expected: decoder.expectedPartCount(),
    percent: Math.min(99, Math.floor(decoder.estimatedPercentComplete() * 100)),
    skipped,
  };
}
