// The PSBT codec against bitcoinjs-lib as an independent implementation of BIP174, plus every
// refusal of a malformed file.
import { BIP32Factory } from 'bip32';
import { Psbt, Transaction, payments } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { bytesToHex, decodeTx, encodeTx, hexToBytes, sha256 } from '../coins/index.ts';
import { GLOBAL, INPUT, decodePsbt, encodePsbt, looksLikePsbt, outputOfRaw, psbtFromBase64, psbtToBase64, txidOfRaw } from './psbt.ts';
import { buildMultisigPsbt, decodeKeyOrigin, psbtSignatures } from './psbt-multisig.ts';

const bip32 = BIP32Factory(ecc);
const HARD = 0x80000000;
const roots = ['a', 'b', 'c'].map((s) => bip32.fromSeed(sha256(new TextEncoder().encode(`psbt test ${s}`))));
const accounts = roots.map((r) => r.derivePath("m/45'/0'"));
const keysAt = (i: number) => accounts.map((a) => a.derive(0).derive(i).publicKey);
const redeem = (i: number) => payments.p2ms({ m: 2, pubkeys: keysAt(i) }).output!;
const p2sh = (i: number) => payments.p2sh({ redeem: { output: redeem(i) } }).output!;

/** A funding transaction paying two of the wallet's addresses, and a payment spending both. */
function fixture() {
  const funding = new Transaction();
  funding.version = 2;
  funding.addInput(new Uint8Array(32).fill(1), 0);
  funding.addOutput(p2sh(0), 150_000n);
  funding.addOutput(p2sh(1), 70_000n);
  const payment = new Transaction();
  payment.version = 1;
  payment.addInput(funding.getHash(), 0, 0xffffffff, redeem(0));
  payment.addInput(funding.getHash(), 1, 0xffffffff, redeem(1));
  payment.addOutput(payments.p2pkh({ pubkey: roots[0]!.publicKey }).output!, 200_000n);
  payment.addOutput(p2sh(2), 10_000n);
  return { funding: funding.toBuffer(), tx: decodeTx(payment.toBuffer()) };
}

const derivationsAt = (i: number) =>
  keysAt(i).map((publicKey, k) => ({ publicKey, origin: { fingerprint: bytesToHex(roots[k]!.fingerprint), path: [45 + HARD, HARD, 0, i] } }));

function ours() {
  const { funding, tx } = fixture();
  return buildMultisigPsbt(
    tx,
    [0, 1].map((i) => ({ prevTx: funding, redeemScript: redeem(i), derivations: derivationsAt(i) })),
    [{}, { redeemScript: redeem(2), derivations: derivationsAt(2) }],
    accounts.map((a, k) => ({ xpub: decodeXpub(a.neutered().toBase58()), origin: { fingerprint: bytesToHex(roots[k]!.fingerprint), path: [45 + HARD, HARD] } })),
  );
}

function decodeXpub(x: string): Uint8Array {
  // The 78 serialized bytes: bip32's own serializer, minus the base58check wrapping.
  const node = bip32.fromBase58(x);
  const out = new Uint8Array(78);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x0488b21e);
  out[4] = node.depth;
  view.setUint32(5, node.parentFingerprint);
  view.setUint32(9, node.index);
  out.set(node.chainCode, 13);
  out.set(node.publicKey, 45);
  return out;
}

describe('PSBT codec', () => {
  it('writes what bitcoinjs-lib reads: previous transactions, redeem scripts, key origins, global xpubs', () => {
    const base64 = psbtToBase64(ours());
    expect(looksLikePsbt(base64)).toBe(true);
    const theirs = Psbt.fromBase64(base64);
    expect(theirs.txInputs).toHaveLength(2);
    expect(theirs.data.inputs.map((i) => bytesToHex(i.redeemScript!))).toEqual([0, 1].map((i) => bytesToHex(redeem(i))));
    expect(theirs.data.inputs[1]!.bip32Derivation!.map((d) => d.path)).toEqual(["m/45'/0'/0/1", "m/45'/0'/0/1", "m/45'/0'/0/1"]);
    expect(theirs.data.outputs[1]!.bip32Derivation).toHaveLength(3);
    expect(theirs.data.globalMap.globalXpub!.map((x) => x.path)).toEqual(["m/45'/0'", "m/45'/0'", "m/45'/0'"]);
    // bitcoinjs-lib signs with the HD keys through our derivation entries; we read its signatures.
    theirs.signAllInputsHD(roots[1]!);
    const back = psbtFromBase64(theirs.toBase64());
    const sigs = psbtSignatures(back, [redeem(0), redeem(1)]);
    expect(sigs.partial.map((s) => [s.inputIndex, bytesToHex(s.publicKey), s.hashType])).toEqual([
      [0, bytesToHex(keysAt(0)[1]!), 1],
      [1, bytesToHex(keysAt(1)[1]!), 1],
    ]);
    expect(theirs.validateSignaturesOfAllInputs((pub, hash, sig) => ecc.verify(hash, pub, sig))).toBe(true);
  });

  it('reads what bitcoinjs-lib writes, byte for byte, unknown keys included', () => {
    const theirs = Psbt.fromBase64(psbtToBase64(ours()));
    theirs.addUnknownKeyValToInput(0, { key: Uint8Array.of(0xfc, 0x05, 0x61, 0x62), value: Uint8Array.of(1, 2, 3) });
    theirs.addUnknownKeyValToGlobal({ key: Uint8Array.of(0x77), value: Uint8Array.of(9) });
    theirs.signAllInputsHD(roots[0]!);
    theirs.signAllInputsHD(roots[2]!);
    const bytes = theirs.toBuffer();
    const decoded = decodePsbt(bytes);
    expect(bytesToHex(encodePsbt(decoded))).toBe(bytesToHex(bytes));
    expect(decoded.inputs[0]!.find((e) => e.type === 0xfc)).toBeDefined();
    // A finalized PSBT: the signatures move to FINAL_SCRIPTSIG; we still find them.
    theirs.finalizeAllInputs();
    const final = psbtSignatures(psbtFromBase64(theirs.toBase64()), [redeem(0), redeem(1)]);
    expect(final.partial).toHaveLength(0);
    expect(final.final.map((s) => s.inputIndex)).toEqual([0, 0, 1, 1]);
    expect(() => psbtSignatures(psbtFromBase64(theirs.toBase64()), [redeem(1), redeem(0)])).toThrow(/is not OP_0 <signatures> <the wallet's redeem script>/);
  });

  it('origins and txids', () => {
    expect(decodeKeyOrigin(Uint8Array.of(0xde, 0xad, 0xbe, 0xef, 45, 0, 0, 0x80, 1, 0, 0, 0))).toEqual({ fingerprint: 'deadbeef', path: [45 + HARD, 1] });
    const { funding, tx } = fixture();
    expect(bytesToHex(txidOfRaw(funding))).toBe(bytesToHex(tx.inputs[0]!.prevTxid));
  });

  it('carries a Dash special transaction (DIP2) as a previous transaction, which bitcoinjs-lib refuses (why psbt.ts is ours)', () => {
    // A ProUpServTx from Dash's documentation (shared/coins/tx-dash.test.ts): a payload follows the lock time.
    const dip2 = hexToBytes(
      '0300020001f88750ccc24410679d87ee63df5c8dfd901329aa1fe60a74c183d560eee5218d010000006a473044022029090e49ba2e387e7b39df51fdd6ec1becdd568cdd0de79f5dca6084bee677380220583bb62418aa986d927b4487d6a7f0469c4bc54a0e7baa0c484e8c140c37b3d301210345184cc81d6cd98eef548206f23a1467c27fea65582d519daa0f7a88a6c45666feffffff01e7edd23b000000001976a9147f95c0f808aff27883260bfaf9cfe2b84519a6b288ac00000000b702000000ff92ce2d64657cc3d4d9d82547efca2206ec1d9f5dcf2776624bc0a58b12ed3b00000000000000000000ffffae22e9734e1f0026ad5ada35511fc5b9d762b14b22510325ef8b82d21d59567f8e1c3c9e0c955ab99a62829e6317b1943d97f66191b1c6714146540788e2d26a1007498dce455603f55aebacf1a38131048abf7d5a05d00e9e93c1e91cc8cad239b4301b328f5fe1bcbae829ccd6a3f461e712873a188224829fc4b5fc01fa0fb29014b947d8f7',
    );
    const txid = sha256(sha256(dip2));
    const payment = new Transaction();
    payment.version = 3;
    payment.addInput(txid, 0, 0xffffffff);
    payment.addOutput(p2sh(2), 1_000_000_000n);
    const psbt = buildMultisigPsbt(decodeTx(payment.toBuffer()), [{ prevTx: dip2, redeemScript: redeem(0), derivations: derivationsAt(0) }], [{}]);
    const back = psbtFromBase64(psbtToBase64(psbt));
    const prev = back.inputs[0]!.find((e) => e.type === INPUT.NON_WITNESS_UTXO)!.value;
    expect(outputOfRaw(prev, 0)?.value).toBe(1_003_679_207n);
    expect(() => new Psbt().addInput({ hash: txid, index: 0, nonWitnessUtxo: dip2 })).toThrow(/unexpected data/);
  });

  describe('refuses malformed PSBTs, saying why', () => {
    const good = () => ours();
    const cases: [string, () => string, RegExp][] = [
      ['empty', () => '  ', /the file is empty/],
      ['not base64', () => 'cHNidP8!!', /not base64/],
      ['no magic', () => Buffer.from('psbu\xff').toString('base64'), /PSBT magic bytes/],
      ['cut off', () => Buffer.from(encodePsbt(good()).subarray(0, 100)).toString('base64'), /truncated/],
      ['trailing bytes', () => Buffer.from([...encodePsbt(good()), 0x00]).toString('base64'), /follow the last output map/],
      ['duplicate key', () => { const p = good(); p.inputs[0]!.push(p.inputs[0]![1]!); return psbtToBase64(p); }, /map of input 0 has the key 04 twice/],
      ['no unsigned tx', () => { const p = good(); p.global = p.global.filter((e) => e.type !== GLOBAL.UNSIGNED_TX); return psbtToBase64(p); }, /no unsigned transaction/],
      ['version 2', () => { const p = good(); p.global.push({ type: GLOBAL.VERSION, keyData: new Uint8Array(0), value: Uint8Array.of(2, 0, 0, 0) }); return psbtToBase64(p); }, /PSBT version 2 is not supported/],
      ['a v2 field', () => { const p = good(); p.inputs[0]!.push({ type: 0x0e, keyData: new Uint8Array(0), value: new Uint8Array(32) }); return psbtToBase64(p); }, /PSBT version 2 field/],
      ['input script not empty', () => {
        const p = good();
        const tx = decodeTx(p.global[0]!.value);
        tx.inputs[0]!.scriptSig = redeem(0);
        p.global[0] = { ...p.global[0]!, value: encodeTx(tx) };
        return psbtToBase64(p);
      }, /input 0 of its unsigned transaction has a script/],
      ['wrong previous transaction', () => {
        const p = good();
        p.inputs[1] = p.inputs[1]!.map((e) => (e.type === INPUT.NON_WITNESS_UTXO ? { ...e, value: Uint8Array.of(...e.value.subarray(0, -1), 1) } : e));
        return psbtToBase64(p);
      }, /input 1: its previous transaction is not/],
      ['partial signature keyed by no public key', () => { const p = good(); p.inputs[0]!.push({ type: INPUT.PARTIAL_SIG, keyData: new Uint8Array(20), value: new Uint8Array(70) }); return psbtToBase64(p); }, /its key is not a public key/],
      ['bad key origin', () => { const p = good(); p.inputs[0]![2] = { ...p.inputs[0]![2]!, value: Uint8Array.of(1, 2, 3) }; return psbtToBase64(p); }, /a key origin must be a 4-byte fingerprint/],
    ];
    it.each(cases)('%s', (_, make, message) => {
      expect(() => psbtFromBase64(make())).toThrow(message);
    });
  });
});
