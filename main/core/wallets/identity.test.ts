// A wallet is its addresses: keys, threshold and script the same as a stored wallet's make the
// same wallet, refused by name before the service is asked anything. Pure: SQLite and no service.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chainParams } from '../../../shared/coins/index.ts';
import type { CoordinatorApi } from '../api.ts';
import { CoordinatorError } from '../errors.ts';
import { openStore, type CoordinatorStore, type NewWalletRow } from '../store/store.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { walletIdentity } from './identity.ts';
import { readNewWalletSetup } from './setup-files.ts';
import { createWallet, type CoreDeps } from './wallets.ts';

const regtest = chainParams('litecoin', 'regtest');
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
const xpubs = [alice.xpub, bob.xpub, carol.xpub];
// A refusal must come before any question to the service: this one answers nothing.
const noService = new Proxy({}, { get: (_t, name) => () => Promise.reject(new Error(`the service was asked ${String(name)}`)) }) as CoordinatorApi;

let dir: string;
let store: CoordinatorStore;
let deps: CoreDeps;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-identity-'));
  store = openStore(join(dir, 'desk.sqlite'));
  deps = { store, api: noService, actor: 'test' };
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function storeWallet(name: string, coin: 'litecoin' | 'bitcoin', network: 'regtest' | 'mainnet', m: number, keys: readonly string[], script: Partial<Pick<NewWalletRow, 'scriptType' | 'sortKeys'>> = {}): string {
  const id = `w-${name}`;
  store.insertWallet(
    { id, coin, network, name, m, createdAt: new Date(0).toISOString(), ...script },
    keys.map((xpub, position) => ({ position, name: `key ${position}`, xpub, fingerprint: '00000000', derivationPath: 'm' })),
  );
  return id;
}

describe('the identity of a wallet', () => {
  it('is its coin, network, script, threshold and keys in script order', () => {
    const id = walletIdentity({ params: regtest, m: 2, xpubs });
    expect(walletIdentity({ params: regtest, m: 2, xpubs: xpubs.map((x) => ` ${x} `) })).toBe(id);
    expect(walletIdentity({ params: regtest, m: 3, xpubs })).not.toBe(id);
    // Keys go into the script in co-signer order: another order is another wallet.
    expect(walletIdentity({ params: regtest, m: 2, xpubs: [bob.xpub, alice.xpub, carol.xpub] })).not.toBe(id);
    expect(walletIdentity({ params: chainParams('litecoin', 'testnet'), m: 2, xpubs })).not.toBe(id);
  });
});

describe('script type and key order', () => {
  it('another script type is another wallet; with sorted keys the co-signers\' order does not matter', () => {
    const legacy = walletIdentity({ params: regtest, m: 2, xpubs });
    expect(walletIdentity({ params: regtest, m: 2, xpubs, scriptType: 'p2sh', sortKeys: false })).toBe(legacy);
    const native = walletIdentity({ params: regtest, m: 2, xpubs, scriptType: 'p2wsh', sortKeys: true });
    expect(native).not.toBe(legacy);
    expect(walletIdentity({ params: regtest, m: 2, xpubs, scriptType: 'p2sh-p2wsh', sortKeys: true })).not.toBe(native);
    expect(walletIdentity({ params: regtest, m: 2, xpubs: [carol.xpub, alice.xpub, bob.xpub], scriptType: 'p2wsh', sortKeys: true })).toBe(native);
  });

  it('a stored wallet is read back as P2SH with keys as given when made without a choice (migration 6)', () => {
    const id = storeWallet('Old', 'litecoin', 'regtest', 2, xpubs);
    expect(store.wallet(id)).toMatchObject({ scriptType: 'p2sh', sortKeys: false });
  });

  it('a sorted segwit wallet of the same keys in another order is refused as the same wallet', async () => {
    store.insertWallet({ id: 'w-native', coin: 'litecoin', network: 'regtest', name: 'Native', m: 2, createdAt: new Date(0).toISOString(), scriptType: 'p2wsh', sortKeys: true }, xpubs.map((xpub, position) => ({ position, name: `key ${position}`, xpub, fingerprint: '00000000', derivationPath: 'm' })));
    const attempt = createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Copy', m: 2, cosigners: [carol, bob, alice], scriptType: 'p2wsh', sortKeys: true });
    await expect(attempt).rejects.toThrow(/already make the wallet "Native"/);
  });
});

describe('a second wallet from the same keys is refused', () => {
  it('names the existing wallet and links to it, whatever the new name, fingerprints and paths', async () => {
    const existing = storeWallet('Operating treasury', 'litecoin', 'regtest', 2, xpubs);
    const attempt = createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Copy', m: 2, cosigners: [alice, bob, carol] });
    await expect(attempt).rejects.toThrow(
      'These co-signers\' keys, threshold (2-of-3) and script already make the wallet "Operating treasury": a second wallet would share its coins, so the treasury would count them twice. Open "Operating treasury" instead.',
    );
    await attempt.catch((err: unknown) => {
      expect(err).toBeInstanceOf(CoordinatorError);
      expect(err).toMatchObject({ code: 'duplicate_wallet', subject: { walletId: existing } });
    });
    expect(store.wallets()).toHaveLength(1);
  });

  it('lets another threshold or key order through to the service', async () => {
    storeWallet('Operating treasury', 'litecoin', 'regtest', 2, xpubs);
    await expect(createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Stricter', m: 3, cosigners: [alice, bob, carol] })).rejects.toThrow(/the service was asked/);
    await expect(createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Reordered', m: 2, cosigners: [bob, alice, carol] })).rejects.toThrow(/the service was asked/);
  });

  it('refuses a set-up file (Caravan) that describes a stored wallet', () => {
    const caravan = readFileSync(join(import.meta.dirname, '../../../shared/files/fixtures/caravan-2of3.json'), 'utf8');
    const choice = { coin: 'bitcoin', network: 'mainnet' } as const;
    const read = readNewWalletSetup(deps, [{ name: 'caravan-2of3.json', text: caravan }], choice);
    // A Caravan file's wallet has sorted keys (Caravan always sorts): the stored wallet is that one.
    expect(read.wallet).toMatchObject({ scriptType: 'p2sh', sortKeys: true });
    const existing = storeWallet('Board treasury (imported)', 'bitcoin', 'mainnet', read.wallet.m, read.wallet.cosigners.map((c) => c.xpub), { scriptType: 'p2sh', sortKeys: true });
    expect(() => readNewWalletSetup(deps, [{ name: 'caravan-2of3.json', text: caravan }], choice)).toThrow(/already make the wallet "Board treasury \(imported\)"/);
    try {
      readNewWalletSetup(deps, [{ name: 'caravan-2of3.json', text: caravan }], choice);
    } catch (err) {
      expect(err).toMatchObject({ code: 'duplicate_wallet', subject: { walletId: existing } });
    }
  });
});
