// The confirmed part of a chain's full address index in LevelDB (classic-level): an LSM tree,
// where the random keys of a batch (history, balances, txid prefixes) become sorted runs written
// sequentially and merged behind, instead of random b-tree pages rewritten on every commit. This
// is the design electrs and Fulcrum use; SQLite's b-trees fell to 3,400 tx/s at 1M transactions
// (docs/index-at-scale.md). The rows are the one row plan's (row-plan.ts), keyed as in SQL but
// without the chain (one LevelDB folder per chain):
//
//   B height                      -> time, block hash (as the node gave it)
//   T txnum                       -> txid                  (appends)
//   K txid prefix                 -> txnums                (a prefix collision lists both)
//   O txnum vout                  -> amount, script        (appends; kept when spent)
//   U script key, txnum, vout     -> amount                (unspent outputs by script; deleted when spent)
//   H script key, txnum           -> delta                 (history)
//   A script key                  -> confirmed, tx count, script (balances; the script detects a key collision)
//   M script                      -> script key            (scripts a collision moved: script-keys.ts)
//
// A batch is one LevelDB write batch with its block rows: a crash keeps whole batches. Writes are
// not synced: the index is derived data, and a batch lost to a power cut is indexed again.
// Numbers: tx numbers 6 bytes, heights and vouts 4, big-endian so keys sort as numbers; amounts
// and deltas are signed 64-bit.
import type { ClassicLevel, Snapshot } from 'classic-level';
import { type EncodedBlock, keyOfBlob } from './blocks.ts';
import { addFound, type FoundOutputs, planRows, type RowPlan, type SpentLookup, spentLookup } from './row-plan.ts';
import { freeScriptKey, otherScriptKeys, scriptKeyOf } from './script-keys.ts';
import { firstTxNumAbove, heightOfTxNum, txidPrefix } from './txnum.ts';
import { YoungOutputs } from './young-outputs.ts';
import { mergeSorted, type SortedRead } from './unspent-page.ts';

type Db = ClassicLevel<Buffer, Buffer>;

/** One state of the index, for the reads of one query (read()). */
export type LevelSnapshot = Snapshot;

const at = (snapshot: LevelSnapshot | undefined) => (snapshot ? { snapshot } : {});

const TAG = { block: 0x42, txid: 0x54, txidKey: 0x4b, output: 0x4f, unspent: 0x55, history: 0x48, balance: 0x41, moved: 0x4d } as const;
type Tag = (typeof TAG)[keyof typeof TAG];

// Young unspent outputs (young-outputs.ts), as in the SQLite writer: about 30 MB of heap.
const YOUNG_OUTPUTS = 200_000;

function key(tag: Tag, length: number): Buffer {
  const k = Buffer.allocUnsafe(1 + length);
  k[0] = tag;
  return k;
}

const blockKey = (height: number) => {
  const k = key(TAG.block, 4);
  k.writeUInt32BE(height, 1);
  return k;
};
const txidKey = (txnum: number) => {
  const k = key(TAG.txid, 6);
  k.writeUIntBE(txnum, 1, 6);
  return k;
};
const prefixKey = (prefix: Uint8Array) => {
  const k = key(TAG.txidKey, prefix.length);
  k.set(prefix, 1);
  return k;
};
const outputKey = (txnum: number, vout: number) => {
  const k = key(TAG.output, 10);
  k.writeUIntBE(txnum, 1, 6);
  k.writeUInt32BE(vout, 7);
  return k;
};
const unspentKey = (skey: Uint8Array, txnum: number, vout: number) => {
  const k = key(TAG.unspent, skey.length + 10);
  k.set(skey, 1);
  k.writeUIntBE(txnum, 1 + skey.length, 6);
  k.writeUInt32BE(vout, 7 + skey.length);
  return k;
};
const historyKey = (skey: Uint8Array, txnum: number) => {
  const k = key(TAG.history, skey.length + 6);
  k.set(skey, 1);
  k.writeUIntBE(txnum, 1 + skey.length, 6);
  return k;
};
const balanceKey = (skey: Uint8Array) => {
  const k = key(TAG.balance, skey.length);
  k.set(skey, 1);
  return k;
};
const movedKey = (script: Uint8Array) => {
  const k = key(TAG.moved, script.length);
  k.set(script, 1);
  return k;
};

function hashOf(blockValue: Buffer): string {
  return blockValue.toString('utf8', 4);
}

function i64(value: bigint): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigInt64BE(value);
  return b;
}

/** The range of keys that start with `prefix`. */
function rangeOf(prefix: Buffer): { gte: Buffer; lt: Buffer } {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]!++;
      return { gte: prefix, lt: end.subarray(0, i + 1) };
    }
  }
  throw new Error('no key range above an all-0xff prefix');
}

export interface LevelBalance {
  confirmed: bigint;
  txCount: number;
  /** The key this script's rows are under. */
  key: Buffer;
}

interface BalanceRow {
  confirmed: bigint;
  txCount: number;
  script: Buffer;
}

function balanceRowOf(value: Buffer): BalanceRow {
  return { confirmed: value.readBigInt64BE(0), txCount: value.readUInt32BE(8), script: value.subarray(12) };
}

function balanceValue(row: BalanceRow): Buffer {
  const v = Buffer.allocUnsafe(12 + row.script.length);
  v.writeBigInt64BE(row.confirmed, 0);
  v.writeUInt32BE(row.txCount, 8);
  row.script.copy(v, 12);
  return v;
}

export interface LevelHistoryRow {
  script: Buffer;
  txnum: number;
  txid: Buffer;
  time: number;
  delta: bigint;
}

export interface LevelUnspentRow {
  script: Buffer;
  txnum: number;
  vout: number;
  txid: Buffer;
  amount: bigint;
}

/**
 * The rows of one write, streamed into LevelDB's native batch as they are made (a chained batch):
 * a batch's hundred thousand keys are not also held as JS objects until the write.
 */
interface Writes {
  put(key: Buffer, value: Buffer): unknown;
  del(key: Buffer): unknown;
}

export class LevelIndex {
  private readonly young = new YoungOutputs(YOUNG_OUTPUTS);
  /** The scripts a collision moved (M rows), by keyOfBlob(script): read once at open, nearly always none. */
  private readonly moved = new Map<string, Buffer>();
  private top: { height: number; hash: string } | null = null;
  /** One write or rollback at a time: each reads what the one before it wrote. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Rollbacks begun since the index opened: a query that saw it change reads again (UtxoIndexStore.consistently). */
  rollbacks = 0;

  private constructor(private readonly db: Db) {}

  /** Opens (creating) the index in `folder`. */
  static async open(folder: string): Promise<LevelIndex> {
    const { ClassicLevel } = await import('classic-level');
    // A 32 MiB memtable and 32 MiB files: fewer, larger sorted runs to merge; a 32 MiB block cache.
    const db: Db = new ClassicLevel<Buffer, Buffer>(folder, { keyEncoding: 'buffer', valueEncoding: 'buffer', writeBufferSize: 32 << 20, maxFileSize: 32 << 20, cacheSize: 32 << 20 });
    try {
      await db.open();
    } catch (err) {
      // classic-level says only "Database failed to open"; its cause names the lock or the damage
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
      const held = /lock/i.test(cause) ? ': another process (a second service on this folder?) holds it' : '';
      throw new Error(`cannot open the LevelDB index in ${folder}${held} (${cause})`, { cause: err });
    }
    const index = new LevelIndex(db);
    await index.readMoved();
    for await (const [k, v] of db.iterator({ ...rangeOf(Buffer.of(TAG.block)), reverse: true, limit: 1 })) index.top = { height: k.readUInt32BE(1), hash: hashOf(v) };
    return index;
  }

  /** The M rows into memory: at open, and after a failed write (which may have changed the map before failing). */
  private async readMoved(): Promise<void> {
    this.moved.clear();
    for await (const [k, v] of this.db.iterator(rangeOf(Buffer.of(TAG.moved)))) this.moved.set(keyOfBlob(k.subarray(1)), Buffer.from(v));
  }

  close(): Promise<void> {
    return this.db.close();
  }

  tip(): { height: number; hash: string } | null {
    return this.top;
  }

  async blockHash(height: number): Promise<string | null> {
    const v = await this.db.get(blockKey(height));
    return v ? hashOf(v) : null;
  }

  /** Every block above `height`, by height: what a rollback undoes (all of them from -1, when even block 0 is another chain's). */
  async blocksAbove(height: number): Promise<{ height: number; hash: string }[]> {
    const out: { height: number; hash: string }[] = [];
    const from = height < 0 ? { gte: Buffer.of(TAG.block) } : { gt: blockKey(height) };
    for await (const [k, v] of this.db.iterator({ ...from, lt: Buffer.of(TAG.block + 1) })) out.push({ height: k.readUInt32BE(1), hash: hashOf(v) });
    return out;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The key a script's rows are under: its own unless a collision moved it. */
  private keyOf(script: Uint8Array, scriptKey = keyOfBlob(script)): Buffer {
    return this.moved.get(scriptKey) ?? scriptKeyOf(script);
  }

  /** The key of a plan's balance or history entry: the plan hashed its script once already. */
  private plannedKey(entry: { scriptKey: string; skey: Buffer }): Buffer {
    return this.moved.get(entry.scriptKey) ?? entry.skey;
  }

  /** Appends consecutive blocks that follow the tip, in one atomic write. */
  apply(blocks: readonly EncodedBlock[]): Promise<RowPlan> {
    return this.serial(async () => {
      const first = blocks[0]!;
      const expected = this.top === null ? first.height : this.top.height + 1;
      if (first.height !== expected) throw new Error(`block ${first.height} does not follow the index's tip ${this.top?.height ?? 'none'}`);
      this.young.follow(first.height);
      try {
        const lookup = spentLookup(blocks);
        const found = await this.lookupSpent(lookup, this.young);
        const plan = planRows(blocks, lookup, found);
        await this.written((writes) => this.writePlan(plan, found, writes));
        const last = blocks[blocks.length - 1]!;
        this.top = { height: last.height, hash: last.hash };
        this.young.committed(plan, last.height + 1);
        return plan;
      } catch (err) {
        this.young.forget();
        await this.readMoved();
        throw err;
      }
    });
  }

  /**
   * The outputs a batch spends (and those a repeated coinbase txid overwrites): the young outputs'
   * first, then by txid prefix, each candidate's whole txid checked.
   */
  private async lookupSpent(lookup: SpentLookup, young?: YoungOutputs): Promise<FoundOutputs> {
    const found: FoundOutputs = new Map();
    const rest = young ? young.take(lookup, found) : lookup.outpoints;
    if (rest.length === 0) return found;
    const byTx = new Map<string, { txid: Buffer; vouts: number[] }>();
    for (const o of rest) {
      let t = byTx.get(o.txKey);
      if (!t) byTx.set(o.txKey, (t = { txid: o.txid, vouts: [] }));
      t.vouts.push(o.vout);
    }
    // The outputs are read beside the candidates' txids, before those are checked: a candidate
    // that is another txid with the same prefix (rare) costs a read for nothing.
    const candidates = await this.candidates([...byTx.values()].map((t) => t.txid));
    const wanted: { txKey: string; txnum: number; vout: number }[] = [];
    for (const c of candidates) for (const vout of byTx.get(c.txKey)!.vouts) wanted.push({ txKey: c.txKey, txnum: c.txnum, vout });
    const [numbers, values] = await Promise.all([this.checked(candidates), this.db.getMany(wanted.map((w) => outputKey(w.txnum, w.vout)))]);
    values.forEach((v, i) => {
      const w = wanted[i]!;
      if (!v || !numbers.get(w.txKey)?.includes(w.txnum)) return; // not an output of a standard script, or another txid's
      addFound(found, w.txKey, w.vout, { txnum: w.txnum, amount: v.readBigInt64BE(0), script: v.subarray(8) });
    });
    return found;
  }

  /** Every tx number of each txid (two for a repeated coinbase txid), by keyOfBlob(txid). */
  private async txNumbers(txids: readonly Buffer[], snapshot?: LevelSnapshot): Promise<Map<string, number[]>> {
    return this.checked(await this.candidates(txids, snapshot), snapshot);
  }

  /** The tx numbers under each txid's prefix: its own, and any other txid's that shares the prefix. */
  private async candidates(txids: readonly Buffer[], snapshot?: LevelSnapshot): Promise<{ txKey: string; txnum: number }[]> {
    const lists = await this.db.getMany(txids.map((t) => prefixKey(txidPrefix(t))), at(snapshot));
    const candidates: { txKey: string; txnum: number }[] = [];
    lists.forEach((list, i) => {
      if (!list) return;
      const txKey = keyOfBlob(txids[i]!);
      for (let at = 0; at < list.length; at += 6) candidates.push({ txKey, txnum: list.readUIntBE(at, 6) });
    });
    return candidates;
  }

  /** The candidates whose whole txid is the one asked for, by keyOfBlob(txid). */
  private async checked(candidates: readonly { txKey: string; txnum: number }[], snapshot?: LevelSnapshot): Promise<Map<string, number[]>> {
    const full = await this.db.getMany(candidates.map((c) => txidKey(c.txnum)), at(snapshot));
    const out = new Map<string, number[]>();
    candidates.forEach((c, i) => {
      const txid = full[i];
      if (!txid || keyOfBlob(txid) !== c.txKey) return; // another txid with the same prefix
      let list = out.get(c.txKey);
      if (!list) out.set(c.txKey, (list = []));
      list.push(c.txnum);
    });
    return out;
  }

  /** Runs `fill` on a new batch and writes it whole, or drops it whole when `fill` fails. */
  private async written(fill: (writes: Writes) => Promise<void>): Promise<void> {
    const batch = this.db.batch();
    try {
      await fill(batch);
    } catch (err) {
      await batch.close();
      throw err;
    }
    await batch.write();
  }

  /** The write batch of a plan, after reading what it adds to: balance rows and txid prefix lists. */
  private async writePlan(plan: RowPlan, found: FoundOutputs, writes: Writes): Promise<void> {
    const put = (k: Buffer, value: Buffer) => writes.put(k, value);
    const del = (k: Buffer) => writes.del(k);
    // A spent output's script has history in this batch (the spend), so the plan has hashed it:
    // its key is its balance entry's (moved only if it already was: it has a balance row).
    const keyByScript = new Map(plan.balances.map((b) => [b.scriptKey, this.plannedKey(b)]));
    const keyOfSpent = (script: Buffer) => keyByScript.get(keyOfBlob(script)) ?? this.keyOf(script);
    const spent = plan.spends.map((s) => unspentKey(keyOfSpent(found.get(s.txKey)![s.vout]!.script), s.txnum, s.vout));
    // Output rows stay when spent, so a spend of a spent output (a block applied twice, a store
    // that moved under the writer) is caught here, as the SQL stores' mark update catches it.
    // The young outputs hold only unspent outputs: only the others are read.
    const unsure = plan.spends.flatMap((s, i) => (this.young.holds(s.txKey, s.txnum, s.vout) ? [] : [i]));
    // the three reads are independent: LevelDB serves them on its threads at once
    const [live, , balances] = await Promise.all([this.db.getMany(unsure.map((i) => spent[i]!)), this.addPrefixes(plan, put), this.balancesAfter(plan, put)]);
    live.forEach((v, j) => {
      if (v !== undefined) return;
      const s = plan.spends[unsure[j]!]!;
      throw new Error(`${Buffer.from(s.txKey, 'latin1').toString('hex')}:${s.vout} is already spent; block ${heightOfTxNum(s.spentTxnum)} spends it again`);
    });
    for (const k of spent) del(k);
    for (const d of plan.drops) {
      // a repeated coinbase txid (BIP30) overwrites its outputs, as the node does
      const dropped = found.get(d.txKey)![d.vout]!;
      del(outputKey(d.txnum, d.vout));
      del(unspentKey(keyOfSpent(dropped.script), d.txnum, d.vout));
    }
    for (const t of plan.txs) put(txidKey(t.txnum), t.txid);
    for (const o of plan.outputs) {
      const value = Buffer.allocUnsafe(8 + o.script.length);
      value.writeBigInt64BE(o.amount, 0);
      o.script.copy(value, 8);
      put(outputKey(o.txnum, o.vout), value);
      if (o.spentTxnum === null) put(unspentKey(balances.get(o.scriptKey)!, o.txnum, o.vout), i64(o.amount));
    }
    for (const h of plan.history) put(historyKey(balances.get(h.scriptKey)!, h.txnum), i64(h.delta));
    for (const b of plan.blocks) {
      const hash = Buffer.from(b.hash, 'utf8');
      const value = Buffer.allocUnsafe(4 + hash.length);
      value.writeUInt32BE(b.time >>> 0, 0);
      hash.copy(value, 4);
      put(blockKey(b.height), value);
    }
  }

  /** Each new tx number joins its txid prefix's list (a second entry only on a prefix collision). */
  private async addPrefixes(plan: RowPlan, put: (k: Buffer, v: Buffer) => void): Promise<void> {
    const lists = new Map<string, { key: Buffer; numbers: number[] }>();
    for (const t of plan.txs) {
      const k = keyOfBlob(t.prefix);
      let list = lists.get(k);
      if (!list) lists.set(k, (list = { key: prefixKey(t.prefix), numbers: [] }));
      list.numbers.push(t.txnum);
    }
    const entries = [...lists.values()];
    const stored = await this.db.getMany(entries.map((e) => e.key));
    entries.forEach((e, i) => {
      const before = stored[i];
      const value = Buffer.allocUnsafe((before?.length ?? 0) + 6 * e.numbers.length);
      before?.copy(value, 0);
      e.numbers.forEach((n, j) => value.writeUIntBE(n, (before?.length ?? 0) + 6 * j, 6));
      put(e.key, value);
    });
  }

  /**
   * Adds the plan's balance changes to the stored rows and returns each script's key. A key whose
   * row holds another script is a collision: the newcomer takes its next free key for good (an M
   * row), as in the SQL stores (script-keys.ts).
   */
  private async balancesAfter(plan: RowPlan, put: (k: Buffer, v: Buffer) => void): Promise<Map<string, Buffer>> {
    const keys = plan.balances.map((b) => this.plannedKey(b));
    const stored = await this.db.getMany(keys.map(balanceKey));
    const rows = new Map<string, BalanceRow | undefined>();
    keys.forEach((k, i) => rows.set(keyOfBlob(k), stored[i] ? balanceRowOf(stored[i]) : undefined));
    const out = new Map<string, Buffer>();
    for (const [i, b] of plan.balances.entries()) {
      let k = keys[i]!;
      let row = rows.get(keyOfBlob(k));
      if (row && !row.script.equals(b.script)) {
        const candidates = otherScriptKeys(b.script);
        const held = await this.db.getMany(candidates.map(balanceKey));
        const taken = new Set(candidates.filter((c, j) => held[j] !== undefined || rows.get(keyOfBlob(c)) !== undefined).map(keyOfBlob));
        k = freeScriptKey(b.script, (c) => taken.has(keyOfBlob(c)));
        this.moved.set(b.scriptKey, k);
        put(movedKey(b.script), k);
        row = undefined;
      }
      const next = { confirmed: (row?.confirmed ?? 0n) + b.delta, txCount: (row?.txCount ?? 0) + b.rows, script: b.script };
      rows.set(keyOfBlob(k), next);
      put(balanceKey(k), balanceValue(next));
      out.set(b.scriptKey, k);
    }
    return out;
  }

  /**
   * Undoes every block above `height`, given the undone blocks' content (the node keeps stale
   * blocks): their row plan is computed again, as when they were written, and taken back by key.
   * Without it the rows cannot be found (history is keyed by script): refused in words. `first`
   * runs before, once the rollback is counted (the SQL file's mempool is forgotten there).
   */
  rollbackTo(height: number, undone: readonly EncodedBlock[], first: () => Promise<void> = () => Promise.resolve()): Promise<void> {
    return this.serial(async () => {
      this.rollbacks++;
      await first();
      await this.undo(height, undone);
    });
  }

  private async undo(height: number, undone: readonly EncodedBlock[]): Promise<void> {
    this.young.forget();
    if (undone.length === 0) return;
    if (undone[0]!.height !== height + 1 || undone[undone.length - 1]!.height !== this.top?.height) throw new Error(`a rollback to ${height} needs every block from ${height + 1} to the tip`);
    const lookup = spentLookup(undone);
    // the outputs the undone blocks spend are still indexed: older blocks wrote them
    const found = await this.lookupSpent(lookup);
    const plan = planRows(undone, lookup, found);
    await this.written((writes) => this.undoPlan(plan, found, height, writes)).catch(async (err: unknown) => {
      await this.readMoved();
      throw err;
    });
    this.top = await this.tipAtOrBelow(height);
  }

  private async undoPlan(plan: RowPlan, found: FoundOutputs, height: number, writes: Writes): Promise<void> {
    const put = (k: Buffer, value: Buffer) => writes.put(k, value);
    const del = (k: Buffer) => writes.del(k);
    const above = firstTxNumAbove(height);
    for (const o of plan.outputs) {
      del(outputKey(o.txnum, o.vout));
      del(unspentKey(this.keyOf(o.script, o.scriptKey), o.txnum, o.vout));
    }
    for (const s of plan.spends) {
      const spent = found.get(s.txKey)![s.vout]!;
      put(unspentKey(this.keyOf(spent.script), s.txnum, s.vout), i64(spent.amount));
    }
    for (const h of plan.history) del(historyKey(this.plannedKey(h), h.txnum));
    const prefixes = [...new Map(plan.txs.map((t) => [keyOfBlob(t.prefix), t.prefix])).values()];
    const lists = await this.db.getMany(prefixes.map(prefixKey));
    prefixes.forEach((p, i) => {
      const list = lists[i];
      if (!list) return;
      const kept: Buffer[] = [];
      for (let at = 0; at < list.length; at += 6) if (list.readUIntBE(at, 6) < above) kept.push(list.subarray(at, at + 6));
      if (kept.length > 0) put(prefixKey(p), Buffer.concat(kept));
      else del(prefixKey(p));
    });
    for (const t of plan.txs) del(txidKey(t.txnum));
    const keys = plan.balances.map((b) => this.plannedKey(b));
    const stored = await this.db.getMany(keys.map(balanceKey));
    plan.balances.forEach((b, i) => {
      const before = stored[i];
      if (!before) return;
      const row = balanceRowOf(before);
      const next = { confirmed: row.confirmed - b.delta, txCount: row.txCount - b.rows, script: row.script };
      if (next.txCount > 0) return put(balanceKey(keys[i]!), balanceValue(next));
      // a script left with no history has no row, and a moved script's key goes with it
      del(balanceKey(keys[i]!));
      if (this.moved.delete(b.scriptKey)) del(movedKey(b.script));
    });
    for (const b of plan.blocks) del(blockKey(b.height));
  }

  private async tipAtOrBelow(height: number): Promise<{ height: number; hash: string } | null> {
    if (height < 0) return null;
    for await (const [k, v] of this.db.iterator({ gte: Buffer.of(TAG.block), lte: blockKey(height), reverse: true, limit: 1 })) return { height: k.readUInt32BE(1), hash: hashOf(v) };
    return null;
  }

  /** One state of the index for the reads of one query; closed by the caller. */
  snapshot(): LevelSnapshot {
    return this.db.snapshot();
  }

  // ---- queries --------------------------------------------------------------------------------

  /** Balance rows of these scripts, by keyOfBlob(script); a row under a script's key holding another script is not its. */
  async balances(scripts: readonly Uint8Array[], snapshot?: LevelSnapshot): Promise<Map<string, LevelBalance>> {
    const distinct = [...new Map(scripts.map((s) => [keyOfBlob(s), s])).entries()];
    const keys = distinct.map(([k, s]) => this.keyOf(s, k));
    const stored = await this.db.getMany(keys.map(balanceKey), at(snapshot));
    const out = new Map<string, LevelBalance>();
    distinct.forEach(([k, script], i) => {
      const v = stored[i];
      if (!v) return;
      const row = balanceRowOf(v);
      if (row.script.equals(script)) out.set(k, { confirmed: row.confirmed, txCount: row.txCount, key: keys[i]! });
    });
    return out;
  }

  /**
   * Rows skip..skip+limit of these scripts' confirmed history (script, key), newest tx first, then
   * by script bytes: each script's rows are a backward range read cut at the page's end.
   */
  async historyPage(scripts: readonly { script: Buffer; key: Buffer }[], limit: number, skip: number, snapshot?: LevelSnapshot): Promise<LevelHistoryRow[]> {
    const reach = skip + limit;
    const read = await Promise.all(
      scripts.map(async ({ script, key: skey }) => {
        const rows: { script: Buffer; txnum: number; delta: bigint }[] = [];
        for await (const [k, v] of this.db.iterator({ ...rangeOf(historyKey(skey, 0).subarray(0, 1 + skey.length)), reverse: true, limit: reach, ...at(snapshot) })) {
          rows.push({ script, txnum: k.readUIntBE(1 + skey.length, 6), delta: v.readBigInt64BE(0) });
        }
        return rows;
      }),
    );
    const page = read
      .flat()
      .sort((a, b) => b.txnum - a.txnum || Buffer.compare(a.script, b.script))
      .slice(skip, reach);
    const txids = await this.db.getMany(page.map((r) => txidKey(r.txnum)), at(snapshot));
    const heights = [...new Set(page.map((r) => heightOfTxNum(r.txnum)))];
    const blocks = await this.db.getMany(heights.map(blockKey), at(snapshot));
    const timeOf = new Map(heights.map((h, i) => [h, blocks[i]?.readUInt32BE(0) ?? 0]));
    return page.map((r, i) => ({ ...r, txid: txids[i]!, time: timeOf.get(heightOfTxNum(r.txnum))! }));
  }

  /**
   * Up to `limit` outputs of these scripts that no confirmed tx spends, after `after` (txnum, vout;
   * null: from the first), oldest first: each script's outputs are one key range, read by an
   * iterator cut at the cursor and the limit, and merged (unspent-page.ts).
   */
  async unspent(scripts: readonly Uint8Array[], page: { after: { txnum: number; vout: number } | null; limit: number }, snapshot?: LevelSnapshot): Promise<LevelUnspentRow[]> {
    const distinct = [...new Map(scripts.map((s) => [keyOfBlob(s), Buffer.from(s)])).entries()];
    const balances = await this.balances(distinct.map(([, s]) => s), snapshot);
    type Row = Omit<LevelUnspentRow, 'txid'>;
    const sources: SortedRead<Row>[] = [];
    for (const [k, script] of distinct) {
      const skey = balances.get(k)?.key;
      if (!skey) continue;
      const prefix = unspentKey(skey, 0, 0).subarray(0, 1 + skey.length);
      sources.push(async (last, n) => {
        const from = last ?? page.after;
        const range = from ? { gt: unspentKey(skey, from.txnum, from.vout), lt: rangeOf(prefix).lt } : rangeOf(prefix);
        const rows: Row[] = [];
        for await (const [uk, v] of this.db.iterator({ ...range, limit: n, ...at(snapshot) })) {
          rows.push({ script, txnum: uk.readUIntBE(1 + skey.length, 6), vout: uk.readUInt32BE(7 + skey.length), amount: v.readBigInt64BE(0) });
        }
        return rows;
      });
    }
    if (sources.length === 0) return [];
    const rows = await mergeSorted(sources, (a, b) => a.txnum - b.txnum || a.vout - b.vout, page.limit);
    const txids = await this.db.getMany(rows.map((r) => txidKey(r.txnum)), at(snapshot));
    return rows.map((r, i) => ({ ...r, txid: txids[i]! }));
  }

  /**
   * Those of these outputs (tx number, vout) that no confirmed tx spends, with their script and
   * amount: each output's row, then whether its U key is there (a spend deletes it).
   */
  async unspentAt(wanted: readonly { txnum: number; vout: number }[], snapshot?: LevelSnapshot): Promise<{ txnum: number; vout: number; script: Buffer; amount: bigint }[]> {
    const keys = new Set(wanted.map((w) => `${w.txnum}:${w.vout}`));
    const outs = (await this.outputsOf(wanted.map((w) => w.txnum), snapshot)).filter((o) => keys.has(`${o.txnum}:${o.vout}`));
    const balances = await this.balances(outs.map((o) => o.script), snapshot);
    const held = outs.flatMap((o) => {
      const b = balances.get(keyOfBlob(o.script));
      return b ? [{ o, key: unspentKey(b.key, o.txnum, o.vout) }] : [];
    });
    const found = await this.db.getMany(held.map((h) => h.key), at(snapshot));
    return held.filter((_, i) => found[i] !== undefined).map((h) => h.o);
  }

  /** The tx number of each txid the index holds, by keyOfBlob(txid); of a txid confirmed twice (BIP30), the later. */
  async confirmedTxNumbers(txids: readonly Buffer[], snapshot?: LevelSnapshot): Promise<Map<string, number>> {
    const all = await this.txNumbers(txids, snapshot);
    return new Map([...all].map(([k, list]) => [k, Math.max(...list)]));
  }

  /** Every output of these tx numbers, spent or not. */
  async outputsOf(txnums: readonly number[], snapshot?: LevelSnapshot): Promise<{ txnum: number; vout: number; script: Buffer; amount: bigint }[]> {
    const out: { txnum: number; vout: number; script: Buffer; amount: bigint }[] = [];
    for (const txnum of new Set(txnums)) {
      for await (const [k, v] of this.db.iterator({ gte: outputKey(txnum, 0), lt: outputKey(txnum + 1, 0), ...at(snapshot) })) {
        out.push({ txnum, vout: k.readUInt32BE(7), script: Buffer.from(v.subarray(8)), amount: v.readBigInt64BE(0) });
      }
    }
    return out;
  }

  /** Every row, in key order: for tests that compare two indexes row by row. */
  async entries(): Promise<[string, string][]> {
    const out: [string, string][] = [];
    for await (const [k, v] of this.db.iterator()) out.push([k.toString('hex'), v.toString('hex')]);
    return out;
  }

  /** The txs the young outputs answered and missed since the index opened (for the bench). */
  youngHits(): { hits: number; misses: number } {
    return { hits: this.young.hits, misses: this.young.misses };
  }
}
