// Reads a node's verbose block or transaction (getblock verbosity 2, getrawtransaction true)
// straight into the index's compact form, checking each field it uses: a malformed answer is a
// clear error, and the JSON tree is dropped as soon as it is read (no validated copy is made).
// Only outputs paying a standard script are kept; addresses are rendered at query time with the
// coin's own prefixes, never taken from the node. The txs are encoded into one buffer per block
// (index/blocks.ts): the index's own input form, and few objects to keep.
import { BlockEncoder, EncodedTx, type IndexedBlock, type IndexedTx, isStandardScript, rememberEncoding } from '../../index/blocks.ts';
import { coinsToUnits } from './rpc-client.ts';

export class MalformedNodeAnswer extends Error {}

type Json = Record<string, unknown>;

function object(value: unknown, what: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MalformedNodeAnswer(`${what} is not an object`);
  return value as Json;
}

function array(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new MalformedNodeAnswer(`${what} is not an array`);
  return value;
}

function string(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new MalformedNodeAnswer(`${what} is not a string`);
  return value;
}

function integer(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new MalformedNodeAnswer(`${what} is not a non-negative integer`);
  return value;
}

/** Appends one tx to `e` (an input or output count is patched in once known); returns its txid. */
function encodeVerboseTx(e: BlockEncoder, json: unknown, decimals: number, where: string): string {
  const tx = object(json, where);
  const txid = string(tx.txid, `${where}.txid`);
  e.txid(txid);
  const inputCountAt = e.pos;
  e.u32(0);
  let inputs = 0;
  for (const vin of array(tx.vin, `${where}.vin`)) {
    const input = object(vin, `${where}.vin[]`);
    if (input.coinbase !== undefined) continue;
    const spent = string(input.txid, `${txid}.vin.txid`);
    const vout = integer(input.vout, `${txid}.vin.vout`);
    e.txid(spent);
    e.f64(vout);
    inputs++;
  }
  e.patchU32(inputCountAt, inputs);
  const outputCountAt = e.pos;
  e.u32(0);
  let outputs = 0;
  for (const vout of array(tx.vout, `${where}.vout`)) {
    const out = object(vout, `${txid}.vout[]`);
    const spk = object(out.scriptPubKey, `${txid}.vout.scriptPubKey`);
    const hex = string(spk.hex, `${txid}.vout.scriptPubKey.hex`);
    const mark = e.pos;
    const start = e.scriptHex(hex);
    if (start < 0) throw new MalformedNodeAnswer(`${txid}: a scriptPubKey is not hex`);
    if (!isStandardScript(e.scratch, start, e.pos - start)) {
      e.pos = mark;
      continue;
    }
    const value = out.value;
    if (typeof value !== 'number' && typeof value !== 'string') throw new MalformedNodeAnswer(`${txid}.vout.value is not a number`);
    e.f64(integer(out.n, `${txid}.vout.n`));
    e.amount(coinsToUnits(value, decimals));
    outputs++;
  }
  e.patchU32(outputCountAt, outputs);
  return txid;
}

const encoder = new BlockEncoder(); // blocks and txs are read synchronously, one at a time

function readTxs(txs: readonly unknown[], decimals: number, where: string): { txs: IndexedTx[]; bytes: Uint8Array } {
  const e = encoder;
  e.reset();
  e.u32(txs.length);
  const txids: string[] = [];
  const offsets: number[] = [];
  for (const t of txs) {
    offsets.push(e.pos);
    txids.push(encodeVerboseTx(e, t, decimals, where));
  }
  const bytes = e.finish();
  return { txs: txids.map((txid, i) => new EncodedTx(txid, bytes, offsets[i]!)), bytes };
}

export function readVerboseTx(json: unknown, decimals: number, where = 'transaction'): IndexedTx {
  return readTxs([json], decimals, where).txs[0]!;
}

export interface ReadBlock extends IndexedBlock {
  previousHash: string | null;
  /** The block's serialized size in bytes, when the node told it: what batches are bounded by. */
  size?: number;
}

export function readVerboseBlock(json: unknown, decimals: number): ReadBlock {
  const block = object(json, 'block');
  const hash = string(block.hash, 'block.hash');
  const height = integer(block.height, `block ${hash}: height`);
  const previousHash = block.previousblockhash === undefined ? null : string(block.previousblockhash, `block ${height}: previousblockhash`);
  const time = integer(block.time, `block ${height}: time`);
  const { txs, bytes } = readTxs(array(block.tx, `block ${height}: tx`), decimals, `block ${height}: tx`);
  const size = block.size === undefined ? undefined : integer(block.size, `block ${height}: size`);
  const read: ReadBlock = { hash, height, previousHash, time, txs, ...(size === undefined ? {} : { size }) };
  rememberEncoding(read, bytes);
  return read;
}
