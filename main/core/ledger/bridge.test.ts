// The Ledger channels of the bridge, over the same dispatch() both transports use, with the
// handlers' injected connector replaying APDU exchanges: zod-checked inputs, results as the
// contract shapes them, device errors as { code, message } a treasurer reads.
import { afterEach, describe, expect, it } from 'vitest';
import { concatBytes, signDer } from '../../../shared/coins/index.ts';
import { deriveAddress } from '../../../shared/coins/multisig-address.ts';
import type { ApiClient } from '../../../shared/api/client.ts';
import { dispatch } from '../../bridge/dispatch.ts';
import { createHandlers } from '../../bridge/handlers.ts';
import { ServiceConnection } from '../chains/connection.ts';
import { MemorySecretStore } from '../secrets.ts';
import { HARDENED } from './paths.ts';
import { appAndVersion, extendedPubkey, masterFingerprint, registerWallet, replay, Session, signPsbt, u8, walletAddress } from '../../../dev/ledger-testing/apdu.ts';
import { hmacOf, policyOf, readsInput, signPsbtCommand } from '../../../dev/ledger-testing/bitcoin-expect.ts';
import { disposeLedgerFixtures, ledgerFixture, type LedgerFixture } from '../../../dev/ledger-testing/fixtures.ts';

afterEach(disposeLedgerFixtures);
import type { LedgerConnector } from './transport.ts';

const H = (n: number) => n + HARDENED;

function handlersFor(f: LedgerFixture, ledger?: LedgerConnector) {
  const connection = new ServiceConnection({
    store: f.store,
    secrets: new MemorySecretStore(),
    embeddedUrl: 'http://127.0.0.1:9',
    actor: 'treasurer',
    client: () => ({ rawTransaction: f.deps.api.rawTransaction }) as unknown as ApiClient,
  });
  return createHandlers({ store: f.store, connection, actor: 'treasurer', ...(ledger ? { ledger } : {}) });
}


describe('bridge: ledger.* channels', () => {
  it("reads a co-signer's xpub for the New wallet form", async () => {
    const f = ledgerFixture('bitcoin', 'testnet');
    const s = masterFingerprint(appAndVersion(new Session(), 'Bitcoin Test', '2.1.3'), f.cosigners[0]!.fingerprint);
    extendedPubkey(s, [H(45), H(0)], true, f.cosigners[0]!.xpub);
    const r = replay(s);
    const got = await dispatch(handlersFor(f, r.connector), 'ledger.xpub', { coin: 'bitcoin', network: 'testnet', path: "m/45'/0'" });
    expect(got).toEqual({ ok: true, value: { xpub: f.cosigners[0]!.xpub, fingerprint: f.cosigners[0]!.fingerprint, derivation_path: "m/45'/0'", app: 'Bitcoin Test 2.1.3' } });
    r.done();
  });

  it('validates inputs before any device is touched', async () => {
    const f = ledgerFixture('bitcoin', 'testnet');
    const r = replay(new Session());
    const h = handlersFor(f, r.connector);
    expect(await dispatch(h, 'ledger.xpub', { coin: 'bitcoin', network: 'testnet', path: "m/45'/x" })).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(/^path: /) } });
    expect(await dispatch(h, 'ledger.xpub', { coin: 'ethereum', network: 'mainnet' })).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(await dispatch(h, 'ledger.showAddress', { wallet_id: f.wallet.id, index: -1 })).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(/^index: /) } });
    expect(await dispatch(h, 'ledger.signPayment', {})).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(r.opened()).toBe(0);
  });

  it('registers, shows an address and signs a payment', async () => {
    const f = ledgerFixture('bitcoin', 'testnet');
    const p = policyOf(f);
    const s = masterFingerprint(appAndVersion(new Session(), 'Bitcoin Test', '2.1.3'), f.cosigners[0]!.fingerprint);
    registerWallet(s, p, hmacOf(p));
    masterFingerprint(appAndVersion(s, 'Bitcoin Test', '2.1.3'), f.cosigners[0]!.fingerprint);
    const address = deriveAddress(f.params, 2, f.cosigners.map((c) => c.xpub), false, 3).address;
    walletAddress(s, p, hmacOf(p), 0, 3, address);
    masterFingerprint(appAndVersion(s, 'Bitcoin Test', '2.1.3'), f.cosigners[0]!.fingerprint);
    const key = f.device.derivePath("m/45'/0'/0/0");
    signPsbt(s, signPsbtCommand(f, p), p, [{ input: 0, pubkey: key.publicKey, signature: concatBytes(signDer(f.hash, key.privateKey!), u8(1)) }], readsInput(f));
    const r = replay(s);
    const h = handlersFor(f, r.connector);
    expect(await dispatch(h, 'ledger.registerWallet', { wallet_id: f.wallet.id })).toMatchObject({ ok: true, value: { cosigner: 'alice' } });
    expect(await dispatch(h, 'ledger.showAddress', { wallet_id: f.wallet.id, index: 3 })).toEqual({ ok: true, value: { address, path: '0/3', cosigner: 'alice' } });
    expect(await dispatch(h, 'ledger.signPayment', { payment_id: f.paymentId })).toEqual({
      ok: true,
      value: { file: `Ledger ${f.cosigners[0]!.fingerprint}`, status: 'imported', refusal: null, message: expect.stringMatching(/1 signature by alice stored/), payment_id: f.paymentId, added: 1 },
    });
    r.done();
  });

  it('maps device errors to readable failures, and a build without USB', async () => {
    const f = ledgerFixture('litecoin', 'mainnet');
    const locked = replay(new Session().x('b001000000', '5515'));
    expect(await dispatch(handlersFor(f, locked.connector), 'ledger.signPayment', { payment_id: f.paymentId })).toEqual({
      ok: false,
      error: { code: 'ledger_locked', message: expect.stringMatching(/Ledger is locked while signing payment p-ledger.*PIN/) },
    });
    // No connector injected: the desk's USB connector, whose module this machine does not have.
    expect(await dispatch(handlersFor(f), 'ledger.devices', {})).toEqual({ ok: true, value: { devices: [], usb: false, message: expect.stringMatching(/^This desk was installed without Ledger USB support/) } });
    expect(await dispatch(handlersFor(f), 'ledger.xpub', { coin: 'litecoin', network: 'mainnet' })).toMatchObject({ ok: false, error: { code: 'ledger_usb_missing' } });
  });
});
