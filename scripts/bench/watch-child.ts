// Child process of the watch bench (scale-watch.ts): a service's node backend in watch mode over a
// fresh SQLite file, already running when the vault is registered. Times the registration to the
// first balance the service answers as settled: its scan reached the node's tip, the gap limit
// walked out, and its unspent outputs passed the check against the node's scantxoutset.
import pino from 'pino';
import { NodeRpcBackend } from '../../service/chains/utxo/node-rpc-backend.ts';
import type { RpcClientConfig } from '../../service/chains/utxo/rpc-client.ts';
import type { WatchStatus } from '../../service/chains/utxo/watch.ts';
import { openStore } from '../../service/store/database.ts';
import { chainParams } from '../../shared/coins/index.ts';
import { childMain } from './child.ts';
import { cpuMsOf, memoryOf, ownCpuMs } from './machine.ts';

export interface WatchChildInput {
  rpc: RpcClientConfig;
  nodePid: number;
  sqlitePath: string;
  descriptor: string;
  birthdayHeight: number;
}

export interface WatchChildResult {
  ms: number;
  /** The vault's confirmed balance in litoshi, as a decimal string. */
  balance: string;
  status: WatchStatus;
  passes: number;
  peakRssKb: number;
  cpuOwnMs: number;
  cpuNodeMs: number;
}

async function work(raw: unknown): Promise<WatchChildResult> {
  const input = raw as WatchChildInput;
  const store = await openStore({ kind: 'sqlite', path: input.sqlitePath });
  const params = chainParams('litecoin', 'regtest');
  const backend = new NodeRpcBackend({
    params,
    store,
    rpc: { ...input.rpc, timeoutMs: 600_000 },
    log: pino({ level: 'warn' }, pino.destination(2)),
    pollIntervalMs: 1_000,
    fallbackFeePerKb: 10_000n,
    minFeePerKb: 1_000n,
    index: 'watch',
  });
  try {
    await backend.indexer.sync(); // the service is up, no wallet registered yet
    const watch = backend.watch!;
    const own = ownCpuMs();
    const node = cpuMsOf(input.nodePid);
    const started = performance.now();
    await watch.register('', 'vault', { descriptors: [input.descriptor], birthdayHeight: input.birthdayHeight, gapLimit: 20 });
    let status = (await watch.status('', 'vault'))!;
    let passes = 0;
    // One sync() normally settles it (the gap limit's rescans run inside); a pass the node's
    // scantxoutset answered at another height is checked again at the next.
    while (status.state === 'scanning' && passes < 20) {
      await backend.indexer.sync();
      passes++;
      status = (await watch.status('', 'vault'))!;
    }
    if (status.state !== 'ready') throw new Error(`the watch did not settle: ${JSON.stringify(status)}`);
    const balances = await backend.balances(watch.list.scripts());
    const balance = balances.reduce((a, b) => a + b.confirmed, 0n);
    const ms = performance.now() - started;
    return { ms, balance: balance.toString(), status, passes, peakRssKb: memoryOf('self').peakKb, cpuOwnMs: ownCpuMs() - own, cpuNodeMs: cpuMsOf(input.nodePid) - node };
  } finally {
    await backend.stop();
    await store.close();
  }
}

childMain(work);
