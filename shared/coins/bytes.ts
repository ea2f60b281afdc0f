import { CoinError, subject } from './errors.ts';

const HEX_RE = /^[0-9a-fA-F]*$/;

/** Strict hex: even length, hex digits only, no 0x prefix, no whitespace. */
export function hexToBytes(hex: string, field?: string): Uint8Array {
  if (typeof hex !== 'string') {
    throw new CoinError(`${subject(field, 'value')} must be a hex string`, field);
  }
  if (!HEX_RE.test(hex)) {
    const hint = hex.startsWith('0x') ? ' (remove the 0x prefix)' : '';
    throw new CoinError(`${subject(field, 'value')} is not valid hex: only 0-9 and a-f are allowed${hint}`, field);
  }
  if (hex.length % 2 !== 0) {
    throw new CoinError(`${subject(field, 'value')} is not valid hex: odd number of digits (${hex.length})`, field);
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bytesToHex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

const HEX_DIGITS = '0123456789abcdef';
const HEX_CODES = Array.from(HEX_DIGITS, (c) => c.charCodeAt(0));

/**
 * The hex of bytes[start, end) read backwards: a hash in wire order shown in display (RPC) order,
 * without the reversed copy (block.ts runs it for every txid of a block). One flat string from
 * char codes: 32 appends would leave a tree of 32 string pieces per txid for the GC to trace.
 */
export function reversedHex(bytes: Uint8Array, start = 0, end = bytes.length): string {
  const codes = new Array<number>((end - start) * 2);
  let k = 0;
  for (let i = end - 1; i >= start; i--) {
    const b = bytes[i]!;
    codes[k++] = HEX_CODES[b >> 4]!;
    codes[k++] = HEX_CODES[b & 15]!;
  }
  return String.fromCharCode.apply(null, codes);
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Lexicographic order of byte strings (a shorter prefix first): for sorting keys (BIP67). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** A reversed copy (txids are shown byte-reversed); the input is left untouched. */
export function reverseBytes(bytes: Uint8Array): Uint8Array {
  return Uint8Array.from(bytes).reverse();
}

/** Bitcoin's CompactSize (varint) encoding. */
export function encodeCompactSize(n: number | bigint): Uint8Array {
  const v = BigInt(n);
  if (v < 0n || v > 0xffffffffffffffffn) throw new CoinError(`compact size out of range: ${v}`);
  if (v < 0xfdn) return Uint8Array.of(Number(v));
  if (v <= 0xffffn) {
    const out = new Uint8Array(3);
    out[0] = 0xfd;
    new DataView(out.buffer).setUint16(1, Number(v), true);
    return out;
  }
  if (v <= 0xffffffffn) {
    const out = new Uint8Array(5);
    out[0] = 0xfe;
    new DataView(out.buffer).setUint32(1, Number(v), true);
    return out;
  }
  const out = new Uint8Array(9);
  out[0] = 0xff;
  new DataView(out.buffer).setBigUint64(1, v, true);
  return out;
}

/**
 * Sequential little-endian reader over a byte array. Every read past the end is a CoinError
 * naming `what` is being read (e.g. "transaction") and where, so truncated input never
 * surfaces as a RangeError.
 */
export class ByteReader {
  private offset = 0;
  private readonly view: DataView;
  private readonly bytes: Uint8Array;
  private readonly what: string;

  // Plain fields, not parameter properties: the indexer's parse threads load this file with
  // Node's own type stripping, which only erases types.
  constructor(bytes: Uint8Array, what = 'data') {
    this.bytes = bytes;
    this.what = what;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get position(): number {
    return this.offset;
  }

  remaining(): number {
    return this.bytes.length - this.offset;
  }

  done(): boolean {
    return this.offset === this.bytes.length;
  }

  private need(n: number): void {
    if (this.remaining() < n) {
      throw new CoinError(
        `${this.what} is truncated: needed ${n} more byte(s) at offset ${this.offset}, only ${this.remaining()} left`,
      );
    }
  }

  /** The next byte, not consumed. */
  peekU8(): number {
    this.need(1);
    return this.view.getUint8(this.offset);
  }

  readU8(): number {
    this.need(1);
    return this.view.getUint8(this.offset++);
  }

  readU16LE(): number {
    this.need(2);
    const v = this.view.getUint16(this.offset, true);
    this.offset += 2;
    return v;
  }

  readU32LE(): number {
    this.need(4);
    const v = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return v;
  }

  readI32LE(): number {
    this.need(4);
    const v = this.view.getInt32(this.offset, true);
    this.offset += 4;
    return v;
  }

  readU64LE(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.offset, true);
    this.offset += 8;
    return v;
  }

  /** CompactSize, canonical form only (as Bitcoin Core's ReadCompactSize), as a safe integer. */
  readVarInt(): number {
    const at = this.offset;
    const first = this.readU8();
    let v: number;
    let min: number;
    if (first < 0xfd) return first;
    if (first === 0xfd) {
      v = this.readU16LE();
      min = 0xfd;
    } else if (first === 0xfe) {
      v = this.readU32LE();
      min = 0x10000;
    } else {
      const big = this.readU64LE();
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new CoinError(`${this.what} has an impossible length ${big} at offset ${at}`);
      }
      v = Number(big);
      min = 0x100000000;
    }
    if (v < min) throw new CoinError(`${this.what} has a non-canonical length encoding at offset ${at}`);
    return v;
  }

  readBytes(n: number): Uint8Array {
    this.need(n);
    const out = this.bytes.slice(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  readVarBytes(): Uint8Array {
    return this.readBytes(this.readVarInt());
  }
}

/** Growable little-endian writer; the counterpart of ByteReader. */
export class ByteWriter {
  private buf = new Uint8Array(256);
  private view = new DataView(this.buf.buffer);
  private length = 0;

  private ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  writeU8(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xff) throw new CoinError(`not a byte: ${v}`);
    this.ensure(1);
    this.view.setUint8(this.length, v);
    this.length += 1;
    return this;
  }

  writeU32LE(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new CoinError(`not a 32-bit unsigned integer: ${v}`);
    this.ensure(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
    return this;
  }

  writeI32LE(v: number): this {
    if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) throw new CoinError(`not a 32-bit signed integer: ${v}`);
    this.ensure(4);
    this.view.setInt32(this.length, v, true);
    this.length += 4;
    return this;
  }

  writeU64LE(v: bigint): this {
    if (v < 0n || v > 0xffffffffffffffffn) throw new CoinError(`not a 64-bit unsigned integer: ${v}`);
    this.ensure(8);
    this.view.setBigUint64(this.length, v, true);
    this.length += 8;
    return this;
  }

  writeVarInt(n: number | bigint): this {
    return this.writeBytes(encodeCompactSize(n));
  }

  writeBytes(bytes: Uint8Array): this {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
    return this;
  }

  writeVarBytes(bytes: Uint8Array): this {
    return this.writeVarInt(bytes.length).writeBytes(bytes);
  }

  toBytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}
