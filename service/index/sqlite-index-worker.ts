// The index writer thread: applies batches of confirmed blocks to the SQLite index on a
// connection of its own, so the indexer's main thread keeps reading the node meanwhile.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { applyEncodedBlocksSqlite } from './sqlite-apply.ts';
import { YoungOutputs } from './young-outputs.ts';
import type { ApplyRequest, ApplyResult, WriterMessage } from './sqlite-index-writer.ts';
import { DEFAULT_INDEX_CACHES, type IndexCaches } from './cache-budget.ts';

// caches absent (a writer started without a budget): the defaults
const { path, caches = DEFAULT_INDEX_CACHES } = workerData as { path: string; caches?: IndexCaches };
const db = new BetterSqlite3(path);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 10000');
db.pragma(`cache_size = -${caches.sqliteWriterCacheKib}`); // the index's b-trees stay warm within the budget (cache-budget.ts)
// A checkpoint copies every page the WAL holds back into the file. At a million scripts a batch
// dirties pages all over the b-trees, and the next batches dirty most of them again: checkpoint
// every 64 MiB of WAL rather than SQLite's 4 MiB, so a page is copied back once for many commits.
db.pragma('wal_autocheckpoint = 16384');
db.defaultSafeIntegers(true);
const apply = db.transaction((request: ApplyRequest, young: YoungOutputs) => applyEncodedBlocksSqlite(db, request.chain, request.blocks, request.confirmedMempoolTxids, young));

// Young unspent outputs per chain (young-outputs.ts): 200,000 outputs, about 30 MB of heap.
const youngByChain = new Map<string, YoungOutputs>();

parentPort!.on('message', (request: ApplyRequest | 'close' | { forget: string }) => {
  if (request === 'close') {
    db.close();
    parentPort!.close();
    return;
  }
  if ('forget' in request) {
    youngByChain.get(request.forget)?.forget();
    return;
  }
  let result: ApplyResult;
  let young = youngByChain.get(request.chain);
  if (!young) youngByChain.set(request.chain, (young = new YoungOutputs(caches.youngOutputs)));
  try {
    young.follow(request.blocks[0]!.height);
    const plan = apply(request, young);
    young.committed(plan, request.blocks[request.blocks.length - 1]!.height + 1);
    result = { id: request.id, ok: true };
  } catch (err) {
    young.forget(); // it may hold what the rolled-back transaction wrote
    result = { id: request.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(result);
});

parentPort!.postMessage({ ready: true } satisfies WriterMessage);
