// inspectTransaction on payments built and signed by the project's own code, in each digest family.
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { p2pkhAddressOfPublicKey, p2shAddressOfRedeemScript } from './address.ts';
import { assembleSigned } from './assemble.ts';
import type { SuppliedSignature } from './assemble.ts';
import { bytesToHex, hexToBytes } from './bytes.ts';
import { chainParams } from './coin-table.ts';
import type { ChainParams } from './coin-table.ts';
import { CoinError } from './errors.ts';
import { hash160, sha256 } from './hash.ts';
import { formatReport, inspectTransaction } from './inspect.ts';
import { buildPayment, multisigSource } from './payment.ts';
import type { BuiltPayment, PaymentSource } from './payment.ts';
import { compileScript, multisigRedeemScript, OP, p2pkhScript, p2shScript } from './script.ts';
import { signDer, withHashType } from './signature.ts';
import { decodeTx, encodeTx, txidHex } from './tx.ts';
import type { Tx } from './tx.ts';

// The linter keeps shared/ from importing service/test/keys.ts: the same deterministic test keys,
// made here from shared code alone.
interface TestKey {
  publicKey: Uint8Array;
  publicKeyHex: string;
  sign(hashHex: string): string;
}

function testKey(seed: string): TestKey {
  const privateKey = sha256(new TextEncoder().encode(`countersign test key ${seed}`));
  const publicKey = ecc.pointFromScalar(privateKey, true);
  if (!publicKey) throw new Error('bad test key');
  return { publicKey, publicKeyHex: bytesToHex(publicKey), sign: (hashHex) => bytesToHex(signDer(hexToBytes(hashHex), privateKey)) };
}

const KEYS = ['a', 'b', 'c'].map((s) => testKey(`inspect ${s}`)) as [TestKey, TestKey, TestKey];
const SINGLE = testKey('inspect single');
const DEST = testKey('inspect destination');
const MINERS_FEE = 10_000n;

function p2pkhSource(key: TestKey, amounts: bigint[]): PaymentSource {
  const script = p2pkhScript(hash160(key.publicKey));
  return {
    scriptCode: script,
    publicKeys: [key.publicKey],
    required: 1,
    scriptPubKey: script,
    unspent: amounts.map((amount, i) => ({ txid: String(i + 1).repeat(64), vout: i, amount, scriptPubKey: script })),
  };
}

function multisig(): { redeem: Uint8Array; source: PaymentSource } {
  const redeem = multisigRedeemScript(2, KEYS.map((k) => k.publicKey));
  const p2sh = p2shScript(hash160(redeem));
  return { redeem, source: multisigSource(redeem, p2sh, [{ txid: 'ab'.repeat(32), vout: 3, amount: 200_000_000n, scriptPubKey: p2sh }]) };
}

function pay(params: ChainParams, source: PaymentSource, amount: bigint): BuiltPayment {
  return buildPayment({ params, sources: [source], to: { script: p2pkhScript(hash160(DEST.publicKey)), amount }, minersFee: MINERS_FEE, feePerKb: 1000n, height: 3_500_000 });
}

/** Each listed key signs every input it can, with the hashes the payment returned. */
function sign(params: ChainParams, built: BuiltPayment, signers: readonly TestKey[]): Tx {
  const sigs: SuppliedSignature[] = built.hashes
    .filter((h) => signers.some((k) => bytesToHex(k.publicKey) === bytesToHex(h.publicKey)))
    .map((h) => {
      const key = signers.find((k) => bytesToHex(k.publicKey) === bytesToHex(h.publicKey)) as TestKey;
      return { inputIndex: h.inputIndex, publicKey: h.publicKey, signature: hexToBytes(key.sign(bytesToHex(h.hash))) };
    });
  return assembleSigned(params, built.tx, sigs, built.inputAmounts);
}

describe('inspectTransaction: litecoin (legacy digest)', () => {
  const params = chainParams('litecoin', 'mainnet');
  const built = pay(params, p2pkhSource(SINGLE, [60_000_000n, 50_000_000n]), 100_000_000n);

  it('reports an unsigned payment: addresses, amounts, the hash to sign, no signatures', () => {
    const report = inspectTransaction(params, encodeTx(built.tx));
    expect(report.format).toBe('bitcoin');
    expect(report.version).toBe(1);
    expect(report.locktime).toBe(0);
    expect(report.txidFinal).toBe(false);
    expect(report.hashesNeedAmounts).toBe(false);
    expect(report.complete).toBe(false);
    expect(report.inputs).toHaveLength(2);
    for (const [i, input] of report.inputs.entries()) {
      expect(input.kind).toBe('p2pkh');
      expect(input.form).toBe('unsigned');
      expect(input.required).toBe(1);
      expect(input.address).toBe(p2pkhAddressOfPublicKey(params, SINGLE.publicKey));
      expect(input.address).toMatch(/^L/);
      expect(bytesToHex(input.prevTxid)).toBe(String(i + 1).repeat(64));
      expect(input.hashToSign).toEqual(built.hashes[i]?.hash);
      expect(input.signatures).toEqual([]);
      expect(input.amount).toBeUndefined();
    }
    expect(report.outputs[0]?.address).toBe(p2pkhAddressOfPublicKey(params, DEST.publicKey));
    expect(report.outputs[0]?.amount).toEqual({ units: 100_000_000n, display: '1 litecoin' });
    expect(report.outputs[1]?.returnsToInput).toBe(true);
    expect(report.totals.outputs.units).toBe(110_000_000n - MINERS_FEE);
    expect(report.totals.fee).toBeUndefined();
    const text = formatReport(report);
    expect(text).toContain('UNSIGNED');
    expect(text).toContain(bytesToHex(built.hashes[0]!.hash));
    expect(text).toContain('100000000 units (1 litecoin)');
  });

  it('adds input totals and the fee when amounts are given', () => {
    const report = inspectTransaction(params, encodeTx(built.tx), { amounts: built.inputAmounts });
    expect(report.inputs[0]?.amount).toEqual({ units: 60_000_000n, display: '0.6 litecoin' });
    expect(report.totals.inputs?.units).toBe(110_000_000n);
    expect(report.totals.fee).toEqual({ units: MINERS_FEE, display: '0.0001 litecoin' });
    expect(formatReport(report)).toMatch(/fee\s+10000 units \(0\.0001 litecoin\)/);
  });

  it('checks a signed payment: each signature valid for the key it carries, complete', () => {
    const signed = sign(params, built, [SINGLE]);
    const report = inspectTransaction(params, encodeTx(signed));
    expect(report.complete).toBe(true);
    expect(report.txidFinal).toBe(true);
    expect(bytesToHex(report.txid)).toBe(txidHex(signed));
    for (const [i, input] of report.inputs.entries()) {
      expect(input.form).toBe('signed');
      expect(input.publicKeys).toEqual([SINGLE.publicKey]);
      expect(input.hashToSign).toEqual(built.hashes[i]?.hash);
      expect(input.signatures).toHaveLength(1);
      expect(input.signatures[0]).toMatchObject({ valid: true, hashType: 0x01, publicKey: SINGLE.publicKey });
    }
    expect(formatReport(report)).toContain('COMPLETE');
  });

  it('says valid false for a signature the transaction no longer matches', () => {
    const signed = sign(params, built, [SINGLE]);
    const tampered: Tx = { ...signed, outputs: signed.outputs.map((o, i) => (i === 0 ? { ...o, value: o.value + 1n } : o)) };
    const report = inspectTransaction(params, encodeTx(tampered));
    expect(report.complete).toBe(false);
    expect(report.inputs[0]?.signatures[0]).toMatchObject({ valid: false, publicKey: SINGLE.publicKey });
    expect(report.inputs[0]?.signatures[0]?.problem).toMatch(/altered/);
    expect(formatReport(report)).toMatch(/INVALID/);
  });

  it('refuses malformed bytes with a clear CoinError', () => {
    const bytes = encodeTx(built.tx);
    expect(() => inspectTransaction(params, bytes.slice(0, bytes.length - 3))).toThrow(/not a valid litecoin transaction: transaction is truncated/);
    expect(() => inspectTransaction(params, Uint8Array.of(...bytes, 0))).toThrow(/trailing byte/);
    expect(() => inspectTransaction(params, new Uint8Array(0))).toThrow(/empty/);
    expect(() => inspectTransaction(params, hexToBytes('0100000000'))).toThrow(CoinError);
    expect(() => inspectTransaction(params, bytes, { amounts: [1n] })).toThrow(/1 input amount\(s\) given for a transaction with 2 input\(s\)/);
  });
});

describe('inspectTransaction: 2-of-3 multisig (litecoin)', () => {
  const params = chainParams('litecoin', 'mainnet');
  const { redeem, source } = multisig();
  const built = pay(params, source, 150_000_000n);
  const hash = built.hashes[0]!.hash;
  const sigBy = (k: TestKey) => withHashType(hexToBytes(k.sign(bytesToHex(hash))), params.hashType);
  const withScriptSig = (scriptSig: Uint8Array): Uint8Array => encodeTx({ ...built.tx, inputs: built.tx.inputs.map((i) => ({ ...i, scriptSig })) });

  it('reports the unsigned input: M, the keys in order, the P2SH address', () => {
    const input = inspectTransaction(params, encodeTx(built.tx)).inputs[0]!;
    expect(input).toMatchObject({ kind: 'multisig', form: 'unsigned', required: 2, address: p2shAddressOfRedeemScript(params, redeem), validSignatures: 0 });
    expect(input.address).toMatch(/^M/);
    expect(input.publicKeys).toEqual(KEYS.map((k) => k.publicKey));
    expect(input.hashToSign).toEqual(hash);
  });

  it('half-signed: one valid signature matched to the key that made it, not complete', () => {
    const report = inspectTransaction(params, withScriptSig(compileScript([OP.OP_0, sigBy(KEYS[1]), redeem])), { amounts: built.inputAmounts });
    const input = report.inputs[0]!;
    expect(report.complete).toBe(false);
    expect(input.form).toBe('signed');
    expect(input.validSignatures).toBe(1);
    expect(input.complete).toBe(false);
    expect(input.signatures).toHaveLength(1);
    expect(input.signatures[0]).toMatchObject({ valid: true, publicKey: KEYS[1].publicKey, hashType: 0x01 });
    const text = formatReport(report);
    expect(text).toContain('INCOMPLETE: input 0 has 1 of 2');
    expect(text).toContain(`key 2  ${KEYS[1].publicKeyHex}  signed: valid`);
    expect(text).toContain(`key 1  ${KEYS[0].publicKeyHex}  not signed`);
  });

  it('fully signed by keys 1 and 3: complete; out of key order: the second does not count', () => {
    const signed = inspectTransaction(params, encodeTx(sign(params, built, [KEYS[0], KEYS[2]])));
    expect(signed.complete).toBe(true);
    expect(signed.inputs[0]?.signatures.map((s) => s.publicKey)).toEqual([KEYS[0].publicKey, KEYS[2].publicKey]);

    const swapped = inspectTransaction(params, withScriptSig(compileScript([OP.OP_0, sigBy(KEYS[2]), sigBy(KEYS[0]), redeem])));
    expect(swapped.complete).toBe(false);
    expect(swapped.inputs[0]?.signatures[0]).toMatchObject({ valid: true, publicKey: KEYS[2].publicKey });
    expect(swapped.inputs[0]?.signatures[1]).toMatchObject({ valid: false, publicKey: KEYS[0].publicKey });
    expect(swapped.inputs[0]?.signatures[1]?.problem).toMatch(/key order/);
  });

  it('a signature of another transaction matches no key', () => {
    const other = withHashType(hexToBytes(KEYS[0].sign('11'.repeat(32))), params.hashType);
    const report = inspectTransaction(params, withScriptSig(compileScript([OP.OP_0, other, sigBy(KEYS[1]), redeem])));
    expect(report.inputs[0]?.signatures[0]).toMatchObject({ valid: false, publicKey: null });
    expect(report.inputs[0]?.signatures[1]).toMatchObject({ valid: true, publicKey: KEYS[1].publicKey });
    expect(report.inputs[0]?.complete).toBe(false);
  });
});

describe('inspectTransaction: bitcoin_cash (fork-id digest, commits to amounts)', () => {
  const params = chainParams('bitcoin_cash', 'mainnet');
  const { source } = multisig();
  const built = pay(params, source, 150_000_000n);
  const signed = encodeTx(sign(params, built, [KEYS[0], KEYS[1]]));

  it('with amounts: hashes recomputed, signatures valid, CashAddr addresses', () => {
    const report = inspectTransaction(params, signed, { amounts: built.inputAmounts });
    expect(report.hashesNeedAmounts).toBe(false);
    expect(report.complete).toBe(true);
    const input = report.inputs[0]!;
    expect(input.address).toMatch(/^bitcoincash:p/);
    expect(input.hashToSign).toEqual(built.hashes[0]?.hash);
    expect(input.signatures.map((s) => [s.valid, s.hashType])).toEqual([[true, 0x41], [true, 0x41]]);
    expect(report.outputs[0]?.address).toMatch(/^bitcoincash:q/);
    expect(report.totals.fee?.units).toBe(MINERS_FEE);
  });

  it('without amounts: says the amounts are needed, checks nothing, not complete', () => {
    const report = inspectTransaction(params, signed);
    expect(report.hashesNeedAmounts).toBe(true);
    expect(report.complete).toBe(false);
    expect(report.inputs[0]?.hashToSign).toBeNull();
    expect(report.inputs[0]?.hashProblem).toMatch(/amounts/);
    expect(report.inputs[0]?.signatures.map((s) => s.valid)).toEqual([null, null]);
    const text = formatReport(report);
    expect(text).toMatch(/NOT CHECKED: the input amounts are needed/);
    expect(text).toMatch(/hash to sign\s+unknown: bitcoin_cash signatures commit to the amounts/);
    expect(text).toMatch(/key 1 {2}\S+ {2}unknown \(signatures not checked\)/);
    expect(text).toMatch(/signature \S+ {2}not checked/);
  });
});

describe('inspectTransaction: zcash (v5, ZIP-244)', () => {
  const params = chainParams('zcash', 'mainnet');
  const built = pay(params, p2pkhSource(SINGLE, [80_000_000n]), 50_000_000n);

  it('unsigned with amounts: header, upgrade name, hash; the v5 txid is already final', () => {
    const report = inspectTransaction(params, encodeTx(built.tx), { amounts: built.inputAmounts });
    expect(report.format).toBe('zcash-v5');
    expect(report.zcash).toMatchObject({ versionGroupId: 0x26a7270a, consensusBranchId: 0x37a5165b, networkUpgrade: 'NU6.3', branchIdSource: 'transaction', expiryHeight: 0 });
    expect(report.txidFinal).toBe(true);
    expect(report.inputs[0]?.address).toMatch(/^t1/);
    expect(report.inputs[0]?.hashToSign).toEqual(built.hashes[0]?.hash);
    expect(formatReport(report)).toMatch(/branch id 0x37a5165b NU6\.3, expiry height 0 \(never expires\)/);

    const signed = sign(params, built, [SINGLE]);
    const after = inspectTransaction(params, encodeTx(signed), { amounts: built.inputAmounts });
    expect(after.complete).toBe(true);
    expect(after.inputs[0]?.signatures[0]?.valid).toBe(true);
    expect(after.txid).toEqual(report.txid);
    expect(bytesToHex(after.txid)).toBe(txidHex(decodeTx(encodeTx(signed), params)));
  });

  it('without amounts: the hashes need them', () => {
    const report = inspectTransaction(params, encodeTx(built.tx));
    expect(report.hashesNeedAmounts).toBe(true);
    expect(report.inputs[0]?.hashToSign).toBeNull();
  });

  it('a pre-Overwinter (v1) transaction is decoded but has no hashes to sign', () => {
    const ltc = pay(chainParams('litecoin', 'mainnet'), p2pkhSource(SINGLE, [80_000_000n]), 50_000_000n);
    const report = inspectTransaction(params, encodeTx(ltc.tx), { amounts: [80_000_000n] });
    expect(report.format).toBe('bitcoin');
    expect(report.inputs[0]?.hashToSign).toBeNull();
    expect(report.warnings.join('\n')).toMatch(/zcash payments are zcash-v5 transactions/);
    expect(() => inspectTransaction(params, hexToBytes('050000800a27a726'))).toThrow(/not a valid zcash transaction/);
  });
});

describe('inspectTransaction: zclassic (v4, ZIP-243)', () => {
  it('hashes for the newest upgrade, and says so', () => {
    const params = chainParams('zclassic', 'mainnet');
    const built = pay(params, p2pkhSource(SINGLE, [80_000_000n]), 50_000_000n);
    const report = inspectTransaction(params, encodeTx(sign(params, built, [SINGLE])), { amounts: built.inputAmounts });
    expect(report.zcash).toMatchObject({ branchIdSource: 'newest-upgrade', consensusBranchId: 0x930b540d });
    expect(report.complete).toBe(true);
    expect(report.warnings.join('\n')).toMatch(/v4 transactions do not name their network upgrade/);
  });
});
