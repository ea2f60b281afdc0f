// A whole desk for development and the e2e test: litecoind -regtest (scripts/dev-chain), the
// service embedded through createService(), the desk's SQLite store, the bridge, and the web-mode
// server. `npm run web` and e2e/ start exactly this.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../../shared/api/client.ts';
import { fundedNode, type RegtestNode } from '../../scripts/dev-chain/litecoind.ts';
import { startDevService } from '../core/dev-service.ts';
import { ServiceConnection } from '../core/connection.ts';
import { MemorySecretStore } from '../core/secrets.ts';
import { openStore, type CoordinatorStore } from '../core/store/store.ts';
import { createHandlers } from '../bridge/handlers.ts';
import { startWebServer, type WebServer } from './server.ts';

export interface DevDesk {
  node: RegtestNode;
  api: ApiClient;
  /** The embedded service's v2 API (no key: it listens on 127.0.0.1 only). */
  serviceUrl: string;
  store: CoordinatorStore;
  /** Which service the bridge talks to (Settings switches it). */
  connection: ServiceConnection;
  web: WebServer;
  dir: string;
  /** Waits until the service has indexed the node's tip and mempool. */
  synced(): Promise<void>;
  dispose(): Promise<void>;
}

export interface DevDeskOptions {
  rendererDir: string;
  port?: number;
  usdRate?: number;
  log?: (line: string) => void;
}

export async function startDevDesk(options: DevDeskOptions): Promise<DevDesk> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-web-'));
  const node = await fundedNode({ datadir: join(dir, 'chain') });
  const cleanups: (() => Promise<void> | void)[] = [() => node.stop(), () => rmSync(dir, { recursive: true, force: true })];
  const dispose = async () => {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  };
  try {
    const { service, url: serviceUrl, api, synced } = await startDevService(node, dir, { pollIntervalMs: 250, usdRate: options.usdRate ?? 80 });
    cleanups.splice(1, 0, () => service.close());
    const store = openStore(join(dir, 'desk.sqlite'));
    cleanups.splice(1, 0, () => store.close());
    // Web mode keeps a remote service's key in memory only (the Settings screen says so).
    const connection = new ServiceConnection({ store, secrets: new MemorySecretStore(), embeddedUrl: serviceUrl, actor: 'treasurer' });
    const handlers = createHandlers({ store, connection, actor: 'treasurer' });
    const web = await startWebServer({
      handlers,
      rendererDir: options.rendererDir,
      ...(options.port !== undefined ? { port: options.port } : {}),
      report: (err) => options.log?.(`bridge error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
    });
    cleanups.splice(1, 0, () => web.close());
    return { node, api, serviceUrl, store, connection, web, dir, synced, dispose };
  } catch (err) {
    await dispose();
    throw err;
  }
}
