// The LevelDB index's rows of a block (layout in level-index.ts), worked out from the block's
// encoding alone: no read of the store. A pure module: the indexer's parse threads
// (chains/utxo/block-parse-worker.ts) make a block's rows next to its decoding, as one buffer, and
// the writer copies them into its write batch in height order; a rollback makes the same rows
// again to delete them.
import { hash } from 'node:crypto';
import { BlockReader, type EncodedBlock, keyOfBlob } from './blocks.ts';
import { scriptKeyOf } from './script-keys.ts';
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

const SMALL_AMOUNT = 2n ** 48n;

/** An F row's value into `out` (at least 9 bytes): the flag, then the amount in as few bytes as it needs. */
export function fundingValue(out: Buffer, coinbase: boolean, amount: bigint): Buffer {
  out[0] = coinbase ? 1 : 0;
  if (amount < 0n || amount >= SMALL_AMOUNT) {
    out.writeBigInt64BE(amount, 1);
    return out.subarray(0, 9);
  }
  const n = Number(amount);
  let bytes = 0;
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes++;
  if (bytes > 0) out.writeUIntBE(n, 1, bytes);
  return out.subarray(0, 1 + bytes);
}

/** SHA-256 of a txid's bytes: K and S rows key by it. */
export function txidHash(txid: Uint8Array): Buffer {
  return hash('sha256', txid, 'buffer');
}

/** Where a batch's rows go: a native write batch, which copies each key and value as it is given. */
export interface Writes {
  put(key: Buffer, value: Buffer): unknown;
  del(key: Buffer): unknown;
}

/**
 * Rows of blocks, streamed to `out` as they are read from the blocks' encoding: no object per row.
 * Keys and values are written into scratch buffers reused row after row (the writes copy them),
 * so a batch of 100,000 rows allocates almost nothing. `put` false: the same keys deleted.
 */
export function streamRows(blocks: readonly EncodedBlock[], out: Writes, put: boolean): void {
  const tKey = key(TAG.txid, 6);
  const kKey = key(TAG.txidKey, HASH_KEY + 6);
  const fKey = key(TAG.funding, 8 + 10);
  const fValue = Buffer.allocUnsafe(9);
  const sKey = key(TAG.spending, HASH_KEY + 10);
  const empty = Buffer.alloc(0);
  let tValue = Buffer.allocUnsafe(1 << 16);
  const spentIn = new Map<string, number>();
  for (const block of blocks) {
    const r = new BlockReader(block.bytes);
    const count = r.u32();
    for (let position = 0; position < count; position++) {
      const txnum = txNumOf(block.height, position);
      const txid = r.txidBlob();
      if (txid.length > 255) throw new Error(`txid ${txid.toString('hex')} of block ${block.height} is longer than 255 bytes`);
      tKey.writeUIntBE(txnum, 1, 6);
      kKey.set(txidHash(txid).subarray(0, HASH_KEY), 1);
      kKey.writeUIntBE(txnum, 1 + HASH_KEY, 6);
      if (put) out.put(kKey, empty);
      else {
        out.del(tKey);
        out.del(kKey);
      }
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
        sKey.set(h.subarray(0, HASH_KEY), 1);
        sKey.writeUInt32BE(vout, 1 + HASH_KEY);
        sKey.writeUIntBE(txnum, 5 + HASH_KEY, 6);
        if (put) out.put(sKey, h.subarray(HASH_KEY, HASH_KEY + HASH_CHECK));
        else out.del(sKey);
      }
      // the T row: the txid, then the outputs as they are read
      tValue[0] = txid.length;
      txid.copy(tValue, 1);
      let at = 1 + txid.length;
      for (let n = r.u32(); n > 0; n--) {
        const script = r.script();
        const vout = r.f64();
        const amount = r.amount();
        fKey.set(scriptKeyOf(script), 1);
        fKey.writeUIntBE(txnum, 9, 6);
        fKey.writeUInt32BE(vout, 15);
        if (!put) {
          out.del(fKey);
          continue;
        }
        if (tValue.length < at + 20 + script.length) {
          const bigger = Buffer.allocUnsafe(2 * (at + 20 + script.length));
          tValue.copy(bigger, 0, 0, at);
          tValue = bigger;
        }
        at = writeLeb(tValue, writeLeb(tValue, at, vout), script.length);
        script.copy(tValue, at);
        at += script.length;
        out.put(fKey, fundingValue(fValue, inputs === 0, amount));
      }
      if (put) out.put(tKey, tValue.subarray(0, at));
    }
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

/**
 * Puts the rows of `blocks` (each made on a parse thread) into `out`, in order. Each block's own
 * rows were checked for an output spent twice; across the blocks the S rows say it (the spent
 * outpoint's 96 bits of hash and its vout): on a repeat the blocks are read again to name it.
 */
export function putRows(blocks: readonly (EncodedBlock & { levelRows: Uint8Array })[], out: Writes): void {
  const spent = blocks.length > 1 ? new Set<string>() : null;
  for (const block of blocks) {
    const b = Buffer.from(block.levelRows.buffer, block.levelRows.byteOffset, block.levelRows.byteLength);
    const own = spent ? new Set<string>() : null;
    for (let at = 0; at < b.length; ) {
      const keyEnd = at + 1 + b[at]!;
      const k = b.subarray(at + 1, keyEnd);
      const valueEnd = keyEnd + 4 + b.readUInt32LE(keyEnd);
      const v = b.subarray(keyEnd + 4, valueEnd);
      if (spent && own && k[0] === TAG.spending) {
        const outpoint = b.toString('latin1', at + 2, at + 2 + HASH_KEY + 4) + v.toString('latin1');
        if (spent.has(outpoint)) streamRows(blocks, { put: () => undefined, del: () => undefined }, true); // throws, naming the outpoint
        own.add(outpoint);
      }
      out.put(k, v);
      at = valueEnd;
    }
    if (spent && own) for (const o of own) spent.add(o);
  }
}
