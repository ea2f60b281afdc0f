/**
 * BIP158 basic block filters: a Golomb-coded set (P = 19, M = 784931) of a block's output scripts
 * and the scripts its inputs spend, each hashed with SipHash-2-4 keyed by the block's hash. A
 * wallet asks whether any of its scripts may be in a block without fetching the block: a miss is
 * certain, a hit is right but for a false positive in about 1 of M queries.
 */
import { ByteReader, ByteWriter, hexToBytes, reverseBytes } from './bytes.ts';
import { CoinError } from './errors.ts';
import { sha256d } from './hash.ts';

export const BASIC_FILTER_P = 19;
export const BASIC_FILTER_M = 784_931;

const MASK = (1n << 64n) - 1n;
const rotl = (x: bigint, b: bigint): bigint => ((x << b) | (x >> (64n - b))) & MASK;

/** SipHash-2-4 of `data` under the key (k0, k1), as BIP158 and Bitcoin Core use it. */
export function siphash24(k0: bigint, k1: bigint, data: Uint8Array): bigint {
  let v0 = 0x736f6d6570736575n ^ k0;
  let v1 = 0x646f72616e646f6dn ^ k1;
  let v2 = 0x6c7967656e657261n ^ k0;
  let v3 = 0x7465646279746573n ^ k1;
  const round = () => {
    v0 = (v0 + v1) & MASK;
    v1 = rotl(v1, 13n) ^ v0;
    v0 = rotl(v0, 32n);
    v2 = (v2 + v3) & MASK;
    v3 = rotl(v3, 16n) ^ v2;
    v0 = (v0 + v3) & MASK;
    v3 = rotl(v3, 21n) ^ v0;
    v2 = (v2 + v1) & MASK;
    v1 = rotl(v1, 17n) ^ v2;
    v2 = rotl(v2, 32n);
  };
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const whole = data.length - (data.length % 8);
  for (let i = 0; i < whole; i += 8) {
    const m = view.getBigUint64(i, true);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  let last = BigInt(data.length & 0xff) << 56n;
  for (let i = whole; i < data.length; i++) last |= BigInt(data[i]!) << BigInt(8 * (i - whole));
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xffn;
  round();
  round();
  round();
  round();
  return (v0 ^ v1 ^ v2 ^ v3) & MASK;
}

/** The filter's key: the first 16 bytes of the block hash in its internal (little-endian) order. */
function keyOf(blockHashHex: string): [bigint, bigint] {
  const hash = reverseBytes(hexToBytes(blockHashHex, 'block hash'));
  if (hash.length !== 32) throw new CoinError('a block hash is 32 bytes');
  const view = new DataView(hash.buffer, hash.byteOffset, 16);
  return [view.getBigUint64(0, true), view.getBigUint64(8, true)];
}

/** Items hashed into [0, n * M), sorted; n * M < 2^52 for any real block, so plain numbers. */
function hashedSet(blockHashHex: string, items: readonly Uint8Array[], n: number): number[] {
  const [k0, k1] = keyOf(blockHashHex);
  const f = BigInt(n) * BigInt(BASIC_FILTER_M);
  return items.map((item) => Number((siphash24(k0, k1, item) * f) >> 64n)).sort((a, b) => a - b);
}

/**
 * The elements of a block's basic filter: every output script but empty and OP_RETURN ones, and
 * every script its inputs spend (the coinbase spends none), each once.
 */
export function basicFilterElements(outputScripts: readonly Uint8Array[], spentScripts: readonly Uint8Array[]): Uint8Array[] {
  const seen = new Map<string, Uint8Array>();
  for (const s of outputScripts) if (s.length > 0 && s[0] !== 0x6a) seen.set(keyOfBytes(s), s);
  for (const s of spentScripts) if (s.length > 0) seen.set(keyOfBytes(s), s);
  return [...seen.values()];
}

function keyOfBytes(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return s;
}

/** The serialized filter: the element count, then the sorted hashes' gaps, Golomb-Rice coded. */
export function encodeBasicFilter(blockHashHex: string, elements: readonly Uint8Array[]): Uint8Array {
  const w = new ByteWriter();
  w.writeVarInt(elements.length);
  const bits = new BitWriter();
  let last = 0;
  for (const value of hashedSet(blockHashHex, elements, elements.length)) {
    const delta = value - last;
    last = value;
    let q = Math.floor(delta / 2 ** BASIC_FILTER_P);
    while (q-- > 0) bits.write(1, 1);
    bits.write(0, 1);
    bits.write(delta % 2 ** BASIC_FILTER_P, BASIC_FILTER_P);
  }
  w.writeBytes(bits.finish());
  return w.toBytes();
}

/**
 * Whether the filter may hold any of `scripts` (false: certainly none of them). Both sorted sets
 * are walked once, so many scripts cost about as much as one.
 */
export function basicFilterMatchesAny(filter: Uint8Array, blockHashHex: string, scripts: readonly Uint8Array[]): boolean {
  const r = new ByteReader(filter, 'block filter');
  const n = r.readVarInt();
  if (n === 0 || scripts.length === 0) return false;
  const wanted = hashedSet(blockHashHex, scripts, n);
  const bits = new BitReader(filter.subarray(r.position));
  let value = 0;
  let w = 0;
  for (let i = 0; i < n; i++) {
    let q = 0;
    while (bits.read(1) === 1) q++;
    value += q * 2 ** BASIC_FILTER_P + bits.read(BASIC_FILTER_P);
    while (w < wanted.length && wanted[w]! < value) w++;
    if (w === wanted.length) return false;
    if (wanted[w] === value) return true;
  }
  return false;
}

/** The filter header chain: sha256d(sha256d(filter) || previous header), in internal byte order. */
export function basicFilterHeader(filter: Uint8Array, previousHeader: Uint8Array): Uint8Array {
  const joined = new Uint8Array(64);
  joined.set(sha256d(filter), 0);
  joined.set(previousHeader, 32);
  return sha256d(joined);
}

class BitWriter {
  private readonly bytes: number[] = [];
  private current = 0;
  private used = 0;

  /** The low `count` bits of `value`, most significant first (count <= 30). */
  write(value: number, count: number): void {
    for (let i = count - 1; i >= 0; i--) {
      this.current = (this.current << 1) | ((value >>> i) & 1);
      if (++this.used === 8) {
        this.bytes.push(this.current);
        this.current = 0;
        this.used = 0;
      }
    }
  }

  finish(): Uint8Array {
    if (this.used > 0) this.bytes.push(this.current << (8 - this.used));
    return Uint8Array.from(this.bytes);
  }
}

class BitReader {
  private at = 0;
  private readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  read(count: number): number {
    let v = 0;
    for (let i = 0; i < count; i++) {
      const byte = this.bytes[this.at >>> 3];
      if (byte === undefined) throw new CoinError('block filter is truncated');
      v = v * 2 + ((byte >>> (7 - (this.at & 7))) & 1);
      this.at++;
    }
    return v;
  }
}
