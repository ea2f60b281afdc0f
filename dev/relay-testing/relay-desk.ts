// A co-signer's or approver's desk for the relay's browser test: its own store and device key, the
// bridge and the web-mode server, talking to the treasurer's service (no node, no service of its
// own: a co-signer anywhere reaches the organisation's service).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceConnection } from '../../main/core/chains/connection.ts';
import { MemorySecretStore, type ExaminedSecretStore } from '../../main/core/secrets.ts';
import { memoryAccountSecrets } from '../../main/core/accounts/keys.ts';
import { openStore, type CoordinatorStore } from '../../main/core/store/store.ts';
import { createHandlers } from '../../main/bridge/handlers.ts';
import { startWebServer, type WebServer } from '../../main/web/server.ts';

export interface RelayDesk {
  store: CoordinatorStore;
  web: WebServer;
  dispose(): Promise<void>;
}

export interface RelayDeskOptions {
  rendererDir: string;
  serviceUrl: string;
  actor: string;
  /** Where its relay key is kept; default: a new one in memory. */
  relaySecrets?: ExaminedSecretStore;
  /** Its store's folder, kept at dispose (the same desk started again); default: a new one, removed. */
  dir?: string;
}

export async function startRelayDesk(options: RelayDeskOptions): Promise<RelayDesk> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), `countersign-${options.actor}-`));
  const store = openStore(join(dir, 'desk.sqlite'));
  const connection = new ServiceConnection({ store, secrets: new MemorySecretStore(), embeddedUrl: options.serviceUrl, actor: options.actor });
  const handlers = createHandlers({ store, connection, actor: options.actor, accountSecrets: memoryAccountSecrets(), relaySecrets: options.relaySecrets ?? new MemorySecretStore() });
  const web = await startWebServer({ handlers, rendererDir: options.rendererDir, report: () => undefined });
  return {
    store,
    web,
    dispose: async () => {
      await web.close();
      store.close();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
