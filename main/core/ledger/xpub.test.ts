// Reading a co-signer's xpub from a Ledger, and every error a person can meet doing it, replayed at
// the transport level (APDU exchanges from the apps' documented formats).
import { describe, expect, it } from 'vitest';
import * as ecc from 'tiny-secp256k1';
import { chainParams } from '../../../shared/coins/index.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { apdu, appAndVersion, extendedPubkey, hex, u32be, u8, masterFingerprint, replay, Session, statusWord, walletPublicKey } from '../../../dev/ledger-testing/apdu.ts';
import { HARDENED } from './paths.ts';
import { usbConnector } from './transport.ts';
import { readLedgerXpub } from './xpub.ts';
import { BIP32Factory } from 'bip32';

const bip32 = BIP32Factory(ecc);
const H = (n: number) => n + HARDENED;

describe('reading an xpub', () => {
  it('Bitcoin app >= 2.1: master fingerprint, then the key at a non-standard path shown on the device', async () => {
    const params = chainParams('bitcoin', 'testnet');
    const alice = testCosigner('alice', params);
    const s = appAndVersion(new Session(), 'Bitcoin Test', '2.2.3');
    masterFingerprint(s, alice.fingerprint);
    // m/45'/0' is not a BIP44/48/49/84/86 path: the app must display it (display = 1).
    extendedPubkey(s, [H(45), H(0)], true, alice.xpub);
    const r = replay(s);
    const got = await readLedgerXpub(r.connector, 'bitcoin', 'testnet', "m/45'/0'");
    r.done();
    expect(got).toMatchObject({ xpub: alice.xpub, fingerprint: alice.fingerprint, path: "m/45'/0'", app: { name: 'Bitcoin Test', protocol: 'psbt' } });
  });

  it('legacy apps (Litecoin): GET WALLET PUBLIC KEY of m, the parent and the account, assembled into the BIP32 xpub', async () => {
    const params = chainParams('litecoin', 'mainnet');
    const alice = testCosigner('alice', params);
    const root = bip32.fromBase58(alice.masterXprv, { messagePrefix: '', bech32: '', bip32: { public: params.xpubVersions[0]!, private: params.xprvVersions[0]! }, pubKeyHash: 0x30, scriptHash: 0x32, wif: params.wifVersion });
    const full = (k: { publicKey: Uint8Array }) => ecc.pointCompress(k.publicKey, false);
    const s = appAndVersion(new Session(), 'Litecoin', '2.4.2');
    walletPublicKey(s, [], 0, full(root), 'LMasterAddressIsNotUsedByTheDesk', root.chainCode);
    const parent = root.derivePath("m/45'");
    walletPublicKey(s, [H(45)], 0, full(parent), 'LParentAddress', parent.chainCode);
    const account = root.derivePath("m/45'/0'");
    walletPublicKey(s, [H(45), H(0)], 0, full(account), 'LAccountAddress', account.chainCode);
    const r = replay(s);
    const got = await readLedgerXpub(r.connector, 'litecoin', 'mainnet', "m/45'/0'");
    r.done();
    expect(got.xpub).toBe(alice.xpub);
    expect(got.fingerprint).toBe(alice.fingerprint);
    expect(got.app.protocol).toBe('legacy');
  });
});

describe('errors a person understands', () => {
  const read = (s: Session, coin: 'bitcoin' | 'litecoin' = 'litecoin', options: { unplugAfter?: number } = {}) => {
    const r = replay(s, options);
    return readLedgerXpub(r.connector, coin, 'mainnet', "m/45'/2'/0'");
  };

  it.each([0x5515, 0x6982])('device locked (status %s)', async (sw) => {
    await expect(read(new Session().x('b001000000', statusWord(sw)))).rejects.toMatchObject({ code: 'ledger_locked', message: expect.stringMatching(/locked.*PIN/) });
  });

  it('wrong app open: says which is open and which is needed', async () => {
    await expect(read(appAndVersion(new Session(), 'Ethereum', '1.11.0'))).rejects.toMatchObject({
      code: 'ledger_wrong_app',
      message: expect.stringMatching(/the Ethereum app is open; open the Litecoin app/),
    });
    await expect(read(appAndVersion(new Session(), 'BOLOS', '2.1.0'))).rejects.toMatchObject({ message: expect.stringMatching(/no app is open.*open the Litecoin app/) });
  });

  it.each([0x6e00, 0x6d00, 0x6511])('wrong app by status word %s', async (sw) => {
    // GET WALLET PUBLIC KEY of m, answered by an app that has no such command.
    const s = appAndVersion(new Session(), 'Litecoin', '2.4.2').x(apdu(0xe0, 0x40, 0, 0, '00'), statusWord(sw));
    await expect(read(s)).rejects.toMatchObject({ code: 'ledger_wrong_app', message: expect.stringMatching(/Litecoin app is open.*does not know this command/) });
  });

  it('app too old', async () => {
    await expect(read(appAndVersion(new Session(), 'Litecoin', '1.1.9'))).rejects.toMatchObject({ code: 'ledger_app_too_old', message: expect.stringMatching(/version 1\.1\.9.*1\.3\.0 or later/) });
  });

  it('refused on the device', async () => {
    const s = appAndVersion(new Session(), 'Bitcoin', '2.1.0');
    masterFingerprint(s, 'f5acc2fd');
    // GET_EXTENDED_PUBKEY, display = 1 (m/45'/2'/0' is not a standard Bitcoin path): the person says no.
    s.x(apdu(0xe1, 0x00, 0, 1, hex(u8(1), u8(3), u32be(H(45)), u32be(H(2)), u32be(H(0)))), '6985');
    await expect(read(s, 'bitcoin')).rejects.toMatchObject({ code: 'ledger_refused', message: expect.stringMatching(/refused on the Ledger/) });
  });

  it('unplugged in the middle', async () => {
    const s = appAndVersion(new Session(), 'Litecoin', '2.4.2');
    await expect(read(s, 'litecoin', { unplugAfter: 1 })).rejects.toMatchObject({ code: 'ledger_unplugged', message: expect.stringMatching(/disconnected.*nothing was stored/) });
  });

  it('no device plugged in, and a build without USB support', async () => {
    const none = usbConnector(() => Promise.resolve({ default: { list: () => Promise.resolve([]), open: () => Promise.reject(new Error('unused')) } }));
    await expect(readLedgerXpub(none, 'litecoin', 'mainnet', "m/45'/2'/0'")).rejects.toMatchObject({ code: 'ledger_not_found', message: expect.stringMatching(/no Ledger found/) });
    const missing = usbConnector(() => Promise.reject(new Error("Cannot find package '@ledgerhq/hw-transport-node-hid'")));
    // Words, not Node's message: no module path of this machine reaches the screen.
    const refused = readLedgerXpub(missing, 'litecoin', 'mainnet', "m/45'/2'/0'");
    await expect(refused).rejects.toMatchObject({ code: 'ledger_usb_missing', message: expect.stringMatching(/^This desk was installed without Ledger USB support, so it cannot reach a Ledger\. .*sign with files/) });
    await expect(refused).rejects.toMatchObject({ message: expect.not.stringMatching(/Cannot find|imported from|node_modules|\.ts\b/) });
    // The real module is not installed on this machine: the default loader says so too, in the same words.
    await expect(usbConnector().list()).rejects.toMatchObject({ code: 'ledger_usb_missing', message: expect.stringMatching(/^This desk was installed without Ledger USB support/) });
  });
});
