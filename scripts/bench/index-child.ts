// Child process of the bench: either fetches blocks the way the indexer does (the baseline) or runs
// the real indexer into a fresh store. Its own process, so its peak RSS is the indexer's alone.
import pino from 'pino';
import { RpcClient, type CallOptions, type RpcClientConfig } from '../../service/chains/utxo/rpc-client.ts';
import { UtxoIndexer } from '../../service/chains/utxo/indexer.ts';
import { openStore, type StoreConfig } from '../../service/store/database.ts';
import { nodeTxReader } from '../../service/chains/utxo/node-txs.ts';
import { UtxoIndexStore } from '../../service/index/utxo-index.ts';
import { chainParams } from '../../shared/coins/index.ts';
import { childMain } from './child.ts';
import { fetchBlocks, type FetchForm } from './fetch-blocks.ts';
import { rawBlockCodec } from '../../service/chains/utxo/block-reading.ts';
import { cpuMsOf, memoryOf, ownCpuMs } from './machine.ts';

/** `nodePid`: the node's process, whose CPU time in the timed window is reported beside ours. */
export type ChildInput =
  | { mode: 'fetch'; form: FetchForm; rpc: RpcClientConfig; toHeight: number; nodePid: number }
  | { mode: 'index'; rpc: RpcClientConfig; toHeight: number; nodePid: number; store: StoreConfig };

export interface ChildResult {
  ms: number;
  blocks: number;
  txs: number;
  /** RSS once the modules are loaded and the store is open, before any block. */
  startRssKb: number;
  /** Index runs: starting the store's writer thread, before the timer (as the service's start does). */
  writerStartMs?: number;
  peakRssKb: number;
  /** CPU time used in the timed window by this process (all its threads) and by the node. */
  cpu: WindowCpu;
}

export interface WindowCpu {
  ownMs: number;
  nodeMs: number;
}

/** Runs `timed` and measures its wall time and the CPU time it and the node used meanwhile. */
async function measure<T>(nodePid: number, timed: () => Promise<T>): Promise<{ value: T; ms: number; cpu: WindowCpu }> {
  const own = ownCpuMs();
  const node = cpuMsOf(nodePid);
  const started = performance.now();
  const value = await timed();
  const ms = performance.now() - started;
  return { value, ms, cpu: { ownMs: ownCpuMs() - own, nodeMs: cpuMsOf(nodePid) - node } };
}

/** The node as seen up to `toHeight`: lets the real indexer stop at a chosen height. */
class CappedRpcClient extends RpcClient {
  constructor(
    config: RpcClientConfig,
    private readonly toHeight: number,
  ) {
    super(config);
  }

  override async call<T = unknown>(method: string, params: unknown[] = [], options: CallOptions = {}): Promise<T> {
    if (method === 'getblockcount') return this.toHeight as T;
    return super.call<T>(method, params, options);
  }
}

async function work(raw: unknown): Promise<ChildResult> {
  const input = raw as ChildInput;

  if (input.mode === 'fetch') {
    const rpc = new RpcClient(input.rpc);
    const startRssKb = memoryOf('self').rssKb;
    const { value, ms, cpu } = await measure(input.nodePid, () => fetchBlocks(rpc, 0, input.toHeight, input.form, rawBlockCodec(chainParams('litecoin', 'regtest'))!));
    rpc.close();
    return { ms, blocks: value.blocks, txs: value.txs, startRssKb, peakRssKb: memoryOf('self').peakKb, cpu };
  }

  const store = await openStore(input.store);
  try {
    const rpc = new CappedRpcClient(input.rpc, input.toHeight);
    const index = new UtxoIndexStore(store, 'litecoin', { nodeTxs: nodeTxReader(rpc, chainParams('litecoin', 'regtest')) });
    const indexer = new UtxoIndexer({ rpc, index, params: chainParams('litecoin', 'regtest'), log: pino({ level: 'warn' }, pino.destination(2)), pollIntervalMs: 1000 });
    // The writer thread is part of the open store: the service starts it with the indexer, before
    // it knows whether there is anything to catch up. Its start-up is a constant, not throughput.
    const writerStarted = performance.now();
    await index.prepareForBatches();
    const writerStartMs = performance.now() - writerStarted;
    const startRssKb = memoryOf('self').rssKb;
    const { ms, cpu } = await measure(input.nodePid, () => indexer.sync());
    const peakRssKb = memoryOf('self').peakKb;
    rpc.close();
    const tip = await index.tip();
    if (tip?.height !== input.toHeight) throw new Error(`the indexer stopped at height ${tip?.height ?? 'none'}, not ${input.toHeight}`);
    const row = await store.db.selectFrom('chain_blocks').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    // Transactions come from the node's headers in the parent; blocks are checked here.
    return { ms, blocks: Number(row.n), txs: 0, startRssKb, peakRssKb, writerStartMs, cpu };
  } finally {
    await store.close();
  }
}

childMain(work);
