// The confirmed part of a chain's full address index in LevelDB (classic-level), in the layout
// electrs uses (doc/schema.md there): key-only rows that a block's content alone gives, so indexing
// a block never reads the store. An address's unspent outputs, balance and history are worked out
// at query time, from its funding rows minus those the spending rows name (a bounded per-script
// summary keeps hot addresses fast: summaries.ts). Rows, one LevelDB folder per chain:
//
//   V                             -> layout version (4)
//   B height                      -> time, block hash (as the node gave it): the tip is the last
//   T txnum / 64                  -> the txids of those 64 tx numbers, 32 bytes each (every tx)
//   K txid hash, txnum            -> (none)                               (txid -> tx number)
//   F script key, txnum, vout     -> 4 more bytes of the script's hash, amount * 2 + 1 when the tx has no inputs (funding)
//   S txid hash, vout, txnum      -> 4 more bytes of the txid hash       (spending: the spent outpoint, then the spender)
//
// - Script keys are 8 bytes of the script's SHA-256 (script-keys.ts), and an F value starts with
//   the next 4: a query keeps only the funding rows whose check is its script's, so two scripts are
//   taken for one only when they share 96 bits of hash, as S rows tell spent txids apart.
// - The index holds no output's script: an answer that needs the script of an outpoint it was not
//   asked by (the mempool's spent outputs, outputs()) reads the tx from the chain's node with the
//   block hash of its B row (outputsOf, given a ConfirmedTxReader; no -txindex needed), and checks
//   the answer against the F rows. Every LevelDB entry costs about 11 bytes of its own (sequence
//   number, lengths), so the outputs are not rows of their own either.
// - T rows group txids 64 to a row, in position order (the block's last group shorter): a txid alone
//   in a row cost its key and ~11 bytes of entry besides its 32 bytes. 2^20 is a multiple of 64, so
//   a group never spans two blocks and a block's rows make its groups alone. A txid is bytes
//   (txnum % 64) * 32 of its group's value; a position beyond the value is no tx. Reads go through
//   txidsOf, one read a group. A txid that is not 64 hex digits has no slot: refused when indexed.
// - The txid hash is SHA-256 of the txid's bytes (test txids share leading bytes;
//   real ones are hashes already). K keys 8 bytes of it, each candidate checked against its T row:
//   exact. S keys 8 bytes and checks 4 more: a spend is taken for another outpoint's only when two
//   txids share 96 bits of hash and a vout, about 1e-11 over Bitcoin's 1.2 billion txs.
// - A batch is one LevelDB write batch with its block rows (the tip): a crash keeps whole batches.
//   Writes are not synced: the index is derived data, a batch lost to a power cut is indexed again.
// - Indexing trusts the node's validation: a spend of an output spent in an earlier batch is not
//   caught here (that needs a read); one spent twice within a batch is.
// - Rollback plans the undone blocks' rows again from their content and deletes exactly those.
// - Numbers: tx numbers 6 bytes, heights 4, big-endian so keys sort as numbers; vouts in keys as an
//   ordered varint (1 byte below 128); amounts as LEB128 (9 bytes outside 0..2^52) (level-rows.ts).
//   Layout 4 (unshipped with a T row a tx, so still 4); layout 3 kept each kept output's script hash
//   in the T row (and a txid length byte), layout 2 wrote 4-byte vouts, flag bytes and whole scripts.
import { rename } from 'node:fs/promises';
import type { ClassicLevel, Snapshot } from 'classic-level';
import { type EncodedBlock, isStandardScript, keyOfBlob, txidHexOf } from './blocks.ts';
import { SCRIPT_KEY_BYTES, scriptHash, scriptKeyOf } from './script-keys.ts';
import { OUTPUT_HASH_BYTES, Summaries, SummaryBuilder, type Funding, type Output, type Settled, type Summary, type UnspentColumns } from './level-summaries.ts';
import { heightOfTxNum, firstTxNumAbove } from './txnum.ts';
import { fundingIsOf, fundingKey, fundingKeyParts, fundingOfValue, HASH_CHECK, HASH_KEY, key, RowBuffer, rowsOf, spendingPrefix, streamRows, TAG, txidHash, txidInRow, txidRowKey, TXIDS_PER_ROW, type Writes } from './level-rows.ts';
import { putRows } from './level-put-rows.ts';
import { DEFAULT_INDEX_CACHES, type IndexCaches } from './cache-budget.ts';
import { AddressTooLarge, UpstreamFailure } from '../errors.ts';
import { mergeSorted, type SortedRead } from './unspent-page.ts';

/** The layout this code writes; a folder without this version row is an older layout's, rebuilt. */
export const LAYOUT_VERSION = 4;

type Db = ClassicLevel<Buffer, Buffer>;

/** The most scripts remembered as too large for a summary (a guard: there are few). */
const TOO_LARGE_HELD = 10_000;

/** One state of the index, for the reads of one query (read()). */
export type LevelSnapshot = Snapshot;

const at = (snapshot: LevelSnapshot | undefined) => (snapshot ? { snapshot } : {});

const blockKey = (height: number) => {
  const k = key(TAG.block, 4);
  k.writeUInt32BE(height, 1);
  return k;
};

/** All K rows of a txid hash: its candidates' tx numbers are the keys' last 6 bytes. */
const txidKeyRange = (h: Uint8Array) => rangeOf(Buffer.concat([Buffer.of(TAG.txidKey), h.subarray(0, HASH_KEY)]));
/** All S rows of an outpoint (txid hash, vout): its spenders' tx numbers are the keys' last 6 bytes. */
function spendingRange(h: Uint8Array, vout: number): { gte: Buffer; lt: Buffer } {
  const k = Buffer.allocUnsafe(1 + HASH_KEY + 5);
  return rangeOf(k.subarray(0, spendingPrefix(h, vout, k)));
}
const fundingRange = (skey: Uint8Array, fromTxnum = 0) => {
  const k = key(TAG.funding, skey.length + 6);
  k.set(skey, 1);
  k.writeUIntBE(fromTxnum, 1 + skey.length, 6);
  const all = rangeOf(k.subarray(0, 1 + skey.length));
  return { gte: k, lt: all.lt };
};

/** Rows a summary is worked out from at a time: its reads' objects stay a chunk's. */
const SUMMARY_CHUNK = 4096;

/** An output with its txid, as the spending check takes it. */
const withHash = <T extends { txid: Buffer }>(o: T): T & { hash: Buffer } => ({ ...o, hash: txidHash(o.txid) });

/** A funding row as read (F key, value), its txid still to be filled from its T row (withTxids). */
function fundingRowOf(k: Buffer, v: Buffer): Funding {
  return { ...fundingKeyParts(k), ...fundingOfValue(v), txid: Buffer.alloc(0) };
}

function hashOf(blockValue: Buffer): string {
  return blockValue.toString('utf8', 4);
}

/**
 * The options the index opens its folder with (the store comparison's bench opens its LevelDB
 * the same way): the memtable, the block cache and the open tables by the budget (queries read
 * recent runs, the summaries the rest); each open table holds its filter and index block outside
 * the block cache, so their number and size are bounded there (cache-budget.ts). Options are the
 * open's: tables written with other sizes are read as they are.
 */
export function levelOpenOptions(caches: IndexCaches) {
  return {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
    writeBufferSize: caches.levelWriteBufferBytes,
    maxFileSize: caches.levelMaxFileBytes,
    maxOpenFiles: caches.levelMaxOpenFiles,
    cacheSize: caches.levelBlockCacheBytes,
  } as const;
}

/** The range of keys that start with `prefix`. */
export function rangeOf(prefix: Buffer): { gte: Buffer; lt: Buffer } {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]!++;
      return { gte: prefix, lt: end.subarray(0, i + 1) };
    }
  }
  throw new Error('no key range above an all-0xff prefix');
}

/** A block with its rows: those made from its raw bytes, or made here from its encoding (a block read as verbose JSON). */
function withRows(b: EncodedBlock): EncodedBlock & { levelRows: Uint8Array } {
  if (b.levelRows) return b as EncodedBlock & { levelRows: Uint8Array };
  const rows = new RowBuffer();
  streamRows([b], rows, true);
  return { ...b, levelRows: rows.finish() };
}

/**
 * The rows of a batch put through classic-level's own `_put` (its binding's batch_put): the
 * public put of abstract-level builds an op object and checks encodings for each row, a third of
 * the time a row costs (a keyEncoding and valueEncoding of 'buffer', no sublevel and no hooks
 * here, so it adds nothing). Any other batch keeps its put.
 */
function directPuts(batch: Writes): Writes {
  const own = (batch as Writes & { _put?: unknown })._put;
  if (typeof own !== 'function') return batch;
  const put = own as (this: Writes, key: Buffer, value: Buffer) => void;
  return { put: (k, v) => put.call(batch, k, v), del: (k) => batch.del(k) };
}

export interface LevelBalance {
  confirmed: bigint;
  txCount: number;
  /** The key this script's rows are under. */
  key: Buffer;
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
 * A confirmed tx's outputs as the chain's node gave them: at least the vouts asked (every output
 * when the node read the whole tx), and the txid (of a whole tx, the one its bytes hash to).
 */
export interface NodeTx {
  txid: string;
  outputs: readonly { vout: number; script: Uint8Array; amount: bigint }[];
}

/**
 * Reads outputs of confirmed txs from the chain's node by txid, the vouts wanted and the hash of
 * the block that holds them (no -txindex needed), answers in the order asked; null: the node has no
 * such tx in that block. The chain's wiring gives it (service/chains/utxo/node-txs.ts): this layer
 * does not talk to nodes.
 */
export type ConfirmedTxReader = (txs: readonly { txid: string; vouts: readonly number[]; blockHash: string; height: number }[]) => Promise<(NodeTx | null)[]>;

export class LevelIndex {
  private top: { height: number; hash: string } | null = null;
  /** One write or rollback at a time, in order. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Rollbacks begun since the index opened: a query that saw it change reads again (UtxoIndexStore.consistently). */
  rollbacks = 0;
  /** Per-script answers as of a block, refreshed at query time (level-summaries.ts). */
  private readonly summaries: Summaries;
  /** Summaries being built, by script and tip (summaryOf). */
  private readonly building = new Map<string, Promise<Summary>>();
  /** Scripts found to have more outputs than a summary may hold (their unspent pages stream), until a rollback. */
  private readonly tooLarge = new Set<string>();

  private constructor(
    private readonly db: Db,
    summaryBytes: number,
    private readonly summaryMaxRows: number,
  ) {
    this.summaries = new Summaries(summaryBytes);
  }

  /**
   * Opens (creating) the index in `folder`. A folder in an older layout (no version row) is moved
   * aside, named in `log`, and the index is built again from block 0 in a fresh one. It keeps in
   * memory what `caches` allows (cache-budget.ts).
   */
  static async open(folder: string, options: { caches?: IndexCaches; log?: (line: string) => void } = {}): Promise<LevelIndex> {
    const caches = options.caches ?? DEFAULT_INDEX_CACHES;
    const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    let db = await LevelIndex.openDb(folder, caches);
    const version = await db.get(Buffer.of(TAG.version));
    const found = version === undefined ? null : version.readUInt32BE(0);
    if (found !== null && found > LAYOUT_VERSION) {
      await db.close();
      throw new Error(`the LevelDB index in ${folder} is in layout ${found}, which this service does not read (it writes layout ${LAYOUT_VERSION}): move the folder away to index again`);
    }
    if (found !== LAYOUT_VERSION) {
      // an older layout (1 had no version row), or an empty folder
      let any = false;
      for await (const _ of db.keys({ limit: 1 })) any = true;
      if (any) {
        await db.close();
        const old = found ?? 1;
        const aside = `${folder}.layout-${old}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
        await rename(folder, aside);
        const which = found === null ? 'an older layout (no version row)' : `layout ${found}, an older layout`;
        log(`the LevelDB index in ${folder} is in ${which}: moved it to ${aside} and indexing this chain again from block 0 in layout ${LAYOUT_VERSION}; delete ${aside} once the new index has caught up`);
        db = await LevelIndex.openDb(folder, caches);
      }
      const v = Buffer.allocUnsafe(4);
      v.writeUInt32BE(LAYOUT_VERSION);
      await db.put(Buffer.of(TAG.version), v);
    }
    const index = new LevelIndex(db, caches.levelSummaryBytes, caches.summaryMaxRows);
    index.top = await index.tipIn();
    return index;
  }

  private static async openDb(folder: string, caches: IndexCaches): Promise<Db> {
    const { ClassicLevel } = await import('classic-level');
    const db: Db = new ClassicLevel<Buffer, Buffer>(folder, levelOpenOptions(caches));
    try {
      await db.open();
    } catch (err) {
      // classic-level says only "Database failed to open"; its cause names the lock or the damage
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
      const held = /lock/i.test(cause) ? ': another process (a second service on this folder?) holds it' : '';
      throw new Error(`cannot open the LevelDB index in ${folder}${held} (${cause})`, { cause: err });
    }
    return db;
  }

  close(): Promise<void> {
    return this.db.close();
  }

  tip(): { height: number; hash: string } | null {
    return this.top;
  }

  /** The last block row, in `snapshot` or now. */
  private async tipIn(snapshot?: LevelSnapshot): Promise<{ height: number; hash: string } | null> {
    for await (const [k, v] of this.db.iterator({ ...rangeOf(Buffer.of(TAG.block)), reverse: true, limit: 1, ...at(snapshot) })) return { height: k.readUInt32BE(1), hash: hashOf(v) };
    return null;
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

  /** Appends consecutive blocks that follow the tip, in one atomic write: no read. */
  apply(blocks: readonly EncodedBlock[]): Promise<void> {
    return this.serial(async () => {
      const first = blocks[0]!;
      const expected = this.top === null ? first.height : this.top.height + 1;
      if (first.height !== expected) throw new Error(`block ${first.height} does not follow the index's tip ${this.top?.height ?? 'none'}`);
      await this.written((writes) => {
        // rows made from a raw block (level-raw-rows.ts) are copied in as they are; others are made here
        if (blocks.every((b) => b.levelRows === undefined)) streamRows(blocks, writes, true);
        else putRows(blocks.map(withRows), directPuts(writes));
        this.blockRows(blocks, writes, true); // through the batch's own put: its row count is never 0
      });
      const last = blocks[blocks.length - 1]!;
      this.top = { height: last.height, hash: last.hash };
    });
  }

  private blockRows(blocks: readonly EncodedBlock[], writes: Writes, put: boolean): void {
    for (const b of blocks) {
      if (!put) {
        writes.del(blockKey(b.height));
        continue;
      }
      const hashBytes = Buffer.from(b.hash, 'utf8');
      const value = Buffer.allocUnsafe(4 + hashBytes.length);
      value.writeUInt32BE(b.time >>> 0, 0);
      hashBytes.copy(value, 4);
      writes.put(blockKey(b.height), value);
    }
  }

  /** Runs `fill` on a new batch and writes it whole, or drops it whole when `fill` fails. */
  private async written(fill: (writes: Writes) => void): Promise<void> {
    const batch = this.db.batch();
    try {
      fill(batch);
    } catch (err) {
      await batch.close();
      throw err;
    }
    await batch.write();
  }

  /**
   * Undoes every block above `height`, given the undone blocks' content (the node keeps stale
   * blocks): their rows are computed again, as when they were written, and deleted by key. Without
   * it the rows cannot be found: refused in words. `first` runs before, once the rollback is
   * counted (the SQL file's mempool is forgotten there).
   */
  rollbackTo(height: number, undone: readonly EncodedBlock[], first: () => Promise<void> = () => Promise.resolve()): Promise<void> {
    return this.serial(async () => {
      this.rollbacks++;
      this.summaries.clear();
      this.tooLarge.clear();
      await first();
      if (undone.length === 0) return;
      if (undone[0]!.height !== height + 1 || undone[undone.length - 1]!.height !== this.top?.height) throw new Error(`a rollback to ${height} needs every block from ${height + 1} to the tip`);
      await this.written((writes) => {
        for (const b of undone) {
          // a block read for this index has its rows and no compact encoding: its rows' keys are deleted
          if (b.levelRows) for (const [k] of rowsOf(b.levelRows)) writes.del(k);
          else streamRows([b], writes, false);
        }
        this.blockRows(undone, writes, false);
      });
      this.top = await this.tipIn();
    });
  }

  /** One state of the index for the reads of one query; closed by the caller. */
  snapshot(): LevelSnapshot {
    return this.db.snapshot();
  }

  /** Compacts the whole key range: after a catch-up, so the folder's bytes are those of one sorted run per level. */
  compact(): Promise<void> {
    return this.db.compactRange(Buffer.of(0), Buffer.of(0xff));
  }

  // ---- queries --------------------------------------------------------------------------------

  /** Runs `read` on `snapshot`, or on a snapshot of its own when none is given. */
  private async within<T>(snapshot: LevelSnapshot | undefined, read: (s: LevelSnapshot) => Promise<T>): Promise<T> {
    if (snapshot) return read(snapshot);
    const own = this.db.snapshot();
    try {
      return await read(own);
    } finally {
      await own.close();
    }
  }

  /** Each distinct script's summary as of the snapshot's tip, by keyOfBlob(script). */
  private async summariesOf(scripts: readonly Uint8Array[], snapshot: LevelSnapshot): Promise<Map<string, { script: Buffer; summary: Summary }>> {
    const tip = await this.tipIn(snapshot);
    const distinct = [...new Map(scripts.map((s) => [keyOfBlob(s), Buffer.from(s)])).entries()];
    const out = new Map<string, { script: Buffer; summary: Summary }>();
    await Promise.all(distinct.map(async ([k, script]) => out.set(k, { script, summary: await this.summaryOf(k, script, tip, snapshot) })));
    return out;
  }

  /** A script's summary at `tip`: the cached one if it is at `tip`, refreshed if it is below it on this chain, else built. */
  private async summaryOf(k: string, script: Buffer, tip: { height: number; hash: string } | null, snapshot: LevelSnapshot): Promise<Summary> {
    const cached = this.summaries.get(k);
    if (tip === null) return Summaries.empty(-1, '');
    if (cached && cached.height === tip.height && cached.hash === tip.hash) return cached;
    // Requests for one script at one tip share one build: a hot address's summary (too large for
    // the budget, say) is worked out once for all the requests waiting on it, not once each.
    const id = `${k}@${tip.height}:${tip.hash}`;
    const building = this.building.get(id);
    if (building) return building;
    const built = this.buildSummary(k, script, tip, cached, snapshot).finally(() => this.building.delete(id));
    this.building.set(id, built);
    return built;
  }

  private async buildSummary(k: string, script: Buffer, tip: { height: number; hash: string }, cached: Summary | undefined, snapshot: LevelSnapshot): Promise<Summary> {
    let base: Summary | undefined;
    if (cached && cached.height < tip.height) {
      const v = await this.db.get(blockKey(cached.height), at(snapshot));
      if (v && hashOf(v) === cached.hash) base = cached;
    }
    const from = base ? firstTxNumAbove(base.height) : 0;
    const check = scriptHash(script);
    const skey = check.subarray(0, SCRIPT_KEY_BYTES);
    // A summary is held whole once worked out: count first, and refuse one the heap cannot hold.
    const max = this.summaryMaxRows;
    let rows = base?.unspent.length ?? 0;
    if (rows <= max) for await (const _ of this.db.keys({ ...fundingRange(skey, from), limit: max + 1 - rows, snapshot })) rows++;
    if (rows > max) throw new AddressTooLarge(max);
    // Worked out a chunk of rows at a time into columns (level-summaries.ts): base's unspent
    // outputs settled again, then the funding rows above base's block, each checked and settled.
    const built = new SummaryBuilder(base);
    const held = base?.unspent;
    for (let i = 0; held && i < held.length; i += SUMMARY_CHUNK) {
      const part = Array.from({ length: Math.min(SUMMARY_CHUNK, held.length - i) }, (_, j) => i + j);
      const settled = await this.settle(part.map((n) => ({ txnum: held.txnums[n]!, vout: held.vouts[n]!, coinbase: held.coinbase[n] === 1, hash: held.hashes.subarray(n * OUTPUT_HASH_BYTES, (n + 1) * OUTPUT_HASH_BYTES) })), snapshot);
      part.forEach((n, j) => built.settleBase(n, settled[j]!));
    }
    let chunk: Funding[] = [];
    const flush = async () => {
      const own = (await this.withTxids(chunk, snapshot)).map((f) => ({ ...f, hash: txidHash(f.txid) }));
      const settled = await this.settle(own, snapshot);
      own.forEach((o, j) => built.fund(o, settled[j]!));
      chunk = [];
    };
    for await (const [fk, v] of this.db.iterator({ ...fundingRange(skey, from), snapshot })) {
      if (!fundingIsOf(v, check)) continue; // another script's row under the same key
      chunk.push(fundingRowOf(fk, v));
      if (chunk.length === SUMMARY_CHUNK) await flush();
    }
    if (chunk.length > 0) await flush();
    const next = built.finish(tip.height, tip.hash);
    this.summaries.set(k, next);
    return next;
  }

  /** Funding rows (of one script: their checks were matched) with their txids from the T rows; a row whose T row is gone is dropped. */
  private async withTxids<F extends Funding>(rows: F[], snapshot: LevelSnapshot): Promise<F[]> {
    if (rows.length === 0) return [];
    // one txid buffer a tx, shared by its outputs' rows: an address paid 3,000 times by one tx
    // holds one copy, not 3,000
    const txids = await this.txidsOf(rows.map((r) => r.txnum), snapshot);
    return rows.filter((r) => {
      const txid = txids.get(r.txnum);
      if (!txid) return false;
      r.txid = txid;
      return true;
    });
  }

  /**
   * The txid of each of these tx numbers that the index holds, by tx number (each its own 32-byte
   * copy): every T row read once, however many of its group's txs are asked.
   */
  private async txidsOf(txnums: Iterable<number>, snapshot?: LevelSnapshot): Promise<Map<number, Buffer>> {
    const numbers = [...new Set(txnums)];
    const groups = [...new Set(numbers.map((n) => Math.floor(n / TXIDS_PER_ROW)))];
    const values = groups.length === 0 ? [] : await this.db.getMany(groups.map((g) => txidRowKey(g * TXIDS_PER_ROW)), at(snapshot));
    const rowOf = new Map(groups.map((g, i) => [g, values[i]]));
    const out = new Map<number, Buffer>();
    for (const n of numbers) {
      const row = rowOf.get(Math.floor(n / TXIDS_PER_ROW));
      const txid = row && txidInRow(row, n);
      if (txid) out.set(n, Buffer.from(txid));
    }
    return out;
  }

  /**
   * For each output, the tx number of the tx that spends it (null: none), and whether a later tx
   * with the same txid (BIP30, a tx without inputs) overwrote it unspent, as the node forgets it.
   */
  private async settle(outputs: readonly Output[], snapshot: LevelSnapshot): Promise<Settled[]> {
    const out: Settled[] = [];
    const PARALLEL = 64;
    for (let i = 0; i < outputs.length; i += PARALLEL) {
      const part = outputs.slice(i, i + PARALLEL);
      out.push(...(await Promise.all(part.map((o) => this.settleOne(o, snapshot)))));
    }
    return out;
  }

  private async settleOne(o: Output, snapshot: LevelSnapshot): Promise<Settled> {
    const check = o.hash.subarray(HASH_KEY, HASH_KEY + HASH_CHECK);
    // a repeated txid's spends after its repeat are the repeat's
    const until = o.coinbase ? await this.repeatOf(o, snapshot) : null;
    for await (const [k, v] of this.db.iterator({ ...spendingRange(o.hash, o.vout), snapshot })) {
      const spender = k.readUIntBE(k.length - 6, 6);
      if (spender > o.txnum && (until === null || spender < until) && v.equals(check)) return { spent: spender, dropped: false };
    }
    return { spent: null, dropped: until !== null };
  }

  /** The first later tx number with the same txid as `o`'s tx (BIP30), or null. */
  private async repeatOf(o: Output, snapshot: LevelSnapshot): Promise<number | null> {
    const later: number[] = [];
    for await (const k of this.db.keys({ ...txidKeyRange(o.hash), snapshot })) {
      const n = k.readUIntBE(k.length - 6, 6);
      if (n > o.txnum) later.push(n);
    }
    if (later.length === 0) return null;
    // nearly never here: o's own txid, then the candidates'
    const txids = await this.txidsOf([o.txnum, ...later], snapshot);
    const own = txids.get(o.txnum);
    if (own === undefined) return null;
    const same = later.filter((n) => txids.get(n)?.equals(own));
    return same.length > 0 ? Math.min(...same) : null;
  }

  /** Balances of these scripts with any history, by keyOfBlob(script). */
  async balances(scripts: readonly Uint8Array[], snapshot?: LevelSnapshot): Promise<Map<string, LevelBalance>> {
    return this.within(snapshot, async (s) => {
      const out = new Map<string, LevelBalance>();
      for (const [k, { script, summary }] of await this.summariesOf(scripts, s)) {
        if (summary.history.length > 0) out.set(k, { confirmed: summary.confirmed, txCount: summary.history.length, key: scriptKeyOf(script) });
      }
      return out;
    });
  }

  /**
   * Rows skip..skip+limit of these scripts' confirmed history (script, key), newest tx first, then
   * by script bytes.
   */
  async historyPage(scripts: readonly { script: Buffer; key: Buffer }[], limit: number, skip: number, snapshot?: LevelSnapshot): Promise<LevelHistoryRow[]> {
    return this.within(snapshot, async (s) => {
      const reach = skip + limit;
      const summaries = await this.summariesOf(
        scripts.map((x) => x.script),
        s,
      );
      const rows: { script: Buffer; txnum: number; delta: bigint }[] = [];
      // each summary's history is newest first: its first `reach` rows are all a page can take
      for (const { script, summary } of summaries.values()) {
        const { txnums, deltas } = summary.history;
        for (let i = 0; i < Math.min(reach, summary.history.length); i++) rows.push({ script, txnum: txnums[i]!, delta: deltas[i]! });
      }
      const page = rows.sort((a, b) => b.txnum - a.txnum || Buffer.compare(a.script, b.script)).slice(skip, reach);
      const txids = await this.txidsOf(
        page.map((r) => r.txnum),
        s,
      );
      const heights = [...new Set(page.map((r) => heightOfTxNum(r.txnum)))];
      const blocks = await this.db.getMany(heights.map(blockKey), { snapshot: s });
      const timeOf = new Map(heights.map((h, i) => [h, blocks[i]?.readUInt32BE(0) ?? 0]));
      return page.map((r) => {
        const txid = txids.get(r.txnum);
        if (!txid) throw new Error(`the index has no tx row for tx number ${r.txnum} that a summary holds in its history`);
        return { ...r, txid, time: timeOf.get(heightOfTxNum(r.txnum))! };
      });
    });
  }

  /**
   * Up to `limit` outputs of these scripts that no confirmed tx spends, after `after` (txnum, vout;
   * null: from the first), oldest first. Read from the funding rows after the cursor a chunk at a
   * time, each chunk's spends looked up (settle), and the scripts merged (unspent-page.ts): a page
   * costs its own rows and the spent ones between them, never the address's whole summary (a
   * script with 400,000 outputs would not fit the summaries' budget, nor the heap).
   */
  async unspent(scripts: readonly Uint8Array[], page: { after: { txnum: number; vout: number } | null; limit: number }, snapshot?: LevelSnapshot): Promise<LevelUnspentRow[]> {
    return this.within(snapshot, async (s) => {
      const distinct = [...new Map(scripts.map((x) => [keyOfBlob(x), Buffer.from(x)])).values()];
      const sources: SortedRead<LevelUnspentRow>[] = distinct.map((script) => (last, n) => this.unspentRun(script, last ?? page.after, n, s));
      if (sources.length === 0) return [];
      return mergeSorted(sources, (a, b) => a.txnum - b.txnum || a.vout - b.vout, page.limit);
    });
  }

  /**
   * Up to `n` of one script's unspent outputs after `after`, oldest first: from its summary's
   * unspent columns when the script fits the summaries' bound (the page then costs the page and a
   * refresh costs the unspent outputs, not the spent ones between them), else from its funding rows.
   */
  private async unspentRun(script: Buffer, after: { txnum: number; vout: number } | null, n: number, snapshot: LevelSnapshot): Promise<LevelUnspentRow[]> {
    const summary = await this.pagingSummary(script, snapshot);
    if (summary) return this.unspentOfSummary(script, summary.unspent, after, n, snapshot);
    const check = scriptHash(script);
    const skey = check.subarray(0, SCRIPT_KEY_BYTES);
    const end = fundingRange(skey).lt;
    const out: LevelUnspentRow[] = [];
    let from = after;
    const chunk = Math.max(64, n);
    while (out.length < n) {
      const range = from ? { gt: fundingKey(skey, from.txnum, from.vout), lt: end } : fundingRange(skey);
      const read: Funding[] = [];
      let last: { txnum: number; vout: number } | null = null;
      let seen = 0;
      for await (const [k, v] of this.db.iterator({ ...range, limit: chunk, snapshot })) {
        last = fundingKeyParts(k);
        seen++;
        if (fundingIsOf(v, check)) read.push(fundingRowOf(k, v)); // else another script's row under the same key
      }
      if (last === null) break;
      from = last;
      const own = await this.withTxids(read, snapshot);
      const settled = await this.settle(own.map(withHash), snapshot);
      own.forEach((o, i) => {
        if (settled[i]!.spent === null && !settled[i]!.dropped && out.length < n) out.push({ script, txnum: o.txnum, vout: o.vout, amount: o.amount, txid: o.txid });
      });
      if (seen < chunk) break;
    }
    return out;
  }

  /** The script's summary at the snapshot's tip, or null when the script has more outputs than a summary may hold. */
  private async pagingSummary(script: Buffer, snapshot: LevelSnapshot): Promise<Summary | null> {
    const k = keyOfBlob(script);
    if (this.tooLarge.has(k)) return null;
    try {
      return await this.summaryOf(k, script, await this.tipIn(snapshot), snapshot);
    } catch (err) {
      if (!(err instanceof AddressTooLarge)) throw err;
      // Outputs are only added until a rollback: remembered, so its next page does not count them again.
      if (this.tooLarge.size >= TOO_LARGE_HELD) this.tooLarge.clear();
      this.tooLarge.add(k);
      return null;
    }
  }

  /** Up to `n` of a summary's unspent outputs after `after`, with their txids from the T rows. */
  private async unspentOfSummary(script: Buffer, u: UnspentColumns, after: { txnum: number; vout: number } | null, n: number, snapshot: LevelSnapshot): Promise<LevelUnspentRow[]> {
    // the columns are in (txnum, vout) order: the first one after the cursor, by bisection
    let lo = 0;
    let hi = u.length;
    while (after && lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (u.txnums[mid]! < after.txnum || (u.txnums[mid] === after.txnum && u.vouts[mid]! <= after.vout)) lo = mid + 1;
      else hi = mid;
    }
    const end = Math.min(u.length, lo + n);
    const txidOf = await this.txidsOf(u.txnums.subarray(lo, end), snapshot);
    const out: LevelUnspentRow[] = [];
    for (let i = lo; i < end; i++) {
      const txid = txidOf.get(u.txnums[i]!);
      if (!txid) throw new Error(`the index has no tx row for tx number ${u.txnums[i]} that a summary holds unspent`);
      out.push({ script, txnum: u.txnums[i]!, vout: u.vouts[i]!, amount: u.amounts[i]!, txid });
    }
    return out;
  }

  /**
   * Those of these outputs (tx number, vout) that pay one of `scripts` and that no confirmed tx
   * spends, with their script and amount: each script's F row at each outpoint (its check
   * matched), then the output's spends (settle), whatever its address holds besides.
   */
  async unspentAt(wanted: readonly { txnum: number; vout: number }[], scripts: readonly Uint8Array[], snapshot?: LevelSnapshot): Promise<{ txnum: number; vout: number; script: Buffer; amount: bigint }[]> {
    return this.within(snapshot, async (s) => {
      const places = [...new Map(wanted.map((w) => [`${w.txnum}:${w.vout}`, w])).values()];
      const distinct = [...new Map(scripts.map((x) => [keyOfBlob(x), Buffer.from(x)])).values()];
      const asked = distinct.flatMap((script) => {
        const h = scriptHash(script);
        return places.map((w) => ({ txnum: w.txnum, vout: w.vout, script, h }));
      });
      const funding = await this.db.getMany(
        asked.map((a) => fundingKey(a.h.subarray(0, SCRIPT_KEY_BYTES), a.txnum, a.vout)),
        { snapshot: s },
      );
      const found = asked.flatMap((a, i) => {
        const v = funding[i];
        return v && fundingIsOf(v, a.h) ? [{ txnum: a.txnum, vout: a.vout, script: a.script, ...fundingOfValue(v), txid: Buffer.alloc(0) }] : [];
      });
      const held = await this.withTxids(found, s);
      const settled = await this.settle(held.map(withHash), s);
      return held.filter((_, i) => settled[i]!.spent === null && !settled[i]!.dropped).map(({ txnum, vout, script, amount }) => ({ txnum, vout, script, amount }));
    });
  }

  /** The tx number of each txid the index holds, by keyOfBlob(txid); of a txid confirmed twice (BIP30), the later. */
  async confirmedTxNumbers(txids: readonly Buffer[], snapshot?: LevelSnapshot): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    await Promise.all(
      txids.map(async (txid) => {
        const candidates: number[] = [];
        for await (const k of this.db.keys({ ...txidKeyRange(txidHash(txid)), ...at(snapshot) })) candidates.push(k.readUIntBE(k.length - 6, 6));
        if (candidates.length === 0) return;
        const full = await this.txidsOf(candidates, snapshot);
        const own = candidates.filter((n) => full.get(n)?.equals(txid));
        if (own.length > 0) out.set(keyOfBlob(txid), Math.max(...own));
      }),
    );
    return out;
  }

  /**
   * Those of these outputs (tx number, vout) the index holds (the standard ones), spent or not,
   * with their script and amount. The index keeps no scripts: they are read from the chain's node
   * (`read`, given each block's hash from its B row), and each output the node names must be an F
   * row here with its check and amount. A node answer of another tx, or of an output the index does
   * not hold, is refused in words.
   */
  async outputsOf(wanted: readonly { txnum: number; vout: number }[], read: ConfirmedTxReader, snapshot?: LevelSnapshot): Promise<{ txnum: number; vout: number; script: Buffer; amount: bigint }[]> {
    return this.within(snapshot, async (s) => {
      const voutsOf = new Map<number, Set<number>>();
      for (const w of wanted) voutsOf.set(w.txnum, (voutsOf.get(w.txnum) ?? new Set()).add(w.vout));
      const numbers = [...voutsOf.keys()];
      const txids = await this.txidsOf(numbers, s);
      const txs = numbers.flatMap((txnum) => {
        const txid = txids.get(txnum);
        return txid ? [{ txnum, txid: txidHexOf(txid), vouts: [...voutsOf.get(txnum)!], height: heightOfTxNum(txnum) }] : [];
      });
      if (txs.length === 0) return [];
      const heights = [...new Set(txs.map((t) => t.height))];
      const blocks = await this.db.getMany(heights.map(blockKey), { snapshot: s });
      const blockHashOf = new Map(heights.map((h, i) => [h, blocks[i] && hashOf(blocks[i])]));
      const asked = txs.map((t) => {
        const blockHash = blockHashOf.get(t.height);
        // written in one batch with its txs: a T row without its B row is a damaged folder
        if (!blockHash) throw new Error(`the LevelDB index holds tx ${t.txid} at block ${t.height} but no row of that block`);
        return { ...t, blockHash };
      });
      const answers = await read(asked.map(({ txid, vouts, blockHash, height }) => ({ txid, vouts, blockHash, height })));
      const outputs = asked.flatMap((t, i) => {
        const where = `tx ${t.txid} of block ${t.height} (${t.blockHash})`;
        const tx = answers[i];
        // the node's faults, answered 502 in these words (not a 500 of the service's own)
        if (!tx) throw new UpstreamFailure(false, `the chain's node has no ${where}, which the index holds: its outputs' scripts cannot be read (a pruned node, or a node on another chain?)`);
        if (tx.txid !== t.txid) throw new UpstreamFailure(false, `the chain's node answered ${where} with another tx (${tx.txid}): refused`);
        const asks = voutsOf.get(t.txnum)!;
        return tx.outputs.filter((o) => asks.has(o.vout) && isStandardScript(o.script, 0, o.script.length)).map((o) => ({ txnum: t.txnum, vout: o.vout, script: Buffer.from(o.script), amount: o.amount, h: scriptHash(o.script), where }));
      });
      const funding = await this.db.getMany(
        outputs.map((o) => fundingKey(o.h.subarray(0, SCRIPT_KEY_BYTES), o.txnum, o.vout)),
        { snapshot: s },
      );
      return outputs.map((o, i) => {
        const v = funding[i];
        if (!v || !fundingIsOf(v, o.h) || fundingOfValue(v).amount !== o.amount) {
          throw new UpstreamFailure(false, `the chain's node answered ${o.where} with output ${o.vout} paying ${o.amount} to ${o.script.toString('hex')}, which the index does not hold: refused`);
        }
        return { txnum: o.txnum, vout: o.vout, script: o.script, amount: o.amount };
      });
    });
  }

  /** Every row, in key order: for tests that compare two indexes row by row. */
  async entries(): Promise<[string, string][]> {
    const out: [string, string][] = [];
    for await (const [k, v] of this.db.iterator()) out.push([k.toString('hex'), v.toString('hex')]);
    return out;
  }

  /** Summaries held and their estimated bytes (for the bench). */
  summaryStats(): { scripts: number; bytes: number } {
    return this.summaries.stats();
  }
}
