// The Zcash app (LedgerHQ/app-zcash) signing a P2SH multisig input of a v5 payment, replayed at the
// transport level: GET TRUSTED INPUT over the previous transaction, the first pass with the P2SH
// scriptPubKey, the outputs, HASH SIGN's header call, then the second pass and HASH SIGN at the
// co-signer's m/44'/133'/0'/0/0. The device's signature is made with the test key over our own
// ZIP-244 hash, so the desk's verification really checks it. Then the app's own test vectors: the
// APDUs its Speculos tests send, which our builder must reproduce, and the signatures the app made
// there, which must verify against our ZIP-244 hash.
import { BIP32Factory } from 'bip32';
import { mnemonicToSeedSync } from 'bip39';
import * as ecc from 'tiny-secp256k1';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransaction } from '@ledgerhq/hw-app-btc/lib/createTransaction.js';
import { getTrustedInput } from '@ledgerhq/hw-app-btc/lib/getTrustedInput.js';
import { splitTransaction } from '@ledgerhq/hw-app-btc/lib/splitTransaction.js';
import { bytesToHex, chainParams, concatBytes, decodeTx, encodeTx, hash160, hexToBytes, p2shScript, reverseBytes, signDer, txidHex, verifyDerSignature, type TxOutput } from '../../../shared/coins/index.ts';
import { zip244Sighash } from '../../../shared/coins/sighash/zip244.ts';
import type { ZcashV5Tx } from '../../../shared/coins/tx.ts';
import { progress } from '../payments/payments.ts';
import { serializeOutputs, u32le, u64le } from './apdu-fields.ts';
import { signPaymentOnLedger } from './ledger-flows.ts';
import { canSignOnLedger } from './legacy-sign.ts';
import { defaultAccountPath, HARDENED, parsePath } from './paths.ts';
import { apdu, appAndVersion, ascii, replay, Session, sha256, u8, varint, walletPublicKey, zcashHashInput, zcashHashSign, zcashOutputs, zcashTrustedInput } from '../../../dev/ledger-testing/apdu.ts';
import { disposeLedgerFixtures, ledgerFixture, type LedgerFixture } from '../../../dev/ledger-testing/fixtures.ts';
import type { Transport } from './transport.ts';
import { readLedgerXpub } from './xpub.ts';
import { signZcashInputs, trustedInputChunks, zcashPrevTx, type ZcashDeviceInput } from './zcash-sign.ts';

afterEach(disposeLedgerFixtures);

const bip32 = BIP32Factory(ecc);
const H = (n: number) => n + HARDENED;
const ZEC = chainParams('zcash', 'mainnet');
const outs = (o: readonly TxOutput[]) => o.map((x) => ({ amount: u64le(x.value), script: x.script }));
const v5 = (bytes: Uint8Array): ZcashV5Tx => {
  const tx = decodeTx(bytes, ZEC);
  if (tx.format !== 'zcash-v5') throw new Error('the test expects a v5 transaction');
  return tx;
};
/** version | overwintered, version group, branch id: the 12 bytes every Zcash header chunk starts with. */
const header = (tx: { version: number; versionGroupId: number; consensusBranchId: number }) => concatBytes(u32le((tx.version | 0x80000000) >>> 0), u32le(tx.versionGroupId), u32le(tx.consensusBranchId));
/** A trusted input as the app makes one: magic 32 00, 2 random bytes, outpoint, amount, 8-byte HMAC (src/handlers/get_trusted_input.rs). */
const trustedInput = (txidDisplay: string, vout: number, amount: bigint, salt = 0xab) =>
  concatBytes(Uint8Array.of(0x32, 0x00, salt, 0xcd), reverseBytes(hexToBytes(txidDisplay)), u32le(vout), u64le(amount), new Uint8Array(8).fill(salt ^ 0x5a));

const key = (f: LedgerFixture) => f.device.derivePath(`${f.deviceAccountPath}/0/0`).privateKey!;
/** The device's signature of `hash` and the Y parity of its R (which the app reports in the DER's first byte). */
const deviceSign = (f: LedgerFixture, hash: Uint8Array) => ({ der: signDer(hash, key(f)), parity: (ecc.signRecoverable(hash, key(f)).recoveryId & 1) as 0 | 1 });

/** The whole exchange for the fixture's payment, the device answering the input's HASH SIGN with `sig`. */
function zcashSession(f: LedgerFixture, sig: { der: Uint8Array; parity: 0 | 1 }, version = '3.3.0'): Session {
  const s = appAndVersion(new Session(), 'Zcash', version);
  // The key at co-signer 0's recorded path: the Zcash app exports no master key, so this is how the desk tells which co-signer the device is.
  const account = f.device.derivePath(f.deviceAccountPath);
  walletPublicKey(s, [H(44), H(133), H(0)], 0, ecc.pointCompress(account.publicKey, false), 't1AccountAddressUnusedByTheDesk', account.chainCode);
  const prev = f.prev as ZcashV5Tx;
  const pin = prev.inputs[0]!;
  const ti = trustedInput(f.prevTxid, 1, 100_000n);
  zcashTrustedInput(
    s,
    {
      header: header(prev),
      inputs: [{ prevout: concatBytes(reverseBytes(pin.prevTxid), u32le(pin.vout)), script: pin.scriptSig, sequence: u32le(pin.sequence) }],
      outputs: outs(prev.outputs),
      tail: concatBytes(u32le(prev.locktime), varint(4), u32le(prev.expiryHeight)),
    },
    1,
    ti,
  );
  const tx = f.unsignedTx as ZcashV5Tx;
  // Both passes send the P2SH scriptPubKey the input spends, never the redeem script: ZIP-244 commits to it.
  const input = { trusted: ti, script: p2shScript(hash160(f.redeemScript)), sequence: u32le(0xffffffff) };
  zcashHashInput(s, 0x05, header(tx), [input]);
  zcashOutputs(s, serializeOutputs(tx.outputs));
  zcashHashSign(s, [], tx.locktime, tx.expiryHeight);
  zcashHashInput(s, 0x80, header(tx), [input]);
  return zcashHashSign(s, [H(44), H(133), H(0), 0, 0], tx.locktime, tx.expiryHeight, concatBytes(sig.der, u8(0x01)), sig.parity);
}

describe('Zcash app: signing a P2SH multisig input of a v5 payment', () => {
  it('signs over the ZIP-244 hash with trusted inputs from the previous transaction; the verified signature is stored', async () => {
    const f = ledgerFixture('zcash', 'mainnet');
    expect(f.unsignedTx.format).toBe('zcash-v5');
    expect(canSignOnLedger(f.params)).toBe(true);
    const r = replay(zcashSession(f, deviceSign(f, f.hash)));
    const result = await signPaymentOnLedger(f.deps, r.connector, f.paymentId);
    r.done();
    expect(result).toMatchObject({ status: 'imported', added: 1 });
    expect(f.asked).toEqual([f.prevTxid]);
    expect(progress(f.deps, f.paymentId).inputs[0]).toMatchObject({ signed: 1, signers: ['alice'] });
  });

  it('refuses a signature over another hash: nothing stored', async () => {
    const f = ledgerFixture('zcash', 'mainnet');
    const r = replay(zcashSession(f, deviceSign(f, sha256(ascii('not this payment')))));
    const result = await signPaymentOnLedger(f.deps, r.connector, f.paymentId);
    expect(result).toMatchObject({ status: 'refused', refusal: 'tampered', message: expect.stringMatching(/does not verify/) });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it.each([
    ['HASH SIGN', 'e048'],
    // The app asks the person to review the outputs when the last of them is in (test_sign_tx_refuse).
    ['the last HASH INPUT FINALIZE FULL', 'e04a80'],
  ])('refused on the device (%s answered 6985): nothing stored', async (_what, prefix) => {
    const f = ledgerFixture('zcash', 'mainnet');
    const s = zcashSession(f, deviceSign(f, f.hash));
    const at = s.pairs.findLastIndex(([c]) => c.startsWith(prefix));
    s.pairs.splice(at + 1);
    s.pairs[at]![1] = '6985';
    await expect(signPaymentOnLedger(f.deps, replay(s).connector, f.paymentId)).rejects.toMatchObject({ code: 'ledger_refused', message: expect.stringMatching(/refused on the Ledger while signing payment/) });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it("a co-signer key outside m/44'/133' is refused before any APDU", async () => {
    const f = ledgerFixture('zcash', 'mainnet', { deviceAccountPath: "m/45'/133'/0'" });
    const r = replay(new Session());
    await expect(signPaymentOnLedger(f.deps, r.connector, f.paymentId)).rejects.toMatchObject({
      code: 'ledger_wrong_key',
      message: expect.stringMatching(/where the Zcash app derives keys \(m\/44'\/133'\/account'.*m\/45'\/133'\/0'.*signature file/),
    });
    expect(r.opened()).toBe(0);
  });

  it('wrong app, app too old: said before anything is signed', async () => {
    const f = ledgerFixture('zcash', 'mainnet');
    await expect(signPaymentOnLedger(f.deps, replay(appAndVersion(new Session(), 'Bitcoin', '2.2.3')).connector, f.paymentId)).rejects.toMatchObject({
      code: 'ledger_wrong_app',
      message: expect.stringMatching(/the Bitcoin app is open; open the Zcash app/),
    });
    // 2.3.x reads the previous transaction's locktime where the desk sends the shielded counts.
    await expect(signPaymentOnLedger(f.deps, replay(appAndVersion(new Session(), 'Zcash', '2.3.2')).connector, f.paymentId)).rejects.toMatchObject({
      code: 'ledger_app_too_old',
      message: expect.stringMatching(/Zcash app on the Ledger is version 2\.3\.2; the desk needs 2\.4\.0 or later/),
    });
    expect(f.store.signatures(f.paymentId)).toEqual([]);
  });

  it('a device holding none of the keys at their paths is told so', async () => {
    const f = ledgerFixture('zcash', 'mainnet');
    const s = appAndVersion(new Session(), 'Zcash', '3.3.0');
    const other = bip32.fromSeed(new Uint8Array(32).fill(7)).derivePath("m/44'/133'/0'");
    walletPublicKey(s, [H(44), H(133), H(0)], 0, ecc.pointCompress(other.publicKey, false), 't1Other', other.chainCode);
    await expect(signPaymentOnLedger(f.deps, replay(s).connector, f.paymentId)).rejects.toMatchObject({ code: 'ledger_wrong_key', message: expect.stringMatching(/derives none of the keys of wallet "Treasury"/) });
  });

  it('a consensus branch the app does not know (6A80 on the header): update the app', async () => {
    const f = ledgerFixture('zcash', 'mainnet');
    const s = zcashSession(f, deviceSign(f, f.hash));
    const at = s.pairs.findIndex(([c]) => c.startsWith('e0440005'));
    s.pairs.splice(at + 1);
    s.pairs[at]![1] = '6a80';
    const tx = f.unsignedTx as ZcashV5Tx;
    const name = ZEC.networkUpgrades.find((u) => u.branchId === tx.consensusBranchId)!.name;
    await expect(signPaymentOnLedger(f.deps, replay(s).connector, f.paymentId)).rejects.toMatchObject({
      code: 'ledger_app_too_old',
      message: expect.stringContaining(`consensus branch id 0x${tx.consensusBranchId.toString(16).padStart(8, '0')} (${name}): update the Zcash app`),
    });
  });

  it('a trusted input for another outpoint or amount than the payment spends is refused, nothing signed', async () => {
    const f = ledgerFixture('zcash', 'mainnet');
    const s = zcashSession(f, deviceSign(f, f.hash));
    const at = s.pairs.findIndex(([c]) => c.startsWith('e0440005'));
    s.pairs.splice(at);
    s.pairs[at - 1]![1] = `${bytesToHex(trustedInput(f.prevTxid, 1, 99_999n))}9000`;
    await expect(signPaymentOnLedger(f.deps, replay(s).connector, f.paymentId)).rejects.toMatchObject({ code: 'ledger_failed', message: expect.stringMatching(/read the previous transaction of input 0 .*nothing was signed/) });
  });

  it('zclassic (ZIP-243) and bitcoin_private still have no device flow', () => {
    expect(canSignOnLedger(chainParams('zclassic', 'mainnet'))).toBe(false);
    expect(canSignOnLedger(chainParams('bitcoin_private', 'mainnet'))).toBe(false);
  });
});

describe("Zcash co-signer keys: read at m/44'/133'/account'", () => {
  it("the default account path is BIP44's for Zcash, BIP45's for the others", () => {
    expect(defaultAccountPath(133)).toBe("m/44'/133'/0'");
    expect(defaultAccountPath(133, 2)).toBe("m/44'/133'/2'");
    expect(defaultAccountPath(2)).toBe("m/45'/2'/0'");
  });

  it('reads the parent and the account key (the app exports no master key); the master fingerprint is left unknown', async () => {
    const root = bip32.fromSeed(new Uint8Array(32).fill(3), { messagePrefix: '', bech32: '', bip32: { public: ZEC.xpubVersions[0]!, private: ZEC.xprvVersions[0]! }, pubKeyHash: 0, scriptHash: 0, wif: ZEC.wifVersion });
    const full = (k: { publicKey: Uint8Array }) => ecc.pointCompress(k.publicKey, false);
    const s = appAndVersion(new Session(), 'Zcash', '3.3.0');
    const parent = root.derivePath("m/44'/133'");
    walletPublicKey(s, [H(44), H(133)], 0, full(parent), 't1Parent', parent.chainCode);
    const account = root.derivePath("m/44'/133'/0'");
    walletPublicKey(s, [H(44), H(133), H(0)], 0, full(account), 't1Account', account.chainCode);
    const r = replay(s);
    const got = await readLedgerXpub(r.connector, 'zcash', 'mainnet', defaultAccountPath(133));
    r.done();
    expect(got).toMatchObject({ xpub: account.neutered().toBase58(), fingerprint: '00000000', path: "m/44'/133'/0'", app: { name: 'Zcash', protocol: 'legacy' } });
  });

  it.each(["m/45'/133'/0'", "m/44'/133'", "m/44'/133'/0", "m/44'/1'/0'", "m/44'/133'/0'/0"])('%s: refused before the device is opened', async (path) => {
    const r = replay(new Session());
    await expect(readLedgerXpub(r.connector, 'zcash', 'mainnet', path)).rejects.toMatchObject({ code: 'ledger_failed', message: expect.stringMatching(/Zcash app on a Ledger derives a co-signer's key only at m\/44'\/133'\/account'/) });
    expect(r.opened()).toBe(0);
  });
});

// ---- the app's own vectors ------------------------------------------------------------------------
// LedgerHQ/app-zcash tests/standalone/test_sign_cmd.py: test_sign_tx_with_v4_nu6_input,
// test_sign_tx_v5_old and test_sign_tx_v5_mult_inputs_old send these APDUs to the app under
// Speculos (whose default seed below is ragger's) and assert its signatures. The trusted inputs the
// device answered there are random and HMAC'd with its own key: ours stand in for them.

const SPECULOS_SEED = 'glory promote mansion idle axis finger extra february uncover one trip resource lawn turtle enact monster seven myth punch hobby comfort wild raise skin';
const speculos = bip32.fromSeed(mnemonicToSeedSync(SPECULOS_SEED));
const P2PKH = (h: string) => hexToBytes(`76a914${h}88ac`);
/** The app's answer to HASH SIGN: DER with R's Y parity in its first byte, then SIGHASH_ALL. */
const derOf = (answer: string) => {
  const b = hexToBytes(answer).subarray(0, -1);
  b[0] = 0x30;
  return b;
};

/** A session of literal APDUs, with `TI<k>` standing for trusted input k and `=>` for the device's answer. */
function literal(lines: readonly (readonly [string, string?])[], tis: readonly Uint8Array[]): Session {
  const s = new Session();
  const sub = (x: string) => x.replace(/TI(\d)/g, (_m, k: string) => bytesToHex(tis[Number(k)]!));
  for (const [command, answer] of lines) s.x(sub(command), answer === undefined ? '9000' : `${sub(answer)}9000`);
  return s;
}

async function runVector(session: Session, tx: ZcashV5Tx, inputs: readonly ZcashDeviceInput[]) {
  const r = replay(session);
  const transport = await r.connector.open();
  const signed = await signZcashInputs(transport, ZEC, tx, inputs);
  r.done();
  return signed;
}

describe("app-zcash's own test vectors", () => {
  it('test_sign_tx_with_v4_nu6_input: a v4 previous transaction, byte for byte; the signature verifies against our ZIP-244 hash', async () => {
    // The previous transaction, as the test streams it (txid 3e5a39fa…d30a, the test's blockchair link).
    const prevRaw = hexToBytes(
      '0400008085202f8901b53e61d09f49b165a21fed754ab228e789193d664cd4ab026ccccaf6b30740ba1e0000006a' +
        '47304402202ffcfd634ae68631af2435b537d33e86a0a38338e3841aecf6d0f54cadef979f0220469c7cd94d52be1183e4f9' +
        '75035388254a4b49a22bee691f8b3d32e65b05167e012102529734fe55e9de06341c90ab8dc11f144ddcfaed136f49edcdb2875bfb0eadb3ffffffff' +
        '0262e52a03000000001976a914c91bd3bb62b6abbb0005ea78613c0c4f11330b4a88ac01ae8700000000001976a9149014582e6407d13434d7dac8bb53e4616356501688ac' +
        '00000000000000000000000000000000000000',
    );
    const prevTxid = '3e5a39fa931ed6266042d7553f68d365cbb5da358fb0cffa0e66a3259ce8d30a';
    const prev = zcashPrevTx(ZEC, prevRaw, prevTxid);
    expect(txidHex(prev)).toBe(prevTxid);
    // The payment the test signs: v5 under NU6 (branch 0xc8e71055), one input, two outputs.
    const tx = v5(
      hexToBytes(
        '050000800a27a7265510e7c8000000000000000001' +
          `${bytesToHex(reverseBytes(hexToBytes(prevTxid)))}000000000000000000` +
          '0280969800000000001976a9147678416cb82a4a716dd1ee6b332744ba2a1f11c488ac30db8e02000000001976a914c628ce8ff6367f0ea6763f1c1d865329af0715ac88ac000000',
      ),
    );
    const ti = trustedInput(prevTxid, 0, 53_142_882n);
    const sig = '31440220488d0fca08431682cd5f10968a72affdd569f61a4a358f73edf05d0fb4a3e1a702204722751bd7d27f999ed714694ad024465d54c288a9cc560559d9594914d92ac501';
    // Every APDU of the test but GET WALLET PUBLIC KEY and the change path (e04aff…), which the desk does not send: its change is the wallet's P2SH.
    const session = literal(
      [
        ['e042000011000000000400008085202f895510e7c801'],
        ['e042800025b53e61d09f49b165a21fed754ab228e789193d664cd4ab026ccccaf6b30740ba1e0000006a'],
        ['e04280003247304402202ffcfd634ae68631af2435b537d33e86a0a38338e3841aecf6d0f54cadef979f0220469c7cd94d52be1183e4f9'],
        ['e04280003275035388254a4b49a22bee691f8b3d32e65b05167e012102529734fe55e9de06341c90ab8dc11f144ddcfaed136f49edcdb2'],
        ['e04280000a875bfb0eadb3ffffffff'],
        ['e04280000102'],
        ['e04280002262e52a03000000001976a914c91bd3bb62b6abbb0005ea78613c0c4f11330b4a88ac'],
        ['e04280002201ae8700000000001976a9149014582e6407d13434d7dac8bb53e4616356501688ac'],
        ['e042800003000000'],
        ['e042800014000000000f000000000000000000000000000000', 'TI0'],
        ['e04400050d050000800a27a7265510e7c801'],
        ['e04480053b0138TI019'],
        ['e04480051d76a914c91bd3bb62b6abbb0005ea78613c0c4f11330b4a88ac00000000'],
        ['e04a0000320280969800000000001976a9147678416cb82a4a716dd1ee6b332744ba2a1f11c488ac30db8e02000000001976a914c628ce'],
        ['e04a8000138ff6367f0ea6763f1c1d865329af0715ac88ac'],
        ['e04800000b0000000000000100000000'],
        ['e04400800d050000800a27a7265510e7c801'],
        ['e04480803b0138TI019'],
        ['e04480801d76a914c91bd3bb62b6abbb0005ea78613c0c4f11330b4a88ac00000000'],
        ['e04800001f058000002c8000008580000004000000000000000000000000000100000000', sig],
      ],
      [ti],
    );
    const script = P2PKH('c91bd3bb62b6abbb0005ea78613c0c4f11330b4a');
    const path = parsePath("m/44'/133'/4'/0/0");
    const [signed] = await runVector(session, tx, [{ index: 0, prevTxid, prev, vout: 0, amount: 53_142_882n, script, sequence: 0, path }]);
    expect(bytesToHex(signed!.signature)).toBe(bytesToHex(derOf(sig)));
    const hash = zip244Sighash(tx, 0, [{ amount: 53_142_882n, scriptPubKey: script }], 0x01);
    expect(verifyDerSignature(hash, speculos.derivePath("m/44'/133'/4'/0/0").publicKey, signed!.signature)).toBe(true);
  });

  // The *_old tests send the first pass's continuation chunks with P2 80 where hw-app-btc (and the
  // test above) send 05: the app reads P2 only on a chunk with P1 00 (src/main.rs), so those lines
  // are the test's with P2 05, and the 4 bytes test_sign_tx_v5_old sends after its inputs
  // (e04480050400000000), which the app skips once the inputs are in, are left out.
  const V5_PREV =
    '050000800a27a726b4d0d6c200000000f9081a000198cd6cd9559cd98109ad0622f899bc38805f11648e4f985ebe344b8238f87b13010000006b48304502210095104ae9d53a95105be4ba5a31caddff2ae83ced24b21ab4aec6d735d568fad102206e054b158047529bb736c810902ea7fc8d92f3f604c1b2a8bb0b92f0e6c016a8012102010a560c7325827df0212bca20f5cf6556b1345991b6b64b469c616e758230a5ffffffff021595dd04000000001976a914ca3ba17907dde979bf4e88f5c1be0ddf0847b25d88aca245117c140000001976a914c8b56e00740e62449a053c15bdd4809f720b5cb588ac000000';

  it('test_sign_tx_v5_old: a v5 previous transaction and the ZIP-244 signature', async () => {
    const prevRaw = hexToBytes(V5_PREV);
    const prevTxid = txidHex(decodeTx(prevRaw, ZEC));
    // The test's payment spends this txid (its TX_BYTES), so our ZIP-244 txid is the app's.
    expect(bytesToHex(reverseBytes(hexToBytes(prevTxid)))).toBe('58854aa4e2e3b82aa2040c0bc3a6dc9b8ac6acb5e15bf0cfeacd09e77249c18a');
    const prev = zcashPrevTx(ZEC, prevRaw, prevTxid);
    const tx = v5(
      hexToBytes(
        '050000800a27a726b4d0d6c2000000000000000001' +
          '58854aa4e2e3b82aa2040c0bc3a6dc9b8ac6acb5e15bf0cfeacd09e77249c18a00000000' +
          '00' + '00000000' +
          '01958ddd04000000001976a91431352ad6f20315d1233d6e6da7ec1d6958f2bf1988ac000000',
      ),
    );
    const ti = trustedInput(prevTxid, 0, 81_630_485n);
    const sig = '304402202b22627d88f9ecebf2ab586ffa970232cddad6eabb3289fa1359b2bc9f5554bc02207cfba5db7c01b89c5d540dcb1ada67d485ab1638c2151eaa78b4d368059c007801';
    const session = literal(
      [
        ['e04200001100000000050000800a27a726b4d0d6c201'],
        ['e04280002598cd6cd9559cd98109ad0622f899bc38805f11648e4f985ebe344b8238f87b13010000006b'],
        ['e04280003248304502210095104ae9d53a95105be4ba5a31caddff2ae83ced24b21ab4aec6d735d568fad102206e054b158047529bb736'],
        ['e042800032c810902ea7fc8d92f3f604c1b2a8bb0b92f0e6c016a8012102010a560c7325827df0212bca20f5cf6556b1345991b6b64b46'],
        ['e04280000b9c616e758230a5ffffffff'],
        ['e04280000102'],
        ['e0428000221595dd04000000001976a914ca3ba17907dde979bf4e88f5c1be0ddf0847b25d88ac'],
        ['e042800022a245117c140000001976a914c8b56e00740e62449a053c15bdd4809f720b5cb588ac'],
        ['e042800003000000'],
        ['e0428000090000000004f9081a00', 'TI0'],
        ['e04400050d050000800a27a726b4d0d6c201'],
        ['e04480053b0138TI019'],
        ['e04480051d76a914ca3ba17907dde979bf4e88f5c1be0ddf0847b25d88ac00000000'],
        ['e04a80002301958ddd04000000001976a91431352ad6f20315d1233d6e6da7ec1d6958f2bf1988ac'],
        ['e04800000b0000000000000100000000'],
        ['e04400800d050000800a27a726b4d0d6c201'],
        ['e04480803b0138TI019'],
        ['e04480801d76a914ca3ba17907dde979bf4e88f5c1be0ddf0847b25d88ac00000000'],
        ['e04800001f058000002c8000008580000000000000000000000200000000000100000000', sig],
      ],
      [ti],
    );
    const script = P2PKH('ca3ba17907dde979bf4e88f5c1be0ddf0847b25d');
    const [signed] = await runVector(session, tx, [{ index: 0, prevTxid, prev, vout: 0, amount: 81_630_485n, script, sequence: 0, path: parsePath("m/44'/133'/0'/0/2") }]);
    const hash = zip244Sighash(tx, 0, [{ amount: 81_630_485n, scriptPubKey: script }], 0x01);
    expect(verifyDerSignature(hash, speculos.derivePath("m/44'/133'/0'/0/2").publicKey, signed!.signature)).toBe(true);
    // The app signs deterministically (RFC 6979): our own signature over our hash is the app's, byte for byte.
    expect(bytesToHex(signDer(hash, speculos.derivePath("m/44'/133'/0'/0/2").privateKey!))).toBe(bytesToHex(derOf(sig)));
  });

  it('test_sign_tx_v5_mult_inputs_old: three inputs, a second pass and a signature each, every one over its own ZIP-244 hash', async () => {
    const head = '050000800a27a726b4d0d6c2000000000000000001';
    const tail = '000000001976a914effcdc2e850d1c35fa25029ddbfad5928c9d702f88ac000000';
    const prevRaws = [
      `${head}7acad6b8eec3158ecee566c0f08ff721d94d44b0cf66ee220ad4f9d1692d2ab5000000006a47304402200d6900cafe4189b9dfebaa965584f39e07cf6086ed5a97c84a5a76035dddcf7302206263c8b7202227e0ab33dd263e04f7a4384d34daa9279bfdebb03bf4b62123590121023e7c3ab4b4a42466f2c72c79afd426a0714fed74f884cd11abb4d76a72fa4a690000000001957edd04${tail}`,
      `${head}58b3391f27adce90eb8e0ae7e082449204c6d5c3843378e538c8770928d49ca3000000006b48304502210093d8c71d5cbb31d5f76090b332f66fc1fb2451c97575918a9376b803eca7c63f02207e238a6a437b8724431eda7ac9ef4dccef15c63b00f6f5fcde17f1398e254c77012103d12cb12682e34df4d936479f282c75834d612071fc2ccd26a3b7589c3f9917cb00000000010a1c1b00${tail}`,
      `${head}b5026481bfd3417f4a179e2094a944a60aaad5b2726544ca1a2c920fb65c9401000000006b483045022100959e27972de3908493b0ce7041734289a724cb0b5d8a2955de3fe3e953f77a2c0220162c40dcefeb9e30a88d043c3f20ca17423e6ad212cbf981e2bad05cbd10c7e5012102e8b6d05d227349a7bc993a7d3d6d019207c471209363e994e99d25e70b43f97a0000000001889a2d00${tail}`,
    ].map((h) => hexToBytes(h));
    const amounts = [81_624_725n, 1_776_650n, 2_988_680n];
    const txids = prevRaws.map((raw) => txidHex(decodeTx(raw, ZEC)));
    const tx = v5(
      hexToBytes(
        `050000800a27a726b4d0d6c2000000000000000003${txids.map((t) => `${bytesToHex(reverseBytes(hexToBytes(t)))}000000000000000000`).join('')}` +
          '0117222605000000001976a9147340a80cad7353cff25bad918e73837c2e2863eb88ac000000',
      ),
    );
    const tis = txids.map((t, k) => trustedInput(t, 0, amounts[k]!, 0xa0 + k));
    const sigs = [
      '31440220489d5ffa46530ec64ae523be7559058fab452a2c8d03215179f33ed63e69fa0c02201b3301c4dd20dc318e49e9d0ed6a7e9433ddda6f5755834c7064d7ff332d057a01',
      '304502210090836743d963b93ee1974f764fda3e1a0f4b1662805b894bc6c4b5dd66b5d00e02203c356c71247050269150b4a8e62d0c04845dec5324308e50a6c06e0a44282c2901',
      '3145022100a4cc9821cf530a179cf2bcf767644ff62e0b0cf79a5701101914be6c215b0bcc02202d2ac5ef2289caa7fafc94ce38b2e46baf5987b86193e0251f4cf2585c174ccd01',
    ];
    const spk = 'e04480051d76a914effcdc2e850d1c35fa25029ddbfad5928c9d702f88ac00000000';
    const session = literal(
      [
        ['e04200001100000000050000800a27a726b4d0d6c201'],
        ['e0428000257acad6b8eec3158ecee566c0f08ff721d94d44b0cf66ee220ad4f9d1692d2ab5000000006a'],
        ['e04280003247304402200d6900cafe4189b9dfebaa965584f39e07cf6086ed5a97c84a5a76035dddcf7302206263c8b7202227e0ab33dd'],
        ['e042800032263e04f7a4384d34daa9279bfdebb03bf4b62123590121023e7c3ab4b4a42466f2c72c79afd426a0714fed74f884cd11abb4'],
        ['e04280000ad76a72fa4a6900000000'],
        ['e04280000101'],
        ['e042800022957edd04000000001976a914effcdc2e850d1c35fa25029ddbfad5928c9d702f88ac'],
        ['e042800003000000'],
        ['e042800009000000000400000000', 'TI0'],
        ['e04200001100000000050000800a27a726b4d0d6c201'],
        ['e04280002558b3391f27adce90eb8e0ae7e082449204c6d5c3843378e538c8770928d49ca3000000006b'],
        ['e04280003248304502210093d8c71d5cbb31d5f76090b332f66fc1fb2451c97575918a9376b803eca7c63f02207e238a6a437b8724431e'],
        ['e042800032da7ac9ef4dccef15c63b00f6f5fcde17f1398e254c77012103d12cb12682e34df4d936479f282c75834d612071fc2ccd26a3'],
        ['e04280000bb7589c3f9917cb00000000'],
        ['e04280000101'],
        ['e0428000220a1c1b00000000001976a914effcdc2e850d1c35fa25029ddbfad5928c9d702f88ac'],
        ['e042800003000000'],
        ['e042800009000000000400000000', 'TI1'],
        ['e04200001100000000050000800a27a726b4d0d6c201'],
        ['e042800025b5026481bfd3417f4a179e2094a944a60aaad5b2726544ca1a2c920fb65c9401000000006b'],
        ['e042800032483045022100959e27972de3908493b0ce7041734289a724cb0b5d8a2955de3fe3e953f77a2c0220162c40dcefeb9e30a88d'],
        ['e042800032043c3f20ca17423e6ad212cbf981e2bad05cbd10c7e5012102e8b6d05d227349a7bc993a7d3d6d019207c471209363e994e9'],
        ['e04280000b9d25e70b43f97a00000000'],
        ['e04280000101'],
        ['e042800022889a2d00000000001976a914effcdc2e850d1c35fa25029ddbfad5928c9d702f88ac'],
        ['e042800003000000'],
        ['e042800009000000000400000000', 'TI2'],
        ['e04400050d050000800a27a726b4d0d6c203'],
        ['e04480053b0138TI019'],
        [spk],
        ['e04480053b0138TI119'],
        [spk],
        ['e04480053b0138TI219'],
        [spk],
        ['e04a8000230117222605000000001976a9147340a80cad7353cff25bad918e73837c2e2863eb88ac'],
        ['e04800000b0000000000000100000000'],
        ...[0, 1, 2].flatMap((k): [string, string?][] => [
          ['e04400800d050000800a27a726b4d0d6c201'],
          [`e04480803b0138TI${k}19`],
          ['e04480801d76a914effcdc2e850d1c35fa25029ddbfad5928c9d702f88ac00000000'],
          ['e04800001f058000002c8000008580000002000000000000000200000000000100000000', sigs[k]!],
        ]),
      ],
      tis,
    );
    const script = P2PKH('effcdc2e850d1c35fa25029ddbfad5928c9d702f');
    const path = parsePath("m/44'/133'/2'/0/2");
    const inputs = prevRaws.map((raw, k): ZcashDeviceInput => ({ index: k, prevTxid: txids[k]!, prev: zcashPrevTx(ZEC, raw, txids[k]!), vout: 0, amount: amounts[k]!, script, sequence: 0, path }));
    const signed = await runVector(session, tx, inputs);
    const prevouts = amounts.map((amount) => ({ amount, scriptPubKey: script }));
    const pub = speculos.derivePath("m/44'/133'/2'/0/2").publicKey;
    signed.forEach((s, k) => {
      expect(s.inputIndex).toBe(k);
      expect(bytesToHex(s.signature)).toBe(bytesToHex(derOf(sigs[k]!)));
      expect(verifyDerSignature(zip244Sighash(tx, k, prevouts, 0x01), pub, s.signature)).toBe(true);
    });
  });
});

// ---- hw-app-btc, as Ledger Live drives the same app, for the parts the vectors above do not reach --

/** A transport that records each APDU (as Transport.send frames it) and answers with `answer`. */
function recorder(answer: (ins: number) => Uint8Array) {
  const sent: string[] = [];
  const transport = {
    send: (cla: number, ins: number, p1: number, p2: number, data: Buffer = Buffer.alloc(0)) => {
      sent.push(apdu(cla, ins, p1, p2, data));
      return Promise.resolve(Buffer.concat([Buffer.from(answer(ins)), Buffer.from([0x90, 0x00])]));
    },
  };
  return { sent, transport: transport as unknown as Transport };
}
type BtcTransport = Parameters<typeof getTrustedInput>[0];

describe('the same APDUs as hw-app-btc', () => {
  it('GET TRUSTED INPUT of a v5 transaction with Sapling spends and outputs and Orchard actions (compact, memo and non-compact parts)', async () => {
    const fill = (n: number, b: number) => new Uint8Array(n).fill(b);
    const prevTx: ZcashV5Tx = {
      format: 'zcash-v5',
      version: 5,
      versionGroupId: 0x26a7270a,
      consensusBranchId: 0xc8e71055,
      locktime: 7,
      expiryHeight: 2_800_123,
      inputs: [],
      outputs: [
        { value: 1_000n, script: P2PKH('11'.repeat(20)) },
        { value: 123_456n, script: p2shScript(fill(20, 0x22)) },
      ],
      sapling: {
        valueBalance: -5_000n,
        spends: [1, 2].map((k) => ({ cv: fill(32, k), anchor: fill(32, 0x33), nullifier: fill(32, k + 2), rk: fill(32, k + 4), zkproof: fill(192, 9), spendAuthSig: fill(64, 8) })),
        outputs: [{ cv: fill(32, 0x41), cmu: fill(32, 0x42), ephemeralKey: fill(32, 0x43), encCiphertext: Uint8Array.from({ length: 580 }, (_, i) => i & 0xff), outCiphertext: fill(80, 0x44), zkproof: fill(192, 0x45) }],
        bindingSig: fill(64, 0x46),
      },
      orchard: {
        actions: [1, 2].map((k) => ({ cv: fill(32, 0x50 + k), nullifier: fill(32, 0x52 + k), rk: fill(32, 0x54 + k), cmx: fill(32, 0x56 + k), ephemeralKey: fill(32, 0x58 + k), encCiphertext: Uint8Array.from({ length: 580 }, (_, i) => (i * k) & 0xff), outCiphertext: fill(80, 0x5a + k), spendAuthSig: fill(64, 0x5c) })),
        flags: 3,
        valueBalance: 4_000n,
        anchor: fill(32, 0x5d),
        proof: fill(300, 0x5e),
        bindingSig: fill(64, 0x5f),
      },
    };
    const raw = encodeTx(prevTx);
    const txid = txidHex(prevTx);
    const ti = trustedInput(txid, 1, 123_456n);
    const theirs = recorder(() => ti);
    const split = splitTransaction(bytesToHex(raw), false, true, ['zcash', 'sapling']);
    split.consensusBranchId = Buffer.from(u32le(prevTx.consensusBranchId));
    expect(await getTrustedInput(theirs.transport as unknown as BtcTransport, 1, split, ['zcash', 'sapling'])).toBe(bytesToHex(ti));
    const ours = trustedInputChunks(zcashPrevTx(ZEC, raw, txid), 1, 0x37a5165b).map((c, k) => apdu(0xe0, 0x42, k === 0 ? 0x00 : 0x80, 0x00, c));
    expect(ours).toEqual(theirs.sent);
    expect(ours.length).toBeGreaterThan(20);
  });

  it("a P2SH input: createTransaction's exchange when given the P2SH scriptPubKey (no redeem script), but its GET WALLET PUBLIC KEY", async () => {
    const f = ledgerFixture('zcash', 'mainnet');
    const tx = f.unsignedTx as ZcashV5Tx;
    // hw-app-btc picks the branch id from a block height; none given is the newest, the fixture's too.
    expect(tx.consensusBranchId).toBe(0x37a5165b);
    const ti = trustedInput(f.prevTxid, 1, 100_000n);
    const account = f.device.derivePath("m/44'/133'/0'/0/0");
    const sig = concatBytes(signDer(f.hash, account.privateKey!), u8(0x01));
    const answer = (ins: number) =>
      ins === 0x42 ? ti : ins === 0x48 ? sig : ins === 0x40 ? concatBytes(u8(65), ecc.pointCompress(account.publicKey, false), u8(3), ascii('t1x'), account.chainCode) : new Uint8Array(0);
    const theirs = recorder(answer);
    await createTransaction(theirs.transport as unknown as BtcTransport, {
      inputs: [[splitTransaction(bytesToHex(f.prevTx), false, true, ['zcash', 'sapling']), 1, null, 0xffffffff]],
      associatedKeysets: ["44'/133'/0'/0/0"],
      outputScriptHex: bytesToHex(serializeOutputs(tx.outputs)),
      lockTime: 0,
      sigHashType: 0x01,
      segwit: false,
      additionals: ['zcash', 'sapling'],
      expiryHeight: Buffer.alloc(4),
      useTrustedInputForSegwit: true,
    });
    const ours = recorder(answer);
    const prev = zcashPrevTx(ZEC, f.prevTx, f.prevTxid);
    const signed = await signZcashInputs(ours.transport, ZEC, tx, [
      { index: 0, prevTxid: f.prevTxid, prev, vout: 1, amount: 100_000n, script: p2shScript(hash160(f.redeemScript)), sequence: 0xffffffff, path: parsePath("m/44'/133'/0'/0/0") },
    ]);
    expect(ours.sent).toEqual(theirs.sent.filter((c) => !c.startsWith('e040')));
    expect(verifyDerSignature(f.hash, account.publicKey, signed[0]!.signature)).toBe(true);
  });
});
