// Settings over the bridge with two real services: the embedded one (no key, loopback) and a
// "remote" one that requires X-API-KEY, its key made by the service's own CLI. Switching tests the
// connection first, keeps the old one on any refusal, and the key never comes back out.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../shared/api/client.ts';
import { createService, type Service } from '../../service/service.ts';
import { ServiceConnection } from '../core/chains/connection.ts';
import { MemorySecretStore, safeStorageProblem } from '../core/secrets.ts';
import { openStore, type CoordinatorStore } from '../core/store/store.ts';
import { dispatch, type Handlers } from './dispatch.ts';
import { createHandlers } from './handlers.ts';

const root = join(import.meta.dirname, '../..');
let dir: string;
let embedded: Service;
let remote: Service;
let embeddedUrl: string;
let remoteUrl: string;
let apiKey: string;
let store: CoordinatorStore;
let secrets: MemorySecretStore;
let handlers: Handlers;
/** Every request the desk sent: where, and whether it carried a key. */
const sent: { url: string; keyed: boolean }[] = [];
/** Every bridge answer, to prove the key never leaves. */
const answers: string[] = [];

const recordingFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  sent.push({ url: String(input), keyed: headers.has('x-api-key') });
  return fetch(input, init);
};
const client = (baseUrl: string, key?: string) => new ApiClient({ baseUrl, fetch: recordingFetch, ...(key ? { apiKey: key } : {}) });

const call = async (channel: string, input: unknown) => {
  const r = await dispatch(handlers, channel, input);
  answers.push(JSON.stringify(r));
  return r;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-settings-'));
  const config = join(dir, 'remote.json');
  writeFileSync(config, JSON.stringify({ listen: { host: '127.0.0.1', port: 0 }, database: { sqlite: join(dir, 'remote.sqlite') }, auth: { required: true }, log: { level: 'silent' } }));
  // The operator's way to make a key: the service's CLI, which prints it once.
  const out = execFileSync(join(root, 'node_modules/.bin/tsx'), [join(root, 'service/cli.ts'), '--config', config, 'keys', 'create', '--label', 'desk'], { encoding: 'utf8' });
  apiKey = out.trim().split('\n').at(-1)!.trim();
  expect(apiKey.length).toBeGreaterThan(20);
  const silent = pino({ level: 'silent' });
  remote = await createService(JSON.parse(readFileSync(config, 'utf8')) as object, { logger: silent });
  remoteUrl = await remote.listen();
  embedded = await createService({ listen: { host: '127.0.0.1', port: 0 }, database: { sqlite: join(dir, 'embedded.sqlite') }, auth: { required: false } }, { logger: silent });
  embeddedUrl = await embedded.listen();
  store = openStore(join(dir, 'desk.sqlite'));
  secrets = new MemorySecretStore();
  const connection = new ServiceConnection({ store, secrets, embeddedUrl, actor: 'treasurer', client });
  handlers = createHandlers({ store, connection, actor: 'treasurer' });
}, 120_000);

afterAll(async () => {
  store?.close();
  await remote?.close();
  await embedded?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('settings: the service connection', () => {
  it('starts embedded on 127.0.0.1 with no key, and says web mode forgets keys', async () => {
    const r = await call('settings.get', {});
    expect(r).toMatchObject({ ok: true, value: { mode: 'embedded', service_url: embeddedUrl, key_stored: false, remote_url: null, key_storage: { persistent: false, problem: null } } });
    expect(embeddedUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(JSON.stringify(r)).toMatch(/gone when the desk stops/);
  });

  it('refuses a URL that is not http or https, and a missing key', async () => {
    for (const base_url of ['ftp://example.com', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url']) {
      expect(await call('settings.setService', { mode: 'remote', base_url, api_key: 'k' })).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(/http:\/\/ or https:\/\//) } });
    }
    expect(await call('settings.setService', { mode: 'remote', base_url: remoteUrl, api_key: ' ' })).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(await call('settings.get', {})).toMatchObject({ value: { mode: 'embedded' } });
  });

  it('refuses a wrong key with a clear message and keeps the embedded connection', async () => {
    const r = await call('settings.setService', { mode: 'remote', base_url: remoteUrl, api_key: 'cs_wrong_key_0000000000' });
    expect(r).toMatchObject({ ok: false, error: { code: 'key_refused', message: expect.stringMatching(/^the key was refused by the service at http:\/\/127\.0\.0\.1:\d+ .*the connection was not changed$/) } });
    expect(await call('service.status', {})).toMatchObject({ ok: true, value: { mode: 'embedded', service_url: embeddedUrl, ok: true } });
    expect(store.setting('service.mode')).toBeNull();
  });

  it('refuses a service that does not answer', async () => {
    const r = await call('settings.setService', { mode: 'remote', base_url: 'http://127.0.0.1:9', api_key: apiKey });
    expect(r).toMatchObject({ ok: false, error: { code: 'service_unreachable', message: expect.stringMatching(/did not answer.*not changed/) } });
    expect(secrets.load()).toBeNull();
  });

  it('switches to the remote service with a good key and uses it from then on', async () => {
    const r = await call('settings.setService', { mode: 'remote', base_url: `${remoteUrl}/`, api_key: apiKey });
    expect(r).toMatchObject({ ok: true, value: { mode: 'remote', service_url: remoteUrl, remote_url: remoteUrl, key_stored: true } });
    sent.length = 0;
    expect(await call('service.status', {})).toMatchObject({ ok: true, value: { mode: 'remote', service_url: remoteUrl, ok: true } });
    expect(sent).toEqual([{ url: `${remoteUrl}/status`, keyed: true }]);
    expect(store.auditLog().at(-1)).toMatchObject({ action: 'service.connect', detail: `remote service ${remoteUrl}` });
  });

  it('keeps the working remote connection when a later key is refused', async () => {
    const r = await call('settings.setService', { mode: 'remote', base_url: remoteUrl, api_key: 'cs_another_wrong_key_1111' });
    expect(r).toMatchObject({ ok: false, error: { code: 'key_refused' } });
    expect(secrets.load()).toBe(apiKey);
    expect(await call('service.status', {})).toMatchObject({ value: { mode: 'remote', ok: true } });
  });

  it('restores the remote connection at the next start only while the key is still held', () => {
    const again = new ServiceConnection({ store, secrets, embeddedUrl, actor: 'treasurer', client });
    expect([again.mode, again.url, again.notice]).toEqual(['remote', remoteUrl, null]);
    const forgetful = new ServiceConnection({ store, secrets: new MemorySecretStore(), embeddedUrl, actor: 'treasurer', client });
    expect([forgetful.mode, forgetful.url]).toEqual(['embedded', embeddedUrl]);
    expect(forgetful.notice).toMatch(/web mode forgets it when the desk stops/);
  });

  it('switches back to embedded and forgets the key', async () => {
    expect(await call('settings.setService', { mode: 'embedded' })).toMatchObject({ ok: true, value: { mode: 'embedded', service_url: embeddedUrl, remote_url: remoteUrl, key_stored: false } });
    expect(secrets.load()).toBeNull();
    sent.length = 0;
    expect(await call('service.status', {})).toMatchObject({ value: { mode: 'embedded', ok: true } });
    expect(sent).toEqual([{ url: `${embeddedUrl}/status`, keyed: false }]);
  });

  it('never lets the key out: not in any bridge answer, the audit log or the desk database', () => {
    expect(answers.length).toBeGreaterThan(10);
    for (const a of answers) expect(a).not.toContain(apiKey);
    expect(JSON.stringify(store.auditLog())).not.toContain(apiKey);
    for (const f of readdirSync(dir).filter((n) => n.startsWith('desk.sqlite'))) expect(readFileSync(join(dir, f)).includes(apiKey)).toBe(false);
  });
});

describe("settings: how far ahead a vault's coins are flagged", () => {
  it('reads 30 days by default, keeps a whole number typed, refuses a hurried one in words at the field, and audits the change', async () => {
    expect(await call('settings.vaultWarning', {})).toEqual({ ok: true, value: { days: 30 } });
    expect(await call('settings.vaultWarning', { days: '120 days' })).toMatchObject({ ok: false, error: { message: 'type the days as a whole number, like 30; "120 days" is not one', field: 'days' } });
    expect(await call('settings.vaultWarning', { days: '0' })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^warn 1 to 455 days ahead/) } });
    expect(await call('settings.vaultWarning', { days: ' 120 ' })).toEqual({ ok: true, value: { days: 120 } });
    expect(await call('settings.vaultWarning', {})).toEqual({ ok: true, value: { days: 120 } });
    expect(store.auditLog().at(-1)).toMatchObject({ action: 'settings.vault_warning', detail: 'vault coins are flagged 120 days before their recovery path opens' });
    expect(await call('settings.vaultWarning', { days: '30' })).toEqual({ ok: true, value: { days: 30 } });
  });
});

describe('settings: the maximum fee per payment', () => {
  it('reads the default, saves a maximum in the coin or in USD, refuses a hurried one and a coin it does not know, and audits the change', async () => {
    const def = { coin: 'litecoin', unit: 'usd', amount: '100', ticker: 'LTC', is_default: true, words: "at most $100.00 in miners' fees per payment (the default; 0.1 LTC where the service has no USD rate)" };
    expect(await call('settings.maxFee', { coin: 'litecoin' })).toEqual({ ok: true, value: def });
    expect(await call('settings.maxFee', { coin: 'litecoin', unit: 'coin', amount: '0.001 LTC' })).toMatchObject({ ok: false, error: { code: 'bad_setting', field: 'max_fee' } });
    expect(await call('settings.maxFee', { coin: 'litecoin', unit: 'coin', amount: '-1' })).toMatchObject({ ok: false, error: { field: 'max_fee' } });
    expect(await call('settings.maxFee', { coin: 'dogecoin-classic', amount: '1' })).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(await call('settings.maxFee', { coin: 'litecoin', unit: 'coin', amount: ' 0.001 ' })).toMatchObject({ ok: true, value: { unit: 'coin', amount: '0.001', is_default: false, words: "at most 0.001 LTC in miners' fees per payment" } });
    expect(store.auditLog().at(-1)).toMatchObject({ action: 'settings.max_fee', detail: "the maximum miners' fee per litecoin payment is 0.001 LTC" });
    expect(await call('settings.maxFee', { coin: 'litecoin', unit: 'usd', amount: '25.5' })).toMatchObject({ ok: true, value: { unit: 'usd', amount: '25.5', words: "at most $25.50 in miners' fees per payment" } });
    expect(await call('settings.maxFee', { coin: 'litecoin', reset: true })).toEqual({ ok: true, value: def });
  });
});

describe('a secret store that cannot keep keys', () => {
  it('refuses before testing anything and keeps the connection', async () => {
    const refusing = { description: 'keychain', persistent: true, problem: () => safeStorageProblem(true, 'basic_text'), save: () => undefined, load: () => null, clear: () => undefined };
    const connection = new ServiceConnection({ store, secrets: refusing, embeddedUrl, actor: 'treasurer', client });
    const h = createHandlers({ store, connection, actor: 'treasurer' });
    const r = await dispatch(h, 'settings.setService', { mode: 'remote', base_url: remoteUrl, api_key: apiKey });
    expect(r).toMatchObject({ ok: false, error: { code: 'key_storage_refused', message: expect.stringMatching(/basic_text.*not changed/) } });
    expect(JSON.stringify(r)).not.toContain(apiKey);
    expect(connection.mode).toBe('embedded');
  });
});

describe('safeStorage policy', () => {
  it('refuses basic_text and missing encryption, accepts a real keyring', () => {
    expect(safeStorageProblem(true, 'basic_text')).toMatch(/no keyring.*basic_text.*will not store/);
    expect(safeStorageProblem(false, null)).toMatch(/no encrypted storage/);
    expect(safeStorageProblem(true, 'gnome_libsecret')).toBeNull();
    expect(safeStorageProblem(true, null)).toBeNull();
  });
});
