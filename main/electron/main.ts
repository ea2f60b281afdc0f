// Electron main process (thin adapter; Electron cannot start on the build machine, so this file is
// type-checked but untested there). The embedded service and the bridge are the same code web mode
// runs; only the window and the IPC transport live here.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, ipcMain, session, shell } from 'electron';
import pino from 'pino';
import { CHANNELS, ipcName } from '../bridge/channels.ts';
import { dispatch } from '../bridge/dispatch.ts';
import { createHandlers } from '../bridge/handlers.ts';
import { ServiceConnection } from '../core/chains/connection.ts';
import { usbConnector } from '../core/ledger/transport.ts';
import { startEmbeddedService } from '../core/chains/embedded-service.ts';
import { openStore } from '../core/store/store.ts';
import { startPaymentFollower } from '../core/payment-follower.ts';
import { watchAfterStart } from '../core/wallets/birthday.ts';
import { SafeSecretStore } from './secret-store.ts';
import { CSP, DEV_CSP, isTrustedRendererUrl, WEB_PREFERENCES } from '../bridge/security.ts';
import { DOCUMENTATION_BASE_URLS } from '../bridge/external-links.ts';
import { explorerBaseUrls } from '../core/chains/explorer-settings.ts';
import { installWebContentsGuards } from './web-contents-guards.ts';

// The built renderer beside this bundle (out/renderer); under `npm run dev:desktop`, electron-vite's
// dev server (hot reload), which it names in ELECTRON_RENDERER_URL. A packaged app never asks.
const devServerUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL;
const rendererUrl = devServerUrl ?? pathToFileURL(join(import.meta.dirname, '../renderer/index.html')).href;
const csp = devServerUrl === undefined ? CSP : DEV_CSP;

async function start(): Promise<void> {
  await app.whenReady();
  const userData = app.getPath('userData');
  const log = pino({ level: 'info' });
  // The embedded service runs on 127.0.0.1 with its own SQLite and the chains connected in Settings
  // (node passwords kept with safeStorage, one file per coin) or described in
  // userData/embedded-service.json; Settings may point the desk at a remote deployment instead
  // (its key kept with safeStorage).
  const store = openStore(join(userData, 'desk.sqlite'));
  const chainSecrets = (coin: string) => new SafeSecretStore(join(userData, 'chain-secrets', `${coin}.bin`));
  const embedded = await startEmbeddedService(userData, log, { store, secrets: chainSecrets });
  const secrets = new SafeSecretStore(join(userData, 'service-api-key.bin'));
  const connection = new ServiceConnection({ store, secrets, embeddedUrl: embedded.url, actor: 'treasurer' });
  // Before any window exists (the default session is usable once the app is ready), so every web
  // contents, the main window's too, gets the guards.
  installWebContentsGuards({
    app,
    session: session.defaultSession,
    rendererUrl,
    allowedLinkBases: () => {
      const explorers = explorerBaseUrls(store);
      if (explorers.problem) log.warn(explorers.problem);
      return [...DOCUMENTATION_BASE_URLS, ...explorers.urls];
    },
    openExternal: (url) => shell.openExternal(url),
    log,
  });
  // Ledgers over USB: @ledgerhq/hw-transport-node-hid is imported the first time a person asks for a device.
  // Software Ether keys: one safeStorage-encrypted file per account, like the service key.
  const accountSecrets = (accountId: string) => new SafeSecretStore(join(userData, 'account-keys', `${accountId}.bin`));
  // A watching service (a node from Settings) knows only the wallets registered with it: those it
  // does not know yet (made while no chain was connected, imported) are registered now.
  void watchAfterStart({ store, api: connection.api, actor: 'treasurer' })
    .then((problems) => problems.forEach((p) => log.warn(p)))
    .catch((err: unknown) => log.warn({ err }, 'wallets could not be registered with the embedded service'));
  // The relay's device secret (issue 35): safeStorage-encrypted like the other secrets.
  const relaySecrets = new SafeSecretStore(join(userData, 'relay-device.bin'));
  const handlers = createHandlers({ store, connection, actor: 'treasurer', ledger: usbConnector(), accountSecrets, relaySecrets, chains: { secrets: chainSecrets, host: embedded } });
  // Broadcast payments are followed to confirmation whether or not anyone opens them.
  const follower = startPaymentFollower({ store, api: connection.api, actor: 'treasurer' }, { report: (err) => log.error({ err }, 'payment follower') });

  for (const channel of CHANNELS) {
    ipcMain.handle(ipcName(channel), (event, input: unknown) => {
      // Only our own page may call the bridge, never a frame or a page navigated elsewhere.
      if (!event.senderFrame || !isTrustedRendererUrl(event.senderFrame.url, rendererUrl)) {
        return { ok: false, error: { code: 'forbidden', message: 'untrusted sender' } };
      }
      return dispatch(handlers, channel, input, (err) => log.error({ err }, 'bridge error'));
    });
  }

  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
  });

  const win = new BrowserWindow({
    width: 1280,
    height: 860,
    title: 'Countersign',
    show: false,
    webPreferences: { ...WEB_PREFERENCES, preload: join(import.meta.dirname, '../preload/preload.cjs') },
  });
  win.once('ready-to-show', () => win.show());
  await win.loadURL(rendererUrl);

  app.on('window-all-closed', () => {
    void follower
      .stop()
      .then(() => store.close())
      .then(() => embedded.close())
      .finally(() => app.quit());
  });
}

start().catch((err: unknown) => {
  process.stderr.write(`countersign failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  app.exit(1);
});
