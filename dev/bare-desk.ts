// A desk as a treasurer first starts it: the embedded service from main/core/chains/embedded-service.ts
// with no embedded-service.json and no chain connected, the desk's store, the bridge (chains
// connected from Settings) and the web-mode server; beside it a litecoind -regtest node that writes
// its cookie file and keeps block filters, for the treasurer to connect. e2e/chains starts this.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startLitecoind, type RegtestNode, type StartLitecoindOptions } from './chains/litecoind.ts';
import { ServiceConnection } from '../main/core/chains/connection.ts';
import { memoryChainSecrets, type ChainSecrets } from '../main/core/chains/settings.ts';
import { startEmbeddedService, type EmbeddedServiceHost } from '../main/core/chains/embedded-service.ts';
import { MemorySecretStore } from '../main/core/secrets.ts';
import { memoryAccountSecrets } from '../main/core/accounts/keys.ts';
import { openStore, type CoordinatorStore } from '../main/core/store/store.ts';
import { createHandlers } from '../main/bridge/handlers.ts';
import { startWebServer, type WebServer } from '../main/web/server.ts';

export interface BareDesk {
  /** The node the treasurer connects (not connected yet). */
  node: RegtestNode;
  /** Its cookie file, as the treasurer types it. */
  cookieFile: string;
  host: EmbeddedServiceHost;
  /** Where the desk keeps node passwords (this process's memory, as web mode does). */
  chainSecrets: ChainSecrets;
  store: CoordinatorStore;
  connection: ServiceConnection;
  web: WebServer;
  dir: string;
  dispose(): Promise<void>;
}

export interface BareDeskOptions {
  rendererDir: string;
  /** Prepares the node's chain before the desk starts (mining, mock times). */
  prepare?: (node: RegtestNode) => Promise<void>;
  node?: StartLitecoindOptions;
  log?: (line: string) => void;
}

export async function startBareDesk(options: BareDeskOptions): Promise<BareDesk> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-bare-'));
  const node = await startLitecoind({ datadir: join(dir, 'chain'), cookie: true, extraArgs: ['-blockfilterindex=1'], ...options.node });
  // Run last to first: the web server, the service, the store, the node, then the folder.
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(dir, { recursive: true, force: true }), () => node.stop()];
  const dispose = async () => {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  };
  try {
    await options.prepare?.(node);
    const store = openStore(join(dir, 'desk.sqlite'));
    cleanups.push(() => store.close());
    const chainSecrets = memoryChainSecrets();
    // The desk's data folder holds no embedded-service.json: nothing is connected.
    const host = await startEmbeddedService(join(dir, 'desk-data'), pino({ level: 'silent' }), { store, secrets: chainSecrets });
    cleanups.push(() => host.close());
    const connection = new ServiceConnection({ store, secrets: new MemorySecretStore(), embeddedUrl: host.url, actor: 'treasurer' });
    const handlers = createHandlers({ store, connection, actor: 'treasurer', accountSecrets: memoryAccountSecrets(), chains: { secrets: chainSecrets, host } });
    const web = await startWebServer({
      handlers,
      rendererDir: options.rendererDir,
      report: (err) => options.log?.(`bridge error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
    });
    cleanups.push(() => web.close());
    return { node, cookieFile: join(node.datadir, 'regtest', '.cookie'), host, chainSecrets, store, connection, web, dir, dispose };
  } catch (err) {
    await dispose();
    throw err;
  }
}
