// The watch bench of `npm run bench -- --scale` (issue 25): the time from registering a 2-of-3
// vault with 50 transactions to the first correct balance, watched from its birthday through the
// node's BIP158 filters, for two birthdays on the scale chain.
//
// "Time does not grow with the chain before the birthday" needs two birthdays at different heights
// with the same work after them. On one linear chain an earlier birthday also has more blocks after
// it, so each birthday gets its own fork of the scale chain: the chain is cut back to the height
// where ~30% (then ~90%) of its transactions are, and the same segment is mined on top: funding
// blocks for the node's wallet (before the birthday), then SEGMENT_BLOCKS blocks each with a
// payment to BACKGROUND_OUTPUTS strangers' scripts, every other one with one of the vault's 50
// payments. Both forks have the same blocks after the birthday; only the chain before differs.
//
// The cache stays pristine: everything runs on a copy of the cached datadir in the bench's work
// folder (deleted with it), and the cut is made with invalidateblock on that copy.
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { RegtestNode } from '../../dev/chains/litecoind.ts';
import { coinsToUnits, RpcClient } from '../../service/chains/utxo/rpc-client.ts';
import { scanDescriptors } from '../../service/chains/utxo/watch.ts';
import { testVault } from '../../service/test/watch-vault.ts';
import { SERVICE_NODE_FLAGS } from '../../service/node-flags.ts';
import { chainParams, scriptToAddress } from '../../shared/coins/index.ts';
import { runChild } from './child.ts';
import { startScaleNode, type ScaleManifest } from './scale-chain.ts';
import { heightReaching } from './scale-stages.ts';
import type { WatchChildInput, WatchChildResult } from './watch-child.ts';

const params = chainParams('litecoin', 'regtest');
/** The birthdays: where these shares of the chain's transactions are; the later fork first. */
export const BIRTHDAY_LATE = 0.9;
export const BIRTHDAY_EARLY = 0.3;
const VAULT_TXS = 50;
const SEGMENT_BLOCKS = 2 * VAULT_TXS;
const BACKGROUND_OUTPUTS = 200;
// Coinbase maturity is 100: ten matured coinbases pay the segment.
const FUND_BLOCKS = 110;
// Best of three: the host is shared, and a busy spell can cover one run.
const ROUNDS = 5;
// -persistmempool=0: a restart empties the mempool invalidateblock refilled with the cut blocks'
// transactions, which the watch's mempool pass would otherwise read (a real node has no such pile).
const NODE_FLAGS = ['-blockfilterindex=1', '-persistmempool=0'];

export interface WatchScenario {
  share: number;
  birthday: number;
  /** Transactions on the scale chain before the cut (the funding blocks add 1 each). */
  txsBefore: number;
  cutMs: number;
  /** Best of the rounds; `rounds` holds each. */
  result: WatchChildResult;
  rounds: number[];
  /** scantxoutset's total for the vault's descriptors, in litoshi. */
  nodeBalance: bigint;
  correct: boolean;
}

export interface WatchBenchResult {
  filterIndexMs: number;
  tipHeight: number;
  scenarios: WatchScenario[];
  segment: string;
}

export interface WatchBenchInput {
  datadir: string;
  manifest: ScaleManifest;
  work: string;
  onCleanup: (fn: () => Promise<void>) => void;
  progress: (line: string) => void;
  nodeArgs: (name: string) => string[];
}

const vault = testVault('scale watch vault');
const amountOf = (i: number): string => (0.01 + i / 1000).toFixed(8);

export async function runWatchBench(input: WatchBenchInput): Promise<WatchBenchResult> {
  const copy = join(input.work, 'watch-datadir');
  input.progress(`watch: copying the chain to ${copy} (the cache is not touched)...`);
  await cp(input.datadir, copy, { recursive: true });
  let node = await startWatchNode(copy, input.progress);
  input.onCleanup(() => node.stop());
  const started = performance.now();
  input.progress('watch: building the BIP158 filter index of the chain (litecoind -blockfilterindex=1)...');
  await filtersAtTip(node);
  const filterIndexMs = performance.now() - started;
  const tipHeight = await node.rpc.call<number>('getblockcount');

  // The strangers' scripts of the background payments, the same on both forks.
  const strangers = Array.from({ length: SEGMENT_BLOCKS * BACKGROUND_OUTPUTS }, () => scriptToAddress(params, Uint8Array.of(0x00, 0x14, ...randomBytes(20)))!);
  const scenarios: WatchScenario[] = [];
  for (const share of [BIRTHDAY_LATE, BIRTHDAY_EARLY]) {
    const cut = heightReaching(input.manifest.txsPerHeight, share * input.manifest.txs);
    const t0 = performance.now();
    const tip = await node.rpc.call<number>('getblockcount');
    if (tip > cut.toHeight) await slowCall(node, 'invalidateblock', [await node.rpc.call<string>('getblockhash', [cut.toHeight + 1])]);
    const cutMs = performance.now() - t0;
    input.progress(`watch: chain cut back to height ${cut.toHeight} (${fmt(cut.txs)} txs, ${(100 * share).toFixed(0)}% of the chain) in ${(cutMs / 1000).toFixed(1)} s; mining the segment...`);
    const miner = await node.newAddress();
    for (let b = 0; b < FUND_BLOCKS; b++) await node.rpc.call('generateblock', [miner, []]);
    const birthday = cut.toHeight + FUND_BLOCKS + 1;
    for (let b = 0; b < SEGMENT_BLOCKS; b++) {
      const pay = Object.fromEntries(strangers.slice(b * BACKGROUND_OUTPUTS, (b + 1) * BACKGROUND_OUTPUTS).map((a) => [a, '0.0001']));
      const txids = [await node.walletRpc.call<string>('sendmany', ['', pay])];
      if (b % 2 === 0) txids.push(await node.walletRpc.call<string>('sendtoaddress', [vault.address(false, b / 2).address, amountOf(b / 2)]));
      // generateblock mines exactly these, in this order: the cut blocks' transactions stay out.
      await node.rpc.call('generateblock', [miner, txids]);
    }
    // A restart drops the mempool (see NODE_FLAGS); the filter index catches up with the fork.
    await node.stop();
    node = await startWatchNode(copy, input.progress);
    await filtersAtTip(node);
    const mempool = await node.rpc.call<{ size: number }>('getmempoolinfo');
    if (mempool.size !== 0) throw new Error(`the restarted node holds ${mempool.size} mempool transactions; the watch bench wants none`);

    const descriptor = vault.descriptor();
    const scan = await slowCall<{ total_amount: number }>(node, 'scantxoutset', ['start', scanDescriptors([descriptor]).map((desc) => ({ desc, range: [0, 200] }))]);
    const nodeBalance = coinsToUnits(scan.total_amount);
    const planned = Array.from({ length: VAULT_TXS }, (_, i) => coinsToUnits(amountOf(i))).reduce((a, b) => a + b, 0n);
    if (nodeBalance !== planned) throw new Error(`scantxoutset finds ${nodeBalance} litoshi in the vault, ${planned} were paid`);

    const rounds: WatchChildResult[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const childInput: WatchChildInput = { rpc: node.rpcConfig, nodePid: node.pid, sqlitePath: join(input.work, `watch-${share}-${r}.sqlite`), descriptor, birthdayHeight: birthday };
      const { result } = await runChild<WatchChildResult>('./watch-child.ts', childInput, [...SERVICE_NODE_FLAGS, ...input.nodeArgs(`watch-${share}-${r}`)]);
      rounds.push(result);
    }
    const best = rounds.reduce((a, b) => (b.ms < a.ms ? b : a));
    scenarios.push({
      share,
      birthday,
      txsBefore: cut.txs,
      cutMs,
      result: best,
      rounds: rounds.map((r) => r.ms),
      nodeBalance,
      correct: rounds.every((r) => BigInt(r.balance) === nodeBalance),
    });
  }
  await node.stop();
  return {
    filterIndexMs,
    tipHeight,
    scenarios,
    segment:
      `after each birthday: ${SEGMENT_BLOCKS} blocks, each paying ${BACKGROUND_OUTPUTS} strangers' P2WPKH scripts, every other one also paying the vault ` +
      `(wsh(sortedmulti(2,...)) receive addresses 0..${VAULT_TXS - 1}, gap limit 20); before it, ${FUND_BLOCKS} blocks funding the node's wallet`,
  };
}

/**
 * The node on the copy. Started twice at most: on the shared bench host a start was once stopped
 * mid-verification by a shutdown request from outside; the first failure is printed.
 */
async function startWatchNode(datadir: string, progress: (line: string) => void): Promise<RegtestNode> {
  try {
    return await startScaleNode(datadir, undefined, NODE_FLAGS);
  } catch (err) {
    progress(`watch: litecoind did not start, trying once more: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
    return startScaleNode(datadir, undefined, NODE_FLAGS);
  }
}

/** A call that may take minutes (cutting back 70% of a 1M-tx chain): its own client, no timeout. */
async function slowCall<T>(node: RegtestNode, method: string, params: unknown[]): Promise<T> {
  const rpc = new RpcClient({ ...node.rpcConfig, timeoutMs: 3_600_000 });
  try {
    return await rpc.call<T>(method, params);
  } finally {
    rpc.close(); // a kept-alive socket would hold up the node's shutdown
  }
}

/** Waits until the node's filter index has caught up with its tip. */
async function filtersAtTip(node: RegtestNode): Promise<void> {
  for (;;) {
    const tip = await node.rpc.call<number>('getblockcount');
    const info = await node.rpc.call<Record<string, { synced: boolean; best_block_height: number }>>('getindexinfo', ['basic block filter index']);
    const idx = info['basic block filter index'];
    if (idx?.synced && idx.best_block_height === tip) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
