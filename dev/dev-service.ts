// The service embedded as the app embeds it (createService on 127.0.0.1 port 0, no key), serving
// litecoin on a regtest dev chain and, when given one, ethereum on a hardhat node: what the web
// desk and the core tests run.
import { join } from 'node:path';
import pino from 'pino';
import { ApiClient } from '../shared/api/client.ts';
import { isEvmCoin, type UtxoCoinName } from '../shared/coins/index.ts';
import { nodeRpcBackendConfig, type RegtestNode } from './chains/litecoind.ts';
import { evmRpcBackendConfig, type HardhatNode } from './chains/hardhat.ts';
import { createService, type Service } from '../service/service.ts';

export interface DevService {
  service: Service;
  url: string;
  api: ApiClient;
  /** Waits until the service's index has the node's tip and mempool. */
  synced(): Promise<void>;
}

export interface DevServiceOptions {
  pollIntervalMs: number;
  /** The coin the regtest node is served as (its prefixes); default litecoin. */
  utxoCoin?: UtxoCoinName;
  /** Litecoin's USD rate. */
  usdRate?: number;
  /** Where the service reaches the node's JSON-RPC, when not directly (a slowing proxy: dev/chains/slow-rpc.ts). */
  nodeRpcUrl?: string;
  /** What the service is told of its node's replacements, when not the truth (an operator who got it wrong). */
  nodeReplacements?: boolean;
  /** The node backend's index: 'watch' serves only wallets registered with PUT /watch (default full). */
  index?: 'full' | 'watch';
  /** Serve ethereum from this hardhat node too. */
  ethereum?: { node: Pick<HardhatNode, 'url' | 'blockNumber'>; usdRate?: number };
}

/** Waits until the service behind `api` has indexed the node's tip and mempool (and the hardhat node's tip). */
export async function waitSynced(api: Pick<ApiClient, 'status'>, node: Pick<RegtestNode, 'rpc'> | null, utxoCoin: UtxoCoinName, eth: Pick<HardhatNode, 'blockNumber'> | null): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const coins = (await api.status()).coins;
    let done = true;
    if (node) {
      const tip = await node.rpc.call<number>('getblockcount');
      const mempool = await node.rpc.call<string[]>('getrawmempool');
      const status = coins.find((c) => c.coin === utxoCoin);
      done = status !== undefined && status.indexed_height === tip && status.mempool_txs === mempool.length;
    }
    if (eth) {
      const status = coins.find((c) => isEvmCoin(c.coin));
      done &&= status !== undefined && status.indexed_height === (await eth.blockNumber());
    }
    if (done) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the service did not catch up with the node in 60 s');
}

/** `node` null: no litecoin (an Ether-only service). Only the node's RPC is used: a child process passes its own client. */
export async function startDevService(node: Pick<RegtestNode, 'rpc' | 'rpcConfig' | 'relaysReplacements'> | null, dir: string, options: DevServiceOptions): Promise<DevService> {
  const eth = options.ethereum;
  const utxoCoin: UtxoCoinName = options.utxoCoin ?? 'litecoin';
  const service = await createService(
    {
      listen: { host: '127.0.0.1', port: 0 },
      database: { sqlite: join(dir, 'service.sqlite') },
      auth: { required: false },
      coins: {
        ...(node
          ? {
              [utxoCoin]: {
                network: 'regtest' as const,
                ...(options.usdRate !== undefined ? { usdRate: options.usdRate } : {}),
                backend: {
                  ...nodeRpcBackendConfig(node, options.pollIntervalMs),
                  ...(options.nodeRpcUrl ? { url: options.nodeRpcUrl } : {}),
                  ...(options.nodeReplacements !== undefined ? { replacements: options.nodeReplacements } : {}),
                  ...(options.index ? { index: options.index } : {}),
                },
              },
            }
          : {}),
        ...(eth
          ? { ethereum: { network: 'regtest' as const, ...(eth.usdRate !== undefined ? { usdRate: eth.usdRate } : {}), backend: evmRpcBackendConfig(eth.node, options.pollIntervalMs) } }
          : {}),
      },
    },
    { logger: pino({ level: 'silent' }) },
  );
  try {
    const url = await service.listen();
    const api = new ApiClient({ baseUrl: url });
    const synced = () => waitSynced(api, node, utxoCoin, eth?.node ?? null);
    return { service, url, api, synced };
  } catch (err) {
    await service.close();
    throw err;
  }
}
