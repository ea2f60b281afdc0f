// Child process of the bench: either fetches blocks the way the indexer does (the baseline) or runs
// the real indexer into a fresh store. Its own process, so its peak RSS is the indexer's alone.
import pino from 'pino';
import { RpcClient, type CallOptions, type RpcClientConfig } from '../../service/chains/utxo/rpc-client.ts';
import { UtxoIndexer } from '../../service/chains/utxo/indexer.ts';
import { openStore, type StoreConfig } from '../../service/store/database.ts';
import { UtxoIndexStore } from '../../service/store/utxo-index.ts';
import { chainParams } from '../../shared/coins/index.ts';
import { childMain } from './child.ts';
import { fetchBlocks } from './fetch-blocks.ts';
import { memoryOf } from './machine.ts';

export type ChildInput =
  | { mode: 'fetch'; rpc: RpcClientConfig; toHeight: number }
  | { mode: 'index'; rpc: RpcClientConfig; toHeight: number; store: StoreConfig };

export interface ChildResult {
  ms: number;
  blocks: number;
  txs: number;
  /** RSS once the modules are loaded and the store is open, before any block. */
  startRssKb: number;
  /** Index runs: starting the store's writer thread, before the timer (as the service's start does). */
  writerStartMs?: number;
  peakRssKb: number;
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
    const started = performance.now();
    const { blocks, txs } = await fetchBlocks(rpc, 0, input.toHeight);
    const ms = performance.now() - started;
    rpc.close();
    return { ms, blocks, txs, startRssKb, peakRssKb: memoryOf('self').peakKb };
  }

  const store = await openStore(input.store);
  try {
    const index = new UtxoIndexStore(store, 'litecoin');
    const rpc = new CappedRpcClient(input.rpc, input.toHeight);
    const indexer = new UtxoIndexer({ rpc, index, params: chainParams('litecoin', 'regtest'), log: pino({ level: 'warn' }, pino.destination(2)), pollIntervalMs: 1000 });
    // The writer thread is part of the open store: the service starts it with the indexer, before
    // it knows whether there is anything to catch up. Its start-up is a constant, not throughput.
    const writerStarted = performance.now();
    await index.prepareForBatches();
    const writerStartMs = performance.now() - writerStarted;
    const startRssKb = memoryOf('self').rssKb;
    const started = performance.now();
    await indexer.sync();
    const ms = performance.now() - started;
    const peakRssKb = memoryOf('self').peakKb;
    rpc.close();
    const tip = await index.tip();
    if (tip?.height !== input.toHeight) throw new Error(`the indexer stopped at height ${tip?.height ?? 'none'}, not ${input.toHeight}`);
    const row = await store.db.selectFrom('chain_blocks').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    // Transactions come from the node's headers in the parent; blocks are checked here.
    return { ms, blocks: Number(row.n), txs: 0, startRssKb, peakRssKb, writerStartMs };
  } finally {
    await store.close();
  }
}

childMain(work);
