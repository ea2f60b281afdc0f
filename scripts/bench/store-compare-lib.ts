// The parts of the store comparison (store-compare.ts) that its test runs without a node: the
// recording of the index's row stream, the batches it is replayed in, the two stores behind one
// small interface, the answers compared between them, and the figures printed.
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { ClassicLevel } from 'classic-level';
import { key, TAG, type Writes } from '../../service/index/level-rows.ts';
import { putRows } from '../../service/index/level-put-rows.ts';
import { LAYOUT_VERSION, levelOpenOptions, rangeOf } from '../../service/index/level-index.ts';
import type { EncodedBlock } from '../../service/index/blocks.ts';
import { DEFAULT_INDEX_CACHES } from '../../service/index/cache-budget.ts';

// ---- the recording ------------------------------------------------------------------------------

/** One block of the recorded stream: what LevelIndex.apply is given, less the block's encoding. */
export interface RecordedBlock {
  height: number;
  hash: string;
  time: number;
  /** Serialized size (what the indexer's batches are bounded by). */
  size: number;
  txs: number;
  /** The block's rows as the parse thread made them (level-rows.ts RowBuffer). */
  rows: Buffer;
}

// A record: u32 height, u32 time, u32 size, u32 txs, u8 hash length, the hash (utf8), u32 rows
// length, the rows; all little-endian.
export class RecordingWriter {
  private readonly fd: number;
  bytes = 0;

  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }

  add(b: RecordedBlock): void {
    const hash = Buffer.from(b.hash, 'utf8');
    if (hash.length > 255) throw new Error(`block ${b.height}'s hash is longer than 255 bytes`);
    const head = Buffer.allocUnsafe(21 + hash.length + 4);
    head.writeUInt32LE(b.height, 0);
    head.writeUInt32LE(b.time >>> 0, 4);
    head.writeUInt32LE(b.size, 8);
    head.writeUInt32LE(b.txs, 12);
    head[16] = hash.length;
    hash.copy(head, 17);
    head.writeUInt32LE(b.rows.length, 17 + hash.length);
    this.write(head.subarray(0, 21 + hash.length));
    this.write(b.rows);
  }

  private write(b: Buffer): void {
    for (let at = 0; at < b.length; ) at += writeSync(this.fd, b, at, b.length - at);
    this.bytes += b.length;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** The recorded blocks in order, read as they are asked for (each block's rows a buffer of their own). */
export function* readRecording(path: string): Generator<RecordedBlock> {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.allocUnsafe(17 + 255 + 4);
    let at = 0;
    const exactly = (into: Buffer, length: number): boolean => {
      let got = 0;
      while (got < length) {
        const n = readSync(fd, into, got, length - got, at + got);
        if (n === 0) break;
        got += n;
      }
      if (got !== 0 && got !== length) throw new Error(`the recording ${path} ends inside a record (at byte ${at})`);
      at += got;
      return got === length;
    };
    for (;;) {
      if (!exactly(head, 17)) return;
      const height = head.readUInt32LE(0);
      const time = head.readUInt32LE(4);
      const size = head.readUInt32LE(8);
      const txs = head.readUInt32LE(12);
      const hashLength = head[16]!;
      if (!exactly(head.subarray(17), hashLength + 4)) throw new Error(`the recording ${path} ends inside block ${height}'s record`);
      const hash = head.toString('utf8', 17, 17 + hashLength);
      const rows = Buffer.allocUnsafe(head.readUInt32LE(17 + hashLength));
      if (!exactly(rows, rows.length)) throw new Error(`the recording ${path} ends inside block ${height}'s rows`);
      yield { height, hash, time, size, txs, rows };
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Blocks grouped as the indexer's BatchPipeline groups them while its writer is the bottleneck (a
 * catch-up): gathered until their serialized bytes reach `maxBytes`; a heavier block alone.
 */
export function* batchesOf(blocks: Iterable<RecordedBlock>, maxBytes: number): Generator<RecordedBlock[]> {
  let batch: RecordedBlock[] = [];
  let weight = 0;
  for (const b of blocks) {
    batch.push(b);
    weight += b.size;
    if (weight >= maxBytes) {
      yield batch;
      batch = [];
      weight = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

// ---- the replay ---------------------------------------------------------------------------------

/** The version row LevelIndex.open writes into a fresh folder. */
export function versionRow(): [Buffer, Buffer] {
  const v = Buffer.allocUnsafe(4);
  v.writeUInt32BE(LAYOUT_VERSION);
  return [Buffer.of(TAG.version), v];
}

/** A batch's rows into `out` as LevelIndex.apply writes them: the blocks' rows (putRows), then their B rows. */
export function replayBatch(blocks: readonly RecordedBlock[], out: Writes): number {
  // putRows reads a block's encoding only to name an output spent twice across the batch, which a
  // valid chain never has (the recording was taken from one): it is not kept.
  const encoded = blocks.map((b): EncodedBlock & { levelRows: Uint8Array } => ({ height: b.height, hash: b.hash, time: b.time, bytes: new Uint8Array(0), levelRows: b.rows }));
  let rows = 0;
  const counted: Writes = {
    put: (k, v) => {
      rows++;
      return out.put(k, v);
    },
    del: (k) => out.del(k),
  };
  putRows(encoded, counted);
  // B rows, as LevelIndex.blockRows makes them: height -> time, block hash
  for (const b of blocks) {
    const k = key(TAG.block, 4);
    k.writeUInt32BE(b.height, 1);
    const hash = Buffer.from(b.hash, 'utf8');
    const v = Buffer.allocUnsafe(4 + hash.length);
    v.writeUInt32BE(b.time >>> 0, 0);
    hash.copy(v, 4);
    counted.put(k, v);
  }
  return rows;
}

// ---- the stores ---------------------------------------------------------------------------------

export type StoreKind = 'level' | 'level-array' | 'rocks' | 'rocks-array' | 'rocks-lean';
export const STORE_KINDS: readonly StoreKind[] = ['level', 'level-array', 'rocks', 'rocks-array', 'rocks-lean'];

export interface RangeRead {
  gte?: Buffer;
  lt?: Buffer;
  reverse?: boolean;
  limit?: number;
}

/** What the comparison needs of a store: write a batch its way, read ranges, compact, close. */
export interface CompareStore {
  /** Writes the rows `fill` puts, in one atomic batch; returns how many rows. */
  writeBatch(fill: (out: Writes) => number): Promise<number>;
  /** Entries of a range, in key order, a chunk at a time. */
  entries(range: RangeRead): AsyncGenerator<[Buffer, Buffer][]>;
  /** The store's full compaction, or what comes closest to one (see `compaction`). */
  compact(): Promise<void>;
  close(): Promise<void>;
  /** How `compact` gets there, in words. */
  readonly compaction: string;
}

/**
 * RocksDB's bulk settings, as far as @nxtedition/rocksdb 12 lets them be set: its default 64 MiB
 * memtable (the index's LevelDB one; the binding sets write_buffer_size only through its
 * `compaction` presets, which leave L0 and L1 uncompressed), zstd on every level with a 16 KiB
 * dictionary (the binding's only compression), a whole-key bloom filter of 10 bits as LevelDB's,
 * the index's 16 MiB block cache, two background jobs, and an uncompressed WAL (zstd on it costs
 * the writer CPU; the WAL cannot be turned off: the binding has no disableWAL). Writes unsynced.
 */
export function rocksOptions(kind: StoreKind): Record<string, unknown> {
  const options = { keyEncoding: 'buffer', valueEncoding: 'buffer', createIfMissing: true, compression: true, walCompression: false, cacheSize: DEFAULT_INDEX_CACHES.levelBlockCacheBytes, parallelism: 2 };
  // The fewest bytes this binding writes: 64 KiB blocks (zstd sees more of a kind at once, fewer
  // index entries) and no filter ("nullptr": the binding turns any string RocksDB does not know into
  // no filter, silently), at the cost of point reads (a T row's get reads a 64 KiB block, unfiltered).
  return kind === 'rocks-lean' ? { ...options, blockSize: 64 << 10, filterPolicy: 'nullptr' } : options;
}

interface RocksBatch {
  put(k: Buffer, v: Buffer): unknown;
  del(k: Buffer): unknown;
  write(): Promise<void>;
}
interface RocksIterator {
  nextv(size: number): Promise<[Buffer, Buffer][]>;
  close(): Promise<void>;
}
interface RocksDb {
  open(): Promise<void>;
  close(): Promise<void>;
  batch(): RocksBatch;
  batch(ops: { type: 'put'; key: Buffer; value: Buffer }[]): Promise<void>;
  iterator(options: RangeRead): RocksIterator;
  getProperty(name: string): string;
}
type RocksLevelClass = new (location: string, options: Record<string, unknown>) => RocksDb;

/** @nxtedition/rocksdb has no types of its own: the few calls used here, named. */
function rocksLevel(): RocksLevelClass {
  const loaded = createRequire(import.meta.url)('@nxtedition/rocksdb') as { RocksLevel: RocksLevelClass };
  return loaded.RocksLevel;
}

const CHUNK = 1000;

async function* chunks(it: RocksIterator | ReturnType<ClassicLevel<Buffer, Buffer>['iterator']>): AsyncGenerator<[Buffer, Buffer][]> {
  try {
    for (;;) {
      const got = (await it.nextv(CHUNK)) as [Buffer, Buffer][];
      if (got.length === 0) return;
      yield got;
    }
  } finally {
    await it.close();
  }
}

/** An array batch's collector: each row an object, the binding given the whole array at once. */
function collected(fill: (out: Writes) => number): { ops: { type: 'put'; key: Buffer; value: Buffer }[]; rows: number } {
  const ops: { type: 'put'; key: Buffer; value: Buffer }[] = [];
  // putRows reuses its key and value buffers row after row (a native batch copies them as given):
  // an array that holds them until the write copies them here, as part of the array form's cost
  const rows = fill({ put: (k, v) => ops.push({ type: 'put', key: Buffer.from(k), value: Buffer.from(v) }), del: () => { throw new Error('the replay deletes nothing'); } });
  return { ops, rows };
}

export async function openCompareStore(kind: StoreKind, folder: string): Promise<CompareStore> {
  if (kind === 'level' || kind === 'level-array') {
    const { ClassicLevel } = await import('classic-level');
    const db = new ClassicLevel<Buffer, Buffer>(folder, levelOpenOptions(DEFAULT_INDEX_CACHES));
    await db.open();
    return {
      compaction: 'compactRange over every key (as UtxoIndexStore.compactAfterCatchUp)',
      async writeBatch(fill) {
        if (kind === 'level-array') {
          // classic-level hands the whole array to its binding in one call (batch_do)
          const { ops, rows } = collected(fill);
          await db.batch(ops);
          return rows;
        }
        const batch = db.batch();
        let rows: number;
        try {
          rows = fill(batch);
        } catch (err) {
          await batch.close();
          throw err;
        }
        await batch.write();
        return rows;
      },
      entries: (range) => chunks(db.iterator(range)),
      compact: () => db.compactRange(Buffer.of(0), Buffer.of(0xff)),
      close: () => db.close(),
    };
  }
  const RocksLevel = rocksLevel();
  const open = async (): Promise<RocksDb> => {
    const db = new RocksLevel(folder, rocksOptions(kind));
    await db.open();
    return db;
  };
  let db = await open();
  return {
    compaction: 'none in the binding (no compactRange): closed and opened again (its WAL flushed to a table file), then its background compactions waited for',
    async writeBatch(fill) {
      if (kind === 'rocks-array') {
        // abstract-level 1's array form: the binding loops over it in JavaScript, a native call a row
        const { ops, rows } = collected(fill);
        await db.batch(ops);
        return rows;
      }
      const batch = db.batch();
      const rows = fill(batch);
      await batch.write();
      return rows;
    },
    entries: (range) => chunks(db.iterator(range)),
    async compact() {
      await db.close();
      db = await open();
      const busy = () => ['rocksdb.compaction-pending', 'rocksdb.num-running-compactions', 'rocksdb.num-running-flushes', 'rocksdb.mem-table-flush-pending'].some((p) => Number(db.getProperty(p)) > 0);
      while (busy()) await new Promise((r) => setTimeout(r, 50));
      // and its obsolete files (the WAL just flushed, compacted tables) deleted behind: the size settled
      for (let last = -1, now = await folderBytes(folder); now !== last; last = now, now = await folderBytes(folder)) await new Promise((r) => setTimeout(r, 200));
    },
    close: () => db.close(),
  };
}

// ---- the answers compared -----------------------------------------------------------------------

/** Key prefixes sampled from the recording: F rows of script keys, S rows of spent txids' hashes, K rows of txids' hashes; T keys whole. */
export interface Samples {
  funding: string[];
  spending: string[];
  txidKeys: string[];
  txs: string[];
}

export interface Answer {
  /** What was read, e.g. "F 0123…" or "all". */
  range: string;
  entries: number;
  /** SHA-256 of the entries in order (each key and value with its length). */
  digest: string;
}

async function answerOf(store: CompareStore, label: string, range: RangeRead): Promise<Answer & { keyBytes: number; valueBytes: number }> {
  const h = createHash('sha256');
  const len = Buffer.allocUnsafe(4);
  let entries = 0;
  let keyBytes = 0;
  let valueBytes = 0;
  for await (const chunk of store.entries(range)) {
    for (const [k, v] of chunk) {
      len.writeUInt32LE(k.length);
      h.update(len);
      h.update(k);
      len.writeUInt32LE(v.length);
      h.update(len);
      h.update(v);
      entries++;
      keyBytes += k.length;
      valueBytes += v.length;
    }
  }
  return { range: label, entries, digest: h.digest('hex'), keyBytes, valueBytes };
}

/**
 * The store's answers to the sampled ranges (forward), the tip (the last B row, read backwards),
 * and a scan of every entry: what two stores holding the same rows must give alike.
 */
export async function answersOf(store: CompareStore, samples: Samples): Promise<{ answers: Answer[]; keyBytes: number; valueBytes: number }> {
  const answers: Answer[] = [];
  const prefixed = (tag: number, hex: string) => Buffer.concat([Buffer.of(tag), Buffer.from(hex, 'hex')]);
  for (const s of samples.funding) answers.push(await answerOf(store, `F ${s}`, rangeOf(prefixed(TAG.funding, s))));
  for (const s of samples.spending) answers.push(await answerOf(store, `S ${s}`, rangeOf(prefixed(TAG.spending, s))));
  for (const s of samples.txidKeys) answers.push(await answerOf(store, `K ${s}`, rangeOf(prefixed(TAG.txidKey, s))));
  for (const s of samples.txs) answers.push(await answerOf(store, `T ${s}`, rangeOf(Buffer.from(s, 'hex'))));
  answers.push(await answerOf(store, 'tip', { ...rangeOf(Buffer.of(TAG.block)), reverse: true, limit: 1 }));
  const all = await answerOf(store, 'all', {});
  answers.push({ range: all.range, entries: all.entries, digest: all.digest });
  return { answers, keyBytes: all.keyBytes, valueBytes: all.valueBytes };
}

/** The first answer two stores differ on, in words, or null. */
export function firstDifference(a: { name: string; answers: readonly Answer[] }, b: { name: string; answers: readonly Answer[] }): string | null {
  if (a.answers.length !== b.answers.length) return `${a.name} gave ${a.answers.length} answers and ${b.name} ${b.answers.length}`;
  for (let i = 0; i < a.answers.length; i++) {
    const x = a.answers[i]!;
    const y = b.answers[i]!;
    if (x.range !== y.range) return `answer ${i} is of ${x.range} in ${a.name} and of ${y.range} in ${b.name}`;
    if (x.entries !== y.entries || x.digest !== y.digest) return `${x.range}: ${a.name} holds ${x.entries} entries (sha256 ${x.digest.slice(0, 16)}…), ${b.name} ${y.entries} (sha256 ${y.digest.slice(0, 16)}…)`;
  }
  return null;
}

// ---- the figures --------------------------------------------------------------------------------

export async function folderBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    // a store deletes its obsolete files behind (RocksDB's WAL after a flush): gone is 0 bytes
    if (entry.isFile()) bytes += await stat(join(entry.parentPath, entry.name)).then((s) => s.size, (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? 0 : Promise.reject(err)));
  }
  return bytes;
}

/** One store's run, as its child reports it. */
export interface StoreRun {
  store: StoreKind;
  rows: number;
  txs: number;
  batches: number;
  writeMs: number;
  /** CPU of the whole process (every thread, the store's own included) while writing. */
  writeCpuMs: number;
  /** CPU of its main thread alone while writing (the indexer's writer thread: the one that also reads the node). */
  writeMainCpuMs: number;
  bytesBefore: number;
  compactMs: number;
  compactCpuMs: number;
  bytesAfter: number;
  /** VmHWM (counts table files the store maps) and the most RssAnon seen (its own memory): at the end of the load, and at the end of the compaction. */
  loadPeakRssKb: number;
  loadPeakAnonKb: number;
  peakRssKb: number;
  peakAnonKb: number;
  compaction: string;
  answers: Answer[];
  /** Sum of the keys' and values' lengths: the rows' bytes before any store's overhead. */
  keyBytes: number;
  valueBytes: number;
}

export interface StoreLine {
  store: StoreKind;
  rows: number;
  txs: number;
  writeSeconds: number;
  txPerSecond: number;
  writeCpuSeconds: number;
  writeMainCpuSeconds: number;
  /** The store's tx/s over the fastest line's (1 for the fastest). */
  ofFastest: number;
  /** The least CPU a tx over this line's (1 for the cheapest). */
  cpuOfCheapest: number;
  bytesPerTxBefore: number;
  bytesPerTxAfter: number;
  compactSeconds: number;
  loadPeakRssMb: number;
  loadPeakOwnMb: number;
  peakRssMb: number;
  peakOwnMb: number;
}

const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;

/** The printed figures of one turn's runs. */
export function linesOf(runs: readonly StoreRun[]): StoreLine[] {
  const rate = (r: StoreRun) => (r.txs * 1000) / r.writeMs;
  const fastest = Math.max(...runs.map(rate));
  const cheapest = Math.min(...runs.map((r) => r.writeCpuMs / r.txs));
  return runs.map((r) => ({
    store: r.store,
    rows: r.rows,
    txs: r.txs,
    writeSeconds: round(r.writeMs / 1000, 2),
    txPerSecond: Math.round(rate(r)),
    writeCpuSeconds: round(r.writeCpuMs / 1000, 2),
    writeMainCpuSeconds: round(r.writeMainCpuMs / 1000, 2),
    ofFastest: round(rate(r) / fastest, 2),
    cpuOfCheapest: round(cheapest / (r.writeCpuMs / r.txs), 2),
    bytesPerTxBefore: Math.round(r.bytesBefore / r.txs),
    bytesPerTxAfter: Math.round(r.bytesAfter / r.txs),
    compactSeconds: round(r.compactMs / 1000, 2),
    loadPeakRssMb: Math.round(r.loadPeakRssKb / 1024),
    loadPeakOwnMb: Math.round(r.loadPeakAnonKb / 1024),
    peakRssMb: Math.round(r.peakRssKb / 1024),
    peakOwnMb: Math.round(r.peakAnonKb / 1024),
  }));
}

export function tableOf(lines: readonly StoreLine[]): string {
  const head = '| store | rows | txs | write s | tx/s | of fastest | CPU s (write) | of it main thread | CPU/tx: cheapest over this | B/tx before | B/tx after compaction | compaction s | peak RSS (own): load | and compaction |';
  const rule = `|${'---|'.repeat(14)}`;
  const body = lines.map(
    (l) =>
      `| ${l.store} | ${l.rows.toLocaleString('en-US')} | ${l.txs.toLocaleString('en-US')} | ${l.writeSeconds.toFixed(2)} | ${l.txPerSecond.toLocaleString('en-US')} | ${l.ofFastest.toFixed(2)} | ${l.writeCpuSeconds.toFixed(2)} | ${l.writeMainCpuSeconds.toFixed(2)} | ${l.cpuOfCheapest.toFixed(2)} | ` +
      `${l.bytesPerTxBefore} | ${l.bytesPerTxAfter} | ${l.compactSeconds.toFixed(2)} | ${l.loadPeakRssMb} MB (${l.loadPeakOwnMb}) | ${l.peakRssMb} MB (${l.peakOwnMb}) |`,
  );
  return [head, rule, ...body].join('\n');
}
