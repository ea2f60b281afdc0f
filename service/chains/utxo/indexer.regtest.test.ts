// The indexer against a real litecoind, on SQLite and on PostgreSQL, in both index modes (the full
// index, and watch mode with the vault registered from a birthday): it reaches the node's tip,
// agrees with the node's UTXO set, resumes after a restart without starting over, and rolls back
// a reorganisation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import { chainParams } from '../../../shared/coins/coin-table.ts';
import { fundedNode, type RegtestNode } from '../../../dev/chains/litecoind.ts';
import type { Store } from '../../store/database.ts';
import { openTestStore, STORE_KINDS, type StoreKind, type TestStore } from '../../store/test-stores.ts';
import { UtxoIndexStore } from '../../index/utxo-index.ts';
import { testVault } from '../../test/watch-vault.ts';
import { UtxoIndexer } from './indexer.ts';
import { nodeTxReader } from './node-txs.ts';
import { coinsToUnits, RpcClient } from './rpc-client.ts';
import { WatchScan } from './watch-scan.ts';
import { WatchList } from './watch.ts';

const params = chainParams('litecoin', 'regtest');
const log = pino({ level: 'silent' });
// A vault's first receive address: the full index answers it as any address, watch mode because
// the vault is registered.
const vault = testVault('indexer');
const { address, scriptPubKey: script } = vault.address(false, 0);

let node: RegtestNode;
let birthday: number;
beforeAll(async () => {
  node = await fundedNode({ extraArgs: ['-blockfilterindex=1'] });
  birthday = (await node.rpc.call<number>('getblockcount')) + 1;
  for (let i = 0; i < 5; i++) await node.fundScript(script, BigInt(i + 1) * 1_000_000n);
  await node.mine(3);
});
afterAll(async () => node?.stop());

async function nodeTotal(): Promise<bigint> {
  const res = await node.rpc.call<{ total_amount: number }>('scantxoutset', ['start', [`raw(${bytesToHex(script)})`]]);
  return coinsToUnits(res.total_amount);
}

// The LevelDB index also with parseThreads 0: the main thread reads raw blocks into rows itself, by the parse threads' function.
const MODES: (readonly [StoreKind, 'full' | 'watch', number | 'default'])[] = [...STORE_KINDS.flatMap((kind) => (['full', 'watch'] as const).map((mode) => [kind, mode, 'default'] as const)), ['level', 'full', 'default'], ['level', 'full', 0]];

describe.each(MODES)('UTXO indexer on %s, %s index, parse threads %s', (kind, mode, threads) => {
  let t: TestStore;
  /** The store the tests use: the last one opened (a LevelDB folder is one store's at a time). */
  let live: Store;
  beforeAll(async () => {
    t = await openTestStore(kind);
    live = t.store;
    if (mode === 'watch') await new WatchList(t.store.db, 'litecoin', params).register('', 'vault', { descriptors: [vault.descriptor()], birthdayHeight: birthday, gapLimit: 20 });
  });
  afterAll(async () => t?.dispose());

  /** The indexer as the node backend builds it: in watch mode with the registrations in `store`. */
  const indexerOn = (store: Store, index: UtxoIndexStore) => {
    const rpc = new RpcClient(node.rpcConfig);
    const watch = mode === 'watch' ? new WatchScan(new WatchList(store.db, 'litecoin', params), rpc, index, params, log) : undefined;
    return { indexer: new UtxoIndexer({ rpc, index, params, log, pollIntervalMs: 50, ...(watch ? { watch } : {}), ...(threads === 'default' ? {} : { parseThreads: threads }) }), watch };
  };

  it('catches up with the node and agrees with its UTXO set', async () => {
    const index = new UtxoIndexStore(live, 'litecoin', { watch: mode === 'watch' });
    const { indexer, watch } = indexerOn(live, index);
    await indexer.sync();
    const tip = await node.rpc.call<number>('getblockcount');
    expect(indexer.status()).toMatchObject({ tipHeight: tip, indexedHeight: tip, error: null });
    expect((await index.balances([script]))[0]!.confirmed).toBe(await nodeTotal());
    if (watch) {
      // From the birthday only, and checked against the node's UTXO set.
      expect(await index.blockHash(birthday - 1)).toBeNull();
      expect(await watch.status('', 'vault')).toMatchObject({ state: 'ready', scanned_height: tip });
    }
  });

  it('publishes the node tip only with the index height: no empty index between two good answers', async () => {
    // An index whose tip is slow to read, as a large store's is on a service's first pass: the
    // status must never pair the node's tip with an unknown height (that reads as a 503).
    await indexerOn(live, new UtxoIndexStore(live, 'litecoin', { watch: mode === 'watch' })).indexer.sync();
    const index = new UtxoIndexStore(live, 'litecoin', { watch: mode === 'watch' });
    const read = index.tip.bind(index);
    index.tip = async () => {
      await new Promise((r) => setTimeout(r, 200));
      return read();
    };
    const { indexer } = indexerOn(live, index);
    const seen: ReturnType<typeof indexer.status>[] = [];
    const sampler = setInterval(() => seen.push(indexer.status()), 5);
    try {
      await indexer.sync();
    } finally {
      clearInterval(sampler);
    }
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.filter((p) => p.tipHeight !== null && p.indexedHeight === null)).toEqual([]);
    expect(indexer.status().indexedHeight).toBe(await node.rpc.call<number>('getblockcount'));
  });

  it('resumes after a restart from where it stopped', async () => {
    const before = await node.rpc.call<number>('getblockcount');
    await node.fundScript(script, 7_000_000n);
    await node.mine(2);
    const store = (live = await t.reopen());
    const reopened = new UtxoIndexStore(store, 'litecoin', { watch: mode === 'watch' });
    expect((await reopened.tip())!.height).toBe(before); // nothing lost, nothing re-indexed yet
    const { indexer, watch } = indexerOn(store, reopened);
    indexer.start(); // the polling loop, as in production
    await expect.poll(async () => (await reopened.tip())?.height, { timeout: 20_000 }).toBe(before + 2);
    await indexer.stop();
    expect((await reopened.balances([script]))[0]!.confirmed).toBe(await nodeTotal());
    // Watch mode resumed too: no rescan from the birthday (the one at the registration was done).
    if (watch) expect(await watch.status('', 'vault')).toMatchObject({ birthday_height: birthday, state: 'ready' });
    if (watch) expect(watch.list.pendingRescan()).toBeNull();
  });

  it('rolls back a reorganisation to the fork point', async () => {
    const index = new UtxoIndexStore(live, 'litecoin', { watch: mode === 'watch' });
    const { indexer, watch } = indexerOn(live, index);
    const [hash] = await node.mine(1, address); // a coinbase to our address
    await indexer.sync();
    const withBlock = (await index.balances([script]))[0]!.confirmed;
    await node.rpc.call('invalidateblock', [hash]);
    await node.mine(2); // a longer branch without it
    await indexer.sync();
    expect((await index.balances([script]))[0]!.confirmed).toBe(await nodeTotal());
    expect((await index.balances([script]))[0]!.confirmed).toBeLessThan(withBlock);
    expect((await index.tip())!.hash).toBe(await node.rpc.call<string>('getbestblockhash'));
    if (watch) expect(await watch.status('', 'vault')).toMatchObject({ state: 'ready', scanned_height: await node.rpc.call<number>('getblockcount') });
    await node.rpc.call('reconsiderblock', [hash]); // shorter branch: stays stale
  });
});

// Layout 4 of the LevelDB index keeps no output's script: outputs() and the mempool's spent outputs
// ask the node, unspent ones its coins (gettxout), spent ones their tx (getrawtransaction with the
// block hash of the index's B row; this node has no -txindex), and an answer of another tx, or of
// an output the index does not hold, is refused.
describe('the LevelDB index: outputs by outpoint from the node', () => {
  let t: TestStore;
  let rpc: RpcClient;
  /** A confirmed tx paying `script`, its vout there and its block. */
  let funded: { txid: string; vout: number; height: number; hash: string };
  beforeAll(async () => {
    t = await openTestStore('level');
    rpc = new RpcClient(node.rpcConfig);
    const txid = await node.fundScript(script, 3_000_000n);
    const [hash] = await node.mine(1);
    const tx = await node.rpc.call<{ vout: { n: number; scriptPubKey: { hex: string } }[] }>('getrawtransaction', [txid, true, hash]);
    const height = (await node.rpc.call<{ height: number }>('getblockheader', [hash])).height;
    funded = { txid, vout: tx.vout.find((o) => o.scriptPubKey.hex === bytesToHex(script))!.n, height, hash: hash! };
  });
  afterAll(async () => {
    rpc?.close();
    await t?.dispose();
  });

  it("answers outputs() of a confirmed outpoint and the mempool's spent outputs from the node", async () => {
    const read = nodeTxReader(rpc, params);
    const asked: string[] = [];
    const index = new UtxoIndexStore(t.store, 'litecoin', {
      nodeTxs: async (txs) => {
        asked.push(...txs.map((x) => x.txid));
        return read(txs);
      },
    });
    const indexer = new UtxoIndexer({ rpc, index, params, log, pollIntervalMs: 50 });
    await indexer.sync();
    const outputs = await index.outputs([{ txid: funded.txid, vout: funded.vout }]);
    expect(outputs.get(`${funded.txid}:${funded.vout}`)).toEqual({ script: new Uint8Array(script), amount: 3_000_000n });
    expect(asked).toEqual([funded.txid]);
    // a mempool tx spending confirmed wallet outputs: its spends are known by the node's answers
    const pending = await node.fundScript(script, 2_000_000n);
    const inputs = (await node.rpc.call<{ vin: { txid: string; vout: number }[] }>('getrawtransaction', [pending, true])).vin.map((i) => ({ txid: i.txid, vout: i.vout }));
    await indexer.sync();
    expect(await index.mempoolTxids()).toContain(pending);
    const confirmed = [];
    for (const i of inputs) if ((await index.confirmedHeight(i.txid)) !== null) confirmed.push(i);
    expect(confirmed.length).toBeGreaterThan(0);
    expect(asked).toEqual(expect.arrayContaining(confirmed.map((i) => i.txid)));
    const spenders = await index.mempoolSpenders(confirmed);
    for (const i of confirmed) expect(spenders.get(`${i.txid}:${i.vout}`)).toBe(pending);
    await node.mine(1);
  });

  it('reads an unspent output from the node\'s coins, and a spent one from its tx in its block', async () => {
    const methods: string[] = [];
    const counted = new RpcClient(node.rpcConfig);
    const batch = counted.batch.bind(counted);
    counted.batch = (calls, options) => {
      methods.push(...calls.map((c) => c.method));
      return batch(calls, options);
    };
    const index = new UtxoIndexStore(t.store, 'litecoin', { nodeTxs: nodeTxReader(counted, params) });
    // a wallet payment, confirmed: its inputs are spent outputs of confirmed txs
    const paid = await node.rpc.call<string>('sendtoaddress', [await node.newAddress(), 0.5]);
    await node.mine(1);
    await new UtxoIndexer({ rpc, index, params, log, pollIntervalMs: 50 }).sync();
    const spent = (await node.rpc.call<{ vin: { txid: string; vout: number }[] }>('getrawtransaction', [paid, true])).vin.map((i) => ({ txid: i.txid, vout: i.vout }));
    const unspent = await index.outputs([{ txid: funded.txid, vout: funded.vout }]);
    expect(unspent.get(`${funded.txid}:${funded.vout}`)).toEqual({ script: new Uint8Array(script), amount: 3_000_000n });
    expect(methods).toEqual(['gettxout']);
    const known = await index.outputs(spent);
    for (const i of spent) {
      const parent = await node.rpc.call<{ vout: { n: number; value: number; scriptPubKey: { hex: string } }[] }>('getrawtransaction', [i.txid, true, await node.rpc.call<string>('getblockhash', [(await index.confirmedHeight(i.txid))!])]);
      const out = parent.vout.find((o) => o.n === i.vout)!;
      expect(known.get(`${i.txid}:${i.vout}`)).toEqual({ script: new Uint8Array(Buffer.from(out.scriptPubKey.hex, 'hex')), amount: coinsToUnits(out.value) });
    }
    expect(methods).toContain('getrawtransaction');
    counted.close();
  });

  it("refuses, in words, the node's coin of another script or amount", async () => {
    const read = nodeTxReader(rpc, params);
    const index = new UtxoIndexStore(t.store, 'litecoin', { nodeTxs: async (txs) => (await read(txs)).map((tx) => tx && { ...tx, outputs: tx.outputs.map((o) => ({ ...o, amount: o.amount + 1n })) }) });
    await expect(index.outputs([{ txid: funded.txid, vout: funded.vout }])).rejects.toMatchObject({ statusCode: 502, message: `the chain's node answered tx ${funded.txid} of block ${funded.height} (${funded.hash}) with output ${funded.vout} paying 3000001 to ${bytesToHex(script)}, which the index does not hold: refused` });
  });

  it('answers 502 in words where the node no longer has the tx (a pruned block)', async () => {
    const index = new UtxoIndexStore(t.store, 'litecoin', { nodeTxs: async (txs) => txs.map(() => null) });
    await expect(index.outputs([{ txid: funded.txid, vout: funded.vout }])).rejects.toMatchObject({
      statusCode: 502,
      message: `the chain's node has no tx ${funded.txid} of block ${funded.height} (${funded.hash}), which the index holds: its outputs' scripts cannot be read (a pruned node, or a node on another chain?)`,
    });
  });

  it("refuses, in words, the node's answer of another tx", async () => {
    const read = nodeTxReader(rpc, params);
    const coinbase = (await node.rpc.call<{ tx: string[] }>('getblock', [funded.hash])).tx[0]!;
    // the node is asked for the block's coinbase in place of the tx the index holds
    const index = new UtxoIndexStore(t.store, 'litecoin', { nodeTxs: (txs) => read(txs.map((x) => ({ ...x, txid: coinbase }))) });
    await expect(index.outputs([{ txid: funded.txid, vout: funded.vout }])).rejects.toMatchObject({ statusCode: 502, message: `the chain's node answered tx ${funded.txid} of block ${funded.height} (${funded.hash}) with another tx (${coinbase}): refused` });
  });
});
