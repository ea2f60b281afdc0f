// The service embedded as the app embeds it (createService on 127.0.0.1 port 0, no key), serving
// litecoin on a regtest dev chain: what the web desk and the core tests both run.
import { join } from 'node:path';
import pino from 'pino';
import { ApiClient } from '../../shared/api/client.ts';
import { nodeRpcBackendConfig, type RegtestNode } from '../../scripts/dev-chain/litecoind.ts';
import { createService, type Service } from '../../service/service.ts';

export interface DevService {
  service: Service;
  url: string;
  api: ApiClient;
  /** Waits until the service's index has the node's tip and mempool. */
  synced(): Promise<void>;
}

export async function startDevService(node: RegtestNode, dir: string, options: { pollIntervalMs: number; usdRate?: number }): Promise<DevService> {
  const service = await createService(
    {
      listen: { host: '127.0.0.1', port: 0 },
      database: { sqlite: join(dir, 'service.sqlite') },
      auth: { required: false },
      coins: {
        litecoin: {
          network: 'regtest',
          ...(options.usdRate !== undefined ? { usdRate: options.usdRate } : {}),
          backend: nodeRpcBackendConfig(node, options.pollIntervalMs),
        },
      },
    },
    { logger: pino({ level: 'silent' }) },
  );
  try {
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
    return { service, url, api, synced };
  } catch (err) {
    await service.close();
    throw err;
  }
}
