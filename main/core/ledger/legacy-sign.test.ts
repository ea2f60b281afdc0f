// A legacy-protocol app (Litecoin) signing a P2SH multisig input, replayed at the transport level
// from btc.asc's command formats: GET TRUSTED INPUT over the previous transaction the service gave,
// HASH INPUT START, HASH INPUT FINALIZE FULL, HASH SIGN. The device's signature is made with the
// test key, so the desk's own verification really checks it. The txid the app would hash from each
// GET TRUSTED INPUT stream is checked with a model of its parser (trustedInputTxid), which for a
// Dash special transaction must read the payload behind the locktime.
import * as ecc from 'tiny-secp256k1';
import { afterEach, describe, expect, it } from 'vitest';
import { bytesToHex, chainParams, concatBytes, decodeTx, hexToBytes, reverseBytes, signatureHash, signDer, txidHex, type Tx, type TxOutput } from '../../../shared/coins/index.ts';
import { isBitcoinTx, type BitcoinTx } from '../../../shared/coins/tx.ts';
import { progress } from '../payments/payments.ts';
import { serializeOutputs, u32le, u64le } from './apdu-fields.ts';
import { signPaymentOnLedger } from './ledger-flows.ts';
import { canSignOnLedger, ledgerPrevious } from './legacy-sign.ts';
import { HARDENED } from './paths.ts';
import { appAndVersion, ascii, dashExtra, hashInputStart, hashInputStartForkid, hashOutputs, hashSign, replay, Session, sha256, trustedInput, trustedInputTxid, u8, walletPublicKey } from '../../../dev/ledger-testing/apdu.ts';
import { disposeLedgerFixtures, ledgerFixture, type LedgerFixture } from '../../../dev/ledger-testing/fixtures.ts';

afterEach(disposeLedgerFixtures);

const H = (n: number) => n + HARDENED;
const outs = (o: readonly TxOutput[]) => o.map((x) => ({ amount: u64le(x.value), script: x.script }));

/**
 * The whole exchange, the device answering HASH SIGN with `der` || SIGHASH_ALL. `stream.extra`
 * follows the previous transaction's locktime; `stream.namedTxid` is the txid the device's trusted
 * input names (default: the right one), which hw-app-btc then puts in HASH INPUT START's outpoint.
 */
function legacySession(f: LedgerFixture, sig: { der: Uint8Array; parity: 0 | 1 }, app = 'Litecoin', version = '2.4.2', stream: { extra?: Uint8Array; namedTxid?: string } = {}): Session {
  const s = appAndVersion(new Session(), app, version);
  // The master key, for the device's fingerprint.
  walletPublicKey(s, [], 0, ecc.pointCompress(f.device.publicKey, false), 'LMaster', f.device.chainCode);
  const prevInput = f.prev.inputs[0]!;
  const named = stream.namedTxid ?? f.prevTxid;
  trustedInput(
    s,
    {
      version: u32le(f.prev.version >>> 0),
      inputs: [{ prevout: concatBytes(reverseBytes(prevInput.prevTxid), u32le(prevInput.vout)), script: prevInput.scriptSig, sequence: u32le(prevInput.sequence) }],
      outputs: outs(f.prev.outputs),
      locktime: u32le(f.prev.locktime),
      ...(stream.extra ? { extra: stream.extra } : {}),
    },
    1,
    // A trusted input: magic 32 00, 2 random bytes, the outpoint, the amount, an 8-byte device MAC.
    concatBytes(Uint8Array.of(0x32, 0x00, 0xab, 0xcd), reverseBytes(hexToBytes(named)), u32le(1), u64le(100_000n), new Uint8Array(8).fill(0x5a)),
  );
  const outpoint = concatBytes(reverseBytes(hexToBytes(named)), u32le(1));
  hashInputStart(s, true, u32le(1), [outpoint], [u32le(0xffffffff)], 0, f.redeemScript);
  hashOutputs(s, serializeOutputs(f.unsignedTx.outputs));
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
    const session = legacySession(f, deviceSign(f, f.hash), app, version);
    // The stream the desk must send hashes, as the app reads it, to the input's txid.
    expect(trustedInputTxid(session)).toBe(f.prevTxid);
    const r = replay(session);
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

// A ProUpServTx (type 2) from Dash's documentation (docs/core/reference/transactions-special-transactions.md),
// the vector of shared/coins/tx-dash.test.ts: txid f1d23a14...e082 as Dash Core reports it, 183-byte payload.
const PRO_UP_SERV_TX =
  '0300020001f88750ccc24410679d87ee63df5c8dfd901329aa1fe60a74c183d560eee5218d010000006a473044022029090e49ba2e387e7b39df51fdd6ec1becdd568cdd0de79f5dca6084bee677380220583bb62418aa986d927b4487d6a7f0469c4bc54a0e7baa0c484e8c140c37b3d301210345184cc81d6cd98eef548206f23a1467c27fea65582d519daa0f7a88a6c45666feffffff01e7edd23b000000001976a9147f95c0f808aff27883260bfaf9cfe2b84519a6b288ac00000000b702000000ff92ce2d64657cc3d4d9d82547efca2206ec1d9f5dcf2776624bc0a58b12ed3b00000000000000000000ffffae22e9734e1f0026ad5ada35511fc5b9d762b14b22510325ef8b82d21d59567f8e1c3c9e0c955ab99a62829e6317b1943d97f66191b1c6714146540788e2d26a1007498dce455603f55aebacf1a38131048abf7d5a05d00e9e93c1e91cc8cad239b4301b328f5fe1bcbae829ccd6a3f461e712873a188224829fc4b5fc01fa0fb29014b947d8f7';
const DASH = chainParams('dash', 'mainnet');
const asBitcoin = (tx: Tx): BitcoinTx => {
  if (!isBitcoinTx(tx)) throw new Error('the test expects a Bitcoin-format transaction');
  return tx;
};
const proUpServ = asBitcoin(decodeTx(hexToBytes(PRO_UP_SERV_TX), DASH));

/**
 * Previous transactions that are DIP2 special transactions, each paying the wallet 100 000 at
 * output 1 (the fixture's outputs), so none is on chain: the ProUpServTx with its outputs replaced,
 * and a synthetic type-1 (ProRegTx-sized) one whose 300-byte payload needs 3-byte varints.
 */
const SPECIAL: readonly { name: string; reshape: (prev: Tx) => Tx; prefix: string }[] = [
  { name: "Dash's ProUpServTx (its version, input and payload)", reshape: (p) => ({ ...asBitcoin(p), version: proUpServ.version, inputs: proUpServ.inputs, extraPayload: proUpServ.extraPayload! }), prefix: 'b8b7' },
  { name: 'a synthetic type 1 with a 300-byte payload', reshape: (p) => ({ ...asBitcoin(p), version: 0x00010003, extraPayload: Uint8Array.from({ length: 300 }, (_, k) => k & 0xff) }), prefix: 'fd2f01fd2c01' },
];
const payloadOf = (f: LedgerFixture): Uint8Array => {
  const payload = asBitcoin(f.prev).extraPayload;
  if (!payload) throw new Error('the test expects a special transaction');
  return payload;
};
/** The txid a device names when the payload never reaches it: the previous transaction's stream stopping at its locktime. */
const droppedTxid = (f: LedgerFixture): string => trustedInputTxid(legacySession(f, deviceSign(f, f.hash), 'Dash', '2.2.0'));

describe('Dash app: spending an output of a special transaction (DIP2)', () => {
  it.each(SPECIAL)('$name: GET TRUSTED INPUT carries the payload as the app reads it; the verified signature is stored', async ({ reshape, prefix }) => {
    const f = ledgerFixture('dash', 'mainnet', { reshapePrev: reshape });
    const payload = payloadOf(f);
    // Behind the locktime: the length the app skips, then what the txid covers (varint(payload length) || payload).
    const extra = dashExtra(payload);
    expect(bytesToHex(extra.subarray(0, prefix.length / 2))).toBe(prefix);
    const session = legacySession(f, deviceSign(f, f.hash), 'Dash', '2.2.0', { extra });
    expect(trustedInputTxid(session)).toBe(f.prevTxid);
    const r = replay(session);
    const result = await signPaymentOnLedger(f.deps, r.connector, f.paymentId);
    r.done();
    expect(result).toMatchObject({ status: 'imported', added: 1 });
    expect(progress(f.deps, f.paymentId).inputs[0]).toMatchObject({ signed: 1, signers: ['alice'] });
  });

  it.each(SPECIAL)('$name: a device naming the txid without the payload gets a signature refused by our check, nothing stored', async ({ reshape }) => {
    const f = ledgerFixture('dash', 'mainnet', { reshapePrev: reshape });
    const wrong = droppedTxid(f);
    expect(wrong).not.toBe(f.prevTxid);
    // What that device signs: the payment with its input pointing at the txid it named.
    const named: Tx = { ...f.unsignedTx, inputs: [{ ...f.unsignedTx.inputs[0]!, prevTxid: hexToBytes(wrong) }] };
    const r = replay(legacySession(f, deviceSign(f, signatureHash(f.params, named, 0, { scriptCode: f.redeemScript })), 'Dash', '2.2.0', { extra: dashExtra(payloadOf(f)), namedTxid: wrong }));
    const result = await signPaymentOnLedger(f.deps, r.connector, f.paymentId);
    r.done();
    expect(result).toMatchObject({ status: 'refused', refusal: 'tampered', message: expect.stringMatching(/does not verify/) });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it('without the payload, the app would hash the special transaction minus its payload', () => {
    const f = ledgerFixture('dash', 'mainnet', { reshapePrev: SPECIAL[0]!.reshape });
    const bare: BitcoinTx = { ...asBitcoin(f.prev), extraPayload: undefined };
    expect(droppedTxid(f)).toBe(txidHex(bare));
  });

  it('plain Dash transactions are sent exactly as before (no extra data)', () => {
    const f = ledgerFixture('dash', 'mainnet');
    expect(ledgerPrevious(DASH, f.prevTx).extraData).toHaveLength(0);
    expect(ledgerPrevious(DASH, f.prevTx)).toEqual(ledgerPrevious(chainParams('litecoin', 'mainnet'), f.prevTx));
  });

  it('a special transaction hw-app-btc would read another way (version word 03 00 00 80, which it takes for Overwinter; no such type is on chain) is refused before the device signs', async () => {
    const f = ledgerFixture('dash', 'mainnet', { reshapePrev: (p) => ({ ...asBitcoin(p), version: 0x80000003, extraPayload: Uint8Array.of(1, 2, 3) }) });
    const s = appAndVersion(new Session(), 'Dash', '2.2.0');
    walletPublicKey(s, [], 0, ecc.pointCompress(f.device.publicKey, false), 'XMaster', f.device.chainCode);
    const r = replay(s);
    await expect(signPaymentOnLedger(f.deps, r.connector, f.paymentId)).rejects.toMatchObject({ code: 'ledger_failed', message: expect.stringMatching(/payload of this Dash special transaction differently/) });
    r.done();
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });
});

describe('fork-id apps (Bitcoin Cash, Bitcoin Gold): BIP143-style input hashing, hash type 0x41', () => {
  function forkidSession(f: LedgerFixture, app: string, option: number, sig: { der: Uint8Array; parity: 0 | 1 }): Session {
    const s = appAndVersion(new Session(), app, '2.2.1');
    walletPublicKey(s, [], option === 0x03 ? 3 : 0, ecc.pointCompress(f.device.publicKey, false), 'master', f.device.chainCode);
    const value = concatBytes(reverseBytes(hexToBytes(f.prevTxid)), u32le(1), u64le(100_000n));
    const seq = u32le(0xffffffff);
    hashInputStartForkid(s, true, option, u32le(1), [{ value, script: new Uint8Array(0), sequence: seq }]);
    hashOutputs(s, serializeOutputs(f.unsignedTx.outputs));
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
