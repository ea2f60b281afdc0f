// A whole desk for development and the e2e test: litecoind -regtest (dev/chains), the
// service embedded through createService(), the desk's SQLite store, the bridge, and the web-mode
// server. `npm run demo` (dev/demo-desk.ts) and e2e/ start exactly this. With `ownNode` the desk
// talks instead to the app's own embedded service in watch mode, as a treasurer's desk on their own
// node does, and the dev service (full index) keeps serving the API beside it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../shared/api/client.ts';
import { fundedNode, type RegtestNode } from './chains/litecoind.ts';
import { startHardhat, type HardhatNode } from './chains/hardhat.ts';
import { startSlowRpc, type SlowRpc } from './chains/slow-rpc.ts';
import pino from 'pino';
import { evmRpcBackendConfig } from './chains/hardhat.ts';
import { startDevService, waitSynced } from './dev-service.ts';
import { EMBEDDED_CONFIG_FILE, startEmbeddedService, type EmbeddedServiceHost } from '../main/core/chains/embedded-service.ts';
import { memoryChainSecrets } from '../main/core/chains/settings.ts';
import { ServiceConnection } from '../main/core/chains/connection.ts';
import { MemorySecretStore } from '../main/core/secrets.ts';
import { memoryAccountSecrets, type AccountSecrets } from '../main/core/accounts/keys.ts';
import { openStore, type CoordinatorStore } from '../main/core/store/store.ts';
import type { LedgerConnector } from '../main/core/ledger/transport.ts';
import { createHandlers } from '../main/bridge/handlers.ts';
import { ownNodeOver } from './desk-testing/regtest.ts';
import { startWebServer, type WebServer } from '../main/web/server.ts';
import { startPaymentFollower, type PaymentFollower } from '../main/core/payment-follower.ts';

export interface DevDesk {
  node: RegtestNode;
  /** The hardhat node serving ethereum, when the desk was started with `ethereum`. */
  eth: HardhatNode | null;
  /** The dev service's client (with `ownNode`, not the one the desk talks to: that is `connection.api`). */
  api: ApiClient;
  /** The dev service's v2 API (no key: it listens on 127.0.0.1 only). */
  serviceUrl: string;
  /** With `ownNode`: the app's embedded service the desk talks to, watching the desk's wallets on the node. */
  host: EmbeddedServiceHost | null;
  store: CoordinatorStore;
  /** Which service the bridge talks to (Settings switches it). */
  connection: ServiceConnection;
  /** Where the bridge keeps software Ether keys (this process's memory, as web mode does). */
  accountSecrets: AccountSecrets;
  web: WebServer;
  dir: string;
  /**
   * How a treasurer logs in to the node (RPC address, its cookie file with `ownNode`, the harness's
   * user and password), to type in Settings > Chains; the demo prints it.
   */
  nodeLogin: { url: string; cookieFile: string | null; username: string; password: string };
  /** The proxy slowing the indexer's block reads, when started with `slowIndexer` (set its delayMs to 0 to let it catch up). */
  slowRpc: SlowRpc | null;
  /** Follows broadcast payments to confirmation in the background, as the app's does. */
  follower: PaymentFollower;
  /** Waits until the service (both, with `ownNode`) has indexed the node's tip and mempool. */
  synced(): Promise<void>;
  dispose(): Promise<void>;
}

export interface DevDeskOptions {
  rendererDir: string;
  port?: number;
  usdRate?: number;
  log?: (line: string) => void;
  /** Blocks mined after the first 101 and before the service starts: a chain the service must index first. */
  premine?: number;
  /** The service reads the node's blocks through a proxy that holds each block request this long (dev/chains/slow-rpc.ts). */
  slowIndexer?: { delayMs: number };
  /** Serve ethereum too, from a hardhat node (mining a block every `intervalMs` besides one per transaction). */
  ethereum?: { usdRate?: number; intervalMs?: number };
  /** The node backend's index: 'watch' reads only the wallets the desk registers, from their birthdays (default full). */
  index?: 'full' | 'watch';
  /** More litecoind arguments, e.g. -mempoolreplacement=1 (Litecoin Core 0.21 replaces nothing without it). */
  nodeArgs?: string[];
  /** How the desk reaches a Ledger (default: the USB connector, as in the app). */
  ledger?: LedgerConnector;
  /** The service is told this of its node's replacements instead of the truth (a misconfigured operator: a bump the node then refuses). */
  nodeReplacements?: boolean;
  /** How often the payment follower asks the service (default the app's, FOLLOW_EVERY_MS). */
  followEveryMs?: number;
  /**
   * The desk runs as a treasurer's desk on their own node: the node keeps block filters
   * (-blockfilterindex=1) and writes its cookie file, and the desk talks to the app's embedded
   * service (main/core/chains/embedded-service.ts) watching its wallets there (`index` then only sets the
   * dev service's). The node is described in the desk's embedded-service.json, the operator's file,
   * not in Settings: Settings has no word for a node's replacements (Litecoin Core cannot be asked),
   * and this node relays them.
   */
  ownNode?: boolean;
}

export async function startDevDesk(options: DevDeskOptions): Promise<DevDesk> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-web-'));
  const nodeArgs = [...(options.nodeArgs ?? []), ...(options.ownNode ? ['-blockfilterindex=1'] : [])];
  const node = await fundedNode({ datadir: join(dir, 'chain'), ...(options.ownNode ? { cookie: true } : {}), ...(nodeArgs.length > 0 ? { extraArgs: nodeArgs } : {}) });
  const cleanups: (() => Promise<void> | void)[] = [() => node.stop(), () => rmSync(dir, { recursive: true, force: true })];
  const dispose = async () => {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  };
  try {
    let eth: HardhatNode | null = null;
    if (options.ethereum) {
      const started = await startHardhat(options.ethereum.intervalMs ? { intervalMs: options.ethereum.intervalMs } : {});
      eth = started;
      cleanups.splice(1, 0, () => started.stop());
    }
    if (options.premine) await node.mine(options.premine);
    let slowRpc: SlowRpc | null = null;
    if (options.slowIndexer) {
      const proxy = await startSlowRpc(node.rpcConfig.url, options.slowIndexer.delayMs);
      slowRpc = proxy;
      cleanups.splice(1, 0, () => proxy.close());
    }
    const { service, url: serviceUrl, api, synced: devSynced } = await startDevService(node, dir, {
      pollIntervalMs: 250,
      ...(slowRpc ? { nodeRpcUrl: slowRpc.url } : {}),
      ...(options.nodeReplacements !== undefined ? { nodeReplacements: options.nodeReplacements } : {}),
      ...(options.index ? { index: options.index } : {}),
      usdRate: options.usdRate ?? 80,
      ...(eth ? { ethereum: { node: eth, usdRate: options.ethereum?.usdRate ?? 2000 } } : {}),
    });
    cleanups.splice(1, 0, () => service.close());
    const store = openStore(join(dir, 'desk.sqlite'));
    cleanups.splice(1, 0, () => store.close());
    const chainSecrets = memoryChainSecrets();
    let host: EmbeddedServiceHost | null = null;
    if (options.ownNode) {
      const started = await startEmbeddedService(ownNodeDataDir(dir, node, eth, options), pino({ level: 'silent' }), { store, secrets: chainSecrets });
      host = started;
      cleanups.splice(1, 0, () => started.close());
    }
    // Web mode keeps a remote service's key in memory only (the Settings screen says so).
    const connection = new ServiceConnection({ store, secrets: new MemorySecretStore(), embeddedUrl: host?.url ?? serviceUrl, actor: 'treasurer' });
    const accountSecrets = memoryAccountSecrets();
    const handlers = createHandlers({
      store,
      connection,
      actor: 'treasurer',
      accountSecrets,
      // The regtest node is this desk's own node (as a treasurer's node connected in Settings).
      ownNode: ownNodeOver(node),
      ...(host ? { chains: { secrets: chainSecrets, host } } : {}),
      ...(options.ledger ? { ledger: options.ledger } : {}),
    });
    const synced = async () => {
      await devSynced();
      if (host) await waitSynced(connection.api, node, 'litecoin', eth);
    };
    const follower = startPaymentFollower(
      { store, api: connection.api, actor: 'treasurer' },
      { ...(options.followEveryMs !== undefined ? { everyMs: options.followEveryMs } : {}), report: (err) => options.log?.(`payment follower: ${err instanceof Error ? err.message : String(err)}`) },
    );
    // Stopped before the store closes (cleanups run last in, first out).
    cleanups.push(() => follower.stop());
    const web = await startWebServer({
      handlers,
      rendererDir: options.rendererDir,
      ...(options.port !== undefined ? { port: options.port } : {}),
      report: (err) => options.log?.(`bridge error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
    });
    cleanups.splice(1, 0, () => web.close());
    const nodeLogin = { url: node.rpcConfig.url, cookieFile: options.ownNode ? cookieFileOf(node) : null, username: node.rpcConfig.username ?? '', password: node.rpcConfig.password ?? '' };
    return { node, eth, api, serviceUrl, host, store, connection, accountSecrets, web, dir, nodeLogin, slowRpc, follower, synced, dispose };
  } catch (err) {
    await dispose();
    throw err;
  }
}

/** Where a regtest node started with `cookie` writes its cookie file. */
const cookieFileOf = (node: RegtestNode): string => join(node.datadir, 'regtest', '.cookie');

/**
 * The desk's data folder with its embedded-service.json: litecoin on this node in watch mode, by
 * its cookie file as a treasurer connects their node, and ethereum on the hardhat node when given.
 */
function ownNodeDataDir(dir: string, node: RegtestNode, eth: HardhatNode | null, options: DevDeskOptions): string {
  const data = join(dir, 'desk-data');
  mkdirSync(data, { recursive: true });
  const coins = {
    litecoin: {
      network: 'regtest',
      usdRate: options.usdRate ?? 80,
      backend: {
        type: 'node-rpc',
        url: node.rpcConfig.url,
        cookieFile: cookieFileOf(node),
        index: 'watch',
        replacements: node.relaysReplacements,
        pollIntervalMs: 250,
        fallbackFeePerKb: 10_000,
      },
    },
    ...(eth ? { ethereum: { network: 'regtest', usdRate: options.ethereum?.usdRate ?? 2000, backend: evmRpcBackendConfig(eth, 250) } } : {}),
  };
  writeFileSync(join(data, EMBEDDED_CONFIG_FILE), JSON.stringify({ coins }, null, 2));
  return data;
}
