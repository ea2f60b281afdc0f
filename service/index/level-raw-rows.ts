// The LevelDB index's rows of a block, read straight from its raw bytes (`getblock <hash> 0`) in one
// pass: no object per input or output, no hex string. It gives the same rows, in the same order,
// as streamRows over the block's compact encoding (level-rows.ts; level-raw-rows.test.ts and
// raw-block.regtest.test.ts prove it on every block of real regtest chains), and the txids (for the
// mempool) and where each tx starts (to decode one when asked). The parse threads
// (chains/utxo/block-parse-worker.ts) and the main thread, when it parses itself, both call it.
//
// It reads what the coin codec (shared/coins/block.ts) reads and refuses what it refuses: on any
// refusal the codec reads the block again and its own error (a CoinError: the block is then read as
// verbose JSON) is the one thrown, so a codec gap behaves exactly as before.
// Loaded by the parse threads through Node's type stripping: erasable syntax only.
import { hash } from 'node:crypto';
import { decodeBitcoinBlock, type BlockCodecChoice } from '../../shared/coins/block.ts';
import { reversedHex } from '../../shared/coins/bytes.ts';
import { CoinError } from '../../shared/coins/errors.ts';
import { endsTxidRow, FUNDING_VALUE_MAX, fundingValue, HASH_CHECK, HASH_KEY, SCRIPT_CHECK, TAG, TXID_BYTES, TXIDS_PER_ROW, writeLeb, writeOrderedVarint } from './level-rows.ts';
import { SCRIPT_KEY_BYTES, scriptHash } from './script-keys.ts';
import { txNumOf } from './txnum.ts';
import { isStandardScript } from './blocks.ts';

/** What a raw block gives besides its rows; `rows` as RowBuffer lays them out (u8 key length, key, u32 LE value length, value). */
export interface RawRows {
  previousHash: string | null;
  time: number;
  /** Each tx's txid, 32 bytes in display (RPC) order. */
  txids: Uint8Array;
  /** Where each tx starts in the raw block. */
  offsets: Uint32Array;
  rows: Uint8Array;
}

const HEADER = 80;
// the codec's bounds (shared/coins/tx-transparent.ts, block.ts): a count whose items cannot fit is refused
const MIN_TX = 60;
const MIN_INPUT = 41;
const MIN_OUTPUT = 9;
const MAX_SIZE = 0x02000000;
const COINBASE_VOUT = 0xffffffff;
/** Below 2^52 (high word below 2^20) an amount's F value is LEB128 of amount * 2 + flag. */
const SMALL_HIGH = 0x100000;

/** The walk stopped where the codec refuses the block: the codec then says why in its own words. */
class Refused {
  readonly why: string;
  constructor(why: string) {
    this.why = why;
  }
}

/** Two spends' fingerprints met but not their outpoints: the block is read again, checked exactly. */
const INEXACT = Symbol('fingerprints met');

const isDashSpecial = (version: number): boolean => (version & 0xffff) >= 3 && version >>> 16 !== 0;

/**
 * Reads raw blocks into rows; one per thread (its scratch buffers are reused block after block,
 * so a block allocates its answer and a few views a tx).
 */
export class RawRowReader {
  private b: Buffer = Buffer.alloc(0);
  private len = 0;
  private p = 0;
  private out = Buffer.allocUnsafeSlow(1 << 20);
  private o = 0;
  /** The serialization a txid hashes, when a segwit or MWEB flag splits it. */
  private legacy = Buffer.allocUnsafeSlow(1 << 16);
  /** Where each input's outpoint is, and each output's value, script start and length (this tx's). */
  private inputsAt = new Uint32Array(1024);
  private outputsAt = new Uint32Array(3 * 1024);
  private readonly spent = Buffer.allocUnsafeSlow(32);
  /** Spends of this block by fingerprint (48 bits of hash and vout) -> outpoint offset. */
  private readonly spends = new Map<number, number>();

  /**
   * The block's rows at `height`. `seen` checks spends against earlier blocks' too, by outpoint
   * (putRows names a double spend across blocks with it); without it a block checks its own.
   */
  read(raw: Uint8Array, height: number, chain: BlockCodecChoice, seen?: Map<string, number>): RawRows {
    try {
      return this.walk(raw, height, chain, seen ?? null);
    } catch (err) {
      if (err === INEXACT) return this.read(raw, height, chain, seen ?? new Map());
      // any refusal, or an error while making rows, is the codec's first when the codec refuses the block
      try {
        decodeBitcoinBlock(raw, chain);
      } catch (codec) {
        if (codec instanceof CoinError) throw codec;
      }
      if (err instanceof Refused) throw new CoinError(`block ${height}: the raw block reader refused a block the codec reads (${err.why})`);
      throw err;
    } finally {
      this.b = Buffer.alloc(0);
      this.spends.clear();
    }
  }

  private need(n: number): void {
    if (this.p + n > this.len) throw new Refused(`truncated at ${this.p}`);
  }

  /** A CompactSize count or length, canonical and at most MAX_SIZE (the only ones the codec takes). */
  private varint(): number {
    this.need(1);
    const b = this.b;
    const first = b[this.p++]!;
    if (first < 0xfd) return first;
    let v: number;
    if (first === 0xfd) {
      this.need(2);
      v = b.readUInt16LE(this.p);
      this.p += 2;
      if (v < 0xfd) throw new Refused('a non-canonical length');
    } else if (first === 0xfe) {
      this.need(4);
      v = b.readUInt32LE(this.p);
      this.p += 4;
      if (v < 0x10000) throw new Refused('a non-canonical length');
    } else throw new Refused('an 8-byte length'); // canonical only from 2^32: beyond MAX_SIZE
    if (v > MAX_SIZE) throw new Refused('a length beyond MAX_SIZE');
    return v;
  }

  private count(minItem: number): number {
    const n = this.varint();
    if (n * minItem > this.len - this.p) throw new Refused('a count that cannot fit');
    return n;
  }

  private skipBytes(): void {
    const n = this.varint();
    this.need(n);
    this.p += n;
  }

  private room(n: number): void {
    if (this.o + n <= this.out.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(2 * this.out.length, this.o + n));
    this.out.copy(bigger, 0, 0, this.o);
    this.out = bigger;
  }

  private walk(raw: Uint8Array, height: number, chain: BlockCodecChoice, seen: Map<string, number> | null): RawRows {
    const b = (this.b = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
    this.len = b.length;
    this.o = 0;
    if (b.length < HEADER) throw new Refused('shorter than a header');
    const previousHash = b.subarray(4, 36).every((x) => x === 0) ? null : reversedHex(b, 4, 36);
    const time = b.readUInt32LE(68);
    this.p = HEADER;
    const count = this.count(MIN_TX);
    if (count === 0) throw new Refused('no transactions');
    const segwit = chain.segwit;
    const mweb = chain.rawBlocks === 'bitcoin-mweb';
    const dash = chain.specialTx === 'dash-dip2';
    const txids = new Uint8Array(32 * count);
    const offsets = new Uint32Array(count);
    let lastHogEx = false;
    for (let i = 0; i < count; i++) {
      // ---- the tx's structure, checked as the codec checks it
      const start = this.p;
      offsets[i] = start;
      this.need(4);
      const version = b.readInt32LE(start);
      this.p += 4;
      let flag = 0;
      if (segwit && this.p < this.len && b[this.p] === 0) {
        this.need(2);
        flag = b[this.p + 1]!;
        this.p += 2;
        if (!(flag === 0x01 || (mweb && (flag === 0x08 || flag === 0x09)))) throw new Refused('an unknown flag');
      }
      const inputsAt = this.p;
      const inputs = this.count(MIN_INPUT);
      if (flag !== 0 && inputs === 0) throw new Refused('a flag and no inputs');
      if (this.inputsAt.length < inputs) this.inputsAt = new Uint32Array(2 * inputs);
      const ins = this.inputsAt;
      for (let n = 0; n < inputs; n++) {
        ins[n] = this.p;
        this.need(36);
        this.p += 36;
        this.skipBytes();
        this.need(4);
        this.p += 4;
      }
      const outputs = this.count(MIN_OUTPUT);
      if (this.outputsAt.length < 3 * outputs) this.outputsAt = new Uint32Array(6 * outputs);
      const outs = this.outputsAt;
      for (let n = 0; n < outputs; n++) {
        this.need(8);
        outs[3 * n] = this.p;
        this.p += 8;
        const length = this.varint();
        this.need(length);
        outs[3 * n + 1] = this.p;
        outs[3 * n + 2] = length;
        this.p += length;
      }
      const outputsEnd = this.p;
      if ((flag & 0x01) !== 0) {
        let any = false;
        for (let n = 0; n < inputs; n++) {
          const items = this.count(1);
          if (items > 0) any = true;
          for (let k = 0; k < items; k++) this.skipBytes();
        }
        if (!any) throw new Refused('a segwit serialization with empty witnesses');
      }
      let hogEx = false;
      if ((flag & 0x08) !== 0) {
        this.need(1);
        if (b[this.p++] !== 0) throw new Refused('an MWEB transaction');
        if (outputs === 0) throw new Refused('a HogEx without outputs');
        hogEx = true;
      }
      const locktimeAt = this.p;
      this.need(4);
      this.p += 4;
      if (dash && isDashSpecial(version)) this.skipBytes();
      const end = this.p;
      if (hogEx && i !== count - 1) throw new Refused('a HogEx before the last transaction');
      lastHogEx = hogEx;

      // ---- the txid: sha256d of the serialization without witness (hashed in place when it is one run)
      let first: Buffer;
      if (inputsAt === start + 4 && outputsEnd === locktimeAt) first = hash('sha256', b.subarray(start, end), 'buffer');
      else {
        const size = 4 + (outputsEnd - inputsAt) + (end - locktimeAt);
        if (this.legacy.length < size) this.legacy = Buffer.allocUnsafeSlow(2 * size);
        const l = this.legacy;
        b.copy(l, 0, start, start + 4);
        b.copy(l, 4, inputsAt, outputsEnd);
        b.copy(l, 4 + (outputsEnd - inputsAt), locktimeAt, end);
        first = hash('sha256', l.subarray(0, size), 'buffer');
      }
      const second = hash('sha256', first, 'buffer');
      const t = 32 * i;
      for (let k = 0; k < 32; k++) txids[t + k] = second[31 - k]!;
      const txid = txids.subarray(t, t + 32);

      // ---- its rows, in streamRows' order: K, S an input, F an output kept, then T after a group's last tx
      const txnum = txNumOf(height, i);
      const coinbase = inputs === 0 || (inputs === 1 && b.readUInt32LE(ins[0]! + 32) === COINBASE_VOUT && isZero(b, ins[0]!, 32));
      // K 20, per input S at most 29, per output F at most 38
      this.room(128 + 32 * inputs + 40 * outputs);
      const o = this.out;
      let at = this.o;
      const kHash = hash('sha256', txid, 'buffer');
      o[at] = 1 + HASH_KEY + 6;
      o[at + 1] = TAG.txidKey;
      kHash.copy(o, at + 2, 0, HASH_KEY);
      o.writeUIntBE(txnum, at + 2 + HASH_KEY, 6);
      at += 2 + HASH_KEY + 6;
      o.writeUInt32LE(0, at);
      at += 4;
      if (!coinbase) {
        let h: Buffer | null = null;
        for (let n = 0; n < inputs; n++) {
          const op = ins[n]!;
          const vout = b.readUInt32LE(op + 32);
          // K and S rows hash a txid's display order; consecutive spends of one tx share the hash
          if (h === null || n === 0 || b.compare(b, ins[n - 1]!, ins[n - 1]! + 32, op, op + 32) !== 0) {
            for (let k = 0; k < 32; k++) this.spent[k] = b[op + 31 - k]!;
            h = hash('sha256', this.spent, 'buffer');
          }
          if (seen) {
            for (let k = 0; k < 32; k++) this.spent[k] = b[op + 31 - k]!;
            const outpoint = `${this.spent.toString('latin1')}:${vout}`;
            const earlier = seen.get(outpoint);
            if (earlier !== undefined) throw new Error(`${this.spent.toString('hex')}:${vout} is spent twice, in blocks ${earlier} and ${height}`);
            seen.set(outpoint, height);
          } else {
            const fingerprint = ((h.readUInt32LE(0) ^ vout) >>> 0) * 0x10000 + h.readUInt16LE(4);
            const earlier = this.spends.get(fingerprint);
            if (earlier !== undefined) {
              if (b.compare(b, earlier, earlier + 36, op, op + 36) !== 0) throw INEXACT;
              for (let k = 0; k < 32; k++) this.spent[k] = b[op + 31 - k]!;
              throw new Error(`${this.spent.toString('hex')}:${vout} is spent twice, in blocks ${height} and ${height}`);
            }
            this.spends.set(fingerprint, op);
          }
          const keyAt = at;
          o[at + 1] = TAG.spending;
          h.copy(o, at + 2, 0, HASH_KEY);
          at = writeOrderedVarint(o, at + 2 + HASH_KEY, vout);
          o.writeUIntBE(txnum, at, 6);
          at += 6;
          o[keyAt] = at - keyAt - 1;
          o.writeUInt32LE(HASH_CHECK, at);
          h.copy(o, at + 4, HASH_KEY, HASH_KEY + HASH_CHECK);
          at += 4 + HASH_CHECK;
        }
      }
      for (let n = 0; n < outputs; n++) {
        const scriptAt = outs[3 * n + 1]!;
        const length = outs[3 * n + 2]!;
        if (!isStandardScript(b, scriptAt, length)) continue;
        // the key's 8 bytes of the script's hash, and the next SCRIPT_CHECK as the value's check
        const h = scriptHash(b.subarray(scriptAt, scriptAt + length));
        const keyAt = at;
        o[at + 1] = TAG.funding;
        h.copy(o, at + 2, 0, SCRIPT_KEY_BYTES);
        o.writeUIntBE(txnum, at + 10, 6);
        at = writeOrderedVarint(o, at + 16, n);
        o[keyAt] = at - keyAt - 1;
        const checkAt = at + 4;
        h.copy(o, checkAt, SCRIPT_KEY_BYTES, SCRIPT_KEY_BYTES + SCRIPT_CHECK);
        const valueAt = outs[3 * n]!;
        const high = b.readUInt32LE(valueAt + 4);
        const valueEnd =
          high < SMALL_HIGH
            ? writeLeb(o, checkAt + SCRIPT_CHECK, (high * 0x100000000 + b.readUInt32LE(valueAt)) * 2 + (coinbase ? 1 : 0))
            : checkAt + fundingValue(o.subarray(checkAt, checkAt + FUNDING_VALUE_MAX), h, coinbase, b.readBigUInt64LE(valueAt)).length;
        o.writeUInt32LE(valueEnd - at - 4, at);
        at = valueEnd;
      }
      this.o = at;
      // the T row of this tx's group, after its last tx (or the block's): the group's txids
      if (endsTxidRow(i, count)) {
        const from = i - (i % TXIDS_PER_ROW);
        const bytes = (i + 1 - from) * TXID_BYTES;
        this.room(12 + bytes);
        const t = this.out;
        at = this.o;
        t[at] = 7;
        t[at + 1] = TAG.txid;
        t.writeUIntBE(Math.floor(txnum / TXIDS_PER_ROW), at + 2, 6);
        t.writeUInt32LE(bytes, at + 8);
        t.set(txids.subarray(from * TXID_BYTES, from * TXID_BYTES + bytes), at + 12);
        this.o = at + 12 + bytes;
      }
    }
    // Litecoin's MWEB extension block follows a last HogEx, unread (it pays no transparent output)
    if (this.p !== this.len && !(mweb && count >= 2 && lastHogEx)) throw new Refused('trailing bytes');
    const rows = new Uint8Array(this.o); // its own ArrayBuffer: transferred whole
    rows.set(this.out.subarray(0, this.o));
    return { previousHash, time, txids, offsets, rows };
  }
}

function isZero(b: Buffer, at: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (b[at + k] !== 0) return false;
  return true;
}
