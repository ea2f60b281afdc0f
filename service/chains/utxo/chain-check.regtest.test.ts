// The node's chain is checked against the coin's configured network (issue 33, point 3): a
// litecoind -regtest configured as mainnet or as testnet is indexed not at all, every route of the
// coin answers 503 naming the reason, and /status, /readyz and the log say it in words. And on
// every reconnection: a service indexing its regtest node sees a litecoind -testnet come up on the
// same port, refuses it without undoing a block of its index, and serves again once the regtest
// node is back.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, scriptToAddress } from '../../../shared/coins/address.ts';
import { chainParams } from '../../../shared/coins/coin-table.ts';
import { fundedNode, startLitecoind, type RegtestNode } from '../../../dev/chains/litecoind.ts';
import { createService } from '../../service.ts';
import { startTestService, type TestService } from '../../test/http-service.ts';
import { until } from '../../test/until.ts';
import type { NodeRpcBackend } from './node-rpc-backend.ts';

interface CoinStatus {
  indexed_height: number | null;
  error: string | null;
}

/** The coin's backend as an operator writes it, without the harness's block 0 (the table's is checked). */
const backendOf = (node: RegtestNode, pollIntervalMs = 60_000) => ({
  type: 'node-rpc' as const,
  url: node.rpcConfig.url,
  username: node.rpcConfig.username,
  password: node.rpcConfig.password,
  pollIntervalMs,
});

async function coinStatus(t: TestService): Promise<CoinStatus> {
  return ((await t.request('GET', '/status')).json as { coins: CoinStatus[] }).coins[0]!;
}

/** A litecoin regtest address of the node's wallet, funded in a block. */
async function paidAddress(node: RegtestNode): Promise<string> {
  const address = await node.newAddress('legacy');
  await node.rpc.call('sendtoaddress', [address, 1]);
  await node.mine(1);
  return address;
}

describe('a regtest node configured as another network', () => {
  let node: RegtestNode;
  let address: string;
  beforeAll(async () => {
    node = await fundedNode();
    address = await paidAddress(node);
  });
  afterAll(async () => node?.stop());

  it.each(['mainnet', 'testnet'] as const)('configured as %s: nothing indexed, nothing served, and /status, /readyz and the log say why', async (network) => {
    const lines: string[] = [];
    const dir = await mkdtemp(join(tmpdir(), 'countersign-chain-'));
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const service = await createService({ database: { sqlite: join(dir, 's.sqlite') }, auth: { required: false }, coins: { litecoin: { network, backend: backendOf(node) } } }, { logger });
    try {
      const backend = service.backends.get('litecoin') as NodeRpcBackend;
      await expect(backend.indexer.sync()).rejects.toThrow(/is on regtest/);
      const port = new URL(node.rpcConfig.url).port;
      const why = `litecoin: the node at 127.0.0.1:${port} is on regtest, but this coin is configured for ${network}`;

      // The same script as an address of the configured network (what a client of it would send).
      const probe = scriptToAddress(chainParams('litecoin', network), addressToScript(chainParams('litecoin', 'regtest'), address));
      for (const url of [`/v2/address/balance/litecoin/${probe}`, '/v2/fee_estimates/litecoin', `/v2/address/history/litecoin/${probe}`]) {
        const res = await service.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(503);
        expect((JSON.parse(res.body) as { message: string }).message).toContain(why);
        expect(res.headers['retry-after']).toBe('60');
      }
      const ready = await service.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect((JSON.parse(ready.body) as { message: string }).message).toContain(`not ready: ${why}`);
      const status = JSON.parse((await service.app.inject({ method: 'GET', url: '/status' })).body) as { coins: CoinStatus[] };
      expect(status.coins[0]).toMatchObject({ indexed_height: null, error: expect.stringContaining(why) });
      expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContainEqual(expect.stringContaining(why));
      expect(await backend.indexedHeight()).toBeNull(); // not one block of another chain was written
    } finally {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a node of another chain on reconnection', () => {
  let datadir: string;
  let node: RegtestNode;
  let other: RegtestNode | undefined;
  let t: TestService;

  beforeAll(async () => {
    datadir = await mkdtemp(join(tmpdir(), 'countersign-swap-'));
    node = await fundedNode({ datadir });
    t = await startTestService({ coins: { litecoin: { network: 'regtest', backend: backendOf(node, 200) } } });
    t.service.startIndexers();
  });
  afterAll(async () => {
    await t?.dispose();
    await other?.stop();
    await node?.stop();
    if (datadir) await rm(datadir, { recursive: true, force: true });
  });

  it('refuses a testnet node that took the regtest node’s port, keeps its index, and serves again when the regtest node is back', async () => {
    const address = await paidAddress(node);
    const tip = await node.rpc.call<number>('getblockcount');
    await until('the first sync', async () => (await coinStatus(t)).indexed_height === tip);
    expect((await t.request('GET', `/v2/address/balance/litecoin/${address}`)).status).toBe(200);

    const { port } = new URL(node.rpcConfig.url);
    const login = { port: Number(port), username: node.rpcConfig.username!, password: node.rpcConfig.password! };
    await node.stop();
    other = await startLitecoind({ chain: 'testnet', rpc: login });
    const why = `litecoin: the node at 127.0.0.1:${port} is on testnet, but this coin is configured for regtest`;
    const refused = await until('the refusal', async () => {
      const s = await coinStatus(t);
      return s.error?.includes(why) ? s : undefined;
    }, { deadlineMs: 60_000 });
    expect(refused.indexed_height).toBe(tip); // no block undone for a chain that is not the coin's
    const res = await t.request('GET', `/v2/address/balance/litecoin/${address}`);
    expect(res.status).toBe(503);
    expect((res.json as { message: string }).message).toContain(why);
    const ready = await t.request('GET', '/readyz');
    expect((ready.json as { message: string }).message).toContain(why);

    await other.stop();
    other = undefined;
    node = await startLitecoind({ datadir, rpc: login });
    const backend = t.service.backends.get('litecoin') as NodeRpcBackend;
    await until('the regtest node served again', async () => {
      await backend.indexer.sync().catch(() => undefined); // not waiting for the backed-off poll
      return (await t.request('GET', `/v2/address/balance/litecoin/${address}`)).status === 200;
    }, { deadlineMs: 60_000, everyMs: 500 });
    expect(await coinStatus(t)).toMatchObject({ indexed_height: tip, error: null });
  });
});
