// The index's input: blocks as the block sources give them (IndexedBlock), and their compact
// binary encoding. The indexer's blocks keep the encoding between reading and writing (a few
// objects per block instead of several per output, so little for the GC to trace), the row plan
// (row-plan.ts) reads it, and the SQLite writer thread receives it as is: cloning one buffer is a
// memcpy, where structured clone of IndexedBlock[] rebuilt tens of thousands of objects on each side.
//
// Layout (little-endian):
//   block:  u32 tx count, then the txs
//   tx:     txid, u32 input count, inputs, u32 output count, outputs
//   txid:   u8 0 + 32 bytes (a lowercase 64-digit hex txid: the norm)
//         | u8 1 + u32 length + UTF-8 (any other string, kept verbatim so nothing changes meaning)
//   input:  txid, f64 vout
//   output: u32 script length, script, f64 vout, amount (the script first: it is checked first)
//   amount: u8 0 + i64 | u8 1 + u32 length + decimal ASCII (outside the i64 range)
// Vouts are f64 because the readers accept any safe integer.
import type { Outpoint } from '../chains/backend.ts';
import { OP } from '../../shared/coins/script.ts';
import type { BlockCodecChoice } from '../../shared/coins/block.ts';

export interface IndexedOutput {
  vout: number;
  script: Uint8Array;
  amount: bigint;
}

export interface IndexedTx {
  txid: string;
  /** Spent outpoints; coinbase inputs are left out. */
  inputs: Outpoint[];
  /** Only outputs paying a standard (address-bearing) script. */
  outputs: IndexedOutput[];
}

export interface IndexedBlock {
  height: number;
  hash: string;
  time: number;
  txs: IndexedTx[];
}

export function hexOf(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

/** Txids are stored as 32 bytes in the confirmed tables (hex everywhere else). */
export function txidBlob(hex: string): Uint8Array {
  return Buffer.from(hex, 'hex');
}

export function txidHexOf(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
  throw new TypeError('txid column is not binary');
}

/** What the row plan and the SQLite writer need of a block: its header and its encoded txs. */
export interface EncodedBlock {
  height: number;
  hash: string;
  time: number;
  bytes: Uint8Array;
  /** The LevelDB index's rows of this block, made from its raw bytes (level-raw-rows.ts): its writer then only copies them in. */
  levelRows?: Uint8Array;
  /**
   * The raw block those rows were made from, when it was read for the LevelDB index: `bytes` is
   * then empty (no compact encoding was made), and a double spend across a batch is named from these.
   */
  raw?: RawBlock;
}

/** A raw block (`getblock <hash> 0`) and the codec choice it reads with. */
export interface RawBlock {
  bytes: Uint8Array;
  chain: BlockCodecChoice;
}

const CANONICAL_TXID = /^[0-9a-f]{64}$/;
const LOWER_HEX = /^(?:[0-9a-f]{2})*$/;
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** Bytes go to the drivers as Buffers (pg would send a plain Uint8Array as text). */
export function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * A map key for a txid string, equal for two txids exactly when the old string keys were: the
 * bytes as latin1 when the string is lowercase hex (so keys of blobs read back from the database,
 * `keyOfBlob`, meet them), otherwise the string itself behind a character latin1 cannot produce.
 */
export function keyOfTxid(txid: string): string {
  return LOWER_HEX.test(txid) ? Buffer.from(txid, 'hex').toString('latin1') : `\u0100${txid}`;
}

export function keyOfBlob(b: Uint8Array): string {
  return asBuffer(b).toString('latin1');
}

/** Writes blocks into one reusable scratch buffer; `finish` copies a block out at its exact size. */
export class BlockEncoder {
  private buf = Buffer.allocUnsafeSlow(1 << 16);
  pos = 0;

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  reset(): void {
    this.pos = 0;
  }

  u32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(v, this.pos);
    this.pos += 4;
  }

  /** Overwrites a u32 written earlier (counts known only after the items). */
  patchU32(at: number, v: number): void {
    this.buf.writeUInt32LE(v, at);
  }

  f64(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  txid(txid: string): void {
    if (txid.length === 64 && CANONICAL_TXID.test(txid)) {
      this.ensure(33);
      this.buf[this.pos] = 0;
      this.buf.write(txid, this.pos + 1, 32, 'hex');
      this.pos += 33;
      return;
    }
    const length = Buffer.byteLength(txid, 'utf8');
    this.ensure(5 + length);
    this.buf[this.pos] = 1;
    this.buf.writeUInt32LE(length, this.pos + 1);
    this.buf.write(txid, this.pos + 5, length, 'utf8');
    this.pos += 5 + length;
  }

  amount(v: bigint): void {
    if (v >= I64_MIN && v <= I64_MAX) {
      this.ensure(9);
      this.buf[this.pos] = 0;
      this.buf.writeBigInt64LE(v, this.pos + 1);
      this.pos += 9;
      return;
    }
    const text = v.toString();
    this.ensure(5 + text.length);
    this.buf[this.pos] = 1;
    this.buf.writeUInt32LE(text.length, this.pos + 1);
    this.buf.write(text, this.pos + 5, 'latin1');
    this.pos += 5 + text.length;
  }

  script(script: Uint8Array): void {
    this.u32(script.length);
    this.ensure(script.length);
    this.buf.set(script, this.pos);
    this.pos += script.length;
  }

  /**
   * A script given in hex, length-prefixed; returns where its bytes start, or -1 (nothing written)
   * when the text is not hex through to its end.
   */
  scriptHex(hex: string): number {
    const max = hex.length >> 1;
    this.ensure(4 + max);
    const start = this.pos + 4;
    const written = this.buf.write(hex, start, max, 'hex');
    if (written * 2 !== hex.length) return -1;
    this.buf.writeUInt32LE(written, this.pos);
    this.pos = start + written;
    return start;
  }

  /** The scratch buffer itself, valid until the next write (for checks on what was just written). */
  get scratch(): Buffer {
    return this.buf;
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.pos); // its own ArrayBuffer: a clone copies only this block
    out.set(this.buf.subarray(0, this.pos));
    return out;
  }
}

/** Sequential reads over an encoded block. */
export class BlockReader {
  readonly buf: Buffer;
  pos: number;

  constructor(bytes: Uint8Array, pos = 0) {
    this.buf = asBuffer(bytes);
    this.pos = pos;
  }

  u32(): number {
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  f64(): number {
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  /** The txid's map key (see keyOfTxid); `txidBlob` then gives its bytes. */
  txidKey(): string {
    const p = this.pos;
    if (this.buf[p] === 0) {
      this.pos = p + 33;
      return this.buf.toString('latin1', p + 1, p + 33);
    }
    return keyOfTxid(this.verbatim());
  }

  /** The bytes stored for a txid, as the old `txidBlob(hex)` made them. */
  txidBlob(): Buffer {
    const p = this.pos;
    if (this.buf[p] === 0) {
      this.pos = p + 33;
      return this.buf.subarray(p + 1, p + 33);
    }
    return Buffer.from(this.verbatim(), 'hex');
  }

  txidText(): string {
    const p = this.pos;
    if (this.buf[p] === 0) {
      this.pos = p + 33;
      return this.buf.toString('hex', p + 1, p + 33);
    }
    return this.verbatim();
  }

  skipTxid(): void {
    this.pos += this.buf[this.pos] === 0 ? 33 : 5 + this.buf.readUInt32LE(this.pos + 1);
  }

  private verbatim(): string {
    const length = this.buf.readUInt32LE(this.pos + 1);
    const start = this.pos + 5;
    this.pos = start + length;
    return this.buf.toString('utf8', start, start + length);
  }

  amount(): bigint {
    const p = this.pos;
    if (this.buf[p] === 0) {
      this.pos = p + 9;
      return this.buf.readBigInt64LE(p + 1);
    }
    const length = this.buf.readUInt32LE(p + 1);
    this.pos = p + 5 + length;
    return BigInt(this.buf.toString('latin1', p + 5, p + 5 + length));
  }

  /** A view of the script bytes (no copy). */
  script(): Buffer {
    const length = this.u32();
    const start = this.pos;
    this.pos = start + length;
    return this.buf.subarray(start, start + length);
  }

  skipOutputs(count: number): void {
    for (let i = 0; i < count; i++) {
      this.pos += 4 + this.buf.readUInt32LE(this.pos) + 8; // script, vout
      this.pos += this.buf[this.pos] === 0 ? 9 : 5 + this.buf.readUInt32LE(this.pos + 1);
    }
  }
}

/**
 * classifyOutputScript(s).type !== 'other', on bytes in place: it runs for every output, and the
 * classifier allocates a view and a hash copy per call. verbose-block.test.ts holds the two equal.
 * The outputs the index keeps, whichever way a block is read (verbose, raw, raw into LevelDB rows).
 */
export function isStandardScript(b: Uint8Array, at: number, length: number): boolean {
  switch (length) {
    case 25:
      return b[at] === OP.OP_DUP && b[at + 1] === OP.OP_HASH160 && b[at + 2] === 20 && b[at + 23] === OP.OP_EQUALVERIFY && b[at + 24] === OP.OP_CHECKSIG;
    case 23:
      return b[at] === OP.OP_HASH160 && b[at + 1] === 20 && b[at + 22] === OP.OP_EQUAL;
    case 22:
      return b[at] === OP.OP_0 && b[at + 1] === 20;
    case 34:
      return (b[at] === OP.OP_0 || b[at] === OP.OP_1) && b[at + 1] === 32;
    default:
      return false;
  }
}

/**
 * An IndexedTx whose txid, inputs and outputs are read on first use from the bytes it views, then
 * kept (like a plain object's fields): most of a block's txs are never asked for them.
 */
export abstract class LazyTx implements IndexedTx {
  #txid: string | undefined;
  #inputs: Outpoint[] | undefined;
  #outputs: IndexedOutput[] | undefined;

  constructor(txid: string | undefined) {
    this.#txid = txid;
  }

  protected abstract readTxid(): string;
  protected abstract decode(): { inputs: Outpoint[]; outputs: IndexedOutput[] };

  get txid(): string {
    this.#txid ??= this.readTxid();
    return this.#txid;
  }

  get inputs(): Outpoint[] {
    if (!this.#inputs) this.fill();
    return this.#inputs!;
  }

  get outputs(): IndexedOutput[] {
    if (!this.#outputs) this.fill();
    return this.#outputs!;
  }

  private fill(): void {
    const { inputs, outputs } = this.decode();
    this.#inputs = inputs;
    this.#outputs = outputs;
  }
}

/** A tx of an encoded block. */
export class EncodedTx extends LazyTx {
  private readonly bytes: Uint8Array;
  /** Where the tx starts in `bytes` (at its txid). */
  private readonly offset: number;

  // Plain fields, not parameter properties: the writer thread loads this file with Node's own
  // type stripping, which only erases types. `txid` undefined: read from the bytes on first use (a
  // block parsed on a worker thread comes back as bytes; most of its txids are never asked for).
  constructor(txid: string | undefined, bytes: Uint8Array, offset: number) {
    super(txid);
    this.bytes = bytes;
    this.offset = offset;
  }

  protected readTxid(): string {
    return new BlockReader(this.bytes, this.offset).txidText();
  }

  protected decode(): { inputs: Outpoint[]; outputs: IndexedOutput[] } {
    const r = new BlockReader(this.bytes, this.offset);
    r.skipTxid();
    const inputs: Outpoint[] = [];
    for (let n = r.u32(); n > 0; n--) inputs.push({ txid: r.txidText(), vout: r.f64() });
    const outputs: IndexedOutput[] = [];
    for (let n = r.u32(); n > 0; n--) {
      const script = r.script();
      const vout = r.f64();
      outputs.push({ vout, script, amount: r.amount() });
    }
    return { inputs, outputs };
  }
}

// Blocks read by the indexer carry their encoding (their txs are EncodedTx views of it), and, when
// a parse thread made them, the LevelDB index's rows of the block (level-rows.ts).
const encodings = new WeakMap<IndexedBlock, { txs: readonly IndexedTx[]; bytes: Uint8Array; rows: Uint8Array | undefined; raw: RawBlock | undefined }>();

export function rememberEncoding(block: IndexedBlock, bytes: Uint8Array, rows?: Uint8Array, raw?: RawBlock): void {
  encodings.set(block, { txs: block.txs, bytes, rows, raw });
}

const plainEncoder = new BlockEncoder();

/** A block's encoding: the one it was read with, or one made from its plain objects. */
export function encodedOf(block: IndexedBlock): EncodedBlock {
  const known = encodings.get(block);
  let bytes: Uint8Array;
  if (known && known.txs === block.txs) {
    bytes = known.bytes;
    if (known.rows) return { height: block.height, hash: block.hash, time: block.time, bytes, levelRows: known.rows, ...(known.raw ? { raw: known.raw } : {}) };
  } else {
    const e = plainEncoder;
    e.reset();
    e.u32(block.txs.length);
    for (const tx of block.txs) {
      e.txid(tx.txid);
      e.u32(tx.inputs.length);
      for (const input of tx.inputs) {
        e.txid(input.txid);
        e.f64(input.vout);
      }
      e.u32(tx.outputs.length);
      for (const out of tx.outputs) {
        e.script(out.script);
        e.f64(out.vout);
        e.amount(out.amount);
      }
    }
    bytes = e.finish();
  }
  return { height: block.height, hash: block.hash, time: block.time, bytes };
}
