// The renderer window's security rules (CSP for both transports, Electron webPreferences) as pure data and predicates (no electron import),
// unit-tested in plain Node: only the packaged renderer may load, nothing may navigate or open.
// 'wasm-unsafe-eval' lets the page compile its own QR decoder (zxing-wasm, whose bytes ride in one of the page's own
// script chunks, so nothing is fetched: renderer/src/components/qr-decoder.ts); eval stays refused.
export const CSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Only for `npm run dev:desktop` (electron-vite's dev server, never a packaged app): Vite's hot
 * reload injects inline scripts (React's refresh preamble) and inline styles, and talks to its
 * server over a WebSocket. Applied to the window's header CSP and to index.html's meta CSP
 * (electron.vite.config.ts).
 */
export function relaxForDevServer(policy: string): string {
  return policy
    .replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
    .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
    .replace("connect-src 'self'", "connect-src 'self' ws://localhost:* ws://127.0.0.1:*");
}

export const DEV_CSP = relaxForDevServer(CSP);

export const WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  spellcheck: false,
} as const;

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * True when `url` is the renderer's own index.html (file: URL inside rendererDir), any fragment;
 * or, when the renderer is electron-vite's dev server on this machine, any page of that server.
 */
export function isTrustedRendererUrl(url: string, rendererIndexUrl: string): boolean {
  try {
    const u = new URL(url);
    const own = new URL(rendererIndexUrl);
    if (own.protocol === 'http:' && LOOPBACK_HOSTS.has(own.hostname)) return u.origin === own.origin;
    return u.protocol === 'file:' && own.protocol === 'file:' && u.pathname === own.pathname && u.search === '';
  } catch {
    return false;
  }
}
