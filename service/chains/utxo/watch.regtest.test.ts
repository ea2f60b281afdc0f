// Watch mode on litecoind -regtest with -blockfilterindex=1: a 2-of-3 wsh(sortedmulti) vault with a
// birthday after most of the chain is watched; its balances, history and unspent outputs equal the
// full index's and the node's scantxoutset; only blocks whose BIP158 filter matched were fetched;
// the gap limit walks out to receive addresses 25, 40 and 60; an unregistered address is refused.
import pino from 'pino';
import { allUnspent } from '../../test/all-unspent.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedNode, type RegtestNode } from '../../../dev/chains/litecoind.ts';
import { basicFilterMatchesAny } from '../../../shared/coins/block-filter.ts';
import { bytesToHex, chainParams, hexToBytes } from '../../../shared/coins/index.ts';
import { UtxoIndexStore } from '../../index/utxo-index.ts';
import { openTestStore, STORE_KINDS, type TestStore } from '../../store/test-stores.ts';
import { testVault } from '../../test/watch-vault.ts';
import { UtxoIndexer } from './indexer.ts';
import { NodeRpcBackend } from './node-rpc-backend.ts';
import { RpcClient } from './rpc-client.ts';
import { scanDescriptors } from './watch.ts';

const params = chainParams('litecoin', 'regtest');
const vault = testVault('watch vault');
const DESCRIPTOR = vault.descriptor();
const address = vault.address;
const silent = pino({ level: 'silent' });

// Receive indexes paid, each within the gap limit (20) of the one before; 100 is beyond it.
const RECEIVE_PAID = [0, 15, 25, 40, 60];
const BEYOND_GAP = 100;

let node: RegtestNode;
let birthday: number;
let vaultBlocks: number;

beforeAll(async () => {
  node = await fundedNode({ extraArgs: ['-blockfilterindex=1'] });
  // History before the birthday: payments to the node's own wallet the watch never reads.
  for (let b = 0; b < 20; b++) {
    await node.rpc.call('sendtoaddress', [await node.newAddress('bech32'), 0.5]);
    await node.mine(1);
  }
  birthday = (await node.rpc.call<number>('getblockcount')) + 1;
  vaultBlocks = 0;
  for (const [i, index] of RECEIVE_PAID.entries()) {
    await node.rpc.call('sendtoaddress', [address(false, index).address, 1 + i / 10]);
    await node.rpc.call('sendtoaddress', [await node.newAddress('bech32'), 0.25]); // someone else's, same block
    await node.mine(1);
    vaultBlocks++;
    await node.mine(2); // blocks with nothing of the vault's
  }
  await node.rpc.call('sendtoaddress', [address(true, 2).address, 0.75]);
  await node.rpc.call('sendtoaddress', [address(false, BEYOND_GAP).address, 0.5]);
  await node.mine(1);
  vaultBlocks++;
}, 240_000);

afterAll(async () => node?.stop());

describe.each(STORE_KINDS)('watch mode on %s', (kind) => {
  let watchStore: TestStore;
  let fullStore: TestStore;
  let backend: NodeRpcBackend;
  let full: UtxoIndexStore;

  beforeAll(async () => {
    watchStore = await openTestStore(kind);
    fullStore = await openTestStore(kind);
    backend = new NodeRpcBackend({ params, store: watchStore.store, rpc: node.rpcConfig, log: silent, pollIntervalMs: 1_000, fallbackFeePerKb: 10_000n, minFeePerKb: 1_000n, index: 'watch' });
    full = new UtxoIndexStore(fullStore.store, 'litecoin');
    const rpc = new RpcClient(node.rpcConfig);
    await new UtxoIndexer({ rpc, index: full, params, log: silent, pollIntervalMs: 1_000 }).sync();
    rpc.close();
  });
  afterAll(async () => {
    await backend?.stop();
    await watchStore?.dispose();
    await fullStore?.dispose();
  });

  it('finds the vault from its birthday through the filters, out to receive address 60, and agrees with the full index and scantxoutset', async () => {
    const watch = backend.watch!;
    const registered = await watch.register('', 'vault', { descriptors: [DESCRIPTOR], birthdayHeight: birthday, gapLimit: 20 });
    expect(registered.birthday_height).toBe(birthday);
    await backend.indexer.sync();
    const status = (await watch.status('', 'vault'))!;
    const tip = await node.rpc.call<number>('getblockcount');
    expect(status).toMatchObject({ state: 'ready', filters: true, pruned: false, history_from: null, scanned_height: tip, tip_height: tip });
    // Only blocks whose filter matched were fetched: the vault's own blocks, each once since the
    // scan last started over (the gap limit's new scripts are read again only from the first
    // block whose filter names one of them).
    expect(status.blocks_fetched).toBe(status.blocks_matched);
    expect(status.blocks_fetched).toBeGreaterThanOrEqual(1);
    expect(status.blocks_fetched).toBeLessThanOrEqual(vaultBlocks);
    expect(status.blocks_checked).toBeGreaterThan(status.blocks_fetched);

    // The node's filters say the same of each block: the vault's blocks match, the others do not.
    const scripts = watch.list.scripts();
    let matching = 0;
    for (let h = birthday; h <= tip; h++) {
      const hash = await node.rpc.call<string>('getblockhash', [h]);
      const f = await node.rpc.call<{ filter: string }>('getblockfilter', [hash, 'basic']);
      if (basicFilterMatchesAny(hexToBytes(f.filter), hash, scripts)) matching++;
    }
    expect(matching).toBe(vaultBlocks);

    const paid = [...RECEIVE_PAID.map((i) => address(false, i).scriptPubKey), address(true, 2).scriptPubKey];
    expect(paid.every((s) => watch.list.has(s))).toBe(true);
    expect(await backend.balances(scripts)).toEqual(await full.balances(scripts));
    expect(await backend.history(scripts, 100, 0)).toEqual(await full.history(scripts, 100, 0));
    const unspent = await allUnspent(backend, scripts);
    expect(unspent).toEqual(await allUnspent(full, scripts));
    expect(unspent).toHaveLength(paid.length);

    const scan = await node.rpc.call<{ unspents: { txid: string; vout: number }[] }>('scantxoutset', [
      'start',
      scanDescriptors([DESCRIPTOR]).map((desc) => ({ desc, range: [0, 200] })),
    ]);
    // The node sees address 100 too; the watch stops where the gap limit says (Electrum's rule).
    const beyond = bytesToHex(address(false, BEYOND_GAP).scriptPubKey);
    expect(scan.unspents).toHaveLength(paid.length + 1);
    expect(new Set(unspent.map((u) => `${u.txid}:${u.vout}`))).toEqual(new Set(scan.unspents.filter((u) => (u as { scriptPubKey?: string }).scriptPubKey !== beyond).map((u) => `${u.txid}:${u.vout}`)));

    // An address nobody registered: a 404 in words, never a zero balance.
    await expect(backend.balances([address(false, BEYOND_GAP).scriptPubKey])).rejects.toMatchObject({ statusCode: 404, message: expect.stringMatching(/belongs to no wallet this service watches/) });
  }, 240_000);

  it('follows a reorganisation as the full index does', async () => {
    const tip = await node.rpc.call<number>('getblockcount');
    const last = await node.rpc.call<string>('getblockhash', [tip]);
    await node.rpc.call('invalidateblock', [last]);
    await node.mine(2); // the vault's last payments return to the mempool and confirm again
    await backend.indexer.sync();
    const rpc = new RpcClient(node.rpcConfig);
    await new UtxoIndexer({ rpc, index: full, params, log: silent, pollIntervalMs: 1_000 }).sync();
    rpc.close();
    const scripts = backend.watch!.list.scripts();
    expect(await allUnspent(backend, scripts)).toEqual(await allUnspent(full, scripts));
    expect(await backend.history(scripts, 100, 0)).toEqual(await full.history(scripts, 100, 0));
    expect((await backend.watch!.status('', 'vault'))!.state).toBe('ready');
    await node.rpc.call('reconsiderblock', [last]);
  }, 120_000);
});
