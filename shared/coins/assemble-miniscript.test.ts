// Miniscript vault spends (issue 27): the witness script against one written out by hand from
// BIP379's fragment table (an oracle apart from the library), the paths, the cheapest witness per
// path, and every refusal in words: a key of no path, another path's key, a bad signature, a
// missing signature, a timelock the nSequence or the version does not meet, a tampered
// placeholder, fragments this extension does not serve.
import { describe, expect, it } from 'vitest';
import * as ecc from 'tiny-secp256k1';
import { assembleMiniscriptSpend, miniscriptInputHash, type MiniscriptInputSpend, readUnsignedMiniscriptInput, relativeLockProblem, unsignedMiniscriptInput } from './assemble-miniscript.ts';
import { bytesToHex, hexToBytes } from './bytes.ts';
import { chainParams } from './coin-table.ts';
import { sha256 } from './hash.ts';
import { compileWshMiniscript, miniscriptPaths, witnessSize } from './miniscript-spend.ts';
import { p2wshScript } from './multisig-script.ts';
import { signDer } from './signature.ts';
import type { BitcoinTx } from './tx.ts';

interface Key {
  publicKey: Uint8Array;
  publicKeyHex: string;
  sign(hashHex: string): string;
}
function testKey(seed: string): Key {
  const privateKey = sha256(new TextEncoder().encode(`countersign test key ${seed}`));
  const publicKey = ecc.pointFromScalar(privateKey, true)!;
  return { publicKey, publicKeyHex: bytesToHex(publicKey), sign: (hashHex) => bytesToHex(signDer(hexToBytes(hashHex), privateKey)) };
}

const params = chainParams('litecoin', 'regtest');
const [A, B, C, D, E, F] = ['a', 'b', 'c', 'd', 'e', 'f'].map((s) => testKey(`miniscript unit ${s}`)) as [Key, Key, Key, Key, Key, Key];
const MS = `or_d(multi(2,${A.publicKeyHex},${B.publicKeyHex},${C.publicKeyHex}),and_v(v:multi(1,${D.publicKeyHex},${E.publicKeyHex}),older(144)))`;
const AMOUNT = 50_000_000n;

function spendOf(path: number, sequence: number, version = 2): { tx: BitcoinTx; spend: MiniscriptInputSpend } {
  const compiled = compileWshMiniscript(MS);
  const tx: BitcoinTx = {
    version,
    inputs: [{ prevTxid: new Uint8Array(32).fill(9), vout: 1, sequence, ...unsignedMiniscriptInput(compiled, path) }],
    outputs: [{ value: AMOUNT - 10_000n, script: p2wshScript(compiled.witnessScript) }],
    locktime: 0,
  };
  const read = readUnsignedMiniscriptInput(tx.inputs[0]!, 0)!;
  return { tx, spend: { ...read, amount: AMOUNT, scriptPubKey: p2wshScript(compiled.witnessScript) } };
}

const sig = (tx: BitcoinTx, spend: MiniscriptInputSpend, signer: Key, asKey = signer) => ({
  inputIndex: 0,
  publicKey: asKey.publicKey,
  signature: hexToBytes(signer.sign(bytesToHex(miniscriptInputHash(params, tx, 0, spend)))),
});

describe('compileWshMiniscript', () => {
  it('compiles the 2-of-3 + 1-of-2 after 144 blocks vault to the script BIP379 spells out', () => {
    const k = (key: Key) => `21${key.publicKeyHex}`;
    // multi(2,A,B,C): 2 <A> <B> <C> 3 CHECKMULTISIG; or_d: IFDUP NOTIF ... ENDIF; v:multi: CHECKMULTISIGVERIFY; older(144): <9000> CSV.
    const expected = `52${k(A)}${k(B)}${k(C)}53ae7364` + `51${k(D)}${k(E)}52af` + '029000b268';
    expect(bytesToHex(compileWshMiniscript(MS).witnessScript)).toBe(expected);
  });

  it('refuses in words what it cannot serve', () => {
    expect(() => compileWshMiniscript(`or_d(pk(${A.publicKeyHex}),and_v(v:pk(${A.publicKeyHex}),older(10)))`)).toThrow('a key appears twice');
    expect(() => compileWshMiniscript(`and_v(v:pk(${A.publicKeyHex}),sha256(${'11'.repeat(32)}))`)).toThrow('the fragment sha256() is not served');
    expect(() => compileWshMiniscript(`and_v(v:pk(${A.publicKeyHex}),after(100))`)).toThrow('the fragment after() is not served');
    expect(() => compileWshMiniscript(`and_v(v:pk(${A.publicKeyHex}),older(4194305))`)).toThrow('older(4194305) counts 512-second units');
    expect(() => compileWshMiniscript('pk(xpub661MyMwAqRbcF)')).toThrow('is not a compressed public key in hex');
    expect(() => compileWshMiniscript(`pk(${A.publicKeyHex}`)).toThrow('it cannot be parsed');
    expect(() => compileWshMiniscript(`older(144)`)).toThrow('a spending path needs no signature');
  });
});

describe('miniscriptPaths', () => {
  it('lists the path without a timelock first, its keys and fewest signatures, and the largest witness', () => {
    const compiled = compileWshMiniscript(MS);
    const paths = miniscriptPaths(compiled);
    expect(paths.map(({ largestWitness: _, ...p }) => p)).toEqual([
      { index: 0, older: null, keys: [A, B, C].map((k) => k.publicKeyHex), signatures: 2 },
      { index: 1, older: 144, keys: [D, E].map((k) => k.publicKeyHex), signatures: 1 },
    ]);
    // count, dummy, two signatures, the script / count, dummy, one signature, three empties, the script.
    const script = 1 + compiled.witnessScript.length + (compiled.witnessScript.length < 253 ? 0 : 2);
    expect(paths[0]!.largestWitness).toBe(1 + 1 + 2 * 74 + script);
    expect(paths[1]!.largestWitness).toBe(1 + 1 + 74 + 3 + script);
  });
});

describe('assembleMiniscriptSpend', () => {
  it('primary path: the two signatures in key order, whatever order they come in; never above the estimate', () => {
    const { tx, spend } = spendOf(0, 0xffffffff);
    const signed = assembleMiniscriptSpend(params, tx, [spend], [sig(tx, spend, C), sig(tx, spend, A)]);
    const w = signed.inputs[0]!.witness!;
    expect(w.map((x) => x.length)).toEqual([0, expect.any(Number), expect.any(Number), spend.compiled.witnessScript.length]);
    expect(bytesToHex(w[1]!)).toBe(`${bytesToHex(sig(tx, spend, A).signature)}01`);
    expect(bytesToHex(w[2]!)).toBe(`${bytesToHex(sig(tx, spend, C).signature)}01`);
    expect(witnessSize(w.slice(0, -1), w[w.length - 1]!)).toBeLessThanOrEqual(spend.paths[0]!.largestWitness);
  });

  it('recovery path: one recovery signature and the primary multisig dissatisfied', () => {
    const { tx, spend } = spendOf(1, 144);
    const signed = assembleMiniscriptSpend(params, tx, [spend], [sig(tx, spend, E)]);
    const w = signed.inputs[0]!.witness!.map(bytesToHex);
    expect(w).toEqual(['', `${bytesToHex(sig(tx, spend, E).signature)}01`, '', '', '', bytesToHex(spend.compiled.witnessScript)]);
  });

  it('refuses a key of no path, another path\'s key, a bad signature, a missing signature', () => {
    const { tx, spend } = spendOf(0, 0xffffffff);
    expect(() => assembleMiniscriptSpend(params, tx, [spend], [sig(tx, spend, A), sig(tx, spend, F)])).toThrow(`public key ${F.publicKeyHex}: this key is not one of the miniscript's keys`);
    expect(() => assembleMiniscriptSpend(params, tx, [spend], [sig(tx, spend, A), sig(tx, spend, D)])).toThrow('this key signs path 1 (1 of 2 keys, after 144 blocks), not path 0 (2 of 3 keys, no timelock)');
    expect(() => assembleMiniscriptSpend(params, tx, [spend], [sig(tx, spend, A), sig(tx, spend, B, C)])).toThrow(`public key ${C.publicKeyHex}: the signature does not verify against this transaction's BIP143 hash`);
    expect(() => assembleMiniscriptSpend(params, tx, [spend], [sig(tx, spend, B)])).toThrow(`input 0: path 0 (2 of 3 keys, no timelock) needs 2 signature(s) of ${[A, B, C].map((k) => k.publicKeyHex).join(', ')}; 1 valid given (${B.publicKeyHex})`);
    // Over another amount (BIP143 commits to it).
    const other = sig(tx, { ...spend, amount: AMOUNT + 1n }, A);
    expect(() => assembleMiniscriptSpend(params, tx, [spend], [other, sig(tx, spend, B)])).toThrow('does not verify');
  });

  it('two inputs of one vault: each gets its own witness; an input short of signatures is named', () => {
    const one = spendOf(1, 144);
    const tx: BitcoinTx = { ...one.tx, inputs: [one.tx.inputs[0]!, { ...one.tx.inputs[0]!, vout: 2 }] };
    const seen = new Map();
    const spends = tx.inputs.map((input, i) => ({ ...readUnsignedMiniscriptInput(input, i, seen)!, amount: AMOUNT, scriptPubKey: one.spend.scriptPubKey! }));
    expect(seen.size).toBe(1);
    const signFor = (i: number, k: Key) => ({ inputIndex: i, publicKey: k.publicKey, signature: hexToBytes(k.sign(bytesToHex(miniscriptInputHash(params, tx, i, spends[i]!)))) });
    const signed = assembleMiniscriptSpend(params, tx, spends, [signFor(0, D), signFor(1, E)]);
    expect(signed.inputs.map((input) => input.witness!.length)).toEqual([6, 6]);
    expect(bytesToHex(signed.inputs[1]!.witness![1]!)).toBe(`${bytesToHex(signFor(1, E).signature)}01`);
    // D's signature of input 0 offered for input 1 does not verify there (another digest).
    expect(() => assembleMiniscriptSpend(params, tx, spends, [signFor(0, D), { ...signFor(0, D), inputIndex: 1 }])).toThrow(`input 1, public key ${D.publicKeyHex}: the signature does not verify`);
    expect(() => assembleMiniscriptSpend(params, tx, spends, [signFor(0, D)])).toThrow('input 1: path 1 (1 of 2 keys, after 144 blocks) needs 1 signature(s)');
  });

  it('refuses an nSequence or a version that does not meet the timelock', () => {
    const short = spendOf(1, 143);
    expect(() => assembleMiniscriptSpend(params, short.tx, [short.spend], [sig(short.tx, short.spend, D)])).toThrow("its nSequence 143 is below the path's relative timelock of 144 blocks (older(144))");
    const v1 = spendOf(1, 144, 1);
    expect(() => assembleMiniscriptSpend(params, v1.tx, [v1.spend], [sig(v1.tx, v1.spend, D)])).toThrow("the transaction's version 1 does not enforce relative timelocks (BIP68 needs version 2)");
    const path = spendOf(1, 144).spend.paths[1]!;
    const withSeq = (sequence: number) => relativeLockProblem(spendOf(1, sequence).tx, 0, path);
    expect(withSeq(0xffffffff)).toMatch('turns relative timelocks off');
    expect(withSeq(0x00400000 | 200)).toMatch('counts 512-second units');
    expect(withSeq(144)).toBeNull();
    expect(withSeq(1000)).toBeNull();
  });

  it('reads the placeholder back; a tampered script, path or scriptSig is refused; other witnesses are not taken for one', () => {
    const { tx } = spendOf(0, 0xffffffff);
    const input = tx.inputs[0]!;
    const w = input.witness!;
    expect(() => readUnsignedMiniscriptInput({ ...input, witness: [w[0]!, w[1]!, w[2]!.subarray(1)] }, 0)).toThrow('its witness script is not the one its miniscript compiles to');
    expect(() => readUnsignedMiniscriptInput({ ...input, witness: [w[0]!, Uint8Array.of(2), w[2]!] }, 0)).toThrow('the miniscript has no path 2');
    expect(() => readUnsignedMiniscriptInput({ ...input, scriptSig: Uint8Array.of(0) }, 0)).toThrow('its scriptSig must be empty');
    // A signed P2WSH 1-of-1 multisig witness: <empty> <sig> <script>.
    expect(readUnsignedMiniscriptInput({ scriptSig: new Uint8Array(0), witness: [new Uint8Array(0), new Uint8Array(72).fill(0x30), w[2]!] }, 0)).toBeNull();
  });
});
