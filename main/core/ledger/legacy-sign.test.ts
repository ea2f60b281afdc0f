// A legacy-protocol app (Litecoin) signing a P2SH multisig input, replayed at the transport level
// from btc.asc's command formats: GET TRUSTED INPUT over the previous transaction the service gave,
// HASH INPUT START, HASH INPUT FINALIZE FULL, HASH SIGN. The device's signature is made with the
// test key, so the desk's own verification really checks it.
import * as ecc from 'tiny-secp256k1';
import { afterEach, describe, expect, it } from 'vitest';
import { chainParams, concatBytes, hexToBytes, reverseBytes, signDer, type TxOutput } from '../../../shared/coins/index.ts';
import { progress } from '../payments.ts';
import { signPaymentOnLedger } from './cosigner.ts';
import { canSignOnLedger } from './legacy-sign.ts';
import { HARDENED } from './paths.ts';
import { appAndVersion, ascii, hashInputStart, hashInputStartForkid, hashOutputs, hashSign, replay, Session, sha256, trustedInput, u8, varint, walletPublicKey } from './testing/apdu.ts';
import { disposeLedgerFixtures, ledgerFixture, type LedgerFixture } from './testing/fixtures.ts';

afterEach(disposeLedgerFixtures);

const H = (n: number) => n + HARDENED;
const u32le = (n: number) => {
  const o = new Uint8Array(4);
  new DataView(o.buffer).setUint32(0, n, true);
  return o;
};
const u64le = (n: bigint) => {
  const o = new Uint8Array(8);
  new DataView(o.buffer).setBigUint64(0, n, true);
  return o;
};
const outs = (o: readonly TxOutput[]) => o.map((x) => ({ amount: u64le(x.value), script: x.script }));

/** The whole exchange, the device answering HASH SIGN with `der` || SIGHASH_ALL. */
function legacySession(f: LedgerFixture, sig: { der: Uint8Array; parity: 0 | 1 }, app = 'Litecoin', version = '2.4.2'): Session {
  const s = appAndVersion(new Session(), app, version);
  // The master key, for the device's fingerprint.
  walletPublicKey(s, [], 0, ecc.pointCompress(f.device.publicKey, false), 'LMaster', f.device.chainCode);
  const prevInput = f.prev.inputs[0]!;
  trustedInput(
    s,
    {
      version: u32le(f.prev.version),
      inputs: [{ prevout: concatBytes(reverseBytes(prevInput.prevTxid), u32le(prevInput.vout)), script: prevInput.scriptSig, sequence: u32le(prevInput.sequence) }],
      outputs: outs(f.prev.outputs),
      locktime: u32le(f.prev.locktime),
    },
    1,
    // A trusted input: magic 32 00, 2 random bytes, the outpoint, the amount, an 8-byte device MAC.
    concatBytes(Uint8Array.of(0x32, 0x00, 0xab, 0xcd), reverseBytes(hexToBytes(f.prevTxid)), u32le(1), u64le(100_000n), new Uint8Array(8).fill(0x5a)),
  );
  const outpoint = concatBytes(reverseBytes(hexToBytes(f.prevTxid)), u32le(1));
  hashInputStart(s, true, u32le(1), [outpoint], [u32le(0xffffffff)], 0, f.redeemScript);
  hashOutputs(s, concatBytes(varint(2), ...f.unsignedTx.outputs.flatMap((o) => [u64le(o.value), varint(o.script.length), o.script])));
  return hashSign(s, [H(45), H(0), 0, 0], 0, 0x01, concatBytes(sig.der, u8(0x01)), sig.parity);
}

const key = (f: LedgerFixture) => f.device.derivePath("m/45'/0'/0/0").privateKey!;
/** The device's signature of `hash` and the Y parity of its R (which the app reports in the DER's first byte). */
const deviceSign = (f: LedgerFixture, hash: Uint8Array) => ({ der: signDer(hash, key(f)), parity: (ecc.signRecoverable(hash, key(f)).recoveryId & 1) as 0 | 1 });

describe('legacy protocol (Litecoin app): signing a P2SH multisig input', () => {
  it.each([
    ['litecoin', 'Litecoin', '2.4.2'],
    ['dash', 'Dash', '2.2.0'],
    // The Bitcoin app before 2.1 speaks this protocol too.
    ['bitcoin', 'Bitcoin', '2.0.6'],
  ] as const)('%s (%s app %s): signs with the previous transaction from the service; the verified signature is stored', async (coin, app, version) => {
    const f = ledgerFixture(coin, 'mainnet');
    const r = replay(legacySession(f, deviceSign(f, f.hash), app, version));
    const result = await signPaymentOnLedger(f.deps, r.connector, f.paymentId);
    r.done();
    expect(result).toMatchObject({ status: 'imported', added: 1 });
    expect(f.asked).toEqual([f.prevTxid]);
    expect(progress(f.deps, f.paymentId).inputs[0]).toMatchObject({ signed: 1, signers: ['alice'] });
  });

  it('refuses a wrong signature from the device: nothing stored', async () => {
    const f = ledgerFixture('litecoin', 'mainnet');
    const r = replay(legacySession(f, deviceSign(f, sha256(ascii('not this payment')))));
    const result = await signPaymentOnLedger(f.deps, r.connector, f.paymentId);
    expect(result).toMatchObject({ status: 'refused', refusal: 'tampered', message: expect.stringMatching(/does not verify/) });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it('refused on the device (HASH SIGN answered 6985): nothing stored', async () => {
    const f = ledgerFixture('litecoin', 'mainnet');
    const s = legacySession(f, deviceSign(f, f.hash));
    s.pairs.at(-1)![1] = '6985';
    await expect(signPaymentOnLedger(f.deps, replay(s).connector, f.paymentId)).rejects.toMatchObject({ code: 'ledger_refused', message: expect.stringMatching(/refused on the Ledger while signing payment/) });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it.each(['bitcoin_private', 'zclassic'] as const)('refuses coins whose signature hash it has no device flow for (%s), before using the device', async (coin) => {
    const f = ledgerFixture(coin, 'mainnet');
    const r = replay(new Session());
    await expect(signPaymentOnLedger(f.deps, r.connector, f.paymentId)).rejects.toMatchObject({ message: expect.stringMatching(new RegExp(`${coin} payments on a Ledger is not supported.*signature file`)) });
    expect(r.opened()).toBe(0);
    expect(canSignOnLedger(chainParams(coin, 'mainnet'))).toBe(false);
    // Zcash's v5 (ZIP-244) payments have the Zcash app's flow (zcash-sign.test.ts).
    expect(canSignOnLedger(chainParams('zcash', 'mainnet'))).toBe(true);
  });
});

describe('fork-id apps (Bitcoin Cash, Bitcoin Gold): BIP143-style input hashing, hash type 0x41', () => {
  function forkidSession(f: LedgerFixture, app: string, option: number, sig: { der: Uint8Array; parity: 0 | 1 }): Session {
    const s = appAndVersion(new Session(), app, '2.2.1');
    walletPublicKey(s, [], option === 0x03 ? 3 : 0, ecc.pointCompress(f.device.publicKey, false), 'master', f.device.chainCode);
    const value = concatBytes(reverseBytes(hexToBytes(f.prevTxid)), u32le(1), u64le(100_000n));
    const seq = u32le(0xffffffff);
    hashInputStartForkid(s, true, option, u32le(1), [{ value, script: new Uint8Array(0), sequence: seq }]);
    hashOutputs(s, concatBytes(varint(2), ...f.unsignedTx.outputs.flatMap((o) => [u64le(o.value), varint(o.script.length), o.script])));
    hashInputStartForkid(s, false, option, u32le(1), [{ value, script: f.redeemScript, sequence: seq }]);
    return hashSign(s, [H(45), H(0), 0, 0], 0, 0x41, concatBytes(sig.der, u8(0x41)), sig.parity);
  }

  it.each([
    ['bitcoin_cash', 'Bitcoin Cash', 0x03],
    ['bitcoin_gold', 'Bitcoin Gold', 0x02],
  ] as const)('%s: the signature over our fork-id hash is stored', async (coin, app, option) => {
    const f = ledgerFixture(coin, 'mainnet');
    const r = replay(forkidSession(f, app, option, deviceSign(f, f.hash)));
    const result = await signPaymentOnLedger(f.deps, r.connector, f.paymentId);
    r.done();
    expect(result).toMatchObject({ status: 'imported', added: 1 });
  });

  it('bitcoin_cash: a signature over another digest (the legacy one) is refused, nothing stored', async () => {
    const f = ledgerFixture('bitcoin_cash', 'mainnet');
    const r = replay(forkidSession(f, 'Bitcoin Cash', 0x03, deviceSign(f, sha256(ascii('legacy digest')))));
    expect(await signPaymentOnLedger(f.deps, r.connector, f.paymentId)).toMatchObject({ status: 'refused', refusal: 'tampered' });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });
});
