// Chains connected from Settings: what is kept where (the choice in the desk's settings table, the
// node password only in the coin's secret store), the one path that merges them with the
// operator's embedded-service.json into the service's coins, and restarts that apply a change.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { embeddedCoins, memoryChainSecrets, removeChain, saveChain, serviceCoinConfig, storedChains, type ChainSecrets } from './settings.ts';
import type { ChainChoice } from './choice.ts';
import { EMBEDDED_CONFIG_FILE, startEmbeddedService } from './embedded-service.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';

let dir: string;
let store: CoordinatorStore;
let secrets: ChainSecrets;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-chains-'));
  store = openStore(join(dir, 'desk.sqlite'));
  secrets = memoryChainSecrets();
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const node: ChainChoice = { kind: 'node', network: 'mainnet', url: 'http://127.0.0.1:9332', auth: { kind: 'password', username: 'treasurer' } };
const cookieNode: ChainChoice = { kind: 'node', network: 'regtest', url: 'http://127.0.0.1:19443', auth: { kind: 'cookie', cookie_file: '/home/t/.litecoin/regtest/.cookie' } };
const electrum: ChainChoice = { kind: 'electrum', network: 'mainnet', host: 'electrum.example.org', port: 50002, tls: true, pinned_sha256: 'AB:'.repeat(31) + 'AB' };

describe('saving a chain', () => {
  it('keeps the choice in the settings table and the password only in the secret store', () => {
    saveChain(store, secrets, 'litecoin', node, 'correct horse battery');
    const raw = store.setting('chains.litecoin');
    expect(raw).not.toBeNull();
    expect(raw).not.toContain('correct horse');
    expect(JSON.parse(raw!)).toEqual(node);
    expect(secrets('litecoin').load()).toBe('correct horse battery');
    expect(storedChains(store, secrets)).toEqual({ chains: [{ coin: 'litecoin', choice: node, passwordStored: true }], problems: [] });
  });

  it('keeps a stored password when saved again without one, and drops it for a cookie or another backend', () => {
    saveChain(store, secrets, 'litecoin', node, 'pw1');
    saveChain(store, secrets, 'litecoin', node, null);
    expect(secrets('litecoin').load()).toBe('pw1');
    saveChain(store, secrets, 'litecoin', cookieNode, null);
    expect(secrets('litecoin').load()).toBeNull();
    saveChain(store, secrets, 'bitcoin', node, 'pw2');
    removeChain(store, secrets, 'bitcoin');
    expect(secrets('bitcoin').load()).toBeNull();
    expect(store.setting('chains.bitcoin')).toBeNull();
  });

  it('survives a restart of the desk (the same store file), and names a row it cannot read', () => {
    saveChain(store, secrets, 'dash', electrum, null);
    store.setSettings({ 'chains.bitcoin': '{not json', 'chains.zcash': JSON.stringify({ kind: 'node', url: 'ftp://x' }) });
    store.close();
    store = openStore(join(dir, 'desk.sqlite'));
    const { chains, problems } = storedChains(store, secrets);
    expect(chains).toEqual([{ coin: 'dash', choice: electrum, passwordStored: false }]);
    expect(problems).toEqual([expect.stringMatching(/^the saved bitcoin connection is not JSON; connect bitcoin again in Settings$/), expect.stringMatching(/^the saved zcash connection is refused/)]);
  });
});

describe('the one path to the service coins config', () => {
  it("builds each backend in the service's own format", () => {
    expect(serviceCoinConfig(node, 'pw')).toEqual({ network: 'mainnet', backend: { type: 'node-rpc', url: 'http://127.0.0.1:9332', username: 'treasurer', password: 'pw', index: 'watch' } });
    expect(serviceCoinConfig(cookieNode, null)).toEqual({ network: 'regtest', backend: { type: 'node-rpc', url: 'http://127.0.0.1:19443', cookieFile: '/home/t/.litecoin/regtest/.cookie', index: 'watch' } });
    expect(serviceCoinConfig(electrum, null)).toEqual({ network: 'mainnet', backend: { type: 'electrum', host: 'electrum.example.org', port: 50002, tls: true, verifyCertificate: true, certificateSha256: electrum.pinned_sha256 } });
    expect(serviceCoinConfig({ kind: 'blockbook', network: 'mainnet', url: 'https://ltc1.trezor.io' }, null)).toEqual({ network: 'mainnet', backend: { type: 'blockbook', url: 'https://ltc1.trezor.io' } });
  });

  it("merges the operator's file and Settings, Settings winning per coin, and says so", () => {
    saveChain(store, secrets, 'litecoin', node, 'pw');
    const file = { litecoin: { network: 'testnet' as const, backend: { type: 'blockbook' as const, url: 'https://x' } }, dash: { backend: { type: 'blockbook' as const, url: 'https://y' } } };
    const merged = embeddedCoins(file, storedChains(store, secrets), secrets);
    expect(merged.coins).toEqual({ dash: file.dash, litecoin: serviceCoinConfig(node, 'pw') });
    expect(Object.fromEntries(merged.sources)).toEqual({ dash: 'file', litecoin: 'settings' });
    expect(merged.notes).toEqual(['litecoin: the connection saved in Settings is used instead of the one in embedded-service.json']);
  });
});

describe('the embedded service', () => {
  const logger = pino({ level: 'silent' });

  it('starts with no file and nothing saved, serving no chain, and says to connect one in Settings', async () => {
    const host = await startEmbeddedService(dir, logger, { store, secrets });
    try {
      expect(host.service.backends.size).toBe(0);
      expect(host.notice).toMatch(/^no chain is connected: connect one in Settings \(operators may also describe chains in .*embedded-service\.json\)$/);
    } finally {
      await host.close();
    }
  });

  it('serves the file and Settings coins, and a restart applies a change on the same address', async () => {
    writeFileSync(join(dir, EMBEDDED_CONFIG_FILE), JSON.stringify({ coins: { dash: { network: 'regtest', backend: { type: 'node-rpc', url: 'http://127.0.0.1:1/', username: 'u', password: 'p' } } } }));
    saveChain(store, secrets, 'litecoin', cookieNode, null);
    const host = await startEmbeddedService(dir, logger, { store, secrets });
    try {
      expect([...host.service.backends.keys()].sort()).toEqual(['dash', 'litecoin']);
      expect(Object.fromEntries(host.sources)).toEqual({ dash: 'file', litecoin: 'settings' });
      // A node from Settings is watched; the operator's file keeps its default, the full index.
      expect(host.service.config.coins.litecoin?.backend).toMatchObject({ type: 'node-rpc', cookieFile: '/home/t/.litecoin/regtest/.cookie', index: 'watch' });
      expect(host.service.config.coins.dash?.backend).toMatchObject({ type: 'node-rpc', index: 'full' });
      const before = host.url;
      removeChain(store, secrets, 'litecoin');
      expect(await host.restart()).toBe(before);
      expect([...host.service.backends.keys()]).toEqual(['dash']);
      const res = await fetch(`${host.url}/status`);
      expect(res.status).toBe(200);
    } finally {
      await host.close();
    }
  });

  it("refuses a typo in the operator's file with its words, and still serves the chains of Settings", async () => {
    writeFileSync(
      join(dir, EMBEDDED_CONFIG_FILE),
      JSON.stringify({ coins: { dahs: { network: 'regtest', backend: { type: 'node-rpc', url: 'http://127.0.0.1:1/', cookieFile: '/x/.cookie' } }, bitcoin: { network: 'regtest', index: 'watch', backend: { type: 'node-rpc', url: 'http://127.0.0.1:1/', cookieFile: '/x/.cookie' } } } }),
    );
    saveChain(store, secrets, 'litecoin', cookieNode, null);
    const host = await startEmbeddedService(dir, logger, { store, secrets });
    try {
      expect([...host.service.backends.keys()]).toEqual(['litecoin']);
      expect(Object.fromEntries(host.sources)).toEqual({ litecoin: 'settings' });
      expect(host.notice).toBe(
        `${join(dir, EMBEDDED_CONFIG_FILE)} was refused (invalid configuration: coins.dahs: unknown coin; did you mean dash?; coins.bitcoin.index: unknown field; index is set in coins.bitcoin.backend.index), so the embedded service serves none of its chains`,
      );
    } finally {
      await host.close();
    }
  });

  it("refuses a file whose top level is not coins, naming the field", async () => {
    writeFileSync(join(dir, EMBEDDED_CONFIG_FILE), JSON.stringify({ '//': 'a comment', coin: { litecoin: {} }, listen: { port: 1 } }));
    const host = await startEmbeddedService(dir, logger, { store, secrets });
    try {
      expect(host.service.backends.size).toBe(0);
      expect(host.notice).toBe(
        `${join(dir, EMBEDDED_CONFIG_FILE)} is refused (coin: unknown field; did you mean coins?; listen: unknown field; the desk reads only "coins" from this file), so the embedded service serves none of its chains`,
      );
    } finally {
      await host.close();
    }
  });

  it('starts without chains when what is saved is refused by the service, and says why', async () => {
    writeFileSync(join(dir, EMBEDDED_CONFIG_FILE), JSON.stringify({ coins: { litecoin: { backend: { type: 'electrum', host: 'x', port: 99999 } } } }));
    const host = await startEmbeddedService(dir, logger, { store, secrets });
    try {
      expect(host.service.backends.size).toBe(0);
      expect(host.notice).toMatch(/^the chains of .*embedded-service\.json were refused \(invalid configuration: coins.litecoin.backend.port/);
    } finally {
      await host.close();
    }
  });
});
