// Watch mode on a PRUNED litecoind -regtest (-prune=1, so no block filters and no txindex): a chain
// longer than one block file, pruned with pruneblockchain. A 2-of-3 vault paid before and after the
// prune height is watched from its birthday, below it: its unspent outputs equal the node's
// scantxoutset (those below the prune height taken from it, the later ones read from the held
// blocks), its balance is their sum, its history from the held blocks is the payments made there,
// and the status states the history limit in words. A reorganisation and a rescan below the prune
// height leave it right, and outputs below it that changed since they were taken are taken again.
// A faulty scantxoutset answer (another amount, a script not the wallet's) is refused in words and
// nothing is stored; one that keeps disagreeing after the outputs were taken again is an error in
// words. A miniscript vault (whose descriptor Litecoin Core 0.21 cannot read) paid on both sides of
// the prune height is watched the same way: its scripts are asked as raw().
import pino from 'pino';
import { allUnspent } from '../../test/all-unspent.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillBlockFile, prunableNode, pruneAll } from '../../../dev/chains/pruned-chain.ts';
import type { RegtestNode } from '../../../dev/chains/litecoind.ts';
import { bytesToHex, chainParams } from '../../../shared/coins/index.ts';
import { UtxoIndexStore } from '../../index/utxo-index.ts';
import { openTestStore, STORE_KINDS, type TestStore } from '../../store/test-stores.ts';
import { testMiniscriptVault, testVault } from '../../test/watch-vault.ts';
import { UtxoIndexer } from './indexer.ts';
import { NodeRpcBackend } from './node-rpc-backend.ts';
import { coinsToUnits, RpcClient, type RpcClientConfig } from './rpc-client.ts';
import { WatchScan } from './watch-scan.ts';
import { scanDescriptors, WatchList } from './watch.ts';

const params = chainParams('litecoin', 'regtest');
const vault = testVault('pruned vault');
const DESCRIPTOR = vault.descriptor();
const miniscript = testMiniscriptVault('pruned miniscript vault');
const silent = pino({ level: 'silent' });
// Regtest prunes nothing below this height whatever is asked (its PruneAfterHeight).
const PRUNE_AFTER = 1_000;

let node: RegtestNode;
let birthday: number;
let pruneHeight: number;
/** The vault's payments: txid, height, and the address index paid. */
const paidBefore: { txid: string; height: number }[] = [];
const paidAfter: { txid: string; height: number }[] = [];
/** The miniscript vault's payments: the script paid, below the prune height or not. */
const miniscriptPaid: { script: Uint8Array; below: boolean }[] = [];

async function pay(change: boolean, index: number, coins: number): Promise<string> {
  return node.rpc.call<string>('sendtoaddress', [vault.address(change, index).address, coins]);
}

async function mineOne(): Promise<number> {
  await node.mine(1);
  return node.rpc.call<number>('getblockcount');
}

interface NodeUnspent {
  txid: string;
  vout: number;
  amount: number;
  height: number;
}

async function nodeUnspent(): Promise<{ set: Set<string>; total: bigint }> {
  const scan = await node.rpc.call<{ unspents: NodeUnspent[] }>('scantxoutset', ['start', scanDescriptors([DESCRIPTOR]).map((desc) => ({ desc, range: [0, 100] }))]);
  return {
    set: new Set(scan.unspents.map((u) => `${u.txid}:${u.vout}:${coinsToUnits(u.amount)}:${u.height}`)),
    total: scan.unspents.reduce((t, u) => t + coinsToUnits(u.amount), 0n),
  };
}

beforeAll(async () => {
  node = await prunableNode();
  birthday = (await node.rpc.call<number>('getblockcount')) + 1;
  // Before the prune height: three payments in one block, one more later.
  const first = [await pay(false, 0, 1), await pay(false, 3, 1.3), await pay(true, 1, 0.4)];
  for (const [change, index] of [[false, 1], [true, 0]] as const) {
    await node.rpc.call('sendtoaddress', [miniscript.address(change, index).address, 0.3]);
    miniscriptPaid.push({ script: miniscript.address(change, index).scriptPubKey, below: true });
  }
  const h1 = await mineOne();
  for (const txid of first) paidBefore.push({ txid, height: h1 });
  await node.mine(2);
  const second = await pay(false, 5, 0.5);
  paidBefore.push({ txid: second, height: await mineOne() });
  await fillBlockFile(node); // the first block file is full: the blocks above lie in the next one
  const third = await pay(false, 7, 0.7);
  await node.rpc.call('sendtoaddress', [miniscript.address(false, 4).address, 0.6]);
  miniscriptPaid.push({ script: miniscript.address(false, 4).scriptPubKey, below: false });
  paidAfter.push({ txid: third, height: await mineOne() });
  const tip = await node.rpc.call<number>('getblockcount');
  await node.mine(Math.max(300, PRUNE_AFTER + 1 - tip));
  const fourth = await pay(false, 9, 0.9);
  paidAfter.push({ txid: fourth, height: await mineOne() });
  pruneHeight = await pruneAll(node);
}, 600_000);

afterAll(async () => node?.stop());

it('the node is pruned between the payments: the early ones lie in freed blocks', async () => {
  expect(pruneHeight).toBeGreaterThan(paidBefore.at(-1)!.height);
  expect(pruneHeight).toBeLessThanOrEqual(paidAfter[0]!.height);
  const freed = await node.rpc.call<string>('getblockhash', [paidBefore[0]!.height]);
  await expect(node.rpc.call('getblock', [freed, 2])).rejects.toThrow(/pruned/i);
  // Litecoin Core 0.21 keeps no block filters on a pruned node.
  await expect(node.rpc.call('getblockfilter', [freed, 'basic'])).rejects.toThrow();
});

describe.each(STORE_KINDS)('watch mode on a pruned node, %s', (kind) => {
  let store: TestStore;
  let backend: NodeRpcBackend;

  beforeAll(async () => {
    store = await openTestStore(kind);
    backend = new NodeRpcBackend({ params, store: store.store, rpc: node.rpcConfig, log: silent, pollIntervalMs: 1_000, fallbackFeePerKb: 10_000n, minFeePerKb: 1_000n, index: 'watch' });
  });
  afterAll(async () => {
    await backend?.stop();
    await store?.dispose();
  });

  const scripts = () => backend.watch!.list.scripts();
  const ourUnspent = async () => new Set((await allUnspent(backend, scripts())).map((u) => `${u.txid}:${u.vout}:${u.amount}:${u.height}`));
  const ourBalance = async () => (await backend.balances(scripts())).reduce((t, b) => t + b.confirmed, 0n);

  it('takes the outputs below the prune height from scantxoutset, reads only the held blocks, and states the history limit', async () => {
    const watch = backend.watch!;
    await watch.register('', 'vault', { descriptors: [DESCRIPTOR], birthdayHeight: birthday, gapLimit: 20 });
    await backend.indexer.sync();
    const tip = await node.rpc.call<number>('getblockcount');
    const status = (await watch.status('', 'vault'))!;
    expect(status).toMatchObject({ state: 'ready', pruned: true, filters: false, history_from: pruneHeight, scanned_height: tip, tip_height: tip, birthday_height: birthday });
    // What is proven, no more: the unspent outputs of the addresses watched (receive 9 and change 1 used), the history from the prune height.
    expect(status.history_limit).toMatch(new RegExp(`^unspent outputs complete for receive addresses 0 to 29 and change addresses 0 to 21; history from block ${pruneHeight} \\(the node is pruned`));
    // No freed block was asked for: only the held ones, from the prune height to the tip.
    expect(status.blocks_fetched).toBeLessThanOrEqual((tip - pruneHeight + 1) * 2);

    const node0 = await nodeUnspent();
    expect(node0.set.size).toBe(paidBefore.length + paidAfter.length);
    expect(await ourUnspent()).toEqual(node0.set);
    expect(await ourBalance()).toBe(node0.total);
    expect(node0.total).toBe(coinsToUnits('4.8'));

    // History: from the prune height on, exactly the payments made there, at their heights; below
    // it, only the payments whose outputs are still unspent (taken from the UTXO set).
    const history = await backend.history(scripts(), 100, 0);
    const held = history.rows.filter((r) => r.height !== null && r.height >= pruneHeight);
    expect(new Set(held.map((r) => `${r.txid}@${r.height}`))).toEqual(new Set(paidAfter.map((p) => `${p.txid}@${p.height}`)));
    const older = history.rows.filter((r) => r.height !== null && r.height < pruneHeight);
    expect(new Set(older.map((r) => `${r.txid}@${r.height}`))).toEqual(new Set(paidBefore.map((p) => `${p.txid}@${p.height}`)));
  }, 240_000);

  it('follows a reorganisation of the held blocks', async () => {
    const tip = await node.rpc.call<number>('getblockcount');
    const last = await node.rpc.call<string>('getblockhash', [tip]);
    await node.rpc.call('invalidateblock', [last]);
    await node.mine(2); // the last payment returns to the mempool and confirms again, one block later
    await backend.indexer.sync();
    const status = (await backend.watch!.status('', 'vault'))!;
    expect(status.state).toBe('ready');
    expect(status.scanned_height).toBe(tip + 1);
    expect(await ourUnspent()).toEqual((await nodeUnspent()).set);
    await node.rpc.call('reconsiderblock', [last]); // shorter than the new chain: stays aside
  }, 120_000);

  it('a rescan from below the prune height takes the old outputs from the UTXO set again and still states the limit', async () => {
    const status = (await backend.watch!.rescan('', 'vault', birthday))!;
    expect(status.history_from).toBe(pruneHeight);
    await backend.indexer.sync();
    const after = (await backend.watch!.status('', 'vault'))!;
    expect(after).toMatchObject({ state: 'ready', history_from: pruneHeight });
    const node1 = await nodeUnspent();
    expect(await ourUnspent()).toEqual(node1.set);
    expect(await ourBalance()).toBe(node1.total);
  }, 120_000);
});

/** The node's RPC, with its scantxoutset answers changed by `fault` (given the call's number, from 1). */
class FaultyRpc extends RpcClient {
  private scans = 0;
  constructor(
    config: RpcClientConfig,
    private readonly fault: (answer: { unspents: Record<string, unknown>[] }, scan: number) => void,
  ) {
    super(config);
  }
  override async call<T = unknown>(method: string, params: unknown[] = [], options = {}): Promise<T> {
    const answer = await super.call<T>(method, params, options);
    if (method === 'scantxoutset') this.fault(answer as { unspents: Record<string, unknown>[] }, ++this.scans);
    return answer;
  }
}

/** The pruned vault registered on a watch scan over `rpc` (a FaultyRpc), indexed to the tip once. */
async function syncedVaultWatch(store: TestStore, rpc: RpcClient, log: pino.Logger): Promise<{ index: UtxoIndexStore; watch: WatchScan; indexer: UtxoIndexer }> {
  const index = new UtxoIndexStore(store.store, 'litecoin');
  const watch = new WatchScan(new WatchList(store.store.db, 'litecoin', params), rpc, index, params, log);
  const indexer = new UtxoIndexer({ rpc, index, params, log: silent, pollIntervalMs: 1_000, watch });
  await watch.register('', 'vault', { descriptors: [DESCRIPTOR], birthdayHeight: birthday, gapLimit: 20 });
  await indexer.sync();
  return { index, watch, indexer };
}

it('outputs below the prune height that changed since they were taken are taken again', async () => {
  // The first answer lacks one output below the prune height, as if it had been spent then and
  // its spending block reorganised away since: the check at the tip finds it, and the outputs below
  // the prune height are taken again from the node's UTXO set.
  const store = await openTestStore('sqlite');
  // Scans 1 and 2 take the outputs (the second after the gap limit derived more scripts), scan 3
  // checks them at the tip.
  const rpc = new FaultyRpc(node.rpcConfig, (a, scan) => {
    if (scan <= 2) a.unspents.splice(a.unspents.findIndex((u) => (u.height as number) < pruneHeight), 1);
  });
  const lines: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
  try {
    const { index, watch } = await syncedVaultWatch(store, rpc, log);
    expect(lines.join('')).toContain('unspent outputs below the prune height changed, taking them again');
    expect((await watch.status('', 'vault'))!.state).toBe('ready');
    const ours = new Set((await allUnspent(index, watch.list.scripts())).map((u) => `${u.txid}:${u.vout}:${u.amount}:${u.height}`));
    expect(ours).toEqual((await nodeUnspent()).set);
  } finally {
    rpc.close();
    await store.dispose();
  }
}, 120_000);

describe('a faulty scantxoutset answer on a pruned node', () => {
  const cases: [string, (a: { unspents: Record<string, unknown>[] }) => void, RegExp][] = [
    [
      'another amount',
      (a) => {
        a.unspents.find((u) => (u.height as number) < pruneHeight)!.amount = 21;
      },
      /scantxoutset answer gives [0-9a-f]{64}:\d+ 2100000000 units, its gettxout \d+/,
    ],
    [
      'a script that is not the wallet’s',
      (a) => {
        a.unspents[0]!.scriptPubKey = bytesToHex(vault.address(false, 500).scriptPubKey);
      },
      /scantxoutset answer names [0-9a-f]{64}:\d+ paying \w+, which is none of the wallet's 40 derived scripts/,
    ],
  ];
  it.each(cases)('%s is refused in words; nothing is stored', async (_, fault, words) => {
    const store = await openTestStore('sqlite');
    const rpc = new FaultyRpc(node.rpcConfig, fault);
    try {
      const index = new UtxoIndexStore(store.store, 'litecoin');
      const watch = new WatchScan(new WatchList(store.store.db, 'litecoin', params), rpc, index, params, silent);
      const indexer = new UtxoIndexer({ rpc, index, params, log: silent, pollIntervalMs: 1_000, watch });
      await watch.register('', 'vault', { descriptors: [DESCRIPTOR], birthdayHeight: birthday, gapLimit: 20 });
      await expect(indexer.sync()).rejects.toThrow(words);
      const status = (await watch.status('', 'vault'))!;
      expect(status.state).toBe('error');
      expect(status.error).toMatch(words);
      expect(status.error).toContain(`below block ${pruneHeight}`);
      expect(await index.tip()).toBeNull();
      expect(await allUnspent(index, watch.list.scripts())).toEqual([]);
    } finally {
      rpc.close();
      await store.dispose();
    }
  }, 120_000);
});

it('outputs below the prune height that still disagree after they were taken again are an error in words', async () => {
  // Every answer the outputs are taken from lacks one output below the prune height, the answers of
  // the check at the tip do not: taken again once at the tip's height, the second disagreement there
  // is the node's or the service's fault, said in words, never `ready`.
  const store = await openTestStore('sqlite');
  const rpc = new FaultyRpc(node.rpcConfig, (a) => {
    // Told apart by the caller: the same scripts are asked both times.
    if (!new Error().stack?.includes('unspentBelow')) return;
    const i = a.unspents.findIndex((u) => (u.height as number) < pruneHeight);
    if (i >= 0) a.unspents.splice(i, 1);
  });
  const lines: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
  try {
    const { watch, indexer } = await syncedVaultWatch(store, rpc, log);
    const tip = await node.rpc.call<number>('getblockcount');
    expect(lines.filter((l) => l.includes('taking them again'))).toHaveLength(1);
    const status = (await watch.status('', 'vault'))!;
    expect(status.state).toBe('error');
    expect(status.error).toMatch(new RegExp(`^the scan disagrees with the node's UTXO set at height ${tip}: 1 unspent output\\(s\\) the node holds are missing or differ here \\([0-9a-f]{64}:\\d+\\), and 0 found here are not in the node's set`));
    expect(status.error).toContain(`the node is pruned: it holds no blocks below height ${pruneHeight}`);
    // Asked again at the same height, the answer stays the error (no endless retaking).
    await indexer.sync();
    expect((await watch.status('', 'vault'))!.state).toBe('error');
    expect(lines.filter((l) => l.includes('taking them again'))).toHaveLength(1);
  } finally {
    rpc.close();
    await store.dispose();
  }
}, 120_000);

it('a miniscript vault on the pruned node: its outputs below the prune height from scantxoutset by raw scripts, ready', async () => {
  // Litecoin Core 0.21 cannot read the vault's descriptor at all.
  await expect(node.rpc.call('scantxoutset', ['start', [{ desc: miniscript.descriptor.replace(/#.*$/, '').replaceAll('/<0;1>/*', '/0/*'), range: [0, 20] }]])).rejects.toThrow(/A function is needed within P2WSH/);
  const store = await openTestStore('sqlite');
  const rpc = new RpcClient(node.rpcConfig);
  try {
    const index = new UtxoIndexStore(store.store, 'litecoin');
    const watch = new WatchScan(new WatchList(store.store.db, 'litecoin', params), rpc, index, params, silent);
    const indexer = new UtxoIndexer({ rpc, index, params, log: silent, pollIntervalMs: 1_000, watch });
    await watch.register('', 'miniscript', { descriptors: [miniscript.descriptor], birthdayHeight: birthday, gapLimit: 20 });
    await indexer.sync();
    const tip = await node.rpc.call<number>('getblockcount');
    expect(await watch.status('', 'miniscript')).toMatchObject({ state: 'ready', pruned: true, history_from: pruneHeight, scanned_height: tip });
    const ours = await allUnspent(index, miniscriptPaid.map((p) => p.script));
    expect(ours).toHaveLength(miniscriptPaid.length);
    expect(ours.filter((u) => u.height !== null && u.height < pruneHeight)).toHaveLength(miniscriptPaid.filter((p) => p.below).length);
    const scan = await node.rpc.call<{ unspents: { txid: string; vout: number; height: number }[] }>('scantxoutset', ['start', miniscriptPaid.map((p) => `raw(${bytesToHex(p.script)})`)]);
    expect(new Set(ours.map((u) => `${u.txid}:${u.vout}:${u.height}`))).toEqual(new Set(scan.unspents.map((u) => `${u.txid}:${u.vout}:${u.height}`)));
  } finally {
    rpc.close();
    await store.dispose();
  }
}, 120_000);
