import { Transaction } from 'bitcoinjs-lib';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, test } from 'vitest';
import { bytesToHex } from '../bytes.ts';
import { chainParams, sighashTypeInDigest } from '../coin-table.ts';
import { spendFixture } from '../fixtures/spends.ts';
import { encodeTx, isBitcoinTx } from '../tx.ts';
import type { BitcoinTx } from '../tx.ts';
import { signatureHash } from './index.ts';
import { legacyForkIdSighash } from './legacy-forkid.ts';
import { legacySighash } from './legacy.ts';

// Bitcoin Private has no published vector file: its digest is checked against a preimage built
// here by hand, byte by byte, and against bitcoinjs-lib's legacy hash given the 32-bit type.

const btcp = chainParams('bitcoin_private', 'mainnet');

function le(value: number | bigint, bytes: number): number[] {
  const out: number[] = [];
  let v = BigInt(value);
  for (let i = 0; i < bytes; i++) {
    out.push(Number(v & 0xffn));
    v >>= 8n;
  }
  return out;
}

/** SIGHASH_ALL legacy preimage: every input's script emptied but the signed one's. Scripts < 253 bytes. */
function handPreimage(tx: BitcoinTx, inputIndex: number, scriptCode: Uint8Array, type32: number): Uint8Array {
  const bytes: number[] = [...le(tx.version, 4), tx.inputs.length];
  tx.inputs.forEach((input, i) => {
    bytes.push(...[...input.prevTxid].reverse(), ...le(input.vout, 4));
    if (i === inputIndex) bytes.push(scriptCode.length, ...scriptCode);
    else bytes.push(0);
    bytes.push(...le(input.sequence, 4));
  });
  bytes.push(tx.outputs.length);
  for (const output of tx.outputs) bytes.push(...le(output.value, 8), output.script.length, ...output.script);
  bytes.push(...le(tx.locktime, 4), ...le(type32, 4));
  return Uint8Array.from(bytes);
}

describe('legacy-forkid sighash (bitcoin_private, fork id 42)', () => {
  const f = spendFixture(btcp);
  if (!isBitcoinTx(f.tx)) throw new Error('bitcoin_private builds Bitcoin-format transactions');
  const tx = f.tx;

  test('the 32-bit type hashed is 0x00002A41 and the appended byte 0x41', () => {
    expect(sighashTypeInDigest(btcp)).toBe(0x00002a41);
    expect(btcp.hashType).toBe(0x41);
  });

  test('equals sha256d of the hand-built preimage, for both inputs', () => {
    tx.inputs.forEach((_, i) => {
      const preimage = handPreimage(tx, i, f.scriptCodes[i]!, 0x00002a41);
      // The preimage ends in 41 2a 00 00.
      expect(bytesToHex(preimage.subarray(-4))).toBe('412a0000');
      const expected = sha256(sha256(preimage));
      expect(bytesToHex(signatureHash(btcp, tx, i, { scriptCode: f.scriptCodes[i]! }))).toBe(bytesToHex(expected));
    });
  });

  test('equals bitcoinjs-lib hashForSignature with the 32-bit type (oracle)', () => {
    const oracle = Transaction.fromBuffer(encodeTx(tx));
    tx.inputs.forEach((_, i) => {
      expect(bytesToHex(legacyForkIdSighash(tx, i, f.scriptCodes[i]!, 0x41, 42))).toBe(bytesToHex(oracle.hashForSignature(i, f.scriptCodes[i]!, 0x2a41)));
    });
  });

  test('differs from the legacy digest with type 0x41 or 0x01', () => {
    const ours = bytesToHex(signatureHash(btcp, tx, 0, { scriptCode: f.redeemScript }));
    expect(ours).not.toBe(bytesToHex(legacySighash(tx, 0, f.redeemScript, 0x41)));
    expect(ours).not.toBe(bytesToHex(legacySighash(tx, 0, f.redeemScript, 0x01)));
  });

  test('needs no amount, but checks the script code when the spent output is given', () => {
    expect(() => signatureHash(btcp, tx, 0, { scriptCode: f.redeemScript, prevouts: f.prevouts })).not.toThrow();
    expect(() => signatureHash(btcp, tx, 0, { scriptCode: f.p2shScriptPubKey, prevouts: f.prevouts })).toThrow(/not the redeem script/);
  });

  test('SIGHASH_SINGLE without a matching output is refused, as Zcash-derived nodes do', () => {
    expect(() => legacyForkIdSighash({ ...tx, outputs: [] }, 0, f.redeemScript, 0x43, 42)).toThrow(/SIGHASH_SINGLE/);
  });
});
