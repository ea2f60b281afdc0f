// The LevelDB index's rows of a block (layout in level-index.ts), worked out from the block's
// encoding alone: no read of the store. A pure module: the indexer's parse threads
// (chains/utxo/block-parse-worker.ts) make a block's rows next to its decoding, as one buffer, and
// the writer copies them into its write batch in height order; a rollback makes the same rows
// again to delete them.
import { hash } from 'node:crypto';
import { BlockReader, type EncodedBlock, keyOfBlob } from './blocks.ts';
import { SCRIPT_KEY_BYTES, scriptHash } from './script-keys.ts';
import { txNumOf } from './txnum.ts';

export const TAG = { version: 0x56, block: 0x42, txid: 0x54, txidKey: 0x4b, funding: 0x46, spending: 0x53 } as const;
export type Tag = (typeof TAG)[keyof typeof TAG];

/** Bytes of a txid's hash in K and S keys, and the bytes more an S row's value checks. */
export const HASH_KEY = 8;
export const HASH_CHECK = 4;

export function key(tag: Tag, length: number): Buffer {
  const k = Buffer.allocUnsafe(1 + length);
  k[0] = tag;
  return k;
}

export function readLeb(b: Buffer, at: number): [number, number] {
  let v = 0;
  let scale = 1;
  for (;;) {
    const byte = b[at++]!;
    v += (byte & 0x7f) * scale;
    if (byte < 0x80) return [v, at];
    scale *= 128;
  }
}

export function writeLeb(b: Buffer, at: number, v: number): number {
  while (v >= 0x80) {
    b[at++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  b[at++] = v;
  return at;
}

// ---- the rows' encodings (layout 4) -----------------------------------------------------------

/**
 * Vouts in keys: a prefix-free varint whose bytes sort as the numbers do (a range of one vout's
 * keys holds no other's): 1 byte below 2^7, 2 below 2^14, 3 below 2^21, 4 below 2^28, else 5.
 */
export function writeOrderedVarint(b: Buffer, at: number, v: number): number {
  if (v < 0x80) {
    b[at] = v;
    return at + 1;
  }
  if (v < 0x4000) {
    b.writeUInt16BE(0x8000 | v, at);
    return at + 2;
  }
  if (v < 0x200000) {
    b[at] = 0xc0 | (v >>> 16);
    b.writeUInt16BE(v & 0xffff, at + 1);
    return at + 3;
  }
  if (v < 0x10000000) {
    b.writeUInt32BE((0xe0000000 | v) >>> 0, at);
    return at + 4;
  }
  b[at] = 0xf0;
  b.writeUInt32BE(v, at + 1);
  return at + 5;
}

export function readOrderedVarint(b: Buffer, at: number): [number, number] {
  const first = b[at]!;
  if (first < 0x80) return [first, at + 1];
  if (first < 0xc0) return [b.readUInt16BE(at) & 0x3fff, at + 2];
  if (first < 0xe0) return [((first & 0x1f) << 16) | b.readUInt16BE(at + 1), at + 3];
  if (first < 0xf0) return [b.readUInt32BE(at) & 0x0fffffff, at + 4];
  return [b.readUInt32BE(at + 1), at + 5];
}

/** Below this, an amount is a LEB128 of amount * 2 + coinbase flag (at most 8 bytes); from it (or negative), 9 bytes. */
const SMALL_AMOUNT = 2n ** 52n;

/**
 * Bytes of the script's SHA-256 after its 8-byte key (bytes 8 to 12) that an F row's value starts
 * with: two scripts under one key are told apart by 96 bits, as S rows tell spent txids apart.
 */
export const SCRIPT_CHECK = 4;
/** An F value's most bytes: the check, then 9 for an amount outside 0..2^52. */
export const FUNDING_VALUE_MAX = SCRIPT_CHECK + 9;

/**
 * An F row's value into `out` (at least FUNDING_VALUE_MAX bytes): the script's check (bytes 8 to 12
 * of `scriptHash`), then LEB128 of amount * 2 + (1 when the tx has no inputs); 9 bytes (flag, i64)
 * outside 0..2^52.
 */
export function fundingValue(out: Buffer, hashOfScript: Uint8Array, coinbase: boolean, amount: bigint): Buffer {
  for (let i = 0; i < SCRIPT_CHECK; i++) out[i] = hashOfScript[SCRIPT_KEY_BYTES + i]!;
  if (amount < 0n || amount >= SMALL_AMOUNT) {
    out[SCRIPT_CHECK] = coinbase ? 1 : 0;
    out.writeBigInt64BE(amount, SCRIPT_CHECK + 1);
    return out.subarray(0, SCRIPT_CHECK + 9);
  }
  return out.subarray(0, writeLeb(out, SCRIPT_CHECK, Number(amount) * 2 + (coinbase ? 1 : 0)));
}

export function fundingOfValue(value: Buffer): { coinbase: boolean; amount: bigint } {
  if (value.length === SCRIPT_CHECK + 9) return { coinbase: value[SCRIPT_CHECK] === 1, amount: value.readBigInt64BE(SCRIPT_CHECK + 1) };
  const [n] = readLeb(value, SCRIPT_CHECK);
  return { coinbase: n % 2 === 1, amount: BigInt(Math.floor(n / 2)) };
}

/** Whether an F value is of the script whose `scriptHash` this is (and not of another script under the same key). */
export function fundingIsOf(value: Buffer, hashOfScript: Uint8Array): boolean {
  for (let i = 0; i < SCRIPT_CHECK; i++) if (value[i] !== hashOfScript[SCRIPT_KEY_BYTES + i]) return false;
  return true;
}

/** An F key: script key, tx number (6 bytes), vout (ordered varint); written into `k` (room for 20 bytes) or a new buffer. */
export function fundingKey(skey: Uint8Array, txnum: number, vout: number, k = Buffer.allocUnsafe(1 + skey.length + 11)): Buffer {
  k[0] = TAG.funding;
  k.set(skey, 1);
  k.writeUIntBE(txnum, 1 + skey.length, 6);
  return k.subarray(0, writeOrderedVarint(k, 7 + skey.length, vout));
}

/** An F key's tx number and vout (keys of 8-byte script keys). */
export function fundingKeyParts(k: Buffer): { txnum: number; vout: number } {
  return { txnum: k.readUIntBE(9, 6), vout: readOrderedVarint(k, 15)[0] };
}

/** An S key without its spender: the spent outpoint's txid hash (8 bytes) and vout; written into `k` (room for 20 bytes) or a new buffer, returns its end. */
export function spendingPrefix(h: Uint8Array, vout: number, k: Buffer): number {
  k[0] = TAG.spending;
  k.set(h.subarray(0, HASH_KEY), 1);
  return writeOrderedVarint(k, 1 + HASH_KEY, vout);
}

/**
 * Txids a T row holds: the row of group g (key `T` + g, 6 bytes big-endian) holds the txids of tx
 * numbers 64g .. 64g + 63, 32 bytes each in position order, as far as its block goes (2^20 is a
 * multiple of 64: a group never spans two blocks, and a block's rows make its groups alone).
 */
export const TXIDS_PER_ROW = 64;
export const TXID_BYTES = 32;

/** The T row key of the group that holds `txnum`'s txid; written into `k` (7 bytes) or a new buffer. */
export function txidRowKey(txnum: number, k = key(TAG.txid, 6)): Buffer {
  k.writeUIntBE(Math.floor(txnum / TXIDS_PER_ROW), 1, 6);
  return k;
}

/** The txid of `txnum` in its group's T row value (a view), or undefined: its block has no such position. */
export function txidInRow(value: Buffer, txnum: number): Buffer | undefined {
  const at = (txnum % TXIDS_PER_ROW) * TXID_BYTES;
  return at + TXID_BYTES <= value.length ? value.subarray(at, at + TXID_BYTES) : undefined;
}

/** Whether a tx at `position` (of `count` in its block) ends its T row's group: the row is written after it. */
export const endsTxidRow = (position: number, count: number): boolean => position % TXIDS_PER_ROW === TXIDS_PER_ROW - 1 || position === count - 1;

/** SHA-256 of a txid's bytes: K and S rows key by it. */
export function txidHash(txid: Uint8Array): Buffer {
  return hash('sha256', txid, 'buffer');
}

/** Where a batch's rows go: a native write batch, which copies each key and value as it is given (putRows reuses its buffers row after row). */
export interface Writes {
  put(key: Buffer, value: Buffer): unknown;
  del(key: Buffer): unknown;
}

/**
 * Rows of blocks, streamed to `out` as they are read from the blocks' encoding: no object per row.
 * Keys and values are written into scratch buffers reused row after row (the writes copy them),
 * so a batch of 100,000 rows allocates almost nothing. `put` false: the same keys deleted.
 */
export function streamRows(blocks: readonly EncodedBlock[], out: Writes, put: boolean, spentIn = new Map<string, number>()): void {
  const tKey = key(TAG.txid, 6);
  const tValue = Buffer.allocUnsafe(TXIDS_PER_ROW * TXID_BYTES);
  const kKey = key(TAG.txidKey, HASH_KEY + 6);
  const fKey = Buffer.allocUnsafe(1 + 8 + 11);
  const fValue = Buffer.allocUnsafe(FUNDING_VALUE_MAX);
  const sKey = Buffer.allocUnsafe(1 + HASH_KEY + 11);
  const empty = Buffer.alloc(0);
  for (const block of blocks) {
    const r = new BlockReader(block.bytes);
    const count = r.u32();
    for (let position = 0; position < count; position++) {
      const txnum = txNumOf(block.height, position);
      const txid = r.txidBlob();
      // fixed 32-byte slots: a txid that is not 64 hex digits has no place in a T row
      if (txid.length !== TXID_BYTES) throw new Error(`block ${block.height}: tx ${position}'s txid is not 64 hex digits: the LevelDB index holds 32-byte txids`);
      txid.copy(tValue, (position % TXIDS_PER_ROW) * TXID_BYTES);
      kKey.set(txidHash(txid).subarray(0, HASH_KEY), 1);
      kKey.writeUIntBE(txnum, 1 + HASH_KEY, 6);
      if (put) out.put(kKey, empty);
      else out.del(kKey);
      const inputs = r.u32();
      for (let n = inputs; n > 0; n--) {
        const spent = r.txidBlob();
        const vout = r.f64();
        const h = txidHash(spent);
        if (put) {
          // a spend of an output twice within these blocks: the blocks alone show it
          const outpoint = `${keyOfBlob(spent)}:${vout}`;
          const earlier = spentIn.get(outpoint);
          if (earlier !== undefined) throw new Error(`${spent.toString('hex')}:${vout} is spent twice, in blocks ${earlier} and ${block.height}`);
          spentIn.set(outpoint, block.height);
        }
        const sEnd = spendingPrefix(h, vout, sKey);
        sKey.writeUIntBE(txnum, sEnd, 6);
        const s = sKey.subarray(0, sEnd + 6);
        if (put) out.put(s, h.subarray(HASH_KEY, HASH_KEY + HASH_CHECK));
        else out.del(s);
      }
      for (let n = r.u32(); n > 0; n--) {
        const script = r.script();
        const vout = r.f64();
        const amount = r.amount();
        const h = scriptHash(script);
        const f = fundingKey(h.subarray(0, SCRIPT_KEY_BYTES), txnum, vout, fKey);
        if (put) out.put(f, fundingValue(fValue, h, inputs === 0, amount));
        else out.del(f);
      }
      // the T row of this tx's group, after its last tx (or the block's)
      if (endsTxidRow(position, count)) {
        txidRowKey(txnum, tKey);
        if (put) out.put(tKey, tValue.subarray(0, ((position % TXIDS_PER_ROW) + 1) * TXID_BYTES));
        else out.del(tKey);
      }
    }
  }
}

/** Each row of a RowBuffer's bytes, as views (key, value): for rollbacks and tools; putRows walks them inline. */
export function* rowsOf(rows: Uint8Array): Generator<[Buffer, Buffer]> {
  const b = Buffer.from(rows.buffer, rows.byteOffset, rows.byteLength);
  for (let at = 0; at < b.length; ) {
    const keyEnd = at + 1 + b[at]!;
    const valueEnd = keyEnd + 4 + b.readUInt32LE(keyEnd);
    yield [b.subarray(at + 1, keyEnd), b.subarray(keyEnd + 4, valueEnd)];
    at = valueEnd;
  }
}

/**
 * Rows collected into one buffer (a parse thread's answer, transferred, not copied): each row is
 * a u8 key length, the key, a u32 (LE) value length, the value.
 */
export class RowBuffer implements Writes {
  private buf = Buffer.allocUnsafeSlow(1 << 20);
  private pos = 0;

  put(k: Buffer, v: Buffer): void {
    const need = this.pos + 5 + k.length + v.length;
    if (need > this.buf.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(2 * this.buf.length, need));
      this.buf.copy(bigger, 0, 0, this.pos);
      this.buf = bigger;
    }
    this.buf[this.pos] = k.length;
    k.copy(this.buf, this.pos + 1);
    this.pos += 1 + k.length;
    this.buf.writeUInt32LE(v.length, this.pos);
    v.copy(this.buf, this.pos + 4);
    this.pos += 4 + v.length;
  }

  del(): void {
    throw new Error('a row buffer holds rows to put only');
  }

  /** The rows, at their exact size, in an ArrayBuffer of their own (to transfer). */
  finish(): Uint8Array {
    const out = new Uint8Array(this.pos);
    out.set(this.buf.subarray(0, this.pos));
    this.pos = 0;
    return out;
  }
}
