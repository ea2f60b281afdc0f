// Reads a node's raw block (`getblock <hash> 0`, hex) into the index's compact form, the same form
// verbose-block.ts makes from `getblock <hash> 2`: the transactions are decoded by the coin codec
// (shared/coins/block.ts), which hashes each txid from the block's own bytes. Which coins are read
// this way is the coin table's `rawBlocks` (block-reading.ts).
import { createHash } from 'node:crypto';
import { decodeBitcoinBlock, type BlockCodecChoice, type BlockHashing } from '../../../shared/coins/block.ts';
import { ByteReader, bytesToHex } from '../../../shared/coins/bytes.ts';
import { CoinError } from '../../../shared/coins/errors.ts';
import { readBitcoinTx } from '../../../shared/coins/tx.ts';
import type { Outpoint } from '../backend.ts';
import { BlockEncoder, EncodedTx, isStandardScript, LazyTx, rememberEncoding, type IndexedOutput, type IndexedTx } from '../../index/blocks.ts';
import { RawRowReader } from '../../index/level-raw-rows.ts';
import { MalformedNodeAnswer, type ReadBlock } from './verbose-block.ts';

const NULL_HASH = '0'.repeat(64);
const COINBASE_VOUT = 0xffffffff;

const encoder = new BlockEncoder(); // blocks are read synchronously, one at a time
const hereReader = new RawRowReader(); // the same, for the LevelDB index's rows

/** A block read for the LevelDB index has no compact encoding: its rows and raw bytes stand for it. */
const NO_ENCODING = new Uint8Array(0);

const sha256 = (data: Uint8Array): Buffer => createHash('sha256').update(data).digest();

/** Node's native SHA-256 for the codec's txids (the pure one is several times slower). */
export const NATIVE_HASHING: BlockHashing = {
  sha256d: (parts) => sha256(sha256(parts.length === 1 ? parts[0]! : Buffer.concat(parts))),
};

/** A coinbase's one input spends nothing (Bitcoin Core's IsCoinBase; verbose JSON marks it `coinbase`). */
function isCoinbase(tx: { inputs: readonly { vout: number; prevTxid: Uint8Array }[] }): boolean {
  const first = tx.inputs[0];
  return tx.inputs.length === 1 && first!.vout === COINBASE_VOUT && first!.prevTxid.every((b) => b === 0);
}

/** The raw block's bytes; the hex must be whole (Buffer.from stops quietly at a bad digit). */
export function bytesOfHex(hex: unknown, where: string): Buffer {
  if (typeof hex !== 'string') throw new MalformedNodeAnswer(`${where}: getblock <hash> 0 did not answer a hex string`);
  const bytes = Buffer.from(hex, 'hex');
  if (bytes.length * 2 !== hex.length) throw new MalformedNodeAnswer(`${where}: getblock <hash> 0 answered text that is not hex`);
  return bytes;
}

/** A raw block in the index's compact form (index/blocks.ts): plain bytes and numbers, which a parse thread hands back whole. */
export interface RawBlockParts {
  hash: string;
  height: number;
  previousHash: string | null;
  time: number;
  /** The serialized block's size. */
  size: number;
  /** The encoding, and where each tx starts in it. */
  bytes: Uint8Array;
  offsets: Uint32Array;
}

/**
 * The block `hash` at `height` from its raw hex, encoded. A block the codec cannot read throws the
 * codec's CoinError (block-reading.ts then reads that block's verbose JSON instead).
 */
export function encodeRawBlock(hex: unknown, hash: string, height: number, chain: BlockCodecChoice): RawBlockParts {
  return encodeRawBlockBytes(bytesOfHex(hex, `block ${height} (${hash})`), hash, height, chain);
}

/** The same from the block's bytes (bytesOfHex): a parse thread is handed those, not the hex. */
export function encodeRawBlockBytes(raw: Uint8Array, hash: string, height: number, chain: BlockCodecChoice): RawBlockParts {
  const block = decodeBitcoinBlock(raw, chain, NATIVE_HASHING);
  const e = encoder;
  e.reset();
  e.u32(block.txs.length);
  const offsets = new Uint32Array(block.txs.length);
  block.txs.forEach(({ tx, txid }, i) => {
    offsets[i] = e.pos;
    e.txid(txid);
    if (isCoinbase(tx)) {
      e.u32(0);
    } else {
      e.u32(tx.inputs.length);
      for (const input of tx.inputs) {
        e.txid(bytesToHex(input.prevTxid));
        e.f64(input.vout);
      }
    }
    const outputCountAt = e.pos;
    e.u32(0);
    let outputs = 0;
    tx.outputs.forEach((out, n) => {
      if (!isStandardScript(out.script, 0, out.script.length)) return;
      e.script(out.script);
      e.f64(n);
      e.amount(out.value);
      outputs++;
    });
    e.patchU32(outputCountAt, outputs);
  });
  const previousHash = block.header.previousHash === NULL_HASH ? null : block.header.previousHash;
  return { hash, height, previousHash, time: block.header.time, size: raw.length, bytes: e.finish(), offsets };
}

/** The ReadBlock of an encoded raw block (the SQL stores'). Txids are read from the bytes when asked. */
export function readBlockOf(parts: RawBlockParts): ReadBlock {
  const { bytes, offsets } = parts;
  const txs: IndexedTx[] = Array.from(offsets, (offset) => new EncodedTx(undefined, bytes, offset));
  const read: ReadBlock = { hash: parts.hash, height: parts.height, previousHash: parts.previousHash, time: parts.time, txs, size: parts.size };
  rememberEncoding(read, bytes);
  return read;
}

/**
 * The block `hash` at `height` from its raw hex. A block the codec cannot read throws the codec's
 * CoinError (block-reading.ts then reads that block's verbose JSON instead). `levelRows`: read
 * for the LevelDB index (its rows, no compact encoding: rawRowsOf), as a parse thread does.
 */
export function readRawBlock(hex: unknown, hash: string, height: number, chain: BlockCodecChoice, levelRows = false): ReadBlock {
  const where = `block ${height} (${hash})`;
  if (levelRows) return readBlockOfRows(rawRowsOf(bytesOfHex(hex, where), hash, height, chain, hereReader), chain);
  return readBlockOf(encodeRawBlock(hex, hash, height, chain));
}

/**
 * A raw block read for the LevelDB index: its rows, made from its bytes in one pass
 * (index/level-raw-rows.ts), its txids and where each tx starts; the raw bytes themselves come
 * back (transferred, not copied) to decode a tx when one is asked for. Plain bytes and numbers.
 */
export interface RawRowsParts {
  hash: string;
  height: number;
  previousHash: string | null;
  time: number;
  raw: Uint8Array;
  txids: Uint8Array;
  offsets: Uint32Array;
  rows: Uint8Array;
}

/** The one way a raw block becomes the LevelDB index's rows: on a parse thread, or here (parseThreads 0). */
export function rawRowsOf(raw: Uint8Array, hash: string, height: number, chain: BlockCodecChoice, reader: RawRowReader): RawRowsParts {
  const { previousHash, time, txids, offsets, rows } = reader.read(raw, height, chain);
  return { hash, height, previousHash, time, raw, txids, offsets, rows };
}

/** The ReadBlock of a block read for the LevelDB index: its txs decoded from the raw bytes only when asked (RawTx). */
export function readBlockOfRows(parts: RawRowsParts, chain: BlockCodecChoice): ReadBlock {
  const txs: IndexedTx[] = new Array<IndexedTx>(parts.offsets.length);
  const view: RawTxs = { raw: parts.raw, txids: parts.txids, offsets: parts.offsets, chain };
  for (let i = 0; i < txs.length; i++) txs[i] = new RawTx(view, i);
  const read: ReadBlock = { hash: parts.hash, height: parts.height, previousHash: parts.previousHash, time: parts.time, txs, size: parts.raw.length };
  rememberEncoding(read, NO_ENCODING, parts.rows, { bytes: parts.raw, chain });
  return read;
}

interface RawTxs {
  raw: Uint8Array;
  txids: Uint8Array;
  offsets: Uint32Array;
  chain: BlockCodecChoice;
}

/**
 * A tx of a block read for the LevelDB index: its txid from the block's txids, its inputs and
 * outputs decoded from the raw bytes on first use (the index itself never asks: it has the rows).
 * The same inputs and outputs as encodeRawBlockBytes keeps (no coinbase input, standard outputs).
 */
class RawTx extends LazyTx {
  private readonly block: RawTxs;
  private readonly i: number;

  constructor(block: RawTxs, i: number) {
    super(undefined);
    this.block = block;
    this.i = i;
  }

  protected readTxid(): string {
    const { txids } = this.block;
    return Buffer.from(txids.buffer, txids.byteOffset + 32 * this.i, 32).toString('hex');
  }

  protected decode(): { inputs: Outpoint[]; outputs: IndexedOutput[] } {
    const { raw, offsets, chain } = this.block;
    const how = { allowWitness: chain.segwit, dash: chain.specialTx === 'dash-dip2', mweb: chain.rawBlocks === 'bitcoin-mweb' };
    const tx = readBitcoinTx(new ByteReader(raw.subarray(offsets[this.i])), how);
    const inputs = isCoinbase(tx) ? [] : tx.inputs.map((input) => ({ txid: bytesToHex(input.prevTxid), vout: input.vout }));
    const outputs: IndexedOutput[] = [];
    tx.outputs.forEach((out, n) => {
      if (isStandardScript(out.script, 0, out.script.length)) outputs.push({ vout: n, script: Buffer.from(out.script), amount: out.value });
    });
    return { inputs, outputs };
  }
}

export function isCodecGap(err: unknown): err is CoinError {
  return err instanceof CoinError;
}
