import { bitgo, networks } from '@bitgo/utxo-lib';
import { describe, expect, test } from 'vitest';
import { bytesToHex, hexToBytes, reverseBytes } from '../bytes.ts';
import { chainParams } from '../coin-table.ts';
import { loadJson } from '../fixtures/load-json.ts';
import { spendFixture } from '../fixtures/spends.ts';
import { decodeTx, encodeTx, txidHex } from '../tx.ts';
import type { ZcashV5Tx } from '../tx.ts';
import { authDigest, txidDigest } from '../zcash/zip244-digests.ts';
import { signatureHash } from './index.ts';
import { zip244Sighash } from './zip244.ts';

// The in-repo copy of the published vectors (fixtures/vectors/README.md says whence).
const VECTORS = new URL('../fixtures/vectors/zcash-zip244.json', import.meta.url);
type Hex = string | null;
type Row = [string, string, string, number[], string[], number | null, string, Hex, Hex, Hex, Hex, Hex, Hex];
const rows = ((await loadJson(VECTORS)) as unknown[][]).filter((r): r is Row => r.length === 13);
const zec = chainParams('zcash', 'mainnet');

/** The sighash columns after sighash_shielded, with their hash types. */
const TYPED_COLUMNS: [number, number][] = [
  [7, 0x01],
  [8, 0x02],
  [9, 0x03],
  [10, 0x81],
  [11, 0x82],
  [12, 0x83],
];

function v5(hex: string): ZcashV5Tx {
  const tx = decodeTx(hexToBytes(hex), zec);
  if (tx.format !== 'zcash-v5') throw new Error('not a v5 transaction');
  return tx;
}

function prevoutsOf(row: Row): { amount: bigint; scriptPubKey: Uint8Array }[] {
  return row[3].map((amount, i) => ({ amount: BigInt(amount), scriptPubKey: hexToBytes(row[4][i] ?? '') }));
}

describe('ZIP-244: zcash-test-vectors zip_0244', () => {
  test('the vector file has its rows, with Sapling and Orchard bundles', () => {
    expect(rows.length).toBe(10);
    const txs = rows.map((r) => v5(r[0]));
    expect(txs.some((tx) => tx.sapling.spends.length > 0 && tx.sapling.outputs.length > 0)).toBe(true);
    expect(txs.some((tx) => tx.orchard !== undefined)).toBe(true);
  });

  test('every txid (natural order in the file; shown reversed) and authorising-data digest', () => {
    rows.forEach((row, n) => {
      const tx = v5(row[0]);
      expect(bytesToHex(txidDigest(tx)), `row ${n}`).toBe(row[1]);
      expect(txidHex(tx), `row ${n}`).toBe(bytesToHex(reverseBytes(hexToBytes(row[1]))));
      expect(bytesToHex(authDigest(tx)), `row ${n}`).toBe(row[2]);
    });
  });

  test('every shielded signature hash (no transparent input signed, SIGHASH_ALL)', () => {
    rows.forEach((row, n) => {
      const tx = v5(row[0]);
      expect(bytesToHex(zip244Sighash(tx, null, prevoutsOf(row), 0x01)), `row ${n}`).toBe(row[6]);
    });
  });

  test('every transparent signature hash, all six hash types', () => {
    let checked = 0;
    rows.forEach((row, n) => {
      const inputIndex = row[5];
      if (inputIndex === null) return;
      const tx = v5(row[0]);
      for (const [column, hashType] of TYPED_COLUMNS) {
        const expected = row[column];
        if (expected === null || expected === undefined) {
          // SIGHASH_SINGLE without a corresponding output: zcashd refuses it, so do we.
          expect(() => zip244Sighash(tx, inputIndex, prevoutsOf(row), hashType)).toThrow(/SIGHASH_SINGLE/);
          continue;
        }
        expect(bytesToHex(zip244Sighash(tx, inputIndex, prevoutsOf(row), hashType)), `row ${n} type ${hashType}`).toBe(expected);
        checked++;
      }
    });
    expect(checked).toBe(32);
  });
});

describe('ZIP-244 through the coin table (zcash)', () => {
  const f = spendFixture(zec);
  const tx = f.tx as ZcashV5Tx;

  test('the service builds v5 transparent transactions carrying the branch id of the height', () => {
    expect(tx.format).toBe('zcash-v5');
    expect(tx.consensusBranchId).toBe(0x37a5165b);
    expect(tx.expiryHeight).toBe(0);
    expect(bytesToHex(encodeTx(tx).subarray(0, 12))).toBe('050000800a27a7265b16a537');
  });

  test('txid agrees with @bitgo/utxo-lib (oracle for the txid only: its v5 sighash predates the final ZIP-244)', () => {
    const oracle = bitgo.ZcashTransaction.fromBuffer<bigint>(Buffer.from(encodeTx(tx)), false, 'bigint', networks.zcash);
    expect(txidHex(tx)).toBe(oracle.getId());
  });

  test('P2SH multisig: the same context as every other coin; the digest commits to the P2SH scriptPubKey', () => {
    const ours = signatureHash(zec, tx, 0, { scriptCode: f.redeemScript, prevouts: f.prevouts });
    expect(bytesToHex(ours)).toBe(bytesToHex(zip244Sighash(tx, 0, f.prevouts, 0x01)));
    // Committing to the redeem script instead would be another digest.
    const wrong = zip244Sighash(tx, 0, [{ ...f.prevouts[0]!, scriptPubKey: f.redeemScript }, f.prevouts[1]!], 0x01);
    expect(bytesToHex(ours)).not.toBe(bytesToHex(wrong));
    expect(bytesToHex(signatureHash(zec, tx, 1, { scriptCode: f.p2pkhScriptPubKey, prevouts: f.prevouts }))).toBe(bytesToHex(zip244Sighash(tx, 1, f.prevouts, 0x01)));
  });

  test('the script code stays the redeem script on zcash too: the P2SH scriptPubKey in its place is refused', () => {
    expect(() => signatureHash(zec, tx, 0, { scriptCode: f.p2shScriptPubKey, prevouts: f.prevouts })).toThrow(/not the redeem script/);
  });

  test('every input amount and script is needed', () => {
    expect(() => signatureHash(zec, tx, 0, { scriptCode: f.redeemScript, amount: 120_000n, scriptPubKey: f.p2shScriptPubKey })).toThrow(
      /every output the transaction spends: give them for all 2 input/,
    );
    const one = { ...tx, inputs: tx.inputs.slice(0, 1) };
    expect(bytesToHex(signatureHash(zec, one, 0, { scriptCode: f.redeemScript, amount: 120_000n, scriptPubKey: f.p2shScriptPubKey }))).toBe(
      bytesToHex(zip244Sighash(one, 0, f.prevouts.slice(0, 1), 0x01)),
    );
  });

  test('amounts and scripts of the other inputs are committed too', () => {
    const a = zip244Sighash(tx, 0, f.prevouts, 0x01);
    const b = zip244Sighash(tx, 0, [f.prevouts[0]!, { ...f.prevouts[1]!, amount: 1n }], 0x01);
    expect(bytesToHex(a)).not.toBe(bytesToHex(b));
  });

  test('undefined hash types are refused', () => {
    expect(() => zip244Sighash(tx, 0, f.prevouts, 0x41)).toThrow(/not defined/);
  });
});
