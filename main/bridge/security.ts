// The renderer window's security rules (CSP for both transports, Electron webPreferences) as pure data and predicates (no electron import),
// unit-tested in plain Node: only the packaged renderer may load, nothing may navigate or open.
export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

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

/** True when `url` is the renderer's own index.html (file: URL inside rendererDir), any fragment. */
export function isTrustedRendererUrl(url: string, rendererIndexUrl: string): boolean {
  try {
    const u = new URL(url);
    const own = new URL(rendererIndexUrl);
    return u.protocol === 'file:' && u.pathname === own.pathname && u.search === '';
  } catch {
    return false;
  }
}
