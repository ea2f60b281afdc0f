// The node restarts under a running service (litecoind -regtest stopped and started again on the
// same datadir, port and credentials), in both index modes (watch mode with a vault registered).
// While the node is shutting down, down or warming up (RPC -28), /status shows the error and an
// unknown lag; it is retried about once a second, so the index follows the node as soon as it answers. The regular
// poll here is 10 s (backing off to 20 s and more after a failure): the index reaching the node's
// new tip well within that of it answering can only be the brisk retry.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedNode, nodeRpcBackendConfig, startLitecoind, type RegtestNode } from '../../../dev/chains/litecoind.ts';
import { startTestService, type TestService } from '../../test/http-service.ts';
import { until } from '../../test/until.ts';
import { testVault } from '../../test/watch-vault.ts';
import { coinsToUnits } from './rpc-client.ts';

interface CoinStatus {
  tip_height: number | null;
  indexed_height: number | null;
  lag: number | null;
  error: string | null;
}

const vault = testVault('node restart');
const paid = vault.address(false, 1).address;

describe.each(['full', 'watch'] as const)('a node restart, %s index', (mode) => {
  let datadir: string;
  let node: RegtestNode;
  let t: TestService;

  beforeAll(async () => {
    datadir = await mkdtemp(join(tmpdir(), 'countersign-restart-'));
    node = await fundedNode({ datadir, extraArgs: ['-blockfilterindex=1'] });
    t = await startTestService({ coins: { litecoin: { network: 'regtest', backend: { ...nodeRpcBackendConfig(node, 10_000), index: mode } } } });
    if (mode === 'watch') {
      const put = await t.request('PUT', '/v2/watch/litecoin/vault', { descriptors: [vault.descriptor()], birthday_height: (await node.rpc.call<number>('getblockcount')) + 1 });
      expect(put.status).toBe(200);
    }
    await node.rpc.call('sendtoaddress', [paid, 1.5]);
    await node.mine(1);
    t.service.startIndexers();
  });
  afterAll(async () => {
    await t?.dispose();
    await node?.stop();
    if (datadir) await rm(datadir, { recursive: true, force: true });
  });

  async function status(): Promise<CoinStatus> {
    const res = await t.request('GET', '/status');
    return (res.json as { coins: CoinStatus[] }).coins[0]!;
  }
  const balance = async () => {
    const res = await t.request('GET', `/v2/address/balance/litecoin/${paid}`);
    expect(res.status, JSON.stringify(res.json, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))).toBe(200);
    return (res.json as { balance: bigint }).balance;
  };

  it('shows as an error with an unknown lag, and the index follows the node as soon as it answers', async () => {
    const tip = await node.rpc.call<number>('getblockcount');
    await until('the first sync', async () => ((await status()).indexed_height === tip ? true : undefined));
    // Watch mode: the scan may read the blocks again for scripts the gap limit derived; it is done when ready.
    if (mode === 'watch') await until('the scan of the vault', async () => (((await t.request('GET', '/v2/watch/litecoin/vault')).json as { state: string }).state === 'ready' ? true : undefined));
    expect(await status()).toMatchObject({ tip_height: tip, lag: 0, error: null });
    expect(await balance()).toBe(150_000_000n);

    await node.stop();
    const down = await until('the service to notice the node is down', async () => {
      const s = await status();
      return s.error !== null ? s : undefined;
    }, { deadlineMs: 30_000 });
    expect(down.lag).toBeNull();

    const { port } = new URL(node.rpcConfig.url);
    const login = { username: node.rpcConfig.username!, password: node.rpcConfig.password! };
    // The restarted node's new blocks are mined first on an RPC port the service does not know, so
    // they are there when it answers on its own port: the index has them at the retry's first
    // success (mined after the node answered, a retry that came first would leave them to the poll).
    const aside = await startLitecoind({ datadir, extraArgs: ['-blockfilterindex=1'] });
    await aside.mine(1, paid); // a coinbase to the vault, mined by the restarted node
    await aside.mine(2);
    await aside.stop();
    node = await startLitecoind({ datadir, rpc: { port: Number(port), ...login }, extraArgs: ['-blockfilterindex=1'] });
    // Well inside the regular poll's 20 s after a failure, so only the brisk retry gets there this
    // soon. A pass that met the node mid-shutdown (HTTP 503) once backed off to that poll.
    const after = await until('the index to reach the restarted node\'s tip', async () => {
      const s = await status();
      return s.error === null && s.indexed_height === tip + 3 ? s : undefined;
    }, { deadlineMs: 15_000, everyMs: 100 });
    expect(after).toMatchObject({ tip_height: tip + 3, lag: 0 });
    const scan = await node.rpc.call<{ total_amount: number }>('scantxoutset', ['start', [`addr(${paid})`]]);
    expect(await balance()).toBe(coinsToUnits(scan.total_amount));
    expect(await balance()).toBeGreaterThan(150_000_000n);
  });
});
