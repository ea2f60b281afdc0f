// Each co-signer's device (issue 34, migration 15): set through the bridge's real handler on a real
// SQLite file, audited, kept across reopening the store, refused in words when it is not a device
// the desk knows (at the bridge, and by the table's own CHECK); and the QR dialog's preselection
// read from what is stored.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SIGNER_DEVICES } from '../../shared/api/signer-devices.ts';
import { preferredPsbtFormat } from '../../shared/qr/show.ts';
import { dispatch } from './dispatch.ts';
import { createHandlers } from './handlers.ts';
import { ServiceConnection } from '../core/chains/connection.ts';
import { chosenFormatWords, devicesToSign } from '../core/payments/qr-exchange.ts';
import { MemorySecretStore } from '../core/secrets.ts';
import { MIGRATIONS } from '../core/store/migrations.ts';
import { openStore, type CoordinatorStore } from '../core/store/store.ts';

const dirs: string[] = [];
const tempDb = () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-devices-'));
  dirs.push(dir);
  return join(dir, 'desk.sqlite');
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A 2-of-3 wallet (bob's device said at creation) and a payment of it nobody has signed. */
function seeded(path: string): CoordinatorStore {
  const store = openStore(path);
  store.insertWallet({ id: 'w1', coin: 'litecoin', network: 'regtest', name: 'Treasury', m: 2, createdAt: '2026-01-01T00:00:00Z' }, [
    { position: 0, name: 'alice', xpub: 'xa', fingerprint: '00000000', derivationPath: 'm' },
    { position: 1, name: 'bob', xpub: 'xb', fingerprint: '00000000', derivationPath: 'm', device: 'keystone' },
    { position: 2, name: 'carol', xpub: 'xc', fingerprint: '00000000', derivationPath: 'm' },
  ]);
  store.insertPayment({ id: 'p1', walletId: 'w1', to: 'addr', amount: 1n, minersFee: 1n, operatorFee: null, operatorAddress: null, unsignedTx: new Uint8Array([1]), totalInputValue: 2n, inputs: [], hashes: [] });
  return store;
}

/** The bridge's real handlers on `store`; the service is never reached by these channels. */
const bridgeOn = (store: CoordinatorStore) =>
  createHandlers({ store, actor: 'treasurer', connection: new ServiceConnection({ store, secrets: new MemorySecretStore(), embeddedUrl: 'http://127.0.0.1:9', actor: 'treasurer' }) });

describe("a co-signer's device", () => {
  it('migration 15 checks exactly the devices the desk knows', () => {
    const check = /device IN \(([^)]*)\)/.exec(MIGRATIONS[14] ?? '')?.[1];
    expect(check?.split(',').map((d) => d.trim().replace(/'/g, ''))).toEqual([...SIGNER_DEVICES]);
  });

  it('is set through the bridge, audited, and still there after the store is reopened', async () => {
    const path = tempDb();
    const store = seeded(path);
    const handlers = bridgeOn(store);
    expect(await dispatch(handlers, 'wallets.setCosignerDevice', { wallet_id: 'w1', position: 2, device: 'coldcard' })).toEqual({
      ok: true,
      value: { name: 'carol', xpub: 'xc', fingerprint: '00000000', derivation_path: 'm', device: 'coldcard' },
    });
    expect(store.auditLog().at(-1)).toMatchObject({ action: 'cosigner.device', detail: "carol's signer: not said -> Coldcard", actor: 'treasurer' });
    // Forgotten again, then said again: null is "not said".
    expect(await dispatch(handlers, 'wallets.setCosignerDevice', { wallet_id: 'w1', position: 1, device: null })).toMatchObject({ ok: true, value: { name: 'bob', device: null } });
    expect(await dispatch(handlers, 'wallets.setCosignerDevice', { wallet_id: 'w1', position: 1, device: 'coldcard' })).toMatchObject({ ok: true, value: { device: 'coldcard' } });
    store.close();

    const again = openStore(path);
    expect(again.cosigners('w1').map((c) => [c.name, c.device])).toEqual([
      ['alice', null],
      ['bob', 'coldcard'],
      ['carol', 'coldcard'],
    ]);
    const view = await dispatch(bridgeOn(again), 'wallets.list', {});
    expect(view.ok && (view.value as { cosigners: { device: string | null }[] }[])[0]!.cosigners.map((c) => c.device)).toEqual([null, 'coldcard', 'coldcard']);
    again.close();
  });

  it('a device the desk does not know is refused in words, at the bridge and by the table', async () => {
    const store = seeded(tempDb());
    const handlers = bridgeOn(store);
    const bad = await dispatch(handlers, 'wallets.setCosignerDevice', { wallet_id: 'w1', position: 0, device: 'trezor' });
    expect(bad).toEqual({ ok: false, error: { code: 'bad_input', field: 'device', message: "device: the signer's device is one of Coldcard, Keystone, Passport, Jade, SeedSigner, Krux, another QR signer" } });
    const created = await dispatch(handlers, 'wallets.create', { name: 'x', coin: 'litecoin', network: 'regtest', m: 1, cosigners: [{ name: 'a', xpub: 'x', device: 'ledger' }] });
    expect(created).toMatchObject({ ok: false, error: { code: 'bad_input', field: 'cosigners.0.device', message: expect.stringMatching(/the signer's device is one of Coldcard/) } });
    expect(await dispatch(handlers, 'wallets.setCosignerDevice', { wallet_id: 'w1', position: 5, device: 'jade' })).toEqual({
      ok: false,
      error: { code: 'unknown_cosigner', field: 'position', message: 'wallet "Treasury" has 3 co-signers: there is no co-signer 6' },
    });
    // Nothing was stored by the refusals; the table itself refuses a device it does not know.
    expect(store.cosigners('w1').map((c) => c.device)).toEqual([null, 'keystone', null]);
    const raw = (store as unknown as { db: { exec(sql: string): void } }).db;
    expect(() => raw.exec("UPDATE cosigners SET device = 'trezor'")).toThrow(/CHECK constraint failed/);
    store.close();
  });

  it("preselects the PSBT's code from the stored devices of the co-signers still to sign", async () => {
    const store = seeded(tempDb());
    const handlers = bridgeOn(store);
    // Bob's Keystone, the others not said: UR.
    expect(devicesToSign({ store }, 'p1')).toEqual([
      { name: 'alice', device: null },
      { name: 'bob', device: 'keystone' },
      { name: 'carol', device: null },
    ]);
    expect(chosenFormatWords(devicesToSign({ store }, 'p1'), 'ur')).toBe('UR: not every co-signer still to sign is said to use a Coldcard (alice: not said, bob: Keystone, carol: not said)');
    // Carol's Coldcard, bob's forgotten: alice's device is not said, and may not read BBQr: still UR.
    await dispatch(handlers, 'wallets.setCosignerDevice', { wallet_id: 'w1', position: 2, device: 'coldcard' });
    await dispatch(handlers, 'wallets.setCosignerDevice', { wallet_id: 'w1', position: 1, device: null });
    expect(preferredPsbtFormat(devicesToSign({ store }, 'p1').map((s) => s.device))).toBe('ur');
    // Every one a Coldcard: BBQr.
    for (const position of [0, 1]) await dispatch(handlers, 'wallets.setCosignerDevice', { wallet_id: 'w1', position, device: 'coldcard' });
    const signers = devicesToSign({ store }, 'p1');
    expect(preferredPsbtFormat(signers.map((s) => s.device))).toBe('bbqr');
    expect(chosenFormatWords(signers, 'bbqr')).toBe('BBQr: every co-signer still to sign uses a Coldcard (alice: Coldcard, bob: Coldcard, carol: Coldcard)');
    for (const position of [0, 1, 2]) await dispatch(handlers, 'wallets.setCosignerDevice', { wallet_id: 'w1', position, device: null });
    expect(chosenFormatWords(devicesToSign({ store }, 'p1'), 'ur')).toMatch(/^UR: no device is set/);
    store.close();
  });
});
