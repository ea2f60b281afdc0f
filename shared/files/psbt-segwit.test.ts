// Segwit multisig PSBTs (P2WSH and P2SH-P2WSH, 2-of-3) with bitcoinjs-lib as the peer wallet
// (Sparrow, Caravan, a hardware wallet): it reads and signs ours, we read, verify and finalize
// its; and every refusal names the input and says why.
import { BIP32Factory, type BIP32Interface } from 'bip32';
import { Psbt, Transaction, payments } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import {
  bytesToHex,
  chainParams,
  decodeTx,
  encodeTx,
  multisigInputHash,
  multisigScripts,
  sha256,
  signDer,
  type ChainParams,
  type MultisigInputSpend,
  type MultisigScriptType,
} from '../coins/index.ts';
import { PaymentCheckError } from './errors.ts';
import { INPUT, OUTPUT, decodeWitnessUtxo, encodePsbt, encodeWitnessUtxo, psbtFromBase64, psbtToBase64, type DecodedPsbt, type Psbt as OurPsbt } from './psbt.ts';
import { finalizeMultisigPsbt, psbtMultisigSpends, verifyPsbtSignatures } from './psbt-finalize.ts';
import { buildMultisigPsbt, psbtSignatures, type KeyDerivation } from './psbt-multisig.ts';

const bip32 = BIP32Factory(ecc);
const HARD = 0x80000000;
const params = chainParams('bitcoin', 'mainnet');
const roots = ['a', 'b', 'c', 'dave'].map((s) => bip32.fromSeed(sha256(new TextEncoder().encode(`psbt segwit ${s}`))));
const [alice, bob, carol, dave] = roots as [BIP32Interface, BIP32Interface, BIP32Interface, BIP32Interface];
const ACCOUNT = [48 + HARD, HARD, HARD, 2 + HARD];
const account = (r: BIP32Interface) => r.derivePath("m/48'/0'/0'/2'");
const keyAt = (r: BIP32Interface, i: number) => account(r).derive(0).derive(i);
const keysAt = (i: number) => [alice, bob, carol].map((r) => keyAt(r, i).publicKey);
const scriptsAt = (i: number, scriptType: MultisigScriptType) => multisigScripts(params, 2, keysAt(i), { scriptType });
const derivationsAt = (i: number): KeyDerivation[] =>
  keysAt(i).map((publicKey, k) => ({ publicKey, origin: { fingerprint: bytesToHex([alice, bob, carol][k]!.fingerprint), path: [...ACCOUNT, 0, i] } }));

const AMOUNTS = [150_000n, 70_000n];
const TYPES: MultisigScriptType[] = ['p2wsh', 'p2sh-p2wsh'];

/** A funding transaction (with a witness, as a real one has) paying a P2WSH and a P2SH-P2WSH address; a payment spending both with change. */
function fixture() {
  const funding = new Transaction();
  funding.version = 2;
  funding.addInput(new Uint8Array(32).fill(1), 0);
  funding.setWitness(0, [new Uint8Array(71).fill(2), keysAt(9)[0]!]);
  TYPES.forEach((t, i) => funding.addOutput(scriptsAt(i, t).scriptPubKey, AMOUNTS[i]!));
  const payment = new Transaction();
  payment.version = 2;
  payment.addInput(funding.getHash(), 0, 0xfffffffd);
  payment.addInput(funding.getHash(), 1, 0xfffffffd);
  payment.addOutput(payments.p2wpkh({ pubkey: dave.publicKey }).output!, 200_000n);
  payment.addOutput(scriptsAt(2, 'p2wsh').scriptPubKey, 19_000n);
  return { funding: funding.toBuffer(), tx: decodeTx(payment.toBuffer()) };
}

function ours(): OurPsbt {
  const { funding, tx } = fixture();
  const inputs = TYPES.map((t, i) => {
    const s = scriptsAt(i, t);
    return { prevTx: funding, ...(s.redeemScript ? { redeemScript: s.redeemScript } : {}), witnessScript: s.witnessScript!, derivations: derivationsAt(i) };
  });
  const xpubs = [alice, bob, carol].map((r) => ({ xpub: xpubBytes(account(r)), origin: { fingerprint: bytesToHex(r.fingerprint), path: ACCOUNT } }));
  return buildMultisigPsbt(tx, inputs, [{}, { witnessScript: scriptsAt(2, 'p2wsh').witnessScript!, derivations: derivationsAt(2) }], xpubs);
}

function xpubBytes(node: BIP32Interface): Uint8Array {
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

/** Signed by the peer wallet: bitcoinjs-lib finds its keys through our BIP32_DERIVATION entries. */
const signedBy = (base64: string, signers: BIP32Interface[]) => {
  const psbt = Psbt.fromBase64(base64);
  for (const s of signers) psbt.signAllInputsHD(s);
  return psbt;
};
const spendsOf = (): MultisigInputSpend[] => TYPES.map((t, i) => ({ scriptType: t, multisigScript: scriptsAt(i, t).multisigScript, amount: AMOUNTS[i]!, scriptPubKey: scriptsAt(i, t).scriptPubKey }));
const withEntry = (psbt: DecodedPsbt, input: number, type: number, keyData: Uint8Array, value: Uint8Array): DecodedPsbt => {
  const copy = { ...psbt, inputs: psbt.inputs.map((m) => [...m]) };
  copy.inputs[input]!.push({ type, keyData, value });
  return copy;
};
const replaced = (psbt: OurPsbt, input: number, type: number, value: Uint8Array): string =>
  psbtToBase64({ ...psbt, inputs: psbt.inputs.map((m, i) => (i === input ? m.map((e) => (e.type === type ? { ...e, value } : e)) : m)) });
const code = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    if (err instanceof PaymentCheckError) return `${err.code}: ${err.message}`;
    throw err;
  }
  return 'no error';
};

describe('segwit multisig PSBTs with bitcoinjs-lib as the peer wallet', () => {
  it('writes both UTXO forms, scripts and key origins that bitcoinjs-lib reads; change is marked', () => {
    const { funding } = fixture();
    const theirs = Psbt.fromBase64(psbtToBase64(ours()));
    const inputs = theirs.data.inputs;
    expect(inputs.every((i) => i.nonWitnessUtxo && i.witnessUtxo && i.witnessScript && i.bip32Derivation?.length === 3)).toBe(true);
    expect(bytesToHex(inputs[0]!.nonWitnessUtxo!)).toBe(bytesToHex(funding)); // as given: a signer may want the witness too
    expect(inputs.map((i) => i.witnessUtxo!.value)).toEqual(AMOUNTS);
    // The scripts, from bitcoinjs-lib's own payments: an independent check of ours.
    const ws = TYPES.map((t, i) => scriptsAt(i, t).witnessScript!);
    expect(bytesToHex(inputs[0]!.witnessUtxo!.script)).toBe(bytesToHex(payments.p2wsh({ redeem: { output: ws[0]! } }).output!));
    expect(bytesToHex(inputs[1]!.witnessUtxo!.script)).toBe(bytesToHex(payments.p2sh({ redeem: payments.p2wsh({ redeem: { output: ws[1]! } }) }).output!));
    expect(inputs[0]!.redeemScript).toBeUndefined();
    expect(bytesToHex(inputs[1]!.redeemScript!)).toBe(bytesToHex(payments.p2wsh({ redeem: { output: ws[1]! } }).output!));
    expect(inputs[1]!.bip32Derivation!.map((d) => d.path)).toEqual(Array(3).fill("m/48'/0'/0'/2'/0/1"));
    expect(theirs.data.outputs[1]!.witnessScript).toBeDefined();
    expect(theirs.data.outputs[1]!.bip32Derivation).toHaveLength(3);
    expect(theirs.data.outputs[0]).toEqual({});
    expect(theirs.data.globalMap.globalXpub).toHaveLength(3);
    // Entry order, so a re-export is byte-stable: NON_WITNESS_UTXO, WITNESS_UTXO, REDEEM_SCRIPT (nested), WITNESS_SCRIPT, derivations.
    expect(ours().inputs.map((m) => m.map((e) => e.type))).toEqual([
      [INPUT.NON_WITNESS_UTXO, INPUT.WITNESS_UTXO, INPUT.WITNESS_SCRIPT, 6, 6, 6],
      [INPUT.NON_WITNESS_UTXO, INPUT.WITNESS_UTXO, INPUT.REDEEM_SCRIPT, INPUT.WITNESS_SCRIPT, 6, 6, 6],
    ]);
    expect(ours().outputs[1]!.map((e) => e.type)).toEqual([OUTPUT.WITNESS_SCRIPT, 2, 2, 2]);
  });

  it('bitcoinjs-lib signs ours with two keys; we verify against BIP143 and finalize to its very transaction', () => {
    const theirs = signedBy(psbtToBase64(ours()), [alice, carol]);
    expect(theirs.validateSignaturesOfAllInputs((pub, hash, sig) => ecc.verify(hash, pub, sig))).toBe(true);
    const back = psbtFromBase64(theirs.toBase64());
    const spends = psbtMultisigSpends(params, back, spendsOf());
    expect(spends.map((s) => [s.scriptType, s.amount])).toEqual([['p2wsh', 150_000n], ['p2sh-p2wsh', 70_000n]]);
    const sigs = verifyPsbtSignatures(params, back, spends);
    expect(sigs.map((s) => `${s.inputIndex}:${bytesToHex(s.publicKey)}`).sort()).toEqual([0, 1].flatMap((i) => [`${i}:${bytesToHex(keysAt(i)[0]!)}`, `${i}:${bytesToHex(keysAt(i)[2]!)}`]).sort());
    const signed = finalizeMultisigPsbt(params, back, spendsOf());
    theirs.finalizeAllInputs();
    expect(bytesToHex(encodeTx(signed))).toBe(theirs.extractTransaction().toHex());
    expect(bytesToHex(signed.inputs[1]!.scriptSig)).toBe(`22${bytesToHex(scriptsAt(1, 'p2sh-p2wsh').redeemScript!)}`);
    expect(signed.inputs[0]!.witness).toHaveLength(4);
  });

  it('takes the signatures of inputs bitcoinjs-lib already finalized (FINAL_SCRIPTWITNESS), and of two files', () => {
    const one = signedBy(psbtToBase64(ours()), [bob]);
    const two = signedBy(psbtToBase64(ours()), [carol]);
    one.combine(two);
    one.finalizeAllInputs();
    const back = psbtFromBase64(one.toBase64());
    const found = psbtSignatures(back, TYPES.map((t, i) => scriptsAt(i, t).multisigScript));
    expect(found.partial).toHaveLength(0);
    expect(found.final.map((s) => s.inputIndex)).toEqual([0, 0, 1, 1]);
    const sigs = verifyPsbtSignatures(params, back, psbtMultisigSpends(params, back));
    expect(sigs.map((s) => bytesToHex(s.publicKey))).toEqual([0, 1].flatMap((i) => [bytesToHex(keysAt(i)[1]!), bytesToHex(keysAt(i)[2]!)]));
    expect(bytesToHex(encodeTx(finalizeMultisigPsbt(params, back)))).toBe(one.extractTransaction().toHex());
    expect(() => psbtSignatures(back, [scriptsAt(5, 'p2wsh').multisigScript, scriptsAt(1, 'p2wsh').multisigScript])).toThrow(
      /input 0's final witness is not <empty> <signatures> <the wallet's witness script>/,
    );
  });

  it('reads a PSBT bitcoinjs-lib made for the same payment, and finalizes it once signed', () => {
    const { funding, tx } = fixture();
    const theirs = new Psbt();
    theirs.setVersion(2);
    TYPES.forEach((t, i) => {
      const s = scriptsAt(i, t);
      theirs.addInput({
        hash: tx.inputs[i]!.prevTxid.slice().reverse(),
        index: i,
        sequence: 0xfffffffd,
        nonWitnessUtxo: funding,
        witnessUtxo: { script: s.scriptPubKey, value: AMOUNTS[i]! },
        witnessScript: s.witnessScript!,
        ...(s.redeemScript ? { redeemScript: s.redeemScript } : {}),
        bip32Derivation: derivationsAt(i).map((d, k) => ({ pubkey: d.publicKey, masterFingerprint: [alice, bob, carol][k]!.fingerprint, path: `m/48'/0'/0'/2'/0/${i}` })),
      });
    });
    tx.outputs.forEach((o) => theirs.addOutput({ script: o.script, value: o.value }));
    const read = psbtFromBase64(theirs.toBase64());
    expect(bytesToHex(read.unsignedTx)).toBe(bytesToHex(psbtFromBase64(psbtToBase64(ours())).unsignedTx));
    expect(psbtMultisigSpends(params, read, spendsOf())).toHaveLength(2);
    expect(bytesToHex(encodePsbt(read))).toBe(bytesToHex(theirs.toBuffer()));
    theirs.signAllInputsHD(alice);
    theirs.signAllInputsHD(bob);
    const signed = finalizeMultisigPsbt(params, psbtFromBase64(theirs.toBase64()), spendsOf());
    expect(bytesToHex(encodeTx(signed))).toBe(theirs.finalizeAllInputs().extractTransaction().toHex());
  });

  it('finalizes a P2SH PSBT the same way (legacy digest)', () => {
    const { tx } = fixture();
    const s = multisigScripts(params, 2, keysAt(0));
    const prev = new Transaction();
    prev.addInput(new Uint8Array(32).fill(3), 0);
    prev.addOutput(s.scriptPubKey, 300_000n);
    const pay = { ...tx, inputs: [{ ...tx.inputs[0]!, prevTxid: prev.getHash().slice().reverse(), vout: 0 }] };
    const psbt = buildMultisigPsbt(pay, [{ prevTx: prev.toBuffer(), redeemScript: s.redeemScript!, derivations: derivationsAt(0) }], [{}, {}]);
    const theirs = signedBy(psbtToBase64(psbt), [alice, bob]);
    const signed = finalizeMultisigPsbt(params, psbtFromBase64(theirs.toBase64()), [{ scriptType: 'p2sh', multisigScript: s.multisigScript, amount: 300_000n }]);
    expect(bytesToHex(encodeTx(signed))).toBe(theirs.finalizeAllInputs().extractTransaction().toHex());
  });
});

describe('segwit PSBT refusals, naming the input', () => {
  const unsigned = () => psbtFromBase64(psbtToBase64(ours()));
  const spendHash = (psbt: DecodedPsbt, i: number, amount = AMOUNTS[i]!, p: ChainParams = params) =>
    multisigInputHash(p, psbt.tx, i, { scriptType: TYPES[i]!, multisigScript: scriptsAt(i, TYPES[i]!).multisigScript, amount });
  const sigEntry = (key: BIP32Interface, hash: Uint8Array, hashType = 0x01) => Uint8Array.of(...signDer(hash, key.privateKey!), hashType);

  it('a witness UTXO that disagrees with the previous transaction (amount or script)', () => {
    const p = ours();
    const w = decodeWitnessUtxo(p.inputs[1]!.find((e) => e.type === INPUT.WITNESS_UTXO)!.value);
    // In the coin's unit when the reader names the coin (the desk does, by the payment spent), as every desk message.
    expect(() => psbtFromBase64(replaced(p, 1, INPUT.WITNESS_UTXO, encodeWitnessUtxo({ ...w, value: w.value + 1n })), () => params)).toThrow(
      /input 1: its witness UTXO \(0\.00070001 BTC to script a914[0-9a-f]+87\) disagrees with its non-witness UTXO \(output 1 of the previous transaction pays 0\.0007 BTC to script a914/,
    );
    expect(() => psbtFromBase64(replaced(p, 1, INPUT.WITNESS_UTXO, encodeWitnessUtxo({ ...w, value: w.value + 1n })))).toThrow(
      /input 1: its witness UTXO \(70001 \(smallest units\) to script a914[0-9a-f]+87\) disagrees with its non-witness UTXO \(output 1 of the previous transaction pays 70000 \(smallest units\)/,
    );
    expect(() => psbtFromBase64(replaced(p, 0, INPUT.WITNESS_UTXO, encodeWitnessUtxo({ ...w, value: 150_000n })))).toThrow(/input 0: its witness UTXO .* disagrees with its non-witness UTXO/);
    expect(() => psbtFromBase64(replaced(p, 0, INPUT.WITNESS_UTXO, Uint8Array.of(1, 2, 3)))).toThrow(/not a valid PSBT: .*input 0's witness UTXO/);
  });

  it('a previous transaction that does not hash to the txid the input spends', () => {
    const p = ours();
    const prev = decodeTx(p.inputs[0]![0]!.value);
    prev.locktime += 1;
    expect(() => psbtFromBase64(replaced(p, 0, INPUT.NON_WITNESS_UTXO, encodeTx(prev)))).toThrow(/input 0: its previous transaction is not [0-9a-f]{64} \(it hashes to [0-9a-f]{64}\)/);
  });

  it('a witness script that does not hash to the output spent (read and build)', () => {
    const p = ours();
    const other = scriptsAt(7, 'p2wsh').witnessScript!;
    expect(code(() => psbtMultisigSpends(params, psbtFromBase64(replaced(p, 0, INPUT.WITNESS_SCRIPT, other))))).toMatch(
      /^tampered: input 0: its witness script does not hash to the P2WSH output it spends/,
    );
    expect(code(() => psbtMultisigSpends(params, psbtFromBase64(replaced(p, 1, INPUT.WITNESS_SCRIPT, other))))).toMatch(
      /^tampered: input 1: its witness script does not hash to the P2SH-P2WSH output it spends/,
    );
    const { funding, tx } = fixture();
    expect(() => buildMultisigPsbt(tx, [{ prevTx: funding, witnessScript: other, derivations: [] }, { prevTx: funding, witnessScript: other, derivations: [] }], [{}, {}])).toThrow(
      /input 0: the witness script does not hash to the output this input spends/,
    );
    // The desk's own scripts differ from the file's (a file for another wallet's coins).
    const expected = spendsOf();
    expected[1] = { ...expected[1]!, amount: 1n };
    expect(code(() => psbtMultisigSpends(params, unsigned(), expected))).toBe('tampered: input 1 spends 0.0007 BTC in the PSBT, 0.00000001 BTC in the payment');
  });

  it('a partial signature over another amount', () => {
    const psbt = unsigned();
    const bad = withEntry(psbt, 0, INPUT.PARTIAL_SIG, keysAt(0)[0]!, sigEntry(keyAt(alice, 0), spendHash(psbt, 0, 150_001n)));
    expect(code(() => verifyPsbtSignatures(params, bad, psbtMultisigSpends(params, bad)))).toMatch(
      /^tampered: input 0, public key [0-9a-f]{66}: the signature does not verify against this transaction's BIP143 hash for an input of 150000/,
    );
  });

  it('a signature by a key that is not in the script', () => {
    const psbt = unsigned();
    const daveKey = keyAt(dave, 0);
    const bad = withEntry(psbt, 0, INPUT.PARTIAL_SIG, daveKey.publicKey, sigEntry(daveKey, spendHash(psbt, 0)));
    expect(code(() => verifyPsbtSignatures(params, bad, psbtMultisigSpends(params, bad)))).toBe(`foreign: input 0: key ${bytesToHex(daveKey.publicKey)} is not one of the keys in its script`);
  });

  it('sighash types other than ALL (ALL|FORKID for a fork-id coin)', () => {
    const psbt = unsigned();
    const none = withEntry(psbt, 1, INPUT.PARTIAL_SIG, keysAt(1)[0]!, sigEntry(keyAt(alice, 1), spendHash(psbt, 1), 0x02));
    expect(code(() => verifyPsbtSignatures(params, none, psbtMultisigSpends(params, none)))).toBe('tampered: a signature of input 1 has hash type 0x2, not SIGHASH_ALL (0x01)');
    const asks = withEntry(psbt, 0, INPUT.SIGHASH_TYPE, new Uint8Array(0), Uint8Array.of(0x83, 0, 0, 0));
    expect(code(() => verifyPsbtSignatures(params, asks, psbtMultisigSpends(params, asks)))).toBe('tampered: input 0 asks for signature hash type 0x83; only SIGHASH_ALL (0x01) signatures are taken');
    // Bitcoin Gold (segwit, fork id 79): ALL|FORKID is its SIGHASH_ALL; a plain ALL signature is refused.
    const gold = chainParams('bitcoin_gold', 'mainnet');
    const forkid = withEntry(psbt, 0, INPUT.PARTIAL_SIG, keysAt(0)[0]!, sigEntry(keyAt(alice, 0), spendHash(psbt, 0, AMOUNTS[0], gold), 0x41));
    expect(verifyPsbtSignatures(gold, forkid, psbtMultisigSpends(gold, forkid))).toHaveLength(1);
    expect(code(() => verifyPsbtSignatures(params, forkid, psbtMultisigSpends(params, forkid)))).toBe('tampered: a signature of input 0 has hash type 0x41, not SIGHASH_ALL (0x01)');
    const plain = withEntry(psbt, 0, INPUT.PARTIAL_SIG, keysAt(0)[0]!, sigEntry(keyAt(alice, 0), spendHash(psbt, 0, AMOUNTS[0], gold)));
    expect(code(() => verifyPsbtSignatures(gold, plain, psbtMultisigSpends(gold, plain)))).toBe('tampered: a signature of input 0 has hash type 0x1, not SIGHASH_ALL|FORKID (0x41)');
  });

  it('too few signatures to finalize, and a segwit input without its previous transaction', () => {
    const one = psbtFromBase64(signedBy(psbtToBase64(ours()), [bob]).toBase64());
    expect(code(() => finalizeMultisigPsbt(params, one))).toBe('incomplete: input 0: 1 valid signature(s) of the 2 required');
    const p = ours();
    const stripped = psbtFromBase64(psbtToBase64({ ...p, inputs: p.inputs.map((m) => m.filter((e) => e.type !== INPUT.NON_WITNESS_UTXO)) }));
    expect(code(() => psbtMultisigSpends(params, stripped))).toBe('malformed: input 0 carries no previous transaction (NON_WITNESS_UTXO): it proves the amount a signature commits to');
    // A coin without segwit cannot spend these.
    expect(code(() => psbtMultisigSpends(chainParams('dash', 'mainnet'), unsigned()))).toMatch(/^malformed: input 0: .* has no segwit/);
  });
});
