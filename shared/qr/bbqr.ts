/**
 * BBQr (Coinkite's "Better Bitcoin QR", github.com/coinkite/BBQr) for Coldcard, Krux and Sparrow:
 * a file split into numbered alphanumeric frames "B$" + encoding + type + count + index + data,
 * zlib-compressed (raw deflate, window bits 10) where that is shorter. Splitting and joining are
 * the `bbqr` package's (Coinkite's own; it carries its own deflate); this module picks the
 * density and reads frames one by one so a reader can say how many it has.
 */
import { joinQRs, splitQRs } from 'bbqr';
import { FileFormatError } from '../files/errors.ts';
import type { QrDensity } from './ur.ts';

/**
 * The largest QR version a frame may use: 26 holds about 2,000 characters (alphanumeric, level
 * L), 18 about 1,000, Sparrow's two BBQr settings. Shorter files use smaller versions.
 */
const MAX_VERSION: Readonly<Record<QrDensity, 26 | 18>> = { high: 26, low: 18 };

/** The BBQr file types the desk writes and reads. */
export type BbqrType = 'P' | 'T' | 'U' | 'J';
export const BBQR_TYPE_NAMES: Readonly<Record<BbqrType, string>> = { P: 'a PSBT', T: 'a signed transaction', U: 'text', J: 'JSON' };

export function bbqrFrames(bytes: Uint8Array, type: BbqrType, density: QrDensity): string[] {
  return splitQRs(bytes, type, { encoding: 'Z', maxVersion: MAX_VERSION[density] }).parts;
}

export const textBbqrFrames = (text: string, type: 'U' | 'J', density: QrDensity): string[] => bbqrFrames(new TextEncoder().encode(text), type, density);

export type BbqrAssembly =
  | { state: 'reading'; type: string; received: number; expected: number; percent: number; skipped: string[] }
  | { state: 'done'; type: string; bytes: Uint8Array; skipped: string[] };

const HEADER = /^B\$([HZ2])([A-Z])([0-9A-Z]{2})([0-9A-Z]{2})/;

/**
 * Assembles BBQr frames in the order read; repeats are harmless. A frame of another file (other
 * encoding, type or count, or other content at an index already read) is skipped and said why.
 */
export function assembleBbqr(frames: readonly string[]): BbqrAssembly {
  const skipped: string[] = [];
  let fixed = '';
  let expected = 0;
  const parts = new Map<number, string>();
  for (const [i, raw] of frames.entries()) {
    const frame = raw.trim();
    const m = HEADER.exec(frame);
    if (!m) {
      skipped.push(`frame ${i + 1} has no BBQr header (B$, encoding, type, count, index)`);
      continue;
    }
    const count = parseInt(m[3]!, 36);
    const index = parseInt(m[4]!, 36);
    if (count < 1 || index >= count) {
      skipped.push(`frame ${i + 1} says it is part ${index + 1} of ${count}`);
      continue;
    }
    const head = frame.slice(0, 6);
    if (fixed && head !== fixed) {
      skipped.push(`frame ${i + 1} belongs to another file (${head} after ${fixed})`);
      continue;
    }
    const known = parts.get(index);
    if (known !== undefined && known !== frame) {
      skipped.push(`frame ${i + 1} is another file's part ${index + 1}`);
      continue;
    }
    fixed = head;
    expected = count;
    parts.set(index, frame);
  }
  const type = fixed.slice(3, 4);
  if (parts.size < expected || expected === 0) {
    return { state: 'reading', type, received: parts.size, expected, percent: expected ? Math.floor((100 * parts.size) / expected) : 0, skipped };
  }
  try {
    return { state: 'done', type, bytes: joinQRs([...parts.values()]).raw, skipped };
  } catch (err) {
    throw new FileFormatError(`the BBQr frames do not assemble: ${err instanceof Error ? err.message : String(err)}`);
  }
}
