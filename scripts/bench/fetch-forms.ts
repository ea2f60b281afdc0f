// The node's block answer in two forms, on the cached scale chain: `getblock <hash> 0` over JSON-RPC
// (a JSON string of hex, what the indexer reads today) against REST `/rest/block/<hash>.bin` (the
// bytes themselves; the node needs -rest=1), each decoded by the coin codec, 8 blocks in flight,
// turn about. Prints each round's rate, this process's CPU and the node's, and REST against RPC:
// what a binary block fetch would give the indexer (docs/index-at-scale.md, "Round 8 at 1M").
//   npx tsx scripts/bench/fetch-forms.ts [--txs 200000] [--rounds 2]
import { existsSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeBitcoinBlock } from '../../shared/coins/block.ts';
import { chainParams } from '../../shared/coins/index.ts';
import { RpcClient } from '../../service/chains/utxo/rpc-client.ts';
import { bytesOfHex, NATIVE_HASHING } from '../../service/chains/utxo/raw-block.ts';
import { rawBlockCodec } from '../../service/chains/utxo/block-reading.ts';
import { scaleChainFolder, startScaleNode } from './scale-chain.ts';
import { cpuMsOf, machineLine, ownCpuMs } from './machine.ts';

const { values } = parseArgs({ options: { txs: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '2' } } });
const rounds = Number(values.rounds);
if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error(`--rounds takes a whole number of 1 or more, not "${values.rounds}"`);
const datadir = join(scaleChainFolder({ txs: Number(values.txs) }), 'datadir');
if (!existsSync(datadir)) throw new Error(`no cached scale chain of ${values.txs} txs in ${datadir}: build it first (npx tsx scripts/bench/scale-chain-build.ts --txs ${values.txs})`);

const IN_FLIGHT = 8;
const codec = rawBlockCodec(chainParams('litecoin', 'regtest'))!;
const node = await startScaleNode(datadir, undefined, ['-rest=1']);
const rpc = new RpcClient({ ...node.rpcConfig, timeoutMs: 60_000 });
const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
try {
  const tip = await rpc.call<number>('getblockcount');
  const hashes = (await rpc.batch<string>(Array.from({ length: tip + 1 }, (_, h) => ({ method: 'getblockhash', params: [h] })))).map((a, h) => {
    if ('error' in a) throw new Error(`getblockhash ${h}: ${a.error.message}`);
    return a.result;
  });
  const { hostname, port } = new URL(node.rpcConfig.url);
  const viaRest = (hash: string) =>
    new Promise<Buffer>((resolve, reject) => {
      http
        .get({ host: hostname, port, path: `/rest/block/${hash}.bin`, agent }, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(parts)) : reject(new Error(`REST block ${hash}: HTTP ${res.statusCode}`))));
          res.on('error', reject);
        })
        .on('error', reject);
    });
  const viaRpc = async (hash: string) => bytesOfHex(await rpc.call<string>('getblock', [hash, 0]), `block ${hash}`);

  /** Every block fetched and decoded in height order, IN_FLIGHT asked ahead. */
  const run = async (get: (hash: string) => Promise<Buffer>) => {
    const [own, nodeCpu, started] = [ownCpuMs(), cpuMsOf(node.pid), performance.now()];
    const window: Promise<Buffer>[] = [];
    let txs = 0;
    const takeOldest = async () => (txs += decodeBitcoinBlock(await window.shift()!, codec, NATIVE_HASHING).txs.length);
    for (const hash of hashes) {
      if (window.length >= IN_FLIGHT) await takeOldest();
      const p = get(hash);
      p.catch(() => undefined); // awaited in order by takeOldest
      window.push(p);
    }
    while (window.length > 0) await takeOldest();
    const ms = performance.now() - started;
    return { txs, rate: (txs / ms) * 1000, ownMs: ownCpuMs() - own, nodeMs: cpuMsOf(node.pid) - nodeCpu };
  };

  console.log(machineLine());
  console.log(`workload: ${hashes.length} blocks of the cached ${values.txs}-tx scale chain, ${IN_FLIGHT} in flight, ${rounds} rounds of each form, turn about`);
  const best = { rpc: 0, rest: 0 };
  const cpu = { rpc: { own: 0, node: 0 }, rest: { own: 0, node: 0 } };
  for (let r = 0; r < rounds; r++) {
    for (const [form, get] of [['rpc', viaRpc], ['rest', viaRest]] as const) {
      const m = await run(get);
      best[form] = Math.max(best[form], m.rate);
      cpu[form].own += m.ownMs / rounds;
      cpu[form].node += m.nodeMs / rounds;
      console.log(`round ${r + 1}, ${form === 'rpc' ? 'getblock <hash> 0 (JSON hex)' : 'REST .bin            '}: ${m.txs} txs, ${Math.round(m.rate).toLocaleString('en')} tx/s, this process ${(m.ownMs / 1000).toFixed(2)} s CPU, litecoind ${(m.nodeMs / 1000).toFixed(2)} s CPU`);
    }
  }
  console.log(`REST / RPC: rate ${(best.rest / best.rpc).toFixed(2)}x (best rounds), reader CPU ${(cpu.rest.own / cpu.rpc.own).toFixed(2)}x, litecoind CPU ${(cpu.rest.node / cpu.rpc.node).toFixed(2)}x (mean of rounds)`);
} finally {
  agent.destroy();
  rpc.close();
  await node.stop();
}
