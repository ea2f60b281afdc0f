// A stand-in for the electron module, only for running the bundled main process in plain Node on a
// machine where Electron cannot start: it records what main.ts asks of Electron, then plays the
// renderer once (one bridge call over the recorded IPC handler), plays a hostile page against every
// web contents the app guards (the window's and a second one), and prints a report as JSON.
const handlers = new Map();
const appListeners = new Map();
const webContents = [];
const opened = [];
const permission = { request: null, check: null };
const report = { channels: [], window: null, loaded: null, csp: null, bridge: null, chains: null, untrusted: null, guards: null, opened };

export const app = {
  isPackaged: process.env.COUNTERSIGN_STUB_PACKAGED === '1',
  whenReady: () => Promise.resolve(),
  getPath: (name) => {
    if (name !== 'userData') throw new Error(`stub: no path ${name}`);
    return process.env.COUNTERSIGN_STUB_USER_DATA;
  },
  on: (name, listener) => appListeners.set(name, [...(appListeners.get(name) ?? []), listener]),
  quit: () => process.exit(0),
  exit: (code) => process.exit(code),
};

/** A web contents as Electron makes one: announced to the app's 'web-contents-created' listeners. */
class StubWebContents {
  constructor() {
    this.listeners = new Map();
    this.openHandler = null;
    webContents.push(this);
    for (const listener of appListeners.get('web-contents-created') ?? []) listener({}, this);
  }
  on(name, listener) {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
  }
  setWindowOpenHandler(handler) {
    this.openHandler = handler;
  }
  /** Emits `name` with an event carrying `url`; true when a listener prevented it. */
  emit(name, url) {
    let prevented = false;
    const event = { url, preventDefault: () => (prevented = true) };
    for (const listener of this.listeners.get(name) ?? []) listener(event, url);
    return prevented;
  }
  probe(ownUrl, allowedLink) {
    return {
      navigateAway: this.emit('will-navigate', 'https://evil.example/'),
      navigateOwn: this.emit('will-navigate', `${ownUrl}#/wallets`),
      redirectAway: this.emit('will-redirect', 'https://evil.example/next'),
      attachWebview: this.emit('will-attach-webview', 'https://evil.example/'),
      openEvil: this.openHandler?.({ url: 'https://evil.example/phish' }) ?? null,
      openFile: this.openHandler?.({ url: 'file:///etc/passwd' }) ?? null,
      openAllowed: this.openHandler?.({ url: allowedLink }) ?? null,
    };
  }
}

export const ipcMain = {
  handle: (name, handler) => {
    handlers.set(name, handler);
    report.channels.push(name);
  },
};

export const session = {
  defaultSession: {
    webRequest: {
      onHeadersReceived: (listener) => listener({ responseHeaders: {} }, (answer) => (report.csp = answer.responseHeaders['Content-Security-Policy'])),
    },
    setPermissionRequestHandler: (handler) => (permission.request = handler),
    setPermissionCheckHandler: (handler) => (permission.check = handler),
  },
};

export const shell = {
  openExternal: (url) => {
    opened.push(url);
    return Promise.resolve();
  },
};

export const safeStorage = {
  isEncryptionAvailable: () => true,
  getSelectedStorageBackend: () => 'gnome_libsecret',
  encryptString: (s) => Buffer.from(s, 'utf8'),
  decryptString: (b) => b.toString('utf8'),
};

export class BrowserWindow {
  constructor(options) {
    report.window = { preload: options.webPreferences.preload, contextIsolation: options.webPreferences.contextIsolation, sandbox: options.webPreferences.sandbox, nodeIntegration: options.webPreferences.nodeIntegration };
    this.webContents = new StubWebContents();
  }
  once() {}
  async loadURL(url) {
    report.loaded = url;
    const call = (frameUrl, channel, input) => handlers.get(`countersign:${channel}`)({ senderFrame: { url: frameUrl } }, input);
    report.bridge = await call(url, 'settings.get', {});
    report.chains = await call(url, 'chains.list', {});
    report.untrusted = await call('https://evil.example/', 'settings.get', {});
    // A second web contents (a devtools page, a window some bug let open) gets the same guards.
    new StubWebContents();
    const allowedLink = process.env.COUNTERSIGN_STUB_ALLOWED_LINK ?? 'https://explorer.example/tx/ab';
    const requested = await new Promise((resolve) => (permission.request ? permission.request(this.webContents, 'media', resolve, {}) : resolve(null)));
    report.guards = {
      webContentsListeners: appListeners.get('web-contents-created')?.length ?? 0,
      contents: webContents.map((wc) => wc.probe(url, allowedLink)),
      permissionRequest: requested,
      permissionCheck: permission.check ? ['media', 'geolocation', 'notifications', 'clipboard-read'].map((p) => permission.check(this.webContents, p, 'file://', {})) : null,
    };
    // openExternal is called without waiting: let it settle before reporting.
    await new Promise((resolve) => setImmediate(resolve));
    process.stdout.write(`${JSON.stringify({ report })}\n`);
    process.exit(0);
  }
}

export const contextBridge = {};
export const ipcRenderer = {};
export default { app, ipcMain, session, shell, safeStorage, BrowserWindow, contextBridge, ipcRenderer };
