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

/** A spend of an output indexed by an earlier batch: marked on its row. */
export interface SpendMark {
  chain: string;
  txid: Uint8Array;
  vout: number;
  spent_txid: Uint8Array;
  spent_height: number;
}

export interface IndexRows {
  /** Those spent within the batch carry their spend already. */
  outputs: Database['chain_outputs'][];
  spends: SpendMark[];
  history: Database['chain_history'][];
  /** Net change of each script's confirmed balance, and its count of history rows added. */
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

type Deltas = Map<string, { script: Uint8Array; delta: bigint; rows: number }>;

function addDelta(deltas: Deltas, script: Uint8Array, amount: bigint, rows = 0): void {
  const k = Buffer.from(script.buffer, script.byteOffset, script.byteLength).toString('latin1'); // a map key only
  const d = deltas.get(k);
  if (d) {
    d.delta += amount;
    d.rows += rows;
  } else deltas.set(k, { script, delta: amount, rows });
}

/**
 * `known`: indexed outputs the blocks spend (by outpointKey); outputs created in the batch are
 * added. Each key appears once in the rows, as a multi-row upsert needs: a txid repeated within
 * the batch (BIP30) leaves its last outputs, as upserting the rows one by one would; its history
 * rows stay apart, one per block (history is keyed by height and position).
 */
export function buildIndexRows(chain: string, blocks: readonly IndexedBlock[], known: Map<string, Spent>): IndexRows {
  const rows: IndexRows = { outputs: [], spends: [], history: [], balances: [], blocks: [] };
  const balances: Deltas = new Map();
  const created = new Map<string, Database['chain_outputs']>();
  for (const block of blocks) {
    block.txs.forEach((tx, position) => {
      const deltas: Deltas = new Map();
      const txid = txidBlob(tx.txid);
      for (const input of tx.inputs) {
        const spentKey = outpointKey(input.txid, input.vout);
        const prev = known.get(spentKey);
        if (!prev) continue; // not an output of a standard script
        addDelta(deltas, prev.script, -prev.amount);
        const ours = created.get(spentKey);
        if (ours) {
          if (ours.spent_txid !== null) throw new Error(`${input.txid}:${input.vout} is spent twice, in blocks ${ours.spent_height} and ${block.height}`);
          ours.spent_txid = txid;
          ours.spent_height = block.height;
        } else {
          rows.spends.push({ chain, txid: txidBlob(input.txid), vout: input.vout, spent_txid: txid, spent_height: block.height });
        }
      }
      for (const out of tx.outputs) {
        addDelta(deltas, out.script, out.amount);
        const key = outpointKey(tx.txid, out.vout);
        known.set(key, { script: out.script, amount: out.amount });
        const row: Database['chain_outputs'] = { chain, txid, vout: out.vout, script: blob(out.script), amount: out.amount, height: block.height, position, spent_txid: null, spent_height: null };
        created.set(key, row);
      }
      for (const d of deltas.values()) {
        rows.history.push({ chain, script: blob(d.script), height: block.height, position, txid, time: block.time, delta: d.delta });
        addDelta(balances, d.script, d.delta, 1);
      }
    });
    rows.blocks.push({ chain, height: block.height, hash: block.hash, time: block.time });
  }
  rows.outputs = [...created.values()];
  for (const b of balances.values()) rows.balances.push({ chain, script: blob(b.script), confirmed: b.delta, tx_count: b.rows });
  return rows;
}
