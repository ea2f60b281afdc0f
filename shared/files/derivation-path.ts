/**
 * BIP32 derivation paths as the interop formats write them: "m/48'/0'/0'/2'", "48h/0h", or "m".
 * Steps are uint32 with the hardened bit set; the written form is always "m/…" with "'".
 */
import { FileFormatError } from './errors.ts';

export const HARDENED = 0x80000000;

/** Parses a path from the master key. Hardened steps may be written 1', 1h or 1H. */
export function parseDerivationPath(text: string, what = 'derivation path'): number[] {
  let rest = text.trim();
  if (rest === 'm' || rest === 'M' || rest === '') return [];
  if (/^[mM]\//.test(rest)) rest = rest.slice(2);
  return rest.split('/').map((step) => {
    const match = /^([0-9]{1,10})(['hH]?)$/.exec(step);
    const n = match ? Number(match[1]) : NaN;
    if (!match || n >= HARDENED) throw new FileFormatError(`${what} "${text}" is not a BIP32 path (a step "${step}" is not a number below 2^31, optionally followed by ' or h)`);
    return match[2] ? n + HARDENED : n;
  });
}

export function formatDerivationPath(steps: readonly number[]): string {
  return ['m', ...steps.map((s) => (s >= HARDENED ? `${s - HARDENED}'` : `${s}`))].join('/');
}

/** The canonical "m/…'" form of a path written any accepted way. */
export function normalizeDerivationPath(text: string, what?: string): string {
  return formatDerivationPath(parseDerivationPath(text, what));
}
