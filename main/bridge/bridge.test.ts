// The bridge boundary without a chain: allow-list, zod validation, error mapping, state sentences,
// and the web-mode server's token, session cookie, host and origin checks, static files and exact bigint JSON.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseApiJson } from '../../shared/api/json.ts';
import { CoordinatorError } from '../core/errors.ts';
import { startWebServer, type WebServer } from '../web/server.ts';
import { CHANNELS, inputs } from './contract.ts';
import { dispatch, type Handlers } from './dispatch.ts';
import { explainPayment } from './explain.ts';
import { isTrustedRendererUrl, WEB_PREFERENCES } from './security.ts';

const seen: unknown[] = [];
const handlers = new Proxy({} as Handlers, {
  get: (_t, channel: string) => async (input: unknown) => {
    seen.push(input);
    if (channel === 'payments.submit') throw new CoordinatorError('bad_state', 'payment x is awaiting_signatures, not ready: signatures are missing');
    if (channel === 'wallets.list') throw new Error('/secret/path exploded');
    return { channel, amount: 2n ** 70n, balance: 5n, count: 3 };
  },
});

describe('dispatch', () => {
  it('has an input schema for every channel of the allow-list', () => {
    expect(Object.keys(inputs).sort()).toEqual([...CHANNELS].sort());
  });

  it('refuses unknown channels and bad input, naming the field', async () => {
    expect(await dispatch(handlers, 'shell.exec', {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await dispatch(handlers, 'payments.propose', { wallet_id: 'w', to: 'Q', amount: 1.5, miners_fee: 0 })).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(/^amount: /) } });
    expect(await dispatch(handlers, 'service.status', { extra: 1 })).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    // One proposal channel: one recipient (with an amount or send all) or a batch's rows, never both.
    expect(await dispatch(handlers, 'payments.propose', { wallet_id: 'w', to: 'Q', miners_fee: 0 })).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(/^amount: the amount is required \(or send all\)/) } });
    expect(await dispatch(handlers, 'payments.propose', { wallet_id: 'w', amount: '1', miners_fee: 0 })).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(/^to: the recipient address is required/) } });
    expect(await dispatch(handlers, 'payments.propose', { wallet_id: 'w', to: 'Q', rows: [{ line: 1, to: 'Q', amount: '1', label: '' }], miners_fee: 0 })).toMatchObject({
      ok: false,
      error: { code: 'bad_input', message: expect.stringMatching(/^rows: a batch gives its recipients as rows, without to, amount or send all/) },
    });
    expect(await dispatch(handlers, 'payments.propose', { wallet_id: 'w', to: 'Q', send_all: true, fee_rate: 2 })).toMatchObject({ ok: true });
  });

  it('passes amounts as bigint and maps errors to readable failures', async () => {
    expect(await dispatch(handlers, 'payments.propose', { wallet_id: 'w', to: 'Q', amount: '123456789012345678901', miners_fee: 1000n })).toMatchObject({ ok: true });
    expect(seen.at(-1)).toMatchObject({ amount: 123456789012345678901n, miners_fee: 1000n });
    expect(await dispatch(handlers, 'payments.submit', { payment_id: 'x' })).toEqual({ ok: false, error: { code: 'bad_state', message: expect.stringMatching(/signatures are missing/) } });
    const reported: unknown[] = [];
    const internal = await dispatch(handlers, 'wallets.list', {}, (e) => reported.push(e));
    expect(internal).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(JSON.stringify(internal)).not.toContain('/secret/path');
    expect(reported).toHaveLength(1);
  });

  it('never echoes an xprv in a validation message', async () => {
    const r = await dispatch(handlers, 'cosigner.sign', { text: 'x', secret: 'tprv'.padEnd(500, 'z') });
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r)).not.toContain('tprvzzz');
  });
});

describe('explainPayment', () => {
  it('says where a payment is and what comes next', () => {
    const base = { path: { threshold: 2, keys: ['Alice', 'Bob', 'Carol'], recovery: 0, name: 'co-signers' }, signed: 1, reason: null, lastError: null, confirmations: 0 };
    expect(explainPayment({ ...base, state: 'awaiting_signatures' })).toMatch(/1 of 2 signatures so far.*1 more co-signer sign/);
    expect(explainPayment({ ...base, state: 'ready', lastError: 'min relay fee not met' })).toMatch(/refused.*min relay fee not met.*again/);
    expect(explainPayment({ ...base, state: 'confirmed', confirmations: 3 })).toMatch(/3 confirmations/);
    expect(explainPayment({ ...base, state: 'cancelled', reason: 'duplicate' })).toMatch(/^Cancelled: duplicate/);
  });
});

describe('window security', () => {
  it('locks the renderer down and trusts only its own index.html', () => {
    expect(WEB_PREFERENCES).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    const own = 'file:///opt/countersign/renderer/index.html';
    expect(isTrustedRendererUrl(`${own}#/wallets`, own)).toBe(true);
    expect(isTrustedRendererUrl('file:///etc/passwd', own)).toBe(false);
    expect(isTrustedRendererUrl('https://evil.example/', own)).toBe(false);
    expect(isTrustedRendererUrl('not a url', own)).toBe(false);
    // npm run dev:desktop: the renderer is electron-vite's dev server on loopback, and only it.
    const dev = 'http://localhost:5173/';
    expect(isTrustedRendererUrl('http://localhost:5173/#/wallets', dev)).toBe(true);
    expect(isTrustedRendererUrl('http://localhost:5174/', dev)).toBe(false);
    expect(isTrustedRendererUrl(own, dev)).toBe(false);
    expect(isTrustedRendererUrl(dev, own)).toBe(false);
    expect(isTrustedRendererUrl('http://evil.example/', 'http://evil.example/')).toBe(false);
  });
});

describe('web-mode server', () => {
  let web: WebServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'countersign-web-test-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>desk</title>');
    web = await startWebServer({ handlers, rendererDir: dir });
  });
  afterAll(async () => {
    await web.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const post = (channel: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${web.url}/bridge/${channel}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${web.token}`, ...headers }, body });

  it('binds 127.0.0.1 and puts a random token in the fragment only', () => {
    expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(web.openUrl).toBe(`${web.url}/#token=${web.token}`);
    expect(web.token.length).toBeGreaterThanOrEqual(40);
  });

  it('answers bridge calls with exact bigint JSON integers', async () => {
    const res = await post('payments.get', '{"payment_id":"p"}');
    const text = await res.text();
    expect(text).toContain('"amount":1180591620717411303424');
    expect(parseApiJson(text)).toMatchObject({ ok: true, value: { amount: 2n ** 70n, balance: 5n, count: 3 } });
  });

  it('refuses calls without the token, from another Host, or not JSON', async () => {
    expect((await post('wallets.list', '{}', { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await post('wallets.list', '{}', { authorization: '' })).status).toBe(401);
    expect((await post('wallets.list', '{}', { 'content-type': 'text/plain' })).status).toBe(415);
    const rebound = await new Promise<number>((resolve, reject) => {
      // fetch() will not let a caller set Host; a raw request can, as a DNS-rebinding page would.
      import('node:http').then(({ request }) => {
        const req = request(`${web.url}/bridge/wallets.list`, { method: 'POST', headers: { host: 'evil.example', authorization: `Bearer ${web.token}`, 'content-type': 'application/json' } }, (res) => resolve(res.statusCode ?? 0));
        req.on('error', reject);
        req.end('{}');
      }, reject);
    });
    expect(rebound).toBe(421);
    expect(await (await post('no.such', '{}')).json()).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  });

  it('trades the token for an HttpOnly SameSite=Strict cookie, only from its own page', async () => {
    const origin = web.url;
    const open = (headers: Record<string, string>) => fetch(`${web.url}/session`, { method: 'POST', headers });
    expect((await open({ origin, authorization: 'Bearer nope' })).status).toBe(401);
    expect((await open({ origin: 'https://evil.example', authorization: `Bearer ${web.token}` })).status).toBe(403);
    expect((await open({ authorization: `Bearer ${web.token}` })).status).toBe(403); // no Origin: not a page of ours
    expect((await fetch(`${web.url}/session`, { headers: { origin, authorization: `Bearer ${web.token}` } })).status).toBe(405);
    const res = await open({ origin, authorization: `Bearer ${web.token}` });
    expect(res.status).toBe(204);
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(new RegExp(`^${web.cookieName}=[A-Za-z0-9_-]{40,}; HttpOnly; SameSite=Strict; Path=/$`));
    expect(web.cookieName).toBe(`countersign_session_${new URL(web.url).port}`);
    expect(setCookie).not.toContain(web.token);
  });

  it('accepts the cookie in place of the token, from its own origin only', async () => {
    const opened = await fetch(`${web.url}/session`, { method: 'POST', headers: { origin: web.url, authorization: `Bearer ${web.token}` } });
    const jar = (opened.headers.get('set-cookie') ?? '').split(';')[0]!;
    const withCookie = (headers: Record<string, string>) => post('wallets.get', '{"wallet_id":"w"}', { authorization: '', cookie: jar, ...headers });
    const localhost = web.url.replace('127.0.0.1', 'localhost');
    expect(await (await withCookie({ origin: web.url })).json()).toMatchObject({ ok: true });
    expect((await withCookie({ origin: localhost, host: new URL(localhost).host })).status).toBe(200);
    // Another site's page (CSRF), or no Origin at all, gets nothing for the cookie.
    expect((await withCookie({ origin: 'https://evil.example' })).status).toBe(403);
    expect((await withCookie({})).status).toBe(401);
    expect((await withCookie({ origin: web.url, cookie: `${web.cookieName}=forged` })).status).toBe(401);
    // The token still works alone; a wrong Origin is refused even with it.
    expect((await post('wallets.get', '{"wallet_id":"w"}', { origin: web.url })).status).toBe(200);
    expect((await post('wallets.get', '{"wallet_id":"w"}', { origin: 'null' })).status).toBe(403);
  });

  it('gives a cookie worthless to another desk process (a new token each run)', async () => {
    const other = await startWebServer({ handlers, rendererDir: dir });
    try {
      const opened = await fetch(`${web.url}/session`, { method: 'POST', headers: { origin: web.url, authorization: `Bearer ${web.token}` } });
      const value = (opened.headers.get('set-cookie') ?? '').split(';')[0]!.split('=')[1]!;
      expect(other.token).not.toBe(web.token);
      const res = await fetch(`${other.url}/bridge/wallets.list`, { method: 'POST', headers: { 'content-type': 'application/json', origin: other.url, cookie: `${other.cookieName}=${value}` }, body: '{}' });
      expect(res.status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('serves the renderer with a strict CSP and no path traversal', async () => {
    const res = await fetch(`${web.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'/);
    expect((await fetch(`${web.url}/wallets/abc`)).status).toBe(200); // an app route gets the shell
    expect((await fetch(`${web.url}/..%2f..%2fetc%2fpasswd.txt`)).status).toBe(404);
  });
});

describe('layering of the UI folders', () => {
  const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });
  const restricted = async (filePath: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath });
    return (result?.messages ?? []).filter((m) => /no-restricted-imports/.test(m.ruleId ?? '')).length;
  };
  it('renderer/ imports only the bridge type and shared/api; only electron adapters import electron', async () => {
    expect(await restricted('renderer/src/probe.ts', "import type { Bridge } from '../../main/bridge/contract.ts';\nexport type X = Bridge;\n")).toBe(0);
    expect(await restricted('renderer/src/probe.ts', "import { inputs } from '../../main/bridge/contract.ts';\nexport const x = inputs;\n")).toBe(1);
    expect(await restricted('renderer/src/probe.ts', "import { createHandlers } from '../../main/bridge/handlers.ts';\nexport const x = createHandlers;\n")).toBe(1);
    expect(await restricted('renderer/src/probe.ts', "import { parseApiJson } from '../../shared/api/json.ts';\nexport const x = parseApiJson;\n")).toBe(0);
    expect(await restricted('renderer/src/probe.ts', "import { sha256 } from '../../shared/coins/hash.ts';\nexport const x = sha256;\n")).toBe(1);
    expect(await restricted('renderer/src/probe.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n")).toBe(1);
    expect(await restricted('main/bridge/probe.ts', "import { app } from 'electron';\nexport const x = app;\n")).toBe(1);
    expect(await restricted('main/web/probe.ts', "import { app } from 'electron';\nexport const x = app;\n")).toBe(1);
    expect(await restricted('preload/probe.ts', "import { createHandlers } from '../main/bridge/handlers.ts';\nexport const x = createHandlers;\n")).toBe(1);
    expect(await restricted('preload/probe.ts', "import { CHANNELS } from '../main/bridge/channels.ts';\nexport const x = CHANNELS;\n")).toBe(0);
  });
});
