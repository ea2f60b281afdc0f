// A whole desk for development and the e2e test: litecoind -regtest (dev/chains), the
// service embedded through createService(), the desk's SQLite store, the bridge, and the web-mode
// server. `npm run demo` (dev/demo-desk.ts) and e2e/ start exactly this.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../shared/api/client.ts';
import { fundedNode, type RegtestNode } from './chains/litecoind.ts';
import { startHardhat, type HardhatNode } from './chains/hardhat.ts';
import { startSlowRpc, type SlowRpc } from './chains/slow-rpc.ts';
import { startDevService } from './dev-service.ts';
import { ServiceConnection } from '../main/core/connection.ts';
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
  api: ApiClient;
  /** The embedded service's v2 API (no key: it listens on 127.0.0.1 only). */
  serviceUrl: string;
  store: CoordinatorStore;
  /** Which service the bridge talks to (Settings switches it). */
  connection: ServiceConnection;
  /** Where the bridge keeps software Ether keys (this process's memory, as web mode does). */
  accountSecrets: AccountSecrets;
  web: WebServer;
  dir: string;
  /** The proxy slowing the indexer's block reads, when started with `slowIndexer` (set its delayMs to 0 to let it catch up). */
  slowRpc: SlowRpc | null;
  /** Follows broadcast payments to confirmation in the background, as the app's does. */
  follower: PaymentFollower;
  /** Waits until the service has indexed the node's tip and mempool. */
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
}

export async function startDevDesk(options: DevDeskOptions): Promise<DevDesk> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-web-'));
  const node = await fundedNode({ datadir: join(dir, 'chain'), ...(options.nodeArgs ? { extraArgs: options.nodeArgs } : {}) });
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
    const { service, url: serviceUrl, api, synced } = await startDevService(node, dir, {
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
    // Web mode keeps a remote service's key in memory only (the Settings screen says so).
    const connection = new ServiceConnection({ store, secrets: new MemorySecretStore(), embeddedUrl: serviceUrl, actor: 'treasurer' });
    const accountSecrets = memoryAccountSecrets();
    // The regtest node is this desk's own node (as a treasurer's node connected in Settings).
    const handlers = createHandlers({ store, connection, actor: 'treasurer', accountSecrets, ownNode: ownNodeOver(node), ...(options.ledger ? { ledger: options.ledger } : {}) });
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
    return { node, eth, api, serviceUrl, store, connection, accountSecrets, web, dir, slowRpc, follower, synced, dispose };
  } catch (err) {
    await dispose();
    throw err;
  }
}
