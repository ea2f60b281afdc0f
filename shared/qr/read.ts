/**
 * Frames read by camera, whatever their code: animated UR, BBQr, or one plain QR of text (a base64
 * PSBT, "[fingerprint/path]xpub", a descriptor, Coldcard's JSON). What they hold is named here,
 * and a caller that expects one thing (a signed PSBT, a co-signer's key) gets a refusal in words
 * for anything else. Nothing here trusts what it reads: a PSBT goes on to the same checks as a
 * PSBT file.
 */
import { base64 } from '@scure/base';
import { equalBytes, hexToBytes } from '../coins/index.ts';
import { FileFormatError } from '../files/errors.ts';
import { PSBT_MAGIC } from '../files/psbt.ts';
import { looksLikeColdcard } from '../files/coldcard.ts';
import { assembleBbqr, BBQR_TYPE_NAMES, type BbqrType } from './bbqr.ts';
import { descriptorOfUr, keysOfText, keysOfUr, type ScannedKey } from './scanned-keys.ts';
import { assembleUr, readCborByteString } from './ur.ts';

export type QrPayload =
  | { kind: 'psbt'; bytes: Uint8Array; format: string }
  | { kind: 'transaction'; bytes: Uint8Array; format: string }
  | { kind: 'keys'; keys: ScannedKey[]; format: string }
  | { kind: 'registration'; text: string; format: string }
  | { kind: 'text'; text: string; format: string };

export type QrRead =
  | { state: 'reading'; format: string; received: number; expected: number; percent: number; skipped: string[] }
  | { state: 'done'; payload: QrPayload; skipped: string[] }
  | { state: 'refused'; message: string; skipped: string[] };

const isPsbt = (b: Uint8Array): boolean => b.length > PSBT_MAGIC.length && equalBytes(b.subarray(0, PSBT_MAGIC.length), PSBT_MAGIC);

function utf8(bytes: Uint8Array, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new FileFormatError(`the ${what} is neither a PSBT nor text`);
  }
}

/** What a text holds: a PSBT (base64 or hex), a wallet's registration, keys, or just text. */
function ofText(text: string, format: string): QrPayload {
  const t = text.trim();
  if (/^cHNidP[A-Za-z0-9+/=\s]+$/.test(t)) return { kind: 'psbt', bytes: base64.decode(t.replace(/\s/g, '')), format };
  if (/^70736274ff([0-9a-fA-F]{2})+$/.test(t)) return { kind: 'psbt', bytes: hexToBytes(t), format };
  if (looksLikeColdcard(t) || /^(sh|wsh|tr)\(/.test(t) || /^BSMS 1\.0\r?\n(sh|wsh|tr)\(/.test(t)) {
    return { kind: 'registration', text: t, format };
  }
  const keys = keysOfText(t);
  if (keys.length > 0) return { kind: 'keys', keys, format };
  return { kind: 'text', text: t, format };
}

function ofUr(type: string, cbor: Uint8Array): QrPayload {
  const format = `ur:${type}`;
  if (type === 'crypto-psbt' || type === 'psbt') {
    const bytes = readCborByteString(cbor, format);
    if (!isPsbt(bytes)) throw new FileFormatError(`the ${format} does not hold a PSBT (no psbt magic)`);
    return { kind: 'psbt', bytes, format };
  }
  if (type === 'bytes') {
    const bytes = readCborByteString(cbor, format);
    return isPsbt(bytes) ? { kind: 'psbt', bytes, format } : ofText(utf8(bytes, format), format);
  }
  const descriptor = descriptorOfUr(type, cbor);
  if (descriptor !== null && /multi|sortedmulti|and_|or_|thresh/.test(descriptor)) return { kind: 'registration', text: descriptor, format };
  const keys = keysOfUr(type, cbor);
  if (keys !== null) return { kind: 'keys', keys, format };
  if (/seed|sskr|eckey|prv/.test(type)) throw new FileFormatError(`a ${format} holds secret key material: the desk never reads one, and it should not be shown to a camera`);
  throw new FileFormatError(`a ${format} is not something the desk reads (it reads crypto-psbt, bytes, crypto-output, crypto-account, crypto-hdkey and their 2023 names)`);
}

function ofBbqr(type: string, bytes: Uint8Array): QrPayload {
  const format = `BBQr ${type}`;
  if (type === 'P') {
    if (!isPsbt(bytes)) throw new FileFormatError('the BBQr PSBT does not start with the psbt magic');
    return { kind: 'psbt', bytes, format };
  }
  if (type === 'T') return { kind: 'transaction', bytes, format };
  if (type === 'U' || type === 'J') return ofText(utf8(bytes, format), format);
  throw new FileFormatError(`a BBQr of type ${type} is not something the desk reads (it reads ${Object.entries(BBQR_TYPE_NAMES).map(([t, n]) => `${t}: ${n}`).join(', ')})`);
}

/** The frames read so far, in the order read (repeats allowed), as progress, a payload or a refusal. */
export function readQrFrames(frames: readonly string[]): QrRead {
  const first = frames.find((f) => f.trim() !== '')?.trim() ?? '';
  try {
    if (/^ur:/i.test(first)) {
      const a = assembleUr(frames);
      if (a.state === 'reading') return { state: 'reading', format: a.type ? `ur:${a.type}` : 'UR', received: a.received, expected: a.expected, percent: a.percent, skipped: a.skipped };
      return { state: 'done', payload: ofUr(a.ur.type, a.ur.cbor), skipped: a.skipped };
    }
    if (first.startsWith('B$')) {
      const a = assembleBbqr(frames);
      if (a.state === 'reading') return { state: 'reading', format: `BBQr ${a.type}`, received: a.received, expected: a.expected, percent: a.percent, skipped: a.skipped };
      return { state: 'done', payload: ofBbqr(a.type as BbqrType, a.bytes), skipped: a.skipped };
    }
    if (first === '') return { state: 'reading', format: '', received: 0, expected: 0, percent: 0, skipped: [] };
    return { state: 'done', payload: ofText(first, 'text'), skipped: [] };
  } catch (err) {
    if (err instanceof FileFormatError) return { state: 'refused', message: err.message, skipped: [] };
    throw err;
  }
}

const WHAT: Readonly<Record<QrPayload['kind'], string>> = {
  psbt: 'a PSBT',
  transaction: 'a finalized transaction',
  keys: "a co-signer's key",
  registration: "a wallet's registration (its co-signers and script)",
  text: 'text the desk does not recognise',
};

/** A payload's words for a refusal: what it is and in which code it came. */
export const payloadWhat = (p: QrPayload): string => `${WHAT[p.kind]} (${p.format})`;

/** The one key a co-signer's export names for `script`, or a refusal in words. */
export function keyForScript(p: QrPayload, script: string | null): ScannedKey | string {
  if (p.kind !== 'keys') return `the QR holds ${payloadWhat(p)}, not a co-signer's key`;
  const fingerprints = new Set(p.keys.map((k) => k.fingerprint));
  if (fingerprints.size > 1) return `the QR holds the keys of ${fingerprints.size} different signers: that is a wallet's set-up, not one co-signer's key`;
  if (p.keys.length === 1) return p.keys[0]!;
  const match = script ? p.keys.find((k) => k.script === script) : undefined;
  if (match) return match;
  return `the QR holds ${p.keys.length} keys of one signer (${p.keys.map((k) => `${k.script ?? '?'} ${k.derivationPath}`).join(', ')}); choose the wallet's script type first so the right one is taken`;
}
