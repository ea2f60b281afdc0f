// The node restarts under a running service (litecoind -regtest stopped and started again on the
// same datadir, port and credentials). While it is down or warming up (RPC -28), /status shows the
// error and an unknown lag; it is retried about once a second, so the index follows the node as
// soon as it answers. The regular poll here is 10 s (backing off to 20 s and more after a failure):
// the index reaching the node's new tip within 5 s of it answering can only be the brisk retry.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedNode, nodeRpcBackendConfig, startLitecoind, type RegtestNode } from '../../../dev/chains/litecoind.ts';
import { startTestService, type TestService } from '../../test/http-service.ts';
import { until } from '../../test/until.ts';

interface CoinStatus {
  tip_height: number | null;
  indexed_height: number | null;
  lag: number | null;
  error: string | null;
}

let datadir: string;
let node: RegtestNode;
let t: TestService;

beforeAll(async () => {
  datadir = await mkdtemp(join(tmpdir(), 'countersign-restart-'));
  node = await fundedNode({ datadir });
  t = await startTestService({ coins: { litecoin: { network: 'regtest', backend: nodeRpcBackendConfig(node, 10_000) } } });
  t.service.startIndexers();
});
afterAll(async () => {
  await t?.dispose();
  await node?.stop();
  await rm(datadir, { recursive: true, force: true });
});

async function status(): Promise<CoinStatus> {
  const res = await t.request('GET', '/status');
  return (res.json as { coins: CoinStatus[] }).coins[0]!;
}

describe('a node restart', () => {
  it('shows as an error with an unknown lag, and the index follows the node as soon as it answers', async () => {
    const tip = await node.rpc.call<number>('getblockcount');
    await until('the first sync', async () => ((await status()).indexed_height === tip ? true : undefined));
    expect(await status()).toMatchObject({ tip_height: tip, lag: 0, error: null });

    await node.stop();
    const down = await until('the service to notice the node is down', async () => {
      const s = await status();
      return s.error !== null ? s : undefined;
    }, { deadlineMs: 30_000 });
    expect(down.lag).toBeNull();

    const { port } = new URL(node.rpcConfig.url);
    node = await startLitecoind({ datadir, rpc: { port: Number(port), username: node.rpcConfig.username!, password: node.rpcConfig.password! } });
    await node.mine(3);
    const after = await until('the index to reach the restarted node\'s tip', async () => {
      const s = await status();
      return s.error === null && s.indexed_height === tip + 3 ? s : undefined;
    }, { deadlineMs: 5_000, everyMs: 100 });
    expect(after).toMatchObject({ tip_height: tip + 3, lag: 0 });
  });
});
