// Web mode: the bridge over HTTP on 127.0.0.1, plus the built renderer. Every bridge call carries
// the per-run random token (Authorization: Bearer) or the session cookie the page got for it; the
// Host header must name this server and a browser's Origin must be this server, so a page on
// another origin (or a DNS-rebound name) cannot reach the bridge.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { filesTooLarge, MAX_BRIDGE_BODY_BYTES } from '../../shared/api/file-limits.ts';
import { parseApiJson, stringifyApiJson } from '../../shared/api/json.ts';
import { dispatch, type Handlers } from '../bridge/dispatch.ts';
// The same CSP as the Electron window: nothing inline, nothing remote.
import { CSP } from '../bridge/security.ts';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

export interface WebServerOptions {
  handlers: Handlers;
  /** The built renderer (vite build output). */
  rendererDir: string;
  port?: number;
  token?: string;
  report?: (err: unknown) => void;
}

export interface WebServer {
  server: Server;
  token: string;
  /** Base URL, e.g. http://127.0.0.1:5173 */
  url: string;
  /** What to open: the token rides in the fragment, which browsers never send to a server. */
  openUrl: string;
  /** The session cookie's name (one per port: browsers share cookies across ports of a host). */
  cookieName: string;
  close(): Promise<void>;
}

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    ...extra,
  });
  res.end(body);
}

const sendJson = (res: ServerResponse, status: number, value: unknown) => send(res, status, 'application/json; charset=utf-8', stringifyApiJson(value));

/** The value of cookie `name` in a Cookie header, if present. */
function cookie(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    // Only picked files make a call this large: refused in the words of the bridge's own limit.
    if (size > MAX_BRIDGE_BODY_BYTES) throw new Error(filesTooLarge());
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const root = normalize(options.rendererDir);
  // Bound to this run's token: a cookie from another desk process (another token) is worthless here.
  const sessionValue = createHmac('sha256', token).update('countersign web session').digest('base64url');
  let allowedHosts: ReadonlySet<string> = new Set();
  let allowedOrigins: ReadonlySet<string> = new Set();
  let cookieName = '';
  const forbidden = (res: ServerResponse, status: number, message: string) => sendJson(res, status, { ok: false, error: { code: 'forbidden', message } });
  const bearerOk = (req: IncomingMessage): boolean => {
    const auth = req.headers.authorization ?? '';
    return auth.startsWith('Bearer ') && sameSecret(auth.slice(7), token);
  };

  const serveStatic = async (res: ServerResponse, pathname: string): Promise<void> => {
    const rel = pathname === '/' ? 'index.html' : decodeURIComponent(pathname.slice(1));
    const file = normalize(join(root, rel));
    if (!file.startsWith(root + sep)) return send(res, 404, 'text/plain', 'not found');
    try {
      const body = await readFile(file);
      send(res, 200, TYPES[extname(file)] ?? 'application/octet-stream', body, { 'content-security-policy': CSP });
    } catch {
      // An unknown path is the single-page app's own route: serve the shell.
      if (extname(file) !== '') return send(res, 404, 'text/plain', 'not found');
      try {
        send(res, 200, TYPES['.html']!, await readFile(join(root, 'index.html')), { 'content-security-policy': CSP });
      } catch {
        send(res, 500, 'text/plain', `the renderer is not built: run "npm run build:renderer" (looked in ${root})`);
      }
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!allowedHosts.has(req.headers.host ?? '')) return send(res, 421, 'text/plain', 'wrong host');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // Browsers name the page's origin on every POST: another site's (CSRF) is refused outright.
    const origin = req.headers.origin;
    const sameOrigin = origin !== undefined && allowedOrigins.has(origin);
    if (url.pathname === '/session') {
      // The page trades the token of the printed URL for an HttpOnly cookie once, so other tabs of
      // the same browser share the session for as long as this desk process runs.
      if (req.method !== 'POST') return forbidden(res, 405, 'the session is opened with POST');
      if (!sameOrigin) return forbidden(res, 403, 'the session is opened only by the desk page itself');
      if (!bearerOk(req)) return forbidden(res, 401, 'missing or wrong token: open the URL printed when the desk started');
      return send(res, 204, 'text/plain', '', { 'set-cookie': `${cookieName}=${sessionValue}; HttpOnly; SameSite=Strict; Path=/` });
    }
    if (url.pathname.startsWith('/bridge/')) {
      if (req.method !== 'POST') return sendJson(res, 405, { ok: false, error: { code: 'forbidden', message: 'bridge calls are POST' } });
      if (origin !== undefined && !sameOrigin) return forbidden(res, 403, 'bridge calls come only from the desk page itself');
      // The cookie counts only with this server's Origin, which a browser always sends on a POST.
      const cookieOk = sameOrigin && sameSecret(cookie(req.headers.cookie, cookieName) ?? '', sessionValue);
      if (!bearerOk(req) && !cookieOk) {
        return sendJson(res, 401, { ok: false, error: { code: 'forbidden', message: 'missing or wrong token: open the URL printed when the desk started' } });
      }
      // A JSON content type forces a CORS preflight from other origins, which this server never answers.
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
        return sendJson(res, 415, { ok: false, error: { code: 'bad_input', message: 'bridge calls are application/json' } });
      }
      let input: unknown;
      try {
        const text = await readBody(req);
        input = text ? parseApiJson(text) : {};
      } catch (err) {
        return sendJson(res, 400, { ok: false, error: { code: 'bad_input', message: err instanceof Error ? err.message : 'unreadable body' } });
      }
      const result = await dispatch(options.handlers, url.pathname.slice('/bridge/'.length), input, options.report);
      return sendJson(res, 200, result);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'method not allowed');
    return serveStatic(res, url.pathname);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      options.report?.(err);
      if (!res.headersSent) send(res, 500, 'text/plain', 'internal error');
    });
  });
  server.requestTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  allowedOrigins = new Set([...allowedHosts].map((h) => `http://${h}`));
  cookieName = `countersign_session_${port}`;
  const url = `http://127.0.0.1:${port}`;
  return {
    server,
    token,
    url,
    openUrl: `${url}/#token=${token}`,
    cookieName,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
