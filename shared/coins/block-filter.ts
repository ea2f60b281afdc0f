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

/**
 * SipHash-2-4 of `data` under the key (k0, k1), as BIP158 and Bitcoin Core use it. The bigint form
 * of siphash24Halves, for callers that hold the key as two 64-bit words.
 */
export function siphash24(k0: bigint, k1: bigint, data: Uint8Array): bigint {
  const out = new Uint32Array(2);
  siphash24Halves(Uint32Array.of(Number(k0 & 0xffffffffn), Number(k0 >> 32n), Number(k1 & 0xffffffffn), Number(k1 >> 32n)), data, out);
  return (BigInt(out[1]!) << 32n) | BigInt(out[0]!);
}

/**
 * SipHash-2-4 on 32-bit halves: the key as [k0 low, k0 high, k1 low, k1 high], the hash written
 * to `out` as [low, high]. Each 64-bit word is a pair of unsigned 32-bit numbers, so the filter
 * matcher hashes without BigInt (scripts/bench/filter-match.ts measures it against the BigInt one).
 */
export function siphash24Halves(key: Uint32Array, data: Uint8Array, out: Uint32Array): void {
  const k0l = key[0]!;
  const k0h = key[1]!;
  const k1l = key[2]!;
  const k1h = key[3]!;
  // "somepseudorandomlygeneratedbytes", as four 64-bit words split high / low
  let v0h = (0x736f6d65 ^ k0h) >>> 0;
  let v0l = (0x70736575 ^ k0l) >>> 0;
  let v1h = (0x646f7261 ^ k1h) >>> 0;
  let v1l = (0x6e646f6d ^ k1l) >>> 0;
  let v2h = (0x6c796765 ^ k0h) >>> 0;
  let v2l = (0x6e657261 ^ k0l) >>> 0;
  let v3h = (0x74656462 ^ k1h) >>> 0;
  let v3l = (0x79746573 ^ k1l) >>> 0;
  const len = data.length;
  const words = (len >>> 3) + 1; // the last word holds the tail bytes and the length
  // Word w < words: two compression rounds around the message word; w === words: four final ones.
  for (let w = 0; w <= words; w++) {
    let ml = 0;
    let mh = 0;
    let rounds = 2;
    if (w < words) {
      const at = w << 3;
      if (w < words - 1) {
        ml = (data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16) | (data[at + 3]! << 24)) >>> 0;
        mh = (data[at + 4]! | (data[at + 5]! << 8) | (data[at + 6]! << 16) | (data[at + 7]! << 24)) >>> 0;
      } else {
        for (let i = at; i < len; i++) {
          const shift = 8 * (i - at);
          if (shift < 32) ml |= data[i]! << shift;
          else mh |= data[i]! << (shift - 32);
        }
        ml >>>= 0;
        mh = (mh | ((len & 0xff) << 24)) >>> 0;
      }
      v3l = (v3l ^ ml) >>> 0;
      v3h = (v3h ^ mh) >>> 0;
    } else {
      v2l = (v2l ^ 0xff) >>> 0;
      rounds = 4;
    }
    for (let r = 0; r < rounds; r++) {
      let s: number;
      let th: number;
      let tl: number;
      // v0 += v1; v1 = rotl(v1, 13) ^ v0; v0 = rotl(v0, 32)
      s = v0l + v1l;
      v0h = (v0h + v1h + (s > 0xffffffff ? 1 : 0)) >>> 0;
      v0l = s >>> 0;
      th = (v1h << 13) | (v1l >>> 19);
      tl = (v1l << 13) | (v1h >>> 19);
      v1h = (th ^ v0h) >>> 0;
      v1l = (tl ^ v0l) >>> 0;
      th = v0h;
      v0h = v0l;
      v0l = th;
      // v2 += v3; v3 = rotl(v3, 16) ^ v2
      s = v2l + v3l;
      v2h = (v2h + v3h + (s > 0xffffffff ? 1 : 0)) >>> 0;
      v2l = s >>> 0;
      th = (v3h << 16) | (v3l >>> 16);
      tl = (v3l << 16) | (v3h >>> 16);
      v3h = (th ^ v2h) >>> 0;
      v3l = (tl ^ v2l) >>> 0;
      // v0 += v3; v3 = rotl(v3, 21) ^ v0
      s = v0l + v3l;
      v0h = (v0h + v3h + (s > 0xffffffff ? 1 : 0)) >>> 0;
      v0l = s >>> 0;
      th = (v3h << 21) | (v3l >>> 11);
      tl = (v3l << 21) | (v3h >>> 11);
      v3h = (th ^ v0h) >>> 0;
      v3l = (tl ^ v0l) >>> 0;
      // v2 += v1; v1 = rotl(v1, 17) ^ v2; v2 = rotl(v2, 32)
      s = v2l + v1l;
      v2h = (v2h + v1h + (s > 0xffffffff ? 1 : 0)) >>> 0;
      v2l = s >>> 0;
      th = (v1h << 17) | (v1l >>> 15);
      tl = (v1l << 17) | (v1h >>> 15);
      v1h = (th ^ v2h) >>> 0;
      v1l = (tl ^ v2l) >>> 0;
      th = v2h;
      v2h = v2l;
      v2l = th;
    }
    if (w < words) {
      v0l = (v0l ^ ml) >>> 0;
      v0h = (v0h ^ mh) >>> 0;
    }
  }
  out[0] = v0l ^ v1l ^ v2l ^ v3l;
  out[1] = v0h ^ v1h ^ v2h ^ v3h;
}

/**
 * floor(hash * f / 2^64) for a 64-bit hash given as halves and f < 2^53: the product in 16-bit
 * limbs, every partial sum an exact double. BIP158's map of a hash into [0, N * M).
 */
export function mulHigh64(lo: number, hi: number, f: number): number {
  const a0 = lo & 0xffff;
  const a1 = lo >>> 16;
  const a2 = hi & 0xffff;
  const a3 = hi >>> 16;
  const b0 = f % 65536;
  const b1 = Math.floor(f / 65536) % 65536;
  const b2 = Math.floor(f / 4294967296) % 65536;
  const b3 = Math.floor(f / 281474976710656);
  // The carries out of the product's low 64 bits (columns 0..3), then the high columns.
  let c = Math.floor((a0 * b0) / 65536);
  c = Math.floor((c + a0 * b1 + a1 * b0) / 65536);
  c = Math.floor((c + a0 * b2 + a1 * b1 + a2 * b0) / 65536);
  c = Math.floor((c + a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0) / 65536);
  return c + a1 * b3 + a2 * b2 + a3 * b1 + (a2 * b3 + a3 * b2) * 65536 + a3 * b3 * 4294967296;
}

/** The filter's key: the first 16 bytes of the block hash in its internal (little-endian) order. */
function keyOf(blockHashHex: string): Uint32Array {
  const hash = reverseBytes(hexToBytes(blockHashHex, 'block hash'));
  if (hash.length !== 32) throw new CoinError('a block hash is 32 bytes');
  const view = new DataView(hash.buffer, hash.byteOffset, 16);
  return Uint32Array.of(view.getUint32(0, true), view.getUint32(4, true), view.getUint32(8, true), view.getUint32(12, true));
}

/** Items hashed into [0, n * M), sorted; n * M < 2^53 for any real block, so plain numbers. */
function hashedSet(blockHashHex: string, items: readonly Uint8Array[], n: number): number[] {
  const key = keyOf(blockHashHex);
  const f = n * BASIC_FILTER_M;
  const out = new Uint32Array(2);
  const values = new Array<number>(items.length);
  for (let i = 0; i < items.length; i++) {
    siphash24Halves(key, items[i]!, out);
    values[i] = mulHigh64(out[0]!, out[1]!, f);
  }
  return values.sort((a, b) => a - b);
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

  /** The next `count` bits (count <= 30), most significant first, a byte's worth at a time. */
  read(count: number): number {
    let v = 0;
    while (count > 0) {
      const byte = this.bytes[this.at >>> 3];
      if (byte === undefined) throw new CoinError('block filter is truncated');
      const left = 8 - (this.at & 7);
      const take = left < count ? left : count;
      v = v * (1 << take) + ((byte >>> (left - take)) & ((1 << take) - 1));
      this.at += take;
      count -= take;
    }
    return v;
  }
}
