// A child of table-cache.ts. `build`: writes synthetic rows of the full index's shape (level-index.ts:
// T, K, F and S rows, 6.8 keys a transaction, hashes random) into a fresh LevelDB folder in key order,
// a memtable of one table's size, so the folder is made of many small tables quickly; it keeps a sample
// of the keys, spread over the whole key space. `read`: opens the folder with the options given (its
// own process, so its memory is its own), gets every sampled key once (every table is then opened),
// reads the process's memory and its open and mapped tables, then times random gets of present keys
// and of absent ones.
import { readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { childMain } from './child.ts';
import { memoryOf, ownCpuMs } from './machine.ts';
import { Random } from '../../service/test/fuzz-values.ts';

export type TableCacheInput =
  | { mode: 'build'; folder: string; txs: number; fileBytes: number; blockBytes: number; samplesFile: string; samples: number }
  | { mode: 'read'; folder: string; samplesFile: string; maxOpenFiles: number; blockCacheBytes: number; gets: number };

export interface BuildResult {
  rows: number;
  bytes: number;
  tables: number;
  ms: number;
}

export interface ReadResult {
  maxOpenFiles: number;
  /** Tables in the folder, and those open (a descriptor) and mapped once every one was read. */
  tables: number;
  openTables: number;
  mappedTables: number;
  /** Own memory (RssAnon) and mapped files (RssFile) after opening, and after every table was read, KiB. */
  anonOpenKb: number;
  fileOpenKb: number;
  anonReadKb: number;
  fileReadKb: number;
  /** Mean bytes of a table file. */
  tableBytes: number;
  /** Microseconds (wall, and this process's CPU) a get of a present key, of an absent one, and a probe (the rows under a key's first 9 bytes: a script's funding rows, as an address query's first read). */
  hitUs: number;
  hitCpuUs: number;
  missUs: number;
  missCpuUs: number;
  probeUs: number;
  probeCpuUs: number;
}

// ---- synthetic rows --------------------------------------------------------------------------

const TAG = { txidKey: 0x4b, funding: 0x46, spending: 0x53, txid: 0x54 } as const;
/** Outputs (F rows) and spent outpoints (S rows) a transaction, on average: with its T and K rows, 6.8 keys. */
const PER_TX = 2.4;

/** `n` sorted hashes spread evenly at random over 2^48 (one in each n-th of the space), 2 random bytes after. */
function* sortedHashes(n: number, rnd: () => number): Generator<Buffer> {
  for (let i = 0; i < n; i++) {
    const h = Buffer.allocUnsafe(8);
    h.writeUIntBE(Math.floor(((i + rnd()) * 2 ** 48) / n), 0, 6);
    h.writeUInt16BE(Math.floor(rnd() * 65536), 6);
    yield h;
  }
}

function randomBytesOf(n: number, rnd: () => number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(rnd() * 256);
  return b;
}

/** Every row, in key order (F, K, S, T): [key, value]. */
function* rowsOf(txs: number, rnd: () => number): Generator<[Buffer, Buffer]> {
  const outputs = Math.round(txs * PER_TX);
  const txnum = () => Math.floor(rnd() * txs);
  // F: script key, txnum, vout -> amount (LEB128, 3 to 5 bytes); a script funded 1 to 3 times
  let left = outputs;
  for (const skey of sortedHashes(Math.ceil(outputs / 2), rnd)) {
    if (left <= 0) break;
    const times = Math.min(left, 1 + Math.floor(rnd() * 3));
    const nums = Array.from({ length: times }, txnum).sort((a, b) => a - b);
    for (const n of nums) {
      const k = Buffer.allocUnsafe(16);
      k[0] = TAG.funding;
      skey.copy(k, 1);
      k.writeUIntBE(n, 9, 6);
      k[15] = Math.floor(rnd() * 4);
      yield [k, randomBytesOf(3 + Math.floor(rnd() * 3), rnd)];
    }
    left -= times;
  }
  // K: txid hash, txnum -> (none)
  for (const h of sortedHashes(txs, rnd)) {
    const k = Buffer.allocUnsafe(15);
    k[0] = TAG.txidKey;
    h.copy(k, 1);
    k.writeUIntBE(txnum(), 9, 6);
    yield [k, Buffer.alloc(0)];
  }
  // S: txid hash, vout, txnum -> 4 more bytes of the hash
  for (const h of sortedHashes(outputs, rnd)) {
    const k = Buffer.allocUnsafe(16);
    k[0] = TAG.spending;
    h.copy(k, 1);
    k[9] = Math.floor(rnd() * 4);
    k.writeUIntBE(txnum(), 10, 6);
    yield [k, randomBytesOf(4, rnd)];
  }
  // T: txnum -> txid, then its outputs (a head byte and 12 bytes of hash each: level-rows.ts)
  for (let n = 0; n < txs; n++) {
    const k = Buffer.allocUnsafe(7);
    k[0] = TAG.txid;
    k.writeUIntBE(n, 1, 6);
    const outs = 1 + Math.floor(rnd() * (2 * PER_TX - 1));
    const v = randomBytesOf(1 + 32 + outs * 13, rnd);
    v[0] = 32;
    yield [k, v];
  }
}

const tableFiles = (folder: string) => readdirSync(folder).filter((f) => f.endsWith('.ldb'));
const tablesIn = (folder: string) => tableFiles(folder).length;

async function build(input: Extract<TableCacheInput, { mode: 'build' }>): Promise<BuildResult> {
  const started = performance.now();
  // a memtable of one table: each is written out as one table of about fileBytes
  const db = new ClassicLevel<Buffer, Buffer>(input.folder, { keyEncoding: 'buffer', valueEncoding: 'buffer', writeBufferSize: input.fileBytes, maxFileSize: input.fileBytes, blockSize: input.blockBytes });
  await db.open();
  // seeded: the same folder from the same options
  const seeded = new Random(36);
  const rnd = () => seeded.next();
  const expected = Math.round(input.txs * (2 + 2 * PER_TX));
  const every = Math.max(1, Math.floor(expected / input.samples));
  const samples: Buffer[] = [];
  let rows = 0;
  let bytes = 0;
  let batch = db.batch();
  for (const [k, v] of rowsOf(input.txs, rnd)) {
    batch.put(k, v);
    if (rows % every === 0) samples.push(k);
    rows++;
    bytes += k.length + v.length;
    if (batch.length >= 10_000) {
      await batch.write();
      batch = db.batch();
    }
  }
  await batch.write();
  await db.close();
  // the samples, each a length byte and the key, in a random order
  for (let i = samples.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [samples[i], samples[j]] = [samples[j]!, samples[i]!];
  }
  writeFileSync(input.samplesFile, Buffer.concat(samples.flatMap((k) => [Buffer.of(k.length), k])));
  const result = { rows, bytes, tables: tablesIn(input.folder), ms: performance.now() - started };
  writeFileSync(`${input.samplesFile}.json`, JSON.stringify({ ...result, txs: input.txs, fileBytes: input.fileBytes, blockBytes: input.blockBytes }));
  return result;
}

// ---- reads -----------------------------------------------------------------------------------

function readSamples(file: string): Buffer[] {
  const all = readFileSync(file);
  const keys: Buffer[] = [];
  for (let at = 0; at < all.length; at += 1 + all[at]!) keys.push(all.subarray(at + 1, at + 1 + all[at]!));
  return keys;
}

/** Table files this process holds a descriptor of, and those it has mapped. */
function tablesHeld(): { open: number; mapped: number } {
  const fds = readdirSync('/proc/self/fd');
  let open = 0;
  for (const fd of fds) {
    try {
      if (readlinkSync(join('/proc/self/fd', fd)).endsWith('.ldb')) open++;
    } catch {
      // closed since the listing
    }
  }
  const mapped = new Set(readFileSync('/proc/self/maps', 'utf8').split('\n').filter((l) => l.endsWith('.ldb')).map((l) => l.slice(l.lastIndexOf(' ') + 1)));
  return { open, mapped: mapped.size };
}

function settled(): { anonKb: number; fileKb: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = memoryOf('self');
  return { anonKb: m.anonKb, fileKb: m.rssKb - m.anonKb };
}

async function timed(n: number, one: (i: number) => Promise<unknown>): Promise<{ us: number; cpuUs: number }> {
  const cpu = ownCpuMs();
  const started = performance.now();
  for (let i = 0; i < n; i++) await one(i);
  return { us: ((performance.now() - started) * 1000) / n, cpuUs: ((ownCpuMs() - cpu) * 1000) / n };
}

/** The keys that start with `prefix`. */
function rangeOf(prefix: Buffer): { gte: Buffer; lt: Buffer } {
  const end = Buffer.from(prefix);
  let i = end.length - 1;
  while (end[i] === 0xff) i--;
  end[i]!++;
  return { gte: prefix, lt: end.subarray(0, i + 1) };
}

async function read(input: Extract<TableCacheInput, { mode: 'read' }>): Promise<ReadResult> {
  const keys = readSamples(input.samplesFile);
  const db = new ClassicLevel<Buffer, Buffer>(input.folder, { keyEncoding: 'buffer', valueEncoding: 'buffer', maxOpenFiles: input.maxOpenFiles, cacheSize: input.blockCacheBytes });
  await db.open();
  try {
    const opened = settled();
    for (const k of keys) if ((await db.get(k)) === undefined) throw new Error(`sampled key ${k.toString('hex')} is not in ${input.folder}`);
    const read = settled();
    const held = tablesHeld();
    // absent keys: a present key and one byte more, so the same tables are asked (their filters say no)
    const absent = keys.map((k) => Buffer.concat([k, Buffer.of(0xff)]));
    const hit = await timed(input.gets, (i) => db.get(keys[i % keys.length]!));
    const miss = await timed(input.gets, (i) => db.get(absent[i % absent.length]!));
    const probe = await timed(input.gets, (i) => db.iterator({ ...rangeOf(keys[i % keys.length]!.subarray(0, 9)), limit: 10 }).all());
    const files = tableFiles(input.folder);
    return {
      maxOpenFiles: input.maxOpenFiles,
      tables: files.length,
      tableBytes: files.reduce((sum, f) => sum + statSync(join(input.folder, f)).size, 0) / files.length,
      openTables: held.open,
      mappedTables: held.mapped,
      anonOpenKb: opened.anonKb,
      fileOpenKb: opened.fileKb,
      anonReadKb: read.anonKb,
      fileReadKb: read.fileKb,
      hitUs: hit.us,
      hitCpuUs: hit.cpuUs,
      missUs: miss.us,
      missCpuUs: miss.cpuUs,
      probeUs: probe.us,
      probeCpuUs: probe.cpuUs,
    };
  } finally {
    await db.close();
  }
}

childMain<BuildResult | ReadResult>((raw) => {
  const input = raw as TableCacheInput;
  return input.mode === 'build' ? build(input) : read(input);
});
