// The one row plan of the UTXO index: the rows a batch of consecutive blocks adds, computed from
// the blocks' encoding (blocks.ts) and the already-indexed outputs they spend. Pure. Both writers
// (sqlite-apply.ts, pg-apply.ts) write exactly this plan, and a rollback (utxo-index.ts) removes
// exactly the plan of the blocks it undoes, so the rows are numbered and keyed in one place.
//
// Rows name transactions by their number (txnum.ts: height * 2^20 + position), not their txid:
// outputs are keyed (tx number, vout) and come out of a batch in key order, at the right edge of
// the b-tree; spend marks and history rows carry numbers. Each tx with rows gets one row mapping
// its number to its txid, and one key-only row from an 8-byte txid prefix to its number. History
// and balance rows carry a script's 8-byte key (script-keys.ts), not the script: the plan gives
// each script's own key, and a writer moves a script whose own key another script holds.
//
// Txids and scripts are keyed in maps by their bytes as latin1 strings (keyOfTxid, keyOfBlob):
// such keys compare as the bytes do in SQLite (memcmp) and PostgreSQL (bytea).
// Loaded by the SQLite writer thread through Node's type stripping: erasable syntax only.
import { BlockReader, type EncodedBlock, keyOfBlob } from './blocks.ts';
import { scriptKeyOf } from './script-keys.ts';
import { txidPrefix, txNumOf } from './txnum.ts';

/** An already-indexed output, as a store's lookup (or the writer's young outputs) found it. */
export interface StoredOutput {
  /** Its tx's number. */
  txnum: number;
  script: Buffer;
  amount: bigint;
}

/** Found outputs by their txid's key (keyOfTxid / keyOfBlob), then by vout. */
export type FoundOutputs = Map<string, StoredOutput[]>;

/** Records a found output; of two with one txid (BIP30), the later tx's is the one spent. */
export function addFound(found: FoundOutputs, txKey: string, vout: number, output: StoredOutput): void {
  let outputs = found.get(txKey);
  if (!outputs) found.set(txKey, (outputs = []));
  const known = outputs[vout];
  if (!known || known.txnum < output.txnum) outputs[vout] = output;
}

/** What a batch spends that it does not create itself: what the store must look up. */
export interface SpentLookup {
  /**
   * Distinct outpoints in key order (txid bytes, then vout): the outputs the batch spends, and
   * the outputs a tx without inputs (a coinbase, the only tx whose txid can repeat: BIP30) would
   * overwrite.
   */
  outpoints: { txKey: string; txid: Buffer; vout: number }[];
  /** Each input's txid key in block order, read once here and again by planRows. */
  inputKeys: string[];
}

/** A tx with rows: its number and txid (chain_txids), and the txid's prefix (chain_txid_keys). */
export interface PlannedTx {
  txnum: number;
  txid: Buffer;
  prefix: Buffer;
}

export interface PlannedOutput {
  txKey: string;
  txnum: number;
  vout: number;
  script: Buffer;
  scriptKey: string;
  amount: bigint;
  /** Spent within the batch: written with its spend's number. */
  spentTxnum: number | null;
}

/** A spend of an output indexed by an earlier batch: marked on its row. */
export interface PlannedSpend {
  txKey: string;
  /** The spent output's tx number and vout. */
  txnum: number;
  vout: number;
  spentTxnum: number;
}

/** An output of an earlier batch that a repeated txid (BIP30) overwrites: deleted, as the node forgets it. */
export interface PlannedDrop {
  txKey: string;
  txnum: number;
  vout: number;
}

/** One row per (script, tx): the tx's net effect on the script. */
export interface PlannedHistory {
  scriptKey: string;
  script: Buffer;
  /** The script's own 8-byte key (script-keys.ts). */
  skey: Buffer;
  txnum: number;
  delta: bigint;
}

/** A script's net balance change in the batch and its count of history rows added. */
export interface PlannedBalance {
  scriptKey: string;
  script: Buffer;
  skey: Buffer;
  delta: bigint;
  rows: number;
}

/** Each table's rows in its key order (stable: block order within a key). */
export interface RowPlan {
  txs: PlannedTx[];
  outputs: PlannedOutput[];
  spends: PlannedSpend[];
  drops: PlannedDrop[];
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
  const want = (txKey: string, txid: Buffer, vout: number) => {
    let vouts = seen.get(txKey);
    if (!vouts) seen.set(txKey, (vouts = new Set()));
    if (vouts.has(vout)) return;
    vouts.add(vout);
    outpoints.push({ txKey, txid, vout });
  };
  let k = 0;
  for (const block of blocks) {
    const r = new BlockReader(block.bytes);
    for (let t = r.u32(); t > 0; t--) {
      const txAt = r.pos;
      const ownKey = r.txidKey();
      const inputs = r.u32();
      for (let n = inputs; n > 0; n--) {
        const txKey = inputKeys[k++]!;
        if (own.has(txKey)) {
          r.skipTxid();
          r.pos += 8;
          continue;
        }
        const txid = r.txidBlob();
        want(txKey, txid, r.f64());
      }
      const outputs = r.u32();
      if (inputs > 0 || outputs === 0) {
        r.skipOutputs(outputs);
        continue;
      }
      const txid = new BlockReader(block.bytes, txAt).txidBlob();
      for (let n = outputs; n > 0; n--) {
        r.script();
        want(ownKey, txid, r.f64());
        r.amount();
      }
    }
  }
  outpoints.sort((a, b) => byString(a.txKey, b.txKey) || a.vout - b.vout);
  return { outpoints, inputKeys };
}

/** Rows in their script key's byte order, stably: compared as latin1 strings, far cheaper than Buffer.compare. */
function byKey<T extends { skey: Buffer }>(rows: T[]): T[] {
  return rows
    .map((row) => ({ k: keyOfBlob(row.skey), row }))
    .sort((a, b) => byString(a.k, b.k))
    .map((x) => x.row);
}

interface Delta {
  script: Buffer;
  /** Set on a batch's balance entries (hashed once per script per batch), null on a tx's deltas. */
  skey: Buffer | null;
  delta: bigint;
  rows: number;
}

function addDelta(deltas: Map<string, Delta>, key: string, script: Buffer, amount: bigint, rows = 0, skey: Buffer | null = null): void {
  const d = deltas.get(key);
  if (d) {
    d.delta += amount;
    d.rows += rows;
  } else deltas.set(key, { script, skey, delta: amount, rows });
}

/** An output of the batch as the plan tracks it; `replaced` when a later tx reuses its txid (BIP30). */
type Created = PlannedOutput & { spentHeight: number; replaced?: boolean };

/**
 * The rows of `blocks`, given `found`: the outputs of `lookup.outpoints` the index holds (an
 * outpoint not found pays no standard script). A txid repeated (BIP30) leaves its last outputs,
 * as the node does; its history rows stay apart, one per block.
 */
export function planRows(blocks: readonly EncodedBlock[], lookup: SpentLookup, found: FoundOutputs): RowPlan {
  const created = new Map<string, Created[]>();
  const balances = new Map<string, Delta>();
  const deltas = new Map<string, Delta>();
  const txs: PlannedTx[] = [];
  const outputs: Created[] = [];
  const spends: PlannedSpend[] = [];
  const drops: PlannedDrop[] = [];
  const history: PlannedHistory[] = [];
  let k = 0;
  for (const block of blocks) {
    const { height } = block;
    const r = new BlockReader(block.bytes);
    const count = r.u32();
    for (let position = 0; position < count; position++) {
      const txnum = txNumOf(height, position);
      const txAt = r.pos;
      const txKey = r.txidKey();
      r.pos = txAt;
      const txid = r.txidBlob();
      deltas.clear();
      const inputs = r.u32();
      for (let n = inputs; n > 0; n--) {
        const key = lookup.inputKeys[k++]!;
        const spentTxid = r.txidBlob();
        const vout = r.f64();
        const ours = created.get(key)?.[vout];
        if (ours) {
          if (ours.spentTxnum !== null) throw new Error(`${spentTxid.toString('hex')}:${vout} is spent twice, in blocks ${ours.spentHeight} and ${height}`);
          ours.spentTxnum = txnum;
          ours.spentHeight = height;
          addDelta(deltas, ours.scriptKey, ours.script, -ours.amount);
          continue;
        }
        const prev = found.get(key)?.[vout];
        if (!prev) continue; // not an output of a standard script
        addDelta(deltas, keyOfBlob(prev.script), prev.script, -prev.amount);
        spends.push({ txKey: key, txnum: prev.txnum, vout, spentTxnum: txnum });
      }
      for (let n = r.u32(); n > 0; n--) {
        const script = r.script();
        const vout = r.f64();
        const amount = r.amount();
        const scriptKey = keyOfBlob(script);
        addDelta(deltas, scriptKey, script, amount);
        const output: Created = { txKey, txnum, vout, script, scriptKey, amount, spentTxnum: null, spentHeight: 0 };
        let ofTx = created.get(txKey);
        if (!ofTx) created.set(txKey, (ofTx = []));
        const earlier = ofTx[vout];
        if (earlier) earlier.replaced = true;
        else if (inputs === 0) {
          const stored = found.get(txKey)?.[vout];
          if (stored) drops.push({ txKey, txnum: stored.txnum, vout });
        }
        ofTx[vout] = output;
        outputs.push(output);
      }
      if (deltas.size > 0) txs.push({ txnum, txid, prefix: txidPrefix(txid) });
      for (const [scriptKey, d] of deltas) {
        // a script's key is hashed once per batch: the balance entry keeps it
        const skey = balances.get(scriptKey)?.skey ?? scriptKeyOf(d.script);
        history.push({ scriptKey, script: d.script, skey, txnum, delta: d.delta });
        addDelta(balances, scriptKey, d.script, d.delta, 1, skey);
      }
    }
  }
  return {
    txs,
    outputs: outputs.filter((o) => !o.replaced),
    spends: spends.sort((a, b) => a.txnum - b.txnum || a.vout - b.vout),
    drops: drops.sort((a, b) => a.txnum - b.txnum || a.vout - b.vout),
    history: byKey(history),
    balances: byKey([...balances.entries()].map(([scriptKey, b]) => ({ scriptKey, script: b.script, skey: b.skey!, delta: b.delta, rows: b.rows }))),
    blocks: blocks.map((b) => ({ height: b.height, hash: b.hash, time: b.time })),
  };
}
