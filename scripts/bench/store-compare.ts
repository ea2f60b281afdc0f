// LevelDB (classic-level, the index's store) against RocksDB (@nxtedition/rocksdb) on the exact
// rows the full index writes (issue 36): its row stream is recorded once from a cached scale chain,
// through the indexer's own block reading (block-reading.ts fetchBlock on a BlockParsePool: rows
// made by level-rows.ts on a parse thread, as LevelIndex.apply is given them), then replayed into
// each store in a fresh child process, in the indexer's batches (blocks gathered to BATCH_BYTES of
// serialized bytes, as its BatchPipeline gathers them while the writer lags) and order, each batch
// written as LevelIndex.apply writes it (putRows, then the B rows). Each store is then compacted
// (or comes as near it as its binding lets it) and asked the same questions: the F, S and K rows
// of sampled keys, sampled T rows, the tip read backwards, and a scan of every entry. Stores that
// answer differently fail the run.
//
//   npx tsx scripts/bench/store-compare.ts [--txs 200000] [--turns 2] [--stores level,level-array,rocks,rocks-array,rocks-lean]
//     [--cache-dir DIR] [--work DIR] [--samples 100]
//
// The chain must be cached first (COUNTERSIGN_BENCH_CACHE=DIR npx tsx scripts/bench/scale-chain-build.ts --txs N,
// or --cache-dir). Stores run turn about (every store once a turn), so a shared host's load falls on
// each alike; compare the CPU seconds more than the wall time. The children run with
// MALLOC_ARENA_MAX=2, as the deploy unit runs the service (unless the environment sets it).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { scaleChainFolder, startScaleNode } from './scale-chain.ts';
import { runChild } from './child.ts';
import { machineLine } from './machine.ts';
import { Rng } from './scale-plan.ts';
import { RpcClient } from '../../service/chains/utxo/rpc-client.ts';
import { fetchBlock } from '../../service/chains/utxo/block-reading.ts';
import { BlockParsePool } from '../../service/chains/utxo/block-parse-pool.ts';
import { BATCH_BYTES } from '../../service/chains/utxo/indexer.ts';
import { encodedOf } from '../../service/index/blocks.ts';
import { RowBuffer, streamRows, TAG } from '../../service/index/level-rows.ts';
import { chainParams } from '../../shared/coins/index.ts';
import { SERVICE_NODE_FLAGS } from '../../service/node-flags.ts';
import { rowsOf } from '../../service/index/level-rows.ts';
import { batchesOf, firstDifference, linesOf, readRecording, RecordingWriter, STORE_KINDS, tableOf, type Samples, type StoreKind, type StoreRun } from './store-compare-lib.ts';
import type { StoreCompareInput } from './store-compare-child.ts';

const { values } = parseArgs({
  options: {
    txs: { type: 'string', default: '200000' },
    turns: { type: 'string', default: '2' },
    stores: { type: 'string', default: STORE_KINDS.join(',') },
    'cache-dir': { type: 'string' },
    work: { type: 'string' },
    samples: { type: 'string', default: '100' },
  },
});
const whole = (name: string, text: string, min: number): number => {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} takes a whole number of at least ${min}, not "${text}"`);
  return n;
};
const txsWanted = whole('txs', values.txs, 1000);
const turns = whole('turns', values.turns, 1);
const sampleCount = whole('samples', values.samples, 1);
const stores = values.stores.split(',').map((s) => {
  if (!(STORE_KINDS as readonly string[]).includes(s)) throw new Error(`--stores takes some of ${STORE_KINDS.join(', ')} separated by commas; "${s}" is none of them`);
  return s as StoreKind;
});
const folder = scaleChainFolder({ txs: txsWanted, ...(values['cache-dir'] ? { cacheDir: values['cache-dir'] } : {}) });
const datadir = join(folder, 'datadir');
if (!existsSync(join(folder, 'manifest.json'))) throw new Error(`no cached scale chain of ${txsWanted} txs in ${folder}: build it first (npx tsx scripts/bench/scale-chain-build.ts --txs ${txsWanted})`);

const work = values.work ?? (await mkdtemp(join(tmpdir(), 'store-compare-')));
await mkdir(work, { recursive: true });
const recording = join(work, 'rows.bin');
const load = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
// the children's malloc as the deploy unit sets it (deploy/countersign.service)
process.env.MALLOC_ARENA_MAX ??= '2';

/** Reservoir samples of `n` items, the same for the same stream. */
class Reservoir {
  readonly items: string[] = [];
  private seen = 0;
  constructor(
    private readonly n: number,
    private readonly rng: Rng,
  ) {}
  offer(item: string): void {
    this.seen++;
    if (this.items.length < this.n) this.items.push(item);
    else {
      const j = Math.floor(this.rng.next() * this.seen);
      if (j < this.n) this.items[j] = item;
    }
  }
}

/** Records the chain's row stream (and samples keys from it); returns the workload's size. */
async function record(): Promise<{ blocks: number; txs: number; rows: number; rowBytes: number; rawBytes: number; byTag: Map<string, { rows: number; bytes: number }>; samples: Samples; ms: number }> {
  const node = await startScaleNode(datadir, undefined, ['-rpcservertimeout=300']);
  const rpc = new RpcClient({ ...node.rpcConfig, timeoutMs: 600_000 });
  const pool = new BlockParsePool();
  const writer = new RecordingWriter(recording);
  const rng = new Rng('store-compare');
  const pick = { funding: new Reservoir(sampleCount, rng), spending: new Reservoir(sampleCount, rng), txidKeys: new Reservoir(sampleCount, rng), txs: new Reservoir(sampleCount, rng) };
  const started = performance.now();
  let blocks = 0;
  let txs = 0;
  let rows = 0;
  let rawBytes = 0;
  const byTag = new Map<string, { rows: number; bytes: number }>();
  try {
    const params = chainParams('litecoin', 'regtest');
    const tip = await rpc.call<number>('getblockcount');
    const ahead = 4;
    const hashes: string[] = [];
    for (let h = 0; h <= tip; h += 1000) {
      const calls = Array.from({ length: Math.min(1000, tip - h + 1) }, (_, i) => ({ method: 'getblockhash', params: [h + i] }));
      for (const r of await rpc.batch<string>(calls)) {
        if ('error' in r) throw new Error(`the node did not give a block hash: ${r.error.message}`);
        hashes.push(r.result);
      }
    }
    const read = (height: number) => {
      const p = fetchBlock(rpc, params, hashes[height]!, height, 'raw', { pool, levelRows: true });
      p.catch(() => undefined); // awaited in order below
      return p;
    };
    const queue = Array.from({ length: Math.min(ahead, tip + 1) }, (_, height) => read(height));
    for (let height = 0; height <= tip; height++) {
      const block = await queue.shift()!;
      if (height + ahead <= tip) queue.push(read(height + ahead));
      const encoded = encodedOf(block);
      let levelRows = encoded.levelRows;
      if (levelRows === undefined) {
        // a block read as verbose JSON (a codec gap): its rows made here, as LevelIndex.apply makes them
        const buffer = new RowBuffer();
        streamRows([encoded], buffer, true);
        levelRows = buffer.finish();
      }
      const rowsBuffer = Buffer.from(levelRows.buffer, levelRows.byteOffset, levelRows.byteLength);
      for (const [k, v] of rowsOf(rowsBuffer)) {
        rows++;
        const tag = String.fromCharCode(k[0]!);
        const t = byTag.get(tag) ?? { rows: 0, bytes: 0 };
        t.rows++;
        t.bytes += k.length + v.length;
        byTag.set(tag, t);
        if (k[0] === TAG.funding) pick.funding.offer(k.toString('hex', 1, 9));
        else if (k[0] === TAG.spending) pick.spending.offer(k.toString('hex', 1, 9));
        else if (k[0] === TAG.txidKey) pick.txidKeys.offer(k.toString('hex', 1, 9));
        else if (k[0] === TAG.txid) pick.txs.offer(k.toString('hex'));
      }
      writer.add({ height, hash: block.hash, time: block.time, size: block.size ?? 0, txs: block.txs.length, rows: rowsBuffer });
      blocks++;
      txs += block.txs.length;
      rawBytes += block.size ?? 0;
    }
  } finally {
    writer.close();
    await pool.close();
    rpc.close();
    await node.stop();
  }
  const samples = { funding: pick.funding.items, spending: pick.spending.items, txidKeys: pick.txidKeys.items, txs: pick.txs.items };
  return { blocks, txs, rows: rows + blocks + 1, rowBytes: writer.bytes, rawBytes, byTag, samples, ms: performance.now() - started };
}

try {
  console.log(machineLine());
  console.log(`load at the start: ${load()}`);
  const w = await record();
  let batches = 0;
  for (const _ of batchesOf(readRecording(recording), BATCH_BYTES)) batches++;
  console.log(
    `workload: the scale chain of ${w.txs.toLocaleString('en-US')} txs (${folder}), ${w.blocks} blocks, ${(w.rawBytes / 2 ** 20).toFixed(1)} MiB serialized; ` +
      `${w.rows.toLocaleString('en-US')} rows (${(w.rows / w.txs).toFixed(2)} a tx, the V and B rows included) in ${batches} batches of up to ${BATCH_BYTES / 2 ** 20} MiB of blocks; ` +
      `the recording ${(w.rowBytes / 2 ** 20).toFixed(1)} MiB, made in ${(w.ms / 1000).toFixed(1)} s`,
  );
  const kinds = [...w.byTag.entries()].sort(([a], [b]) => a.localeCompare(b));
  console.log(`the rows' own bytes (key + value) a tx, by kind: ${kinds.map(([tag, t]) => `${tag} ${(t.bytes / w.txs).toFixed(1)} (${(t.rows / w.txs).toFixed(2)} rows)`).join(', ')}; the B rows aside`);
  for (let turn = 1; turn <= turns; turn++) {
    const runs: StoreRun[] = [];
    for (const store of stores) {
      const storeFolder = join(work, `${store}-${turn}`);
      await rm(storeFolder, { recursive: true, force: true });
      const input: StoreCompareInput = { store, recording, folder: storeFolder, batchBytes: BATCH_BYTES, samples: w.samples };
      const { result } = await runChild<StoreRun>('./store-compare-child.ts', input, SERVICE_NODE_FLAGS);
      await rm(storeFolder, { recursive: true, force: true });
      if (result.txs !== w.txs) throw new Error(`${store} was given ${result.txs} txs of the recording's ${w.txs}`);
      runs.push(result);
    }
    for (const r of runs.slice(1)) {
      const diff = firstDifference({ name: runs[0]!.store, answers: runs[0]!.answers }, { name: r.store, answers: r.answers });
      if (diff !== null) throw new Error(`the stores answer differently (turn ${turn}): ${diff}`);
    }
    const all = runs[0]!.answers.at(-1)!;
    console.log(`\nturn ${turn} (${load()}):`);
    console.log(tableOf(linesOf(runs)));
    console.log(`same answers in every store: ${runs[0]!.answers.length - 2} sampled ranges, the tip, and all ${all.entries.toLocaleString('en-US')} entries (sha256 ${all.digest.slice(0, 16)}…); the rows' own bytes ${((runs[0]!.keyBytes + runs[0]!.valueBytes) / w.txs).toFixed(1)} a tx (keys ${(runs[0]!.keyBytes / w.txs).toFixed(1)}, values ${(runs[0]!.valueBytes / w.txs).toFixed(1)})`);
    for (const r of runs) console.log(`  ${r.store}: CPU ${(r.compactCpuMs / 1000).toFixed(2)} s in its compaction (${r.compaction})`);
  }
} finally {
  if (values.work === undefined) await rm(work, { recursive: true, force: true });
}
