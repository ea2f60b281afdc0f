// The rows a batch of confirmed blocks adds to the index, computed from the blocks and the
// already-indexed outputs they spend. Pure: both storage paths write what this returns.
import type { Database } from './schema.ts';

export interface IndexedOutput {
  vout: number;
  script: Uint8Array;
  amount: bigint;
}

export interface Outpoint {
  txid: string;
  vout: number;
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

export type Spent = { script: Uint8Array; amount: bigint };

export interface IndexRows {
  outputs: Database['chain_outputs'][];
  spends: Database['chain_spends'][];
  history: Database['chain_history'][];
  /** Net change of each script's confirmed balance. */
  balances: Database['chain_balances'][];
  blocks: Database['chain_blocks'][];
}

export const outpointKey = (txid: string, vout: number) => `${txid}:${vout}`;

export function hexOf(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

/** Scripts go to the drivers as Buffers (pg would send a plain Uint8Array as text). */
export function blob(b: Uint8Array): Uint8Array {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** Txids are stored as 32 bytes in the confirmed tables (hex everywhere else). */
export function txidBlob(hex: string): Uint8Array {
  return Buffer.from(hex, 'hex');
}

export function txidHexOf(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
  throw new TypeError('txid column is not binary');
}

/** Txids of outputs the txs spend that the txs themselves do not create: what must be looked up. */
export function spentTxids(txs: readonly IndexedTx[]): string[] {
  const own = new Set(txs.map((t) => t.txid));
  const wanted = new Set<string>();
  for (const tx of txs) for (const input of tx.inputs) if (!own.has(input.txid)) wanted.add(input.txid);
  return [...wanted];
}

type Deltas = Map<string, { script: Uint8Array; delta: bigint }>;

function addDelta(deltas: Deltas, script: Uint8Array, amount: bigint): void {
  const k = Buffer.from(script.buffer, script.byteOffset, script.byteLength).toString('latin1'); // a map key only
  const d = deltas.get(k);
  if (d) d.delta += amount;
  else deltas.set(k, { script, delta: amount });
}

/** `known`: indexed outputs the blocks spend (by outpointKey); outputs created in the batch are added. */
export function buildIndexRows(chain: string, blocks: readonly IndexedBlock[], known: Map<string, Spent>): IndexRows {
  const rows: IndexRows = { outputs: [], spends: [], history: [], balances: [], blocks: [] };
  const balances: Deltas = new Map();
  for (const block of blocks) {
    block.txs.forEach((tx, position) => {
      const deltas: Deltas = new Map();
      const txid = txidBlob(tx.txid);
      for (const input of tx.inputs) {
        const prev = known.get(outpointKey(input.txid, input.vout));
        if (!prev) continue; // not an output of a standard script
        addDelta(deltas, prev.script, -prev.amount);
        rows.spends.push({ chain, txid: txidBlob(input.txid), vout: input.vout, spent_txid: txid, height: block.height });
      }
      for (const out of tx.outputs) {
        addDelta(deltas, out.script, out.amount);
        known.set(outpointKey(tx.txid, out.vout), { script: out.script, amount: out.amount });
        rows.outputs.push({ chain, txid, vout: out.vout, script: blob(out.script), amount: out.amount, height: block.height, position });
      }
      for (const d of deltas.values()) {
        rows.history.push({ chain, script: blob(d.script), txid, height: block.height, position, time: block.time, delta: d.delta });
        addDelta(balances, d.script, d.delta);
      }
    });
    rows.blocks.push({ chain, height: block.height, hash: block.hash, time: block.time });
  }
  for (const b of balances.values()) rows.balances.push({ chain, script: blob(b.script), confirmed: b.delta });
  return rows;
}
