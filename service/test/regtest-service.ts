// A real litecoind -regtest node with the service indexing it, configured as the given coins on
// regtest prefixes (docs/api-decisions.md: regtest is a backend configuration, not another coin).
import type { CoinName } from '../../shared/coins/coin-table.ts';
import { fundedNode, nodeRpcBackendConfig, type RegtestNode, type StartLitecoindOptions } from '../../dev/chains/litecoind.ts';
import type { NodeRpcBackend } from '../chains/utxo/node-rpc-backend.ts';
import type { ServiceConfigInput } from '../config.ts';
import { startTestService, type TestService } from './http-service.ts';

export interface RegtestService extends TestService {
  node: RegtestNode;
  backend(coin: CoinName): NodeRpcBackend;
  /** Lets every coin's index catch up with the node (tip and mempool). */
  synced(): Promise<void>;
}

/** `config` adds to the service configuration (prices, auth, more coins such as ethereum); `levelIndex`: the full index in LevelDB. */
export async function startRegtestService(
  coins: readonly CoinName[],
  extra: { usdRate?: number; node?: StartLitecoindOptions; config?: Omit<ServiceConfigInput, 'database'>; levelIndex?: boolean } = {},
): Promise<RegtestService> {
  const node = await fundedNode(extra.node);
  try {
    const backend = nodeRpcBackendConfig(node, 100);
    const t = await startTestService({
      ...extra.config,
      coins: {
        ...Object.fromEntries(coins.map((c) => [c, { network: 'regtest', backend, ...(extra.usdRate !== undefined ? { usdRate: extra.usdRate } : {}) }])),
        ...extra.config?.coins,
      },
    }, { levelIndex: extra.levelIndex === true });
    const backendOf = (coin: CoinName) => t.service.backends.get(coin) as NodeRpcBackend;
    return {
      ...t,
      node,
      backend: backendOf,
      synced: async () => {
        for (const coin of coins) await backendOf(coin).indexer.sync();
      },
      dispose: async () => {
        await t.dispose();
        await node.stop();
      },
    };
  } catch (err) {
    await node.stop();
    throw err;
  }
}

/** Counts what the backend hands the node to broadcast: a refusal's test proves nothing went out. */
export function countBroadcasts(backend: NodeRpcBackend): () => number {
  let count = 0;
  const real = backend.broadcast.bind(backend);
  backend.broadcast = async (raw: Uint8Array) => {
    count += 1;
    return real(raw);
  };
  return () => count;
}
