// Reads a node's verbose block or transaction (getblock verbosity 2, getrawtransaction true)
// straight into the index's compact form, checking each field it uses: a malformed answer is a
// clear error, and the JSON tree is dropped as soon as it is read (no validated copy is made).
// Only outputs paying a standard script are kept; addresses are rendered at query time with the
// coin's own prefixes, never taken from the node.
import { classifyOutputScript } from '../../../shared/coins/script.ts';
import type { IndexedBlock, IndexedOutput, IndexedTx, Outpoint } from '../../store/utxo-index.ts';
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

// Native hex decoding: this runs for every output of every block.
function scriptBytes(hex: string, txid: string): Uint8Array {
  const bytes = Buffer.from(hex, 'hex');
  if (bytes.length * 2 !== hex.length) throw new MalformedNodeAnswer(`${txid}: a scriptPubKey is not hex`);
  return bytes;
}

export function readVerboseTx(json: unknown, decimals: number, where = 'transaction'): IndexedTx {
  const tx = object(json, where);
  const txid = string(tx.txid, `${where}.txid`);
  const inputs: Outpoint[] = [];
  for (const vin of array(tx.vin, `${where}.vin`)) {
    const input = object(vin, `${where}.vin[]`);
    if (input.coinbase !== undefined) continue;
    inputs.push({ txid: string(input.txid, `${txid}.vin.txid`), vout: integer(input.vout, `${txid}.vin.vout`) });
  }
  const outputs: IndexedOutput[] = [];
  for (const vout of array(tx.vout, `${where}.vout`)) {
    const out = object(vout, `${txid}.vout[]`);
    const spk = object(out.scriptPubKey, `${txid}.vout.scriptPubKey`);
    const script = scriptBytes(string(spk.hex, `${txid}.vout.scriptPubKey.hex`), txid);
    if (classifyOutputScript(script).type === 'other') continue;
    const value = out.value;
    if (typeof value !== 'number' && typeof value !== 'string') throw new MalformedNodeAnswer(`${txid}.vout.value is not a number`);
    outputs.push({ vout: integer(out.n, `${txid}.vout.n`), script, amount: coinsToUnits(value, decimals) });
  }
  return { txid, inputs, outputs };
}

export interface ReadBlock extends IndexedBlock {
  previousHash: string | null;
}

export function readVerboseBlock(json: unknown, decimals: number): ReadBlock {
  const block = object(json, 'block');
  const hash = string(block.hash, 'block.hash');
  const height = integer(block.height, `block ${hash}: height`);
  const previousHash = block.previousblockhash === undefined ? null : string(block.previousblockhash, `block ${height}: previousblockhash`);
  const time = integer(block.time, `block ${height}: time`);
  const txs = array(block.tx, `block ${height}: tx`).map((t) => readVerboseTx(t, decimals, `block ${height}: tx`));
  return { hash, height, previousHash, time, txs };
}
