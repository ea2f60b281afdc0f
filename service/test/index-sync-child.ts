// A process that indexes a litecoind regtest chain into a store and exits: the crash test kills it
// with SIGKILL at random moments and starts it again. Input as JSON in an environment variable.
import pino from 'pino';
import { RpcClient } from '../chains/utxo/rpc-client.ts';
import { UtxoIndexer } from '../chains/utxo/indexer.ts';
import { nodeTxReader } from '../chains/utxo/node-txs.ts';
import { WatchScan } from '../chains/utxo/watch-scan.ts';
import { WatchList } from '../chains/utxo/watch.ts';
import { openStore } from '../store/database.ts';
import { UtxoIndexStore } from '../index/utxo-index.ts';
import { chainParams } from '../../shared/coins/index.ts';
import { INDEX_CHILD_ENV, type IndexChildInput } from './index-child-input.ts';

const input = JSON.parse(process.env[INDEX_CHILD_ENV] ?? 'null') as IndexChildInput | null;
if (!input) throw new Error(`${INDEX_CHILD_ENV} is not set: this file is started by the index crash test`);
const store = await openStore(input.store);
const rpc = new RpcClient(input.rpc);
const params = chainParams('litecoin', 'regtest');
const log = pino({ level: 'silent' });
const index = new UtxoIndexStore(store, 'litecoin', { watch: input.watch === true, nodeTxs: nodeTxReader(rpc, params) });
const watch = input.watch ? new WatchScan(new WatchList(store.db, 'litecoin', params), rpc, index, params, log) : undefined;
const indexer = new UtxoIndexer({ rpc, index, params, log, pollIntervalMs: 1000, ...(watch ? { watch } : {}) });
indexer.testKnobs.batchTxs = input.batchTxs;
// Each batch says it is about to be written, so the test kills relative to the writes, not to a
// start-up whose length depends on the machine's load.
indexer.testKnobs.beforeBatchWrite = () => {
  process.stdout.write('batch\n');
  return new Promise((resolve) => setTimeout(resolve, input.pauseMs));
};
await indexer.sync();
rpc.close();
await store.close();
