// Settings > Chains over the bridge, with a real litecoind -regtest and the desk's own embedded
// service (dev/bare-desk.ts): a node's password is tested, kept in the secret store, never sent
// back or logged in the audit; saving restarts the service, which then serves the chain; a desk
// talking to another service says its chains are set there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBareDesk, type BareDesk } from '../../dev/bare-desk.ts';
import { ServiceConnection } from '../core/chains/connection.ts';
import { MemorySecretStore } from '../core/secrets.ts';
import { testCosigner } from '../../dev/desk-testing/keys.ts';
import { dispatch } from './dispatch.ts';
import { createHandlers } from './handlers.ts';

let desk: BareDesk;
const answers: string[] = [];
const call = async (channel: string, input: unknown) => {
  const handlers = createHandlers({ store: desk.store, connection: desk.connection, actor: 'treasurer', chains: { secrets: desk.chainSecrets, host: desk.host } });
  const r = await dispatch(handlers, channel, input);
  answers.push(JSON.stringify(r));
  return r;
};
const chainSecrets = (coin: 'litecoin') => desk.chainSecrets(coin);

beforeAll(async () => {
  desk = await startBareDesk({ rendererDir: '/nonexistent', prepare: async (node) => void (await node.mine(3)) });
}, 120_000);

afterAll(async () => {
  await desk?.dispose();
});

const nodeChoice = (extra: Record<string, unknown> = {}) => ({
  coin: 'litecoin',
  choice: { kind: 'node', network: 'regtest', url: desk.node.rpcConfig.url, auth: { kind: 'password', username: desk.node.rpcConfig.username } },
  ...extra,
});

describe('chains over the bridge', () => {
  it('asks for the password at its field when none is typed or stored', async () => {
    expect(await call('chains.test', nodeChoice())).toMatchObject({ ok: false, error: { field: 'password', message: expect.stringMatching(/type the node's RPC password/) } });
  });

  it('saves a node that answers, keeps the password to itself, and the restarted service serves the chain', async () => {
    const password = desk.node.rpcConfig.password!;
    const saved = await call('chains.save', nodeChoice({ password }));
    expect(saved).toMatchObject({ ok: true, value: { embedded: true } });
    const litecoin = (saved as { value: { chains: { coin: string; source: string | null; password_stored: boolean }[] } }).value.chains.find((c) => c.coin === 'litecoin');
    expect(litecoin).toMatchObject({ source: 'settings', password_stored: true });
    expect(chainSecrets('litecoin').load()).toBe(password);
    // The one path gave the service the stored password.
    expect(desk.host.service.config.coins.litecoin?.backend).toMatchObject({ type: 'node-rpc', username: desk.node.rpcConfig.username, password });
    // and logs in with it: the node's tip reaches the status.
    const tipOf = async () => ((await (await fetch(`${desk.host.url}/status`)).json()) as { coins: { tip_height: number | null }[] }).coins[0]?.tip_height;
    await expect.poll(tipOf, { timeout: 30_000 }).toBe(3);
    // Tested again later without typing it: the stored one is used.
    expect(await call('chains.test', nodeChoice())).toMatchObject({ ok: true, value: { chain: 'regtest', height: 3 } });
    // The desk follows the restarted service.
    expect(desk.connection.url).toBe(desk.host.url);
    // A node from Settings is watched: a new wallet is registered from the tip, and saving again
    // (another restart) registers nothing again, since the service still knows it.
    expect(desk.host.service.config.coins.litecoin?.backend).toMatchObject({ index: 'watch' });
    const cosigners = ['ca', 'cb', 'cc'].map((n) => testCosigner(n)).map((c) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint, derivation_path: c.derivationPath }));
    expect(await call('wallets.create', { coin: 'litecoin', network: 'regtest', name: 'Vault', m: 2, cosigners, script_type: 'p2wsh', sort_keys: true })).toMatchObject({ ok: true });
    const vault = desk.store.wallets()[0]!;
    expect(await desk.connection.api.watchStatus('litecoin', vault.id)).toMatchObject({ birthday_height: 3 });
    expect(await call('chains.save', nodeChoice())).toMatchObject({ ok: true });
    expect(await desk.connection.api.watchStatus('litecoin', vault.id)).toMatchObject({ birthday_height: 3 });
    expect(desk.store.auditLog().filter((e) => e.action === 'wallet.watch_registered')).toEqual([]);
    for (const a of answers) expect(a).not.toContain(password);
    for (const e of desk.store.auditLog()) expect(e.detail).not.toContain(password);
    expect(desk.store.setting('chains.litecoin')).not.toContain(password);
  });

  it('refuses a wrong password at its field, and keeps the saved connection', async () => {
    const r = await call('chains.save', nodeChoice({ password: 'not-the-password' }));
    expect(r).toMatchObject({ ok: false, error: { code: 'chain_refused', field: 'password' } });
    expect(chainSecrets('litecoin').load()).toBe(desk.node.rpcConfig.password);
    expect(JSON.stringify(r)).not.toContain('not-the-password');
  });

  it('refuses what is not a chain choice at the field, before asking anything', async () => {
    const r = await call('chains.test', { coin: 'litecoin', choice: { kind: 'electrum', network: 'mainnet', host: 'https://electrum.example', port: 70000, tls: true, pinned_sha256: null } });
    expect(r).toMatchObject({ ok: false, error: { code: 'bad_input', field: expect.stringMatching(/^choice\.(host|port)$/) } });
  });

  it('disconnects, and a desk on another service says its chains are set there', async () => {
    expect(await call('chains.remove', { coin: 'litecoin' })).toMatchObject({ ok: true });
    expect(chainSecrets('litecoin').load()).toBeNull();
    expect(desk.host.service.backends.size).toBe(0);
    const elsewhere = createHandlers({ store: desk.store, connection: new ServiceConnection({ store: desk.store, secrets: new MemorySecretStore(), embeddedUrl: desk.host.url, actor: 'treasurer' }), actor: 'treasurer' });
    // Issue 32: the words agree with each other. Settings says the service was not started by this
    // desk, the Chains page says why nothing is connected here and what to do, and Test connection
    // refuses in the same words.
    const why = `this desk started no service of its own: it talks to the service at ${desk.host.url}, which was started without it, so that service's chains are set in its own configuration and none can be connected or tested here. To connect a node of your own, start the desk with its own service (the app always does; npm run demo does), or set the node in that service's configuration`;
    expect(await dispatch(elsewhere, 'settings.get', {})).toMatchObject({ ok: true, value: { mode: 'embedded', embedded_started_here: false } });
    expect(await dispatch(elsewhere, 'chains.list', {})).toMatchObject({ ok: true, value: { embedded: false, not_here: why, service_url: desk.host.url } });
    for (const channel of ['chains.test', 'chains.save']) {
      expect(await dispatch(elsewhere, channel, nodeChoice({ password: 'x' }))).toMatchObject({ ok: false, error: { code: 'unsupported', message: why } });
    }
    // The desk that started its service says so.
    expect(await call('settings.get', {})).toMatchObject({ ok: true, value: { embedded_started_here: true } });
    expect(await call('chains.list', {})).toMatchObject({ ok: true, value: { embedded: true, not_here: null } });
  });
});
