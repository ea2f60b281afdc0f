// The Bitcoin app >= 2.1 as a co-signer, replayed at the transport level: the wallet policy
// registered once with its HMAC stored, an address shown on the device and compared with ours, and
// a payment signed as a PSBTv2 whose signatures go through the signature-file verifier.
import { afterEach, describe, expect, it } from 'vitest';
import { bytesToHex, concatBytes, signDer } from '../../../shared/coins/index.ts';
import { deriveAddress } from '../../../shared/coins/multisig-address.ts';
import { progress } from '../payments/payments.ts';
import { registerWalletOnLedger, showAddressOnLedger, signPaymentOnLedger } from './ledger-flows.ts';
import {
  appAndVersion,
  ascii,
  masterFingerprint,
  policyId,
  registerWallet,
  replay,
  Session,
  sha256,
  signPsbt,
  u8,
  walletAddress,
} from '../../../dev/ledger-testing/apdu.ts';
import { hmacOf, policyOf, readsInput, signPsbtCommand } from '../../../dev/ledger-testing/bitcoin-expect.ts';
import { disposeLedgerFixtures, ledgerFixture, type LedgerFixture } from '../../../dev/ledger-testing/fixtures.ts';

afterEach(disposeLedgerFixtures);


function registered(f: LedgerFixture, s: Session = new Session()): Session {
  appAndVersion(s, 'Bitcoin Test', '2.1.3');
  masterFingerprint(s, f.cosigners[0]!.fingerprint);
  return registerWallet(s, policyOf(f), hmacOf(policyOf(f)));
}

const deviceKey = (f: LedgerFixture) => f.device.derivePath("m/45'/0'/0/0");

describe('Bitcoin app >= 2.1: wallet registration', () => {
  it('registers sh(multi(2,@0/**,@1/**,@2/**)) with the keys in wallet order and stores the HMAC', async () => {
    const f = ledgerFixture('bitcoin', 'testnet');
    const r = replay(registered(f));
    const got = await registerWalletOnLedger(f.deps, r.connector, f.wallet.id);
    r.done();
    expect(got).toMatchObject({ position: 0, cosigner: 'alice', policy_id: bytesToHex(policyId(policyOf(f))) });
    const [row] = f.store.ledger.list(f.wallet.id);
    expect(row).toMatchObject({ position: 0, policyName: 'Treasury', descriptorTemplate: 'sh(multi(2,@0/**,@1/**,@2/**))', keyInfos: policyOf(f).keys });
    expect(bytesToHex(row!.hmac)).toBe(bytesToHex(hmacOf(policyOf(f))));
    expect(f.store.auditLog().at(-1)).toMatchObject({ action: 'ledger.register', source: `Ledger ${f.cosigners[0]!.fingerprint}` });
  });

  it('refused on the device: nothing stored', async () => {
    const f = ledgerFixture('bitcoin', 'testnet');
    const s = registered(f);
    s.pairs[2]![1] = '6985';
    s.pairs.splice(3);
    const r = replay(s);
    await expect(registerWalletOnLedger(f.deps, r.connector, f.wallet.id)).rejects.toMatchObject({ code: 'ledger_refused' });
    r.done();
    expect(f.store.ledger.list(f.wallet.id)).toEqual([]);
  });

  it("refuses a device that holds none of the wallet's keys, and a Bitcoin app older than 2.1", async () => {
    const f = ledgerFixture('bitcoin', 'testnet');
    const other = masterFingerprint(appAndVersion(new Session(), 'Bitcoin Test', '2.1.3'), 'deadbeef');
    await expect(registerWalletOnLedger(f.deps, replay(other).connector, f.wallet.id)).rejects.toMatchObject({ code: 'ledger_wrong_key', message: expect.stringMatching(/deadbeef.*none of the keys/) });
    const old = appAndVersion(new Session(), 'Bitcoin Test', '2.0.6');
    await expect(registerWalletOnLedger(f.deps, replay(old).connector, f.wallet.id)).rejects.toMatchObject({ code: 'ledger_app_too_old', message: expect.stringMatching(/2\.0\.6.*2\.1\.0 or later/) });
  });
});

describe('Bitcoin app >= 2.1: address on the device', () => {
  it('shows the change address 1/0 and it matches ours', async () => {
    const f = ledgerFixture('bitcoin', 'testnet');
    const ours = deriveAddress(f.params, 2, f.cosigners.map((c) => c.xpub), true, 0).address;
    const s = registered(f);
    appAndVersion(s, 'Bitcoin Test', '2.1.3');
    masterFingerprint(s, f.cosigners[0]!.fingerprint);
    walletAddress(s, policyOf(f), hmacOf(policyOf(f)), 1, 0, ours);
    const r = replay(s);
    await registerWalletOnLedger(f.deps, r.connector, f.wallet.id);
    expect(await showAddressOnLedger(f.deps, r.connector, f.wallet.id, true, 0)).toEqual({ address: ours, path: '1/0', cosigner: 'alice' });
    r.done();
  });

  it('refuses loudly when the device derives another address', async () => {
    const f = ledgerFixture('bitcoin', 'testnet');
    const s = registered(f);
    appAndVersion(s, 'Bitcoin Test', '2.1.3');
    masterFingerprint(s, f.cosigners[0]!.fingerprint);
    walletAddress(s, policyOf(f), hmacOf(policyOf(f)), 0, 0, '2N1LGaGg836mqSQqiuUBLfcyGBhyZbremDX');
    const r = replay(s);
    await registerWalletOnLedger(f.deps, r.connector, f.wallet.id);
    await expect(showAddressOnLedger(f.deps, r.connector, f.wallet.id, false, 0)).rejects.toMatchObject({ code: 'address_mismatch', message: expect.stringMatching(/do not use this address/) });
  });

  it('asks for a registration before showing an address', async () => {
    const f = ledgerFixture('bitcoin', 'testnet');
    const s = masterFingerprint(appAndVersion(new Session(), 'Bitcoin Test', '2.1.3'), f.cosigners[0]!.fingerprint);
    await expect(showAddressOnLedger(f.deps, replay(s).connector, f.wallet.id, false, 0)).rejects.toMatchObject({ code: 'ledger_not_registered', message: expect.stringMatching(/register it \(once\)/) });
  });
});

describe('Bitcoin app >= 2.1: signing a payment as a PSBT', () => {
  function signing(f: LedgerFixture, signature: Uint8Array, options: { unplugAfter?: number } = {}) {
    const s = registered(f);
    appAndVersion(s, 'Bitcoin Test', '2.1.3');
    masterFingerprint(s, f.cosigners[0]!.fingerprint);
    signPsbt(s, signPsbtCommand(f, policyOf(f)), policyOf(f), [{ input: 0, pubkey: deviceKey(f).publicKey, signature: concatBytes(signature, u8(0x01)) }], readsInput(f));
    return replay(s, options);
  }

  it('stores the verified signature: 1 of 2, from the Ledger', async () => {
    const f = ledgerFixture('bitcoin', 'testnet');
    const r = signing(f, signDer(f.hash, deviceKey(f).privateKey!));
    await registerWalletOnLedger(f.deps, r.connector, f.wallet.id);
    const result = await signPaymentOnLedger(f.deps, r.connector, f.paymentId);
    r.done();
    expect(result).toMatchObject({ status: 'imported', added: 1, message: expect.stringMatching(/1 signature by alice stored/) });
    expect(f.asked).toEqual([f.prevTxid]);
    expect(progress(f.deps, f.paymentId).inputs).toEqual([{ inputIndex: 0, required: 2, signed: 1, signers: ['alice'] }]);
    expect(f.store.signatures(f.paymentId)[0]!.source).toBe(`Ledger ${f.cosigners[0]!.fingerprint}`);
  });

  it('registers the wallet first when this device has not, then signs, in one session', async () => {
    const f = ledgerFixture('bitcoin', 'testnet');
    const s = masterFingerprint(appAndVersion(new Session(), 'Bitcoin Test', '2.1.3'), f.cosigners[0]!.fingerprint);
    registerWallet(s, policyOf(f), hmacOf(policyOf(f)));
    signPsbt(s, signPsbtCommand(f, policyOf(f)), policyOf(f), [{ input: 0, pubkey: deviceKey(f).publicKey, signature: concatBytes(signDer(f.hash, deviceKey(f).privateKey!), u8(0x01)) }], readsInput(f));
    const r = replay(s);
    expect(await signPaymentOnLedger(f.deps, r.connector, f.paymentId)).toMatchObject({ status: 'imported', added: 1 });
    r.done();
    expect(r.opened()).toBe(1);
    expect(f.store.ledger.list(f.wallet.id)).toHaveLength(1);
  });

  it('a device that no longer accepts the stored HMAC (reset, other seed) asks to register again', async () => {
    const f = ledgerFixture('bitcoin', 'testnet');
    await registerWalletOnLedger(f.deps, replay(registered(f)).connector, f.wallet.id);
    const s = masterFingerprint(appAndVersion(new Session(), 'Bitcoin Test', '2.1.3'), f.cosigners[0]!.fingerprint);
    signPsbt(s, signPsbtCommand(f, policyOf(f)), policyOf(f), []);
    // SW_SIGNATURE_FAIL (0xB008) to SIGN_PSBT itself: the HMAC does not check.
    s.pairs.splice(3);
    s.pairs[2] = [s.pairs[2]![0], 'b008'];
    expect(s.pairs[2]![0].startsWith('e104')).toBe(true);
    await expect(signPaymentOnLedger(f.deps, replay(s).connector, f.paymentId)).rejects.toMatchObject({ code: 'ledger_not_registered', message: expect.stringMatching(/register the wallet on this device again/) });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it('refuses a signature that does not verify against our hash: nothing stored', async () => {
    const f = ledgerFixture('bitcoin', 'testnet');
    const wrong = signDer(sha256(ascii('another transaction')), deviceKey(f).privateKey!);
    const r = signing(f, wrong);
    await registerWalletOnLedger(f.deps, r.connector, f.wallet.id);
    const result = await signPaymentOnLedger(f.deps, r.connector, f.paymentId);
    expect(result).toMatchObject({ status: 'refused', refusal: 'tampered', message: expect.stringMatching(/does not verify.*nothing from this device was stored/) });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it('unplugged mid-signing: nothing stored', async () => {
    const f = ledgerFixture('bitcoin', 'testnet');
    await registerWalletOnLedger(f.deps, replay(registered(f)).connector, f.wallet.id);
    const s = masterFingerprint(appAndVersion(new Session(), 'Bitcoin Test', '2.1.3'), f.cosigners[0]!.fingerprint);
    signPsbt(s, signPsbtCommand(f, policyOf(f)), policyOf(f), [{ input: 0, pubkey: deviceKey(f).publicKey, signature: concatBytes(signDer(f.hash, deviceKey(f).privateKey!), u8(1)) }], readsInput(f));
    // App, fingerprint, SIGN_PSBT and the first policy read go through; then the cable is pulled.
    const r = replay(s, { unplugAfter: 4 });
    await expect(signPaymentOnLedger(f.deps, r.connector, f.paymentId)).rejects.toMatchObject({ code: 'ledger_unplugged', message: expect.stringMatching(/while signing payment p-ledger.*nothing was stored/) });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it("refuses a previous transaction from the service that does not hash to its txid, before using the device", async () => {
    const f = ledgerFixture('bitcoin', 'testnet', { tamperPrevTx: true });
    const r = replay(new Session());
    await expect(signPaymentOnLedger(f.deps, r.connector, f.paymentId)).rejects.toMatchObject({ code: 'bad_previous_tx', message: expect.stringMatching(/^cannot sign on the Ledger: the service answered previous transaction [0-9a-f]{64} with another transaction \(it hashes to [0-9a-f]{64}\)/) });
    expect(r.opened()).toBe(0);
  });
});
