import * as ecc from 'tiny-secp256k1';
import { describe, expect, test } from 'vitest';
import { bytesToHex, concatBytes, hexToBytes } from '../bytes.ts';
import { chainParams } from '../coin-table.ts';
import { CoinError } from '../errors.ts';
import { loadJson } from '../fixtures/load-json.ts';
import { decodeDerSignature, splitHashType } from '../signature.ts';
import { decodeTx, encodeTx, txVsize, txWeight, txidHex, wtxidHex } from '../tx.ts';
import { bip143Sighash } from './bip143.ts';
import { forkIdSighash } from './forkid.ts';
import { segwitSignatureHash } from './index.ts';

// bitcoin/bips bip-0143.mediawiki, its worked examples (fixtures/vectors/README.md).
const VECTORS = new URL('../fixtures/vectors/bip143-segwit.json', import.meta.url);
type Row = [string, string, number, string, number, number, string, string, string, string];
const rows = ((await loadJson(VECTORS)) as unknown[][]).filter((r): r is Row => r.length === 10);

/** ECDSA check without the low-S rule: the BIP's signatures predate no rule, but we check them all. */
function verifies(hash: Uint8Array, publicKey: Uint8Array, derWithType: Uint8Array): boolean {
  const { der } = splitHashType(derWithType);
  const { r, s } = decodeDerSignature(der);
  return ecc.verify(hash, publicKey, concatBytes(r, s), false);
}

describe('BIP143 digest: the BIP\'s worked examples', () => {
  test('the vector file has its eight rows', () => {
    expect(rows.length).toBe(8);
  });

  test.each(rows.map((r) => [r[0], r] as const))('%s: sighash, and the signature verifies against it', (_name, row) => {
    const [, unsignedHex, inputIndex, scriptCode, amount, hashType, sighash, publicKey, signature] = row;
    const tx = decodeTx(hexToBytes(unsignedHex));
    // The script code is hashed as given (after OP_CODESEPARATOR where the row says so).
    const digest = bip143Sighash(tx, inputIndex, hexToBytes(scriptCode), BigInt(amount), hashType);
    expect(bytesToHex(digest)).toBe(sighash);
    expect(splitHashType(hexToBytes(signature)).hashType).toBe(hashType);
    expect(verifies(digest, hexToBytes(publicKey), hexToBytes(signature))).toBe(true);
  });

  test.each(rows.filter((r) => r[9] !== '').map((r) => [r[0], r] as const))('%s: the signed transaction round-trips (BIP144)', (_name, row) => {
    const [, unsignedHex, inputIndex, , , , , , signature, signedHex] = row;
    const signed = decodeTx(hexToBytes(signedHex));
    expect(bytesToHex(encodeTx(signed))).toBe(signedHex);
    // The txid is over the serialization without witnesses: the same as the unsigned form's
    // only when the scriptSigs are empty; the wtxid covers the witness.
    const stripped = { ...signed, inputs: signed.inputs.map(({ witness: _w, ...i }) => i) };
    expect(txidHex(signed)).toBe(txidHex(stripped));
    expect(wtxidHex(signed)).not.toBe(txidHex(signed));
    expect(wtxidHex(stripped)).toBe(txidHex(stripped));
    // The row's signature is in the witness of the signed input.
    expect(signed.inputs[inputIndex]!.witness!.map(bytesToHex)).toContain(signature);
    // Outputs, version and locktime are the unsigned transaction's.
    const unsigned = decodeTx(hexToBytes(unsignedHex));
    expect(bytesToHex(encodeTx({ ...signed, inputs: unsigned.inputs }))).toBe(unsignedHex);
    // Weight: the base size counts 4 times, the witness part (marker, flag, stacks) once.
    const base = encodeTx(signed, { witness: false }).length;
    const total = hexToBytes(signedHex).length;
    expect(txWeight(signed)).toBe(base * 3 + total);
    expect(txVsize(signed)).toBe(Math.ceil((base * 3 + total) / 4));
  });

  test('a transaction without witnesses encodes as before, and its weight is 4 x its size', () => {
    const tx = decodeTx(hexToBytes(rows[0]![1]));
    const bytes = encodeTx(tx);
    expect(bytesToHex(bytes)).toBe(rows[0]![1]);
    expect(txWeight(tx)).toBe(bytes.length * 4);
    expect(txVsize(tx)).toBe(bytes.length);
  });

  test('the fork-id digest is the same function: only the committed hash type differs', () => {
    expect(forkIdSighash).toBe(bip143Sighash);
  });
});

describe('segwitSignatureHash through the coin table', () => {
  // The 6-of-6 P2SH-P2WSH example, signed with SIGHASH_ALL.
  const row = rows.find((r) => r[0] === 'P2SH-P2WSH 6-of-6 multisig, ALL')!;
  const [, unsignedHex, inputIndex, witnessScriptHex, amount, , sighash] = row;
  const tx = decodeTx(hexToBytes(unsignedHex));
  const context = { witnessScript: hexToBytes(witnessScriptHex), amount: BigInt(amount) };

  test('bitcoin and litecoin commit to SIGHASH_ALL: the BIP\'s digest', () => {
    expect(bytesToHex(segwitSignatureHash(chainParams('bitcoin', 'mainnet'), tx, inputIndex, context))).toBe(sighash);
    expect(bytesToHex(segwitSignatureHash(chainParams('litecoin', 'regtest'), tx, inputIndex, context))).toBe(sighash);
  });

  test('bitcoin_gold commits to its fork-id type 0x00004F41 on segwit inputs', () => {
    const btg = segwitSignatureHash(chainParams('bitcoin_gold', 'mainnet'), tx, inputIndex, context);
    expect(bytesToHex(btg)).toBe(bytesToHex(bip143Sighash(tx, inputIndex, context.witnessScript, context.amount, 0x4f41)));
    expect(bytesToHex(btg)).not.toBe(sighash);
  });

  test('another amount is another digest', () => {
    const other = segwitSignatureHash(chainParams('bitcoin', 'mainnet'), tx, inputIndex, { ...context, amount: context.amount + 1n });
    expect(bytesToHex(other)).not.toBe(sighash);
  });

  test('refused on a coin without segwit, naming it', () => {
    expect(() => segwitSignatureHash(chainParams('bitcoin_cash', 'mainnet'), tx, inputIndex, context)).toThrow(/bitcoin_cash has no segwit/);
    expect(() => segwitSignatureHash(chainParams('dash', 'testnet'), tx, inputIndex, context)).toThrow(CoinError);
  });

  test('a witness script that does not hash to the spent output is refused', () => {
    const p2sh = hexToBytes('a9149993a429037b5d912407a71c252019287b8d27a587');
    expect(() => segwitSignatureHash(chainParams('bitcoin', 'mainnet'), tx, inputIndex, { ...context, scriptPubKey: p2sh })).not.toThrow();
    const wrong = hexToBytes('a914' + '00'.repeat(20) + '87');
    expect(() => segwitSignatureHash(chainParams('bitcoin', 'mainnet'), tx, inputIndex, { ...context, scriptPubKey: wrong })).toThrow(/input 0: the witness script does not hash/);
  });
});
