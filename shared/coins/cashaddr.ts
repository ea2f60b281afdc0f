// CashAddr (Bitcoin Cash address format): prefix ':' base32(version byte || hash) with a 40-bit
// BCH checksum over the prefix and payload.
import { CoinError } from './errors.ts';

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATORS = [0x98f2bc8e61n, 0x79b76d99e2n, 0xf33e5fb3c4n, 0xae2eabe2a8n, 0x1e4f43e470n];
const HASH_SIZES = [20, 24, 28, 32, 40, 48, 56, 64];

export type CashAddrType = 'p2pkh' | 'p2sh';

function polymod(values: readonly number[]): bigint {
  let c = 1n;
  for (const d of values) {
    const c0 = c >> 35n;
    c = ((c & 0x07ffffffffn) << 5n) ^ BigInt(d);
    for (let i = 0; i < 5; i++) if ((c0 >> BigInt(i)) & 1n) c ^= GENERATORS[i]!;
  }
  return c ^ 1n;
}

function prefixValues(prefix: string): number[] {
  return [...prefix].map((ch) => ch.charCodeAt(0) & 0x1f);
}

function convertBits(data: readonly number[], from: number, to: number, pad: boolean): number[] | null {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  const max = (1 << to) - 1;
  for (const value of data) {
    acc = (acc << from) | value;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >> bits) & max);
    }
    acc &= (1 << bits) - 1;
  }
  if (pad) {
    if (bits > 0) out.push((acc << (to - bits)) & max);
  } else if (bits >= from || ((acc << (to - bits)) & max) !== 0) {
    return null;
  }
  return out;
}

export function encodeCashAddr(prefix: string, type: CashAddrType, hash: Uint8Array): string {
  const sizeCode = HASH_SIZES.indexOf(hash.length);
  if (sizeCode < 0) throw new CoinError(`a CashAddr hash must be ${HASH_SIZES.join(', ')} bytes, not ${hash.length}`);
  const version = ((type === 'p2sh' ? 1 : 0) << 3) | sizeCode;
  const payload = convertBits([version, ...hash], 8, 5, true)!;
  const checksum = polymod([...prefixValues(prefix), 0, ...payload, 0, 0, 0, 0, 0, 0, 0, 0]);
  const checksumWords = Array.from({ length: 8 }, (_, i) => Number((checksum >> BigInt(5 * (7 - i))) & 31n));
  return `${prefix}:${[...payload, ...checksumWords].map((v) => CHARSET[v]).join('')}`;
}

export type CashAddrResult = { ok: true; prefix: string; type: CashAddrType; hash: Uint8Array } | { ok: false; reason: string };

/** Decodes `prefix:payload` or a bare payload (taking `defaultPrefix`). Never throws. */
export function decodeCashAddr(text: string, defaultPrefix: string): CashAddrResult {
  const lower = text.toLowerCase();
  if (lower !== text && text.toUpperCase() !== text) return { ok: false, reason: 'mixed upper and lower case' };
  const colon = lower.lastIndexOf(':');
  const prefix = colon >= 0 ? lower.slice(0, colon) : defaultPrefix;
  const body = colon >= 0 ? lower.slice(colon + 1) : lower;
  if (body.length < 8 + 34 || body.length > 8 + 104) return { ok: false, reason: 'wrong length for a CashAddr' };
  const values: number[] = [];
  for (const ch of body) {
    const v = CHARSET.indexOf(ch);
    if (v < 0) return { ok: false, reason: `the character "${ch}" is not in the CashAddr alphabet` };
    values.push(v);
  }
  if (polymod([...prefixValues(prefix), 0, ...values]) !== 0n) {
    return { ok: false, reason: colon >= 0 ? 'bad checksum (a character is mistyped, or the prefix is wrong)' : `bad checksum (or not a "${prefix}:" address)` };
  }
  const bytes = convertBits(values.slice(0, -8), 5, 8, false);
  if (!bytes || bytes.length < 1) return { ok: false, reason: 'malformed payload' };
  const [version, ...hash] = bytes as [number, ...number[]];
  if (version & 0x80) return { ok: false, reason: 'reserved version bit set' };
  const typeBits = (version >> 3) & 0x0f;
  if (typeBits !== 0 && typeBits !== 1) return { ok: false, reason: `unknown address type ${typeBits}` };
  if (HASH_SIZES[version & 0x07] !== hash.length) return { ok: false, reason: 'the hash length does not match the version byte' };
  return { ok: true, prefix, type: typeBits === 1 ? 'p2sh' : 'p2pkh', hash: Uint8Array.from(hash) };
}

/** True when the text is shaped like a CashAddr (prefix or q/p payload), for error messages. */
export function looksLikeCashAddr(text: string): boolean {
  return /^[a-z]+:[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/i.test(text) || /^[qp][qpzry9x8gf2tvdw0s3jn54khce6mua7l]{41}$/i.test(text);
}
