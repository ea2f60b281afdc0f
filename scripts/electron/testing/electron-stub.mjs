// A stand-in for the electron module, only for running the bundled main process in plain Node on a
// machine where Electron cannot start: it records what main.ts asks of Electron, then plays the
// renderer once (one bridge call over the recorded IPC handler) and prints a report as JSON.
const handlers = new Map();
const report = { channels: [], window: null, loaded: null, csp: null, bridge: null, untrusted: null };

export const app = {
  isPackaged: process.env.COUNTERSIGN_STUB_PACKAGED === '1',
  whenReady: () => Promise.resolve(),
  getPath: (name) => {
    if (name !== 'userData') throw new Error(`stub: no path ${name}`);
    return process.env.COUNTERSIGN_STUB_USER_DATA;
  },
  on: () => undefined,
  quit: () => process.exit(0),
  exit: (code) => process.exit(code),
};

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
    setPermissionRequestHandler: () => undefined,
  },
};

export const shell = { openExternal: () => Promise.resolve() };

export const safeStorage = {
  isEncryptionAvailable: () => true,
  getSelectedStorageBackend: () => 'gnome_libsecret',
  encryptString: (s) => Buffer.from(s, 'utf8'),
  decryptString: (b) => b.toString('utf8'),
};

export class BrowserWindow {
  constructor(options) {
    report.window = { preload: options.webPreferences.preload, contextIsolation: options.webPreferences.contextIsolation, sandbox: options.webPreferences.sandbox, nodeIntegration: options.webPreferences.nodeIntegration };
    this.webContents = { on: () => undefined, setWindowOpenHandler: () => undefined };
  }
  once() {}
  async loadURL(url) {
    report.loaded = url;
    const call = (frameUrl, channel, input) => handlers.get(`countersign:${channel}`)({ senderFrame: { url: frameUrl } }, input);
    report.bridge = await call(url, 'settings.get', {});
    report.untrusted = await call('https://evil.example/', 'settings.get', {});
    process.stdout.write(`${JSON.stringify({ report })}\n`);
    process.exit(0);
  }
}

export const contextBridge = {};
export const ipcRenderer = {};
export default { app, ipcMain, session, shell, safeStorage, BrowserWindow, contextBridge, ipcRenderer };
