import { bitgo, networks } from '@bitgo/utxo-lib';
import { describe, expect, test } from 'vitest';
import { bytesToHex, hexToBytes } from '../bytes.ts';
import { chainParams } from '../coin-table.ts';
import { loadJson } from '../fixtures/load-json.ts';
import { spendFixture } from '../fixtures/spends.ts';
import { decodeTx, encodeTx } from '../tx.ts';
import type { ZcashV4Tx } from '../tx.ts';
import { signatureHash } from './index.ts';
import { zip243Sighash } from './zip243.ts';

// The in-repo copy of the published vectors (fixtures/vectors/README.md says whence).
const VECTORS = new URL('../fixtures/vectors/zcash-zip243.json', import.meta.url);
type Row = [string, string, number, number, number, number, string];
const rows = ((await loadJson(VECTORS)) as unknown[][]).filter((r): r is Row => r.length === 7);
const zcl = chainParams('zclassic', 'mainnet');

function v4(hex: string): ZcashV4Tx {
  const tx = decodeTx(hexToBytes(hex), zcl);
  if (tx.format !== 'zcash-v4') throw new Error('not a v4 transaction');
  return tx;
}

describe('ZIP-243: zcash-test-vectors zip_0243', () => {
  test('the vector file has its rows', () => {
    expect(rows.length).toBe(10);
  });

  test('every row, transparent inputs and shielded (NOT_AN_INPUT) signature hashes alike', () => {
    let shielded = 0;
    rows.forEach(([rawTx, scriptCode, transparentInput, hashType, amount, branchId, sighash], n) => {
      const tx = v4(rawTx);
      const input = transparentInput < 0 ? null : { index: transparentInput, scriptCode: hexToBytes(scriptCode), amount: BigInt(amount) };
      if (input === null) shielded++;
      expect(bytesToHex(zip243Sighash(tx, input, hashType, branchId)), `row ${n}`).toBe(sighash);
    });
    expect(shielded).toBe(8);
  });

  test('the vectors carry Sapling spends and outputs and JoinSplits', () => {
    const txs = rows.map(([raw]) => v4(raw));
    expect(txs.some((tx) => tx.sapling.spends.length > 0)).toBe(true);
    expect(txs.some((tx) => tx.sapling.outputs.length > 0)).toBe(true);
    expect(txs.some((tx) => tx.joinSplits.length > 0)).toBe(true);
  });
});

describe('ZIP-243 through the coin table (zclassic)', () => {
  const f = spendFixture(zcl);

  test('the service builds v4 transparent transactions: expiry 0, no shielded parts', () => {
    expect(f.tx.format).toBe('zcash-v4');
    expect(bytesToHex(encodeTx(f.tx).subarray(0, 8))).toBe('0400008085202f89');
  });

  test('agrees with @bitgo/utxo-lib ZcashTransaction given the Buttercup branch id (oracle)', () => {
    const oracle = bitgo.ZcashTransaction.fromBuffer<bigint>(Buffer.from(encodeTx(f.tx)), false, 'bigint', networks.zcash);
    oracle.consensusBranchId = 0x930b540d;
    f.tx.inputs.forEach((_, i) => {
      const ours = signatureHash(zcl, f.tx, i, { scriptCode: f.scriptCodes[i]!, prevouts: f.prevouts });
      const theirs = oracle.hashForSignatureByNetwork(i, Buffer.from(f.scriptCodes[i]!), f.prevouts[i]!.amount, 0x01);
      expect(bytesToHex(ours)).toBe(bytesToHex(theirs));
    });
  });

  test('signs with the newest branch id unless told otherwise', () => {
    const context = { scriptCode: f.redeemScript, prevouts: f.prevouts };
    const byDefault = bytesToHex(signatureHash(zcl, f.tx, 0, context));
    expect(byDefault).toBe(bytesToHex(signatureHash(zcl, f.tx, 0, { ...context, consensusBranchId: 0x930b540d })));
    expect(byDefault).not.toBe(bytesToHex(signatureHash(zcl, f.tx, 0, { ...context, consensusBranchId: 0x76b809bb })));
  });

  test('needs the amount; refuses a transaction of another format', () => {
    expect(() => signatureHash(zcl, f.tx, 0, { scriptCode: f.redeemScript })).toThrow(/amount of the output spent by input 0/);
    const v5 = spendFixture(chainParams('zcash', 'mainnet')).tx;
    expect(() => signatureHash(zcl, v5, 0, { scriptCode: f.redeemScript, prevouts: f.prevouts })).toThrow(/zclassic signs zcash-v4 transactions, but this one is a zcash-v5/);
  });
});
