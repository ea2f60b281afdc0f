// Child process of the scale bench: fetches block windows (the baseline) or runs the real indexer
// into one store, stopping at each of the given heights to report the time since the last stop,
// its peak RSS so far and the store's size on disk. Its own process, so the RSS is the indexer's.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import { sql } from 'kysely';
import { RpcClient, type CallOptions, type RpcClientConfig } from '../../service/chains/utxo/rpc-client.ts';
import { UtxoIndexer } from '../../service/chains/utxo/indexer.ts';
import { openStore, type Store, type StoreConfig } from '../../service/store/database.ts';
import { nodeTxReader } from '../../service/chains/utxo/node-txs.ts';
import { UtxoIndexStore } from '../../service/index/utxo-index.ts';
import { chainParams } from '../../shared/coins/index.ts';
import { childMain } from './child.ts';
import { fetchBlocks, type FetchForm } from './fetch-blocks.ts';
import { rawBlockCodec, type BlockForm } from '../../service/chains/utxo/block-reading.ts';
import { cpuMsOf, memoryOf, ownCpuMs, sampleOwnMemoryPeak } from './machine.ts';

export type ScaleChildInput =
  | { mode: 'fetch'; form: FetchForm; rpc: RpcClientConfig; nodePid: number; windows: Array<{ fromHeight: number; toHeight: number }> }
  | { mode: 'index'; rpc: RpcClientConfig; nodePid: number; stops: number[]; store: StoreConfig; blocks?: BlockForm };

export interface StageResult {
  toHeight: number;
  ms: number;
  /** VmHWM at the stop: the peak since the process started (with file pages it maps). */
  peakRssKb: number;
  /** The most RssAnon seen so far (sampled every 100 ms): the process's own memory, without mapped files. */
  peakAnonKb: number;
  /** On disk: SQLite, the file and its WAL (and the LevelDB folder, if any); PostgreSQL, the schema's relations. */
  storeBytes: number;
  /** The LevelDB index only, at the last stop: on disk after a full compaction, and the compaction's time. */
  compacted?: { bytes: number; ms: number };
  cpuOwnMs: number;
  cpuNodeMs: number;
}

export interface ScaleChildResult {
  stages: StageResult[];
}

/** The node as seen up to a height the parent moves: the real indexer stops there. */
class CappedRpcClient extends RpcClient {
  cap = 0;

  override async call<T = unknown>(method: string, params: unknown[] = [], options: CallOptions = {}): Promise<T> {
    if (method === 'getblockcount') return this.cap as T;
    return super.call<T>(method, params, options);
  }
}

async function folderBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return bytes;
}

async function storeBytes(store: Store, config: StoreConfig): Promise<number> {
  if (config.kind === 'sqlite') {
    let bytes = 0;
    for (const file of [config.path, `${config.path}-wal`]) bytes += await stat(file).then((s) => s.size, () => 0);
    if (config.indexDir !== undefined) bytes += await folderBytes(config.indexDir);
    return bytes;
  }
  const schema = config.schema ?? 'public';
  const row = await sql<{ bytes: string }>`select coalesce(sum(pg_total_relation_size(c.oid)), 0)::text as bytes
    from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = ${schema} and c.relkind = 'r'`.execute(store.db);
  return Number(row.rows[0]?.bytes ?? 0);
}

async function timed<T>(nodePid: number, fn: () => Promise<T>): Promise<{ value: T; ms: number; cpuOwnMs: number; cpuNodeMs: number }> {
  const own = ownCpuMs();
  const node = cpuMsOf(nodePid);
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started, cpuOwnMs: ownCpuMs() - own, cpuNodeMs: cpuMsOf(nodePid) - node };
}

/** The process's own memory at its highest since this child started. */
const ownPeak = sampleOwnMemoryPeak();

async function work(raw: unknown): Promise<ScaleChildResult> {
  const input = raw as ScaleChildInput;
  if (input.mode === 'fetch') {
    const rpc = new RpcClient(input.rpc);
    const codec = rawBlockCodec(chainParams('litecoin', 'regtest'))!;
    const stages: StageResult[] = [];
    for (const w of input.windows) {
      const t = await timed(input.nodePid, () => fetchBlocks(rpc, w.fromHeight + 1, w.toHeight, input.form, codec));
      stages.push({ toHeight: w.toHeight, ms: t.ms, peakRssKb: memoryOf('self').peakKb, peakAnonKb: ownPeak(), storeBytes: 0, cpuOwnMs: t.cpuOwnMs, cpuNodeMs: t.cpuNodeMs });
    }
    rpc.close();
    return { stages };
  }

  const store = await openStore(input.store);
  try {
    const rpc = new CappedRpcClient(input.rpc);
    const index = new UtxoIndexStore(store, 'litecoin', { nodeTxs: nodeTxReader(rpc, chainParams('litecoin', 'regtest')) });
    const indexer = new UtxoIndexer({ rpc, index, params: chainParams('litecoin', 'regtest'), log: pino({ level: 'warn' }, pino.destination(2)), pollIntervalMs: 1000, ...(input.blocks ? { blockForm: input.blocks } : {}) });
    await index.prepareForBatches(); // the service starts its writer thread before any block
    const stages: StageResult[] = [];
    for (const stop of input.stops) {
      rpc.cap = stop;
      const t = await timed(input.nodePid, () => indexer.sync());
      const tip = await index.tip();
      if (tip?.height !== stop) throw new Error(`the indexer stopped at height ${tip?.height ?? 'none'}, not ${stop}`);
      stages.push({ toHeight: stop, ms: t.ms, peakRssKb: memoryOf('self').peakKb, peakAnonKb: ownPeak(), storeBytes: await storeBytes(store, input.store), cpuOwnMs: t.cpuOwnMs, cpuNodeMs: t.cpuNodeMs });
    }
    if (input.store.kind === 'sqlite' && input.store.indexDir !== undefined && stages.length > 0) {
      // what the folder holds once its runs are merged, as after an initial sync (indexer.ts)
      const started = performance.now();
      await index.compactAfterCatchUp();
      stages[stages.length - 1]!.compacted = { bytes: await storeBytes(store, input.store), ms: performance.now() - started };
    }
    rpc.close();
    return { stages };
  } finally {
    await store.close();
  }
}

childMain(work);
