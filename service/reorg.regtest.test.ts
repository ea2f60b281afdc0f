// Reorganisations through the v2 API on a real litecoind -regtest node, in both index modes: the
// full index (in SQLite, and in LevelDB), and watch mode with the vault registered from a birthday. A block invalidated rolls
// the index back and a reconsidered one brings it back; a payment confirmed in a replaced block
// returns to unconfirmed, then confirms in the new branch. Both services follow one node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedNode, nodeRpcBackendConfig, type RegtestNode } from '../dev/chains/litecoind.ts';
import type { Balance, History } from '../shared/api/schemas.ts';
import type { NodeRpcBackend } from './chains/utxo/node-rpc-backend.ts';
import { coinsToUnits } from './chains/utxo/rpc-client.ts';
import { startTestService, type TestService } from './test/http-service.ts';
import { testVault } from './test/watch-vault.ts';

const COIN = 100_000_000n;

let node: RegtestNode;
beforeAll(async () => {
  node = await fundedNode({ extraArgs: ['-blockfilterindex=1'] });
});
afterAll(async () => node?.stop());

describe.each(['full', 'watch', 'level'] as const)('reorganisations, %s index', (mode) => {
  let t: TestService;
  // A vault of this mode's own: the other mode's payments came before this one's birthday (the
  // watch index would rightly say its scan disagrees with the node's UTXO set).
  const vault = testVault(`reorg ${mode}`);
  const at = (index: number) => vault.address(false, index);
  const synced = () => (t.service.backends.get('litecoin') as NodeRpcBackend).indexer.sync();
  async function ok<T>(url: string): Promise<T> {
    const res = await t.request('GET', url);
    if (res.status !== 200) throw new Error(`GET ${url} -> ${res.status} ${JSON.stringify(res.json, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
    return res.json as T;
  }
  const balanceOf = (index: number) => ok<Balance>(`/v2/address/balance/litecoin/${at(index).address}`);
  const historyOf = (index: number) => ok<History>(`/v2/address/history/litecoin/${at(index).address}`);
  const base = 0;
  const anchor = 5; // an address the reorgs leave alone

  beforeAll(async () => {
    const index = mode === 'watch' ? 'watch' : 'full';
    t = await startTestService({ coins: { litecoin: { network: 'regtest', backend: { ...nodeRpcBackendConfig(node, 100), index } } } }, { levelIndex: mode === 'level' });
    if (mode === 'watch') {
      const put = await t.request('PUT', '/v2/watch/litecoin/vault', { descriptors: [vault.descriptor()], birthday_height: (await node.rpc.call<number>('getblockcount')) + 1 });
      expect(put.status).toBe(200);
    }
    await node.fundScript(at(anchor).scriptPubKey, 3n * COIN);
    await node.mine(1);
    await synced();
  });
  afterAll(async () => t?.dispose());

  it('invalidateblock rolls the index back; reconsiderblock brings it back', async () => {
    const [hash] = await node.mine(1, at(base + 1).address); // a coinbase: gone for good when its block is
    await synced();
    const mined = await balanceOf(base + 1);
    expect(mined.balance).toBeGreaterThan(0n);

    await node.rpc.call('invalidateblock', [hash]);
    await synced();
    expect((await balanceOf(base + 1)).balance).toBe(0n);
    expect((await historyOf(base + 1)).total_txs).toBe(0);
    const status = await ok<{ coins: { lag: number }[] }>('/status');
    expect(status.coins[0]!.lag).toBe(0);

    await node.rpc.call('reconsiderblock', [hash]);
    await synced();
    expect((await balanceOf(base + 1)).balance).toBe(mined.balance);
    // the rest of the index is unchanged by the round trip
    const scan = await node.rpc.call<{ total_amount: number }>('scantxoutset', ['start', [`addr(${at(anchor).address})`]]);
    expect((await balanceOf(anchor)).balance).toBe(coinsToUnits(scan.total_amount));
  });

  it('a payment confirmed in a replaced block returns to unconfirmed, then confirms in the new branch', async () => {
    await node.fundScript(at(base + 2).scriptPubKey, COIN);
    const [hash] = await node.mine(1);
    await synced();
    expect((await balanceOf(base + 2)).balance).toBe(COIN);

    await node.rpc.call('invalidateblock', [hash]);
    await synced();
    const back = await balanceOf(base + 2);
    expect([back.balance, back.unconfirmed_balance]).toEqual([0n, COIN]);

    await node.mine(2);
    await synced();
    const h = await historyOf(base + 2);
    expect(h.total_txs).toBe(1);
    expect(h.txs[0]!.confirmations).toBe(2);
    const final = await balanceOf(base + 2);
    expect([final.balance, final.unconfirmed_balance]).toEqual([COIN, 0n]);
    if (mode === 'watch') expect(await ok<{ state: string }>('/v2/watch/litecoin/vault')).toMatchObject({ state: 'ready' });
  });
});
