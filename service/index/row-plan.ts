// The one row plan of the UTXO index: the rows a batch of consecutive blocks adds, computed from
// the blocks' encoding (blocks.ts) and the already-indexed outputs they spend. Pure. Both writers
// (sqlite-apply.ts, pg-apply.ts) write exactly this plan, and a rollback (utxo-index.ts) removes
// exactly the plan of the blocks it undoes, so the rows are numbered and keyed in one place.
//
// Outpoints and scripts are keyed by their bytes as latin1 strings (keyOfTxid, keyOfBlob): such
// keys compare as the bytes do in SQLite (memcmp) and PostgreSQL (bytea), so each table's rows come
// out in its key order and a writer walks each b-tree once from left to right.
// Loaded by the SQLite writer thread through Node's type stripping: erasable syntax only.
import { BlockReader, type EncodedBlock, keyOfBlob } from './blocks.ts';

/** An already-indexed output, as a store's lookup found it. */
export interface StoredOutput {
  script: Buffer;
  amount: bigint;
}

/** Found outputs by their txid's key (keyOfTxid / keyOfBlob), then by vout. */
export type FoundOutputs = Map<string, StoredOutput[]>;

export function addFound(found: FoundOutputs, txKey: string, vout: number, output: StoredOutput): void {
  let outputs = found.get(txKey);
  if (!outputs) found.set(txKey, (outputs = []));
  outputs[vout] = output;
}

/** What a batch spends that it does not create itself: what the store must look up. */
export interface SpentLookup {
  /** Distinct outpoints in key order (txid bytes, then vout). */
  outpoints: { txKey: string; txid: Buffer; vout: number }[];
  /** Each input's txid key in block order, read once here and again by planRows. */
  inputKeys: string[];
}

export interface PlannedOutput {
  txKey: string;
  txid: Buffer;
  vout: number;
  script: Buffer;
  amount: bigint;
  height: number;
  position: number;
  /** Spent within the batch: written with its spend. */
  spentTxid: Buffer | null;
  spentHeight: number | null;
}

/** A spend of an output indexed by an earlier batch: marked on its row. */
export interface PlannedSpend {
  txKey: string;
  /** The spent output's txid and vout. */
  txid: Buffer;
  vout: number;
  spentTxid: Buffer;
  spentHeight: number;
}

/** One row per (script, block, tx): the tx's net effect on the script. */
export interface PlannedHistory {
  scriptKey: string;
  script: Buffer;
  height: number;
  position: number;
  txid: Buffer;
  time: number;
  delta: bigint;
}

/** A script's net balance change in the batch and its count of history rows added. */
export interface PlannedBalance {
  scriptKey: string;
  script: Buffer;
  delta: bigint;
  rows: number;
}

/** Each table's rows in its key order (stable: block order within a key). */
export interface RowPlan {
  outputs: PlannedOutput[];
  spends: PlannedSpend[];
  history: PlannedHistory[];
  balances: PlannedBalance[];
  blocks: { height: number; hash: string; time: number }[];
}

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function spentLookup(blocks: readonly EncodedBlock[]): SpentLookup {
  const own = new Set<string>();
  const inputKeys: string[] = [];
  for (const block of blocks) {
    const r = new BlockReader(block.bytes);
    for (let t = r.u32(); t > 0; t--) {
      own.add(r.txidKey());
      for (let n = r.u32(); n > 0; n--) {
        inputKeys.push(r.txidKey());
        r.pos += 8; // vout
      }
      r.skipOutputs(r.u32());
    }
  }
  const seen = new Map<string, Set<number>>();
  const outpoints: SpentLookup['outpoints'] = [];
  let k = 0;
  for (const block of blocks) {
    const r = new BlockReader(block.bytes);
    for (let t = r.u32(); t > 0; t--) {
      r.skipTxid();
      for (let n = r.u32(); n > 0; n--) {
        const txKey = inputKeys[k++]!;
        if (own.has(txKey)) {
          r.skipTxid();
          r.pos += 8;
          continue;
        }
        const txid = r.txidBlob();
        const vout = r.f64();
        let vouts = seen.get(txKey);
        if (!vouts) seen.set(txKey, (vouts = new Set()));
        if (vouts.has(vout)) continue;
        vouts.add(vout);
        outpoints.push({ txKey, txid, vout });
      }
      r.skipOutputs(r.u32());
    }
  }
  outpoints.sort((a, b) => byString(a.txKey, b.txKey) || a.vout - b.vout);
  return { outpoints, inputKeys };
}

interface Delta {
  script: Buffer;
  delta: bigint;
  rows: number;
}

function addDelta(deltas: Map<string, Delta>, key: string, script: Buffer, amount: bigint, rows = 0): void {
  const d = deltas.get(key);
  if (d) {
    d.delta += amount;
    d.rows += rows;
  } else deltas.set(key, { script, delta: amount, rows });
}

/** An output of the batch as the plan tracks it; `replaced` when a later tx reuses its txid (BIP30). */
type Created = PlannedOutput & { scriptKey: string; replaced?: boolean };

/**
 * The rows of `blocks`, given `found`: the outputs of `lookup.outpoints` the index holds (an
 * outpoint not found pays no standard script). A txid repeated within the batch (BIP30) leaves its
 * last outputs, as the node does; its history rows stay apart, one per block.
 */
export function planRows(blocks: readonly EncodedBlock[], lookup: SpentLookup, found: FoundOutputs): RowPlan {
  const created = new Map<string, Created[]>();
  const balances = new Map<string, Delta>();
  const deltas = new Map<string, Delta>();
  const outputs: Created[] = [];
  const spends: PlannedSpend[] = [];
  const history: PlannedHistory[] = [];
  let k = 0;
  for (const block of blocks) {
    const { height, time } = block;
    const r = new BlockReader(block.bytes);
    const count = r.u32();
    for (let position = 0; position < count; position++) {
      const txAt = r.pos;
      const txKey = r.txidKey();
      r.pos = txAt;
      const txid = r.txidBlob();
      deltas.clear();
      for (let n = r.u32(); n > 0; n--) {
        const key = lookup.inputKeys[k++]!;
        const spentTxid = r.txidBlob();
        const vout = r.f64();
        const ours = created.get(key)?.[vout];
        if (ours) {
          if (ours.spentTxid !== null) throw new Error(`${ours.txid.toString('hex')}:${vout} is spent twice, in blocks ${ours.spentHeight} and ${height}`);
          ours.spentTxid = txid;
          ours.spentHeight = height;
          addDelta(deltas, ours.scriptKey, ours.script, -ours.amount);
          continue;
        }
        const prev = found.get(key)?.[vout];
        if (!prev) continue; // not an output of a standard script
        addDelta(deltas, keyOfBlob(prev.script), prev.script, -prev.amount);
        spends.push({ txKey: key, txid: spentTxid, vout, spentTxid: txid, spentHeight: height });
      }
      for (let n = r.u32(); n > 0; n--) {
        const script = r.script();
        const vout = r.f64();
        const amount = r.amount();
        const scriptKey = keyOfBlob(script);
        addDelta(deltas, scriptKey, script, amount);
        const output: Created = { txKey, txid, vout, script, scriptKey, amount, height, position, spentTxid: null, spentHeight: null };
        let ofTx = created.get(txKey);
        if (!ofTx) created.set(txKey, (ofTx = []));
        const earlier = ofTx[vout];
        if (earlier) earlier.replaced = true;
        ofTx[vout] = output;
        outputs.push(output);
      }
      for (const [scriptKey, d] of deltas) {
        history.push({ scriptKey, script: d.script, height, position, txid, time, delta: d.delta });
        addDelta(balances, scriptKey, d.script, d.delta, 1);
      }
    }
  }
  return {
    outputs: outputs.filter((o) => !o.replaced).sort((a, b) => byString(a.txKey, b.txKey) || a.vout - b.vout),
    spends: spends.sort((a, b) => byString(a.txKey, b.txKey) || a.vout - b.vout),
    history: history.sort((a, b) => byString(a.scriptKey, b.scriptKey)),
    balances: [...balances.entries()].sort((a, b) => byString(a[0], b[0])).map(([scriptKey, b]) => ({ scriptKey, script: b.script, delta: b.delta, rows: b.rows })),
    blocks: blocks.map((b) => ({ height: b.height, hash: b.hash, time: b.time })),
  };
}
