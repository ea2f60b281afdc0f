import { Transaction } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, test } from 'vitest';
import { addressToScript, p2shAddressOfRedeemScript } from '../address.ts';
import { bytesToHex, hexToBytes, reverseBytes } from '../bytes.ts';
import { chainParams } from '../coin-table.ts';
import { CoinError } from '../errors.ts';
import { loadJson } from '../fixtures/load-json.ts';
import { OP, compileScript, decodeScript, multisigRedeemScript, parseMultisigRedeemScript } from '../script.ts';
import { signDer, verifyDerSignature, withHashType } from '../signature.ts';
import { decodeTx, encodeTx } from '../tx.ts';
import type { Tx } from '../tx.ts';
import { signatureHash } from './index.ts';
import { SIGHASH_SINGLE, legacySighash } from './legacy.ts';

// The in-repo copy of the published vectors (fixtures/vectors/README.md says whence).
const VECTORS = new URL('../fixtures/vectors/bitcoin-sighash.json', import.meta.url);
type Row = [string, string, number, number, string];
const rows = ((await loadJson(VECTORS)) as unknown[][]).filter((r): r is Row => r.length === 5);

describe('legacy sighash: Bitcoin Core sighash.json', () => {
  test('the vector file has its rows', () => {
    expect(rows.length).toBe(500);
  });

  test('every row matches (hashType as uint32, expected hex byte-reversed)', () => {
    let checked = 0;
    for (const [rawTx, script, inputIndex, hashType, expected] of rows) {
      const tx = decodeTx(hexToBytes(rawTx));
      const got = legacySighash(tx, inputIndex, hexToBytes(script), hashType >>> 0);
      expect(bytesToHex(reverseBytes(got)), `row ${checked}: ${rawTx.slice(0, 16)}... input ${inputIndex}`).toBe(expected);
      checked++;
    }
    expect(checked).toBe(rows.length);
  });

  test('the vectors exercise NONE, SINGLE, ANYONECANPAY and OP_CODESEPARATOR', () => {
    const types = rows.map((r) => (r[3] >>> 0) & 0x1f);
    expect(types).toContain(2);
    expect(types).toContain(3);
    expect(rows.some((r) => (r[3] >>> 0) & 0x80)).toBe(true);
    expect(rows.some((r) => hexToBytes(r[1]).includes(0xab))).toBe(true);
  });
});

describe('legacy sighash: edges', () => {
  const first = rows[0];
  if (first === undefined) throw new Error('no vectors');
  const tx = decodeTx(hexToBytes(first[0]));

  test('an input index out of range is a CoinError', () => {
    expect(() => legacySighash(tx, tx.inputs.length, new Uint8Array(0), 1)).toThrow(CoinError);
    expect(() => legacySighash(tx, -1, new Uint8Array(0), 1)).toThrow(/out of range/);
  });

  test('SIGHASH_SINGLE past the last output signs uint256 one', () => {
    const noOutputs = { ...tx, outputs: [] };
    const h = legacySighash(noOutputs, 0, new Uint8Array(0), SIGHASH_SINGLE);
    expect(h[0]).toBe(1);
    expect(h.subarray(1).every((b) => b === 0)).toBe(true);
  });

  test('a malformed push in the script code is hashed as Core does (no throw)', () => {
    expect(() => legacySighash(tx, 0, Uint8Array.of(0xab, 0x4c, 0x05, 0x00), 1)).not.toThrow();
  });
});

describe('signatureHash: dispatch by the coin table', () => {
  test('legacy coins use the legacy digest with their hash type (0x01)', () => {
    const [rawTx, script, inputIndex] = rows[7] ?? [];
    if (rawTx === undefined || script === undefined || inputIndex === undefined) throw new Error('no row');
    const tx = decodeTx(hexToBytes(rawTx));
    const scriptCode = hexToBytes(script);
    for (const coin of ['bitcoin', 'testnet3', 'litecoin', 'dash'] as const) {
      const params = chainParams(coin, 'mainnet');
      expect(params.sighashAlgorithm).toBe('legacy');
      expect(bytesToHex(signatureHash(params, tx, inputIndex, { scriptCode }))).toBe(
        bytesToHex(legacySighash(tx, inputIndex, scriptCode, 0x01)),
      );
    }
  });
});

describe('a 2-of-3 P2SH spend, end to end', () => {
  const privs = [7, 8, 9].map((n) => hexToBytes(n.toString(16).padStart(64, '0')));
  const pubs = privs.map((d) => ecc.pointFromScalar(d, true) as Uint8Array);
  const redeem = multisigRedeemScript(2, pubs);
  const params = chainParams('litecoin', 'regtest');
  // As the service builds it: version 1, locktime 0, the redeem script in each scriptSig.
  const tx: Tx = {
    version: params.txVersion,
    inputs: [0, 1].map((vout) => ({ prevTxid: new Uint8Array(32).fill(0xaa), vout, scriptSig: redeem, sequence: 0xffffffff })),
    outputs: [{ value: 100_000n, script: addressToScript(params, p2shAddressOfRedeemScript(params, redeem)) }],
    locktime: 0,
  };

  test('hashes agree with bitcoinjs-lib, signatures verify, the assembled scriptSig parses', () => {
    const oracle = Transaction.fromBuffer(encodeTx(tx));
    tx.inputs.forEach((_, i) => {
      const hash = signatureHash(params, tx, i, { scriptCode: redeem });
      expect(bytesToHex(hash)).toBe(bytesToHex(oracle.hashForSignature(i, redeem, Transaction.SIGHASH_ALL)));
      const sigs = [privs[0], privs[2]].map((d) => signDer(hash, d as Uint8Array));
      expect(verifyDerSignature(hash, pubs[0] as Uint8Array, sigs[0] as Uint8Array)).toBe(true);
      expect(verifyDerSignature(hash, pubs[2] as Uint8Array, sigs[1] as Uint8Array)).toBe(true);
      expect(verifyDerSignature(hash, pubs[1] as Uint8Array, sigs[0] as Uint8Array)).toBe(false);
      const scriptSig = compileScript([OP.OP_0, ...sigs.map((s) => withHashType(s, params.hashType)), redeem]);
      const chunks = decodeScript(scriptSig);
      expect(chunks).toHaveLength(4);
      expect(parseMultisigRedeemScript(chunks[3]?.data ?? new Uint8Array(0))?.m).toBe(2);
    });
  });
});
