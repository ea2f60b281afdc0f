// Segwit vaults (P2WSH, P2SH-P2WSH) co-signed by a Ledger, replayed at the transport level like the
// P2SH ones: the Bitcoin app >= 2.1 registers wsh(...)/sh(wsh(...)) wallet policies, shows the
// bech32 / nested address and signs a PSBT carrying both UTXO forms and the witness script; the
// Litecoin app (legacy protocol) signs in its BIP143 mode with trusted inputs; Bitcoin Gold's app
// in its fork-id flow. Every device signature is made by the test key over a BIP143 digest
// computed here by bitcoinjs-lib (independently of the desk's own sighash code) and must be the
// one the desk stored as the input's hash.
import { Transaction } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { afterEach, describe, expect, it } from 'vitest';
import { bytesToHex, concatBytes, encodeTx, hexToBytes, reverseBytes, signDer, type TxOutput } from '../../../shared/coins/index.ts';
import type { MultisigScriptType } from '../../../shared/coins/multisig-script.ts';
import { progress } from '../payments/payments.ts';
import { walletAddress as deskAddress } from '../wallets/script.ts';
import { serializeOutputs, u32le, u64le } from './apdu-fields.ts';
import { registerWalletOnLedger, showAddressOnLedger, signPaymentOnLedger } from './ledger-flows.ts';
import { HARDENED } from './paths.ts';
import {
  appAndVersion,
  ascii,
  hashInputStartForkid,
  hashInputStartTrusted,
  hashOutputs,
  hashSign,
  masterFingerprint,
  policyId,
  registerWallet,
  replay,
  Session,
  sha256,
  signPsbt,
  trustedInput,
  trustedInputTxid,
  u8,
  walletAddress,
  walletPublicKey,
} from '../../../dev/ledger-testing/apdu.ts';
import { hmacOf, policyOf, readsSegwitInput, segwitSpent, signPsbtCommand } from '../../../dev/ledger-testing/bitcoin-expect.ts';
import { disposeLedgerFixtures, ledgerFixture, type LedgerFixture } from '../../../dev/ledger-testing/fixtures.ts';

afterEach(disposeLedgerFixtures);

const H = (n: number) => n + HARDENED;
const deviceKey = (f: LedgerFixture) => f.device.derivePath("m/45'/0'/0/0");

/** BIP143's digest of input 0 by bitcoinjs-lib: the witness script as script code, the amount the previous transaction proves. */
function bip143(f: LedgerFixture, hashType = 0x01): Uint8Array {
  return Transaction.fromBuffer(Buffer.from(encodeTx(f.unsignedTx))).hashForWitnessV0(0, f.redeemScript, 100_000n, hashType);
}

const deviceSign = (f: LedgerFixture, hash: Uint8Array) => ({
  der: signDer(hash, deviceKey(f).privateKey!),
  parity: (ecc.signRecoverable(hash, deviceKey(f).privateKey!).recoveryId & 1) as 0 | 1,
});

const SEGWIT: readonly { scriptType: MultisigScriptType; sortKeys: boolean; template: string }[] = [
  { scriptType: 'p2wsh', sortKeys: true, template: 'wsh(sortedmulti(2,@0/**,@1/**,@2/**))' },
  { scriptType: 'p2sh-p2wsh', sortKeys: true, template: 'sh(wsh(sortedmulti(2,@0/**,@1/**,@2/**)))' },
  { scriptType: 'p2wsh', sortKeys: false, template: 'wsh(multi(2,@0/**,@1/**,@2/**))' },
  { scriptType: 'p2sh-p2wsh', sortKeys: false, template: 'sh(wsh(multi(2,@0/**,@1/**,@2/**)))' },
];

function registered(f: LedgerFixture, s: Session = new Session()): Session {
  appAndVersion(s, 'Bitcoin Test', '2.1.3');
  masterFingerprint(s, f.cosigners[0]!.fingerprint);
  return registerWallet(s, policyOf(f), hmacOf(policyOf(f)));
}

describe.each(SEGWIT)('Bitcoin app >= 2.1: $template', ({ scriptType, sortKeys, template }) => {
  const fixture = () => ledgerFixture('bitcoin', 'testnet', { scriptType, sortKeys });

  it('the stored hash is BIP143 over the witness script and the proven amount; the spent output is the wallet type', () => {
    const f = fixture();
    expect(bytesToHex(f.hash)).toBe(bytesToHex(bip143(f)));
    expect(bytesToHex(f.prev.outputs[1]!.script)).toBe(bytesToHex(segwitSpent(f, f.redeemScript).scriptPubKey));
  });

  it('registers the policy and stores the HMAC', async () => {
    const f = fixture();
    expect(policyOf(f).template).toBe(template);
    const r = replay(registered(f));
    const got = await registerWalletOnLedger(f.deps, r.connector, f.wallet.id);
    r.done();
    expect(got).toMatchObject({ position: 0, policy_id: bytesToHex(policyId(policyOf(f))) });
    expect(f.store.ledger.list(f.wallet.id)[0]).toMatchObject({ descriptorTemplate: template, keyInfos: policyOf(f).keys });
  });

  it("shows the receive address the device derives, equal to ours; another address is refused in words", async () => {
    const f = fixture();
    const ours = deskAddress(f.params, f.wallet, f.cosigners.map((c) => c.xpub), false, 0);
    // The address bitcoinjs-lib makes of the same script: the device would show this one.
    const expected = scriptType === 'p2wsh' ? ours.address.startsWith('tb1q') : ours.address.startsWith('2');
    expect(expected).toBe(true);
    expect(bytesToHex(ours.scriptPubKey)).toBe(bytesToHex(segwitSpent(f, ours.redeemScript).scriptPubKey));
    const s = registered(f);
    appAndVersion(s, 'Bitcoin Test', '2.1.3');
    masterFingerprint(s, f.cosigners[0]!.fingerprint);
    walletAddress(s, policyOf(f), hmacOf(policyOf(f)), 0, 0, ours.address);
    const r = replay(s);
    await registerWalletOnLedger(f.deps, r.connector, f.wallet.id);
    expect(await showAddressOnLedger(f.deps, r.connector, f.wallet.id, false, 0)).toEqual({ address: ours.address, path: '0/0', cosigner: 'alice' });
    r.done();

    const lying = masterFingerprint(appAndVersion(new Session(), 'Bitcoin Test', '2.1.3'), f.cosigners[0]!.fingerprint);
    walletAddress(lying, policyOf(f), hmacOf(policyOf(f)), 0, 0, 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx');
    await expect(showAddressOnLedger(f.deps, replay(lying).connector, f.wallet.id, false, 0)).rejects.toMatchObject({ code: 'address_mismatch', message: expect.stringMatching(/do not use this address/) });
  });

  it('signs the PSBT with witness UTXO, previous transaction and witness script; the verified signature is stored', async () => {
    const f = fixture();
    const s = registered(f);
    appAndVersion(s, 'Bitcoin Test', '2.1.3');
    masterFingerprint(s, f.cosigners[0]!.fingerprint);
    signPsbt(s, signPsbtCommand(f, policyOf(f)), policyOf(f), [{ input: 0, pubkey: deviceKey(f).publicKey, signature: concatBytes(deviceSign(f, bip143(f)).der, u8(0x01)) }], readsSegwitInput(f));
    const r = replay(s);
    await registerWalletOnLedger(f.deps, r.connector, f.wallet.id);
    const result = await signPaymentOnLedger(f.deps, r.connector, f.paymentId);
    r.done();
    expect(result).toMatchObject({ status: 'imported', added: 1, message: expect.stringMatching(/1 signature by alice stored/) });
    expect(progress(f.deps, f.paymentId).inputs).toEqual([{ inputIndex: 0, required: 2, signed: 1, signers: ['alice'] }]);
  });

  it('a signature over the legacy (non-BIP143) digest is refused: nothing stored', async () => {
    const f = fixture();
    const legacy = Transaction.fromBuffer(Buffer.from(encodeTx(f.unsignedTx))).hashForSignature(0, f.redeemScript, 0x01);
    const s = registered(f);
    appAndVersion(s, 'Bitcoin Test', '2.1.3');
    masterFingerprint(s, f.cosigners[0]!.fingerprint);
    signPsbt(s, signPsbtCommand(f, policyOf(f)), policyOf(f), [{ input: 0, pubkey: deviceKey(f).publicKey, signature: concatBytes(deviceSign(f, legacy).der, u8(0x01)) }], readsSegwitInput(f));
    const r = replay(s);
    await registerWalletOnLedger(f.deps, r.connector, f.wallet.id);
    expect(await signPaymentOnLedger(f.deps, r.connector, f.paymentId)).toMatchObject({ status: 'refused', refusal: 'tampered', message: expect.stringMatching(/does not verify/) });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });
});

const outs = (o: readonly TxOutput[]) => o.map((x) => ({ amount: u64le(x.value), script: x.script }));

/**
 * The Litecoin app's segwit flow (btc.asc, as hw-app-btc's createPaymentTransaction drives an app
 * >= 1.4.0): the master key, GET TRUSTED INPUT over the previous transaction (the device answers a
 * trusted input naming outpoint and amount), HASH INPUT START P2 02 with it, the outputs, HASH INPUT
 * START P2 80 with the witness script, HASH SIGN.
 */
function litecoinSegwitSession(f: LedgerFixture, sig: { der: Uint8Array; parity: 0 | 1 }, amount = 100_000n): Session {
  const s = appAndVersion(new Session(), 'Litecoin', '2.4.2');
  walletPublicKey(s, [], 0, ecc.pointCompress(f.device.publicKey, false), 'LMaster', f.device.chainCode);
  const p = f.prev.inputs[0]!;
  const trusted = concatBytes(Uint8Array.of(0x32, 0x00, 0xab, 0xcd), reverseBytes(hexToBytes(f.prevTxid)), u32le(1), u64le(amount), new Uint8Array(8).fill(0x5a));
  trustedInput(
    s,
    { version: u32le(f.prev.version >>> 0), inputs: [{ prevout: concatBytes(reverseBytes(p.prevTxid), u32le(p.vout)), script: p.scriptSig, sequence: u32le(p.sequence) }], outputs: outs(f.prev.outputs), locktime: u32le(f.prev.locktime) },
    1,
    trusted,
  );
  const seq = u32le(0xffffffff);
  hashInputStartTrusted(s, true, u32le(1), [{ trusted, script: new Uint8Array(0), sequence: seq }]);
  hashOutputs(s, serializeOutputs(f.unsignedTx.outputs));
  hashInputStartTrusted(s, false, u32le(1), [{ trusted, script: f.redeemScript, sequence: seq }]);
  return hashSign(s, [H(45), H(0), 0, 0], 0, 0x01, concatBytes(sig.der, u8(0x01)), sig.parity);
}

describe.each(['p2wsh', 'p2sh-p2wsh'] as const)('Litecoin app (legacy protocol), %s: BIP143 mode with trusted inputs', (scriptType) => {
  const fixture = () => ledgerFixture('litecoin', 'mainnet', { scriptType, sortKeys: true });

  it('signs; the signature over the BIP143 digest is verified and stored', async () => {
    const f = fixture();
    expect(bytesToHex(f.hash)).toBe(bytesToHex(bip143(f)));
    const session = litecoinSegwitSession(f, deviceSign(f, bip143(f)));
    expect(trustedInputTxid(session)).toBe(f.prevTxid);
    const r = replay(session);
    const result = await signPaymentOnLedger(f.deps, r.connector, f.paymentId);
    r.done();
    expect(result).toMatchObject({ status: 'imported', added: 1 });
    expect(progress(f.deps, f.paymentId).inputs[0]).toMatchObject({ signed: 1, signers: ['alice'] });
  });

  it('a trusted input naming another amount is refused before the payment is hashed on the device', async () => {
    const f = fixture();
    const s = litecoinSegwitSession(f, deviceSign(f, bip143(f)), 99_999n);
    const r = replay(s);
    await expect(signPaymentOnLedger(f.deps, r.connector, f.paymentId)).rejects.toMatchObject({ code: 'ledger_failed', message: expect.stringMatching(/another outpoint or amount: nothing was signed/) });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it('a signature over another digest is refused: nothing stored', async () => {
    const f = fixture();
    const r = replay(litecoinSegwitSession(f, deviceSign(f, sha256(ascii('not this payment')))));
    expect(await signPaymentOnLedger(f.deps, r.connector, f.paymentId)).toMatchObject({ status: 'refused', refusal: 'tampered' });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it('a Litecoin app older than 1.4.0 (amounts unproven in segwit mode) is refused in words before any of the payment is sent', async () => {
    const f = fixture();
    const r = replay(appAndVersion(new Session(), 'Litecoin', '1.3.9'));
    await expect(signPaymentOnLedger(f.deps, r.connector, f.paymentId)).rejects.toMatchObject({ code: 'ledger_app_too_old', message: expect.stringMatching(/Litecoin app version 1\.3\.9 .*1\.4\.0 or later for .* wallets/) });
    r.done();
  });
});

describe('Bitcoin Gold app: a P2WSH input in its fork-id BIP143 flow (hash type 0x41, fork id 79)', () => {
  it('signs; the signature over the BTG digest is verified and stored', async () => {
    const f = ledgerFixture('bitcoin_gold', 'mainnet', { scriptType: 'p2wsh', sortKeys: true });
    // BIP143 with the 32-bit type 0x00004F41 (fork id 79 << 8 | ALL | FORKID), which bitcoinjs-lib hashes as given.
    const digest = bip143(f, 0x4f41);
    expect(bytesToHex(f.hash)).toBe(bytesToHex(digest));
    const sig = deviceSign(f, digest);
    const s = appAndVersion(new Session(), 'Bitcoin Gold', '2.2.1');
    walletPublicKey(s, [], 0, ecc.pointCompress(f.device.publicKey, false), 'master', f.device.chainCode);
    const value = concatBytes(reverseBytes(hexToBytes(f.prevTxid)), u32le(1), u64le(100_000n));
    const seq = u32le(0xffffffff);
    hashInputStartForkid(s, true, 0x02, u32le(1), [{ value, script: new Uint8Array(0), sequence: seq }]);
    hashOutputs(s, serializeOutputs(f.unsignedTx.outputs));
    hashInputStartForkid(s, false, 0x02, u32le(1), [{ value, script: f.redeemScript, sequence: seq }]);
    hashSign(s, [H(45), H(0), 0, 0], 0, 0x41, concatBytes(sig.der, u8(0x41)), sig.parity);
    const r = replay(s);
    expect(await signPaymentOnLedger(f.deps, r.connector, f.paymentId)).toMatchObject({ status: 'imported', added: 1 });
    r.done();
  });
});
