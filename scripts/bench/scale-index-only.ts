// Indexes the cached scale chain into a fresh LevelDB folder up to the given heights, with no
// fetch rounds and no queries: the scale bench's indexer windows alone, to compare two checkouts
// turn about on a shared host (CPU seconds a window, beside its wall time). `--root` runs another
// checkout's indexer (an export of an older commit, its node_modules linked) on the same chain.
//   npx tsx scripts/bench/scale-index-only.ts [--txs 1000000] [--stops 162,183,246,267] [--root DIR] [--cpu-prof DIR]
// (--cpu-prof: the indexer's profiles, its parse threads' included, one file a thread, in DIR/index)
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { scaleChainFolder, startScaleNode } from './scale-chain.ts';
import { runChild } from './child.ts';
import { cpuProfArgs } from './options.ts';
import { SERVICE_NODE_FLAGS } from '../../service/node-flags.ts';
import type { ScaleChildResult } from './scale-child.ts';
import { txCounts } from './tx-counts.ts';
import { RpcClient } from '../../service/chains/utxo/rpc-client.ts';

const { values } = parseArgs({ options: { txs: { type: 'string', default: '1000000' }, stops: { type: 'string', default: '162,183,246,267' }, root: { type: 'string' }, 'cpu-prof': { type: 'string' } } });
const stops = values.stops.split(',').map((s) => {
  const n = Number(s);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--stops takes heights separated by commas, not "${values.stops}"`);
  return n;
});
const root = values.root === undefined ? fileURLToPath(new URL('../../', import.meta.url)) : resolve(values.root);
const datadir = join(scaleChainFolder({ txs: Number(values.txs) }), 'datadir');
if (!existsSync(datadir)) throw new Error(`no cached scale chain of ${values.txs} txs in ${datadir}: build it first (npx tsx scripts/bench/scale-chain-build.ts --txs ${values.txs})`);
const node = await startScaleNode(datadir, undefined, ['-rpcservertimeout=300']);
const work = await mkdtemp(join(tmpdir(), 'scale-index-only-'));
try {
  const input = { mode: 'index', rpc: { ...node.rpcConfig, timeoutMs: 600_000 }, nodePid: node.pid, stops, store: { kind: 'sqlite', path: join(work, 'index.sqlite'), indexDir: join(work, 'index') } };
  const { result } = await runChild<ScaleChildResult>(join(root, 'scripts/bench/scale-child.ts'), input, [...SERVICE_NODE_FLAGS, ...cpuProfArgs(values['cpu-prof'] === undefined ? undefined : resolve(values['cpu-prof']), 'index')]);
  for (const s of result.stages) {
    const cores = (s.cpuOwnMs + s.cpuNodeMs) / s.ms;
    console.log(`to height ${s.toHeight}: ${(s.ms / 1000).toFixed(2)} s, indexer CPU ${(s.cpuOwnMs / 1000).toFixed(1)} s, litecoind CPU ${(s.cpuNodeMs / 1000).toFixed(1)} s, ${cores.toFixed(2)} cores busy, peak RSS ${(s.peakRssKb / 1024).toFixed(0)} MB (own ${(s.peakAnonKb / 1024).toFixed(0)} MB)`);
  }
  const last = result.stages[result.stages.length - 1];
  if (last?.compacted) {
    // the txs the index holds: every block's nTx to the last stop, genesis included
    const rpc = new RpcClient(node.rpcConfig);
    const txs = (await txCounts(rpc)).slice(0, last.toHeight + 1).reduce((a, b) => a + b, 0);
    rpc.close();
    console.log(`after a full compaction at height ${last.toHeight} (${txs} txs, ${(last.compacted.ms / 1000).toFixed(1)} s): ${(last.compacted.bytes / txs).toFixed(1)} bytes/tx (${last.compacted.bytes} bytes; ${(last.storeBytes / txs).toFixed(1)} before)`);
  }
} finally {
  await node.stop();
  await rm(work, { recursive: true, force: true });
}
