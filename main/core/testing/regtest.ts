// Test support: a real litecoind -regtest node, the service embedded as in the app (createService
// on 127.0.0.1 port 0, litecoin on regtest), and an ApiClient pointed at it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ApiClient } from '../../../shared/api/client.ts';
import { fundedNode, type RegtestNode, nodeRpcBackendConfig } from '../../../scripts/dev-chain/litecoind.ts';
import { createService } from '../../../service/service.ts';

export interface RegtestDesk {
  node: RegtestNode;
  api: ApiClient;
  dir: string;
  /** Waits until the service's index has the node's tip and mempool. */
  synced(): Promise<void>;
  mine(blocks?: number): Promise<void>;
  dispose(): Promise<void>;
}

export async function startRegtestDesk(): Promise<RegtestDesk> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-core-'));
  const node = await fundedNode();
  try {
    const service = await createService(
      {
        listen: { host: '127.0.0.1', port: 0 },
        database: { sqlite: join(dir, 'service.sqlite') },
        auth: { required: false },
        coins: {
          litecoin: {
            network: 'regtest',
            backend: nodeRpcBackendConfig(node, 100),
          },
        },
      },
      { logger: pino({ level: 'silent' }) },
    );
    const url = await service.listen();
    const api = new ApiClient({ baseUrl: url });
    const synced = async () => {
      for (let i = 0; i < 600; i++) {
        const tip = await node.rpc.call<number>('getblockcount');
        const mempool = await node.rpc.call<string[]>('getrawmempool');
        const status = (await api.status()).coins.find((c) => c.coin === 'litecoin');
        if (status && status.indexed_height === tip && status.mempool_txs === mempool.length) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the service did not catch up with the node in 60 s');
    };
    return {
      node,
      api,
      dir,
      synced,
      mine: async (blocks = 1) => {
        await node.mine(blocks);
        await synced();
      },
      dispose: async () => {
        await service.close();
        await node.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await node.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
