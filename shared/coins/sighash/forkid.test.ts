import { bitgo, networks } from '@bitgo/utxo-lib';
import { describe, expect, test } from 'vitest';
import { bytesToHex, hexToBytes, reverseBytes } from '../bytes.ts';
import { chainParams } from '../coin-table.ts';
import { CoinError } from '../errors.ts';
import { loadJson } from '../fixtures/load-json.ts';
import { PRIVATE_KEYS, PUBLIC_KEYS, spendFixture } from '../fixtures/spends.ts';
import { signDer, verifyDerSignature } from '../signature.ts';
import { decodeTx, encodeTx } from '../tx.ts';
import { SIGHASH_FORKID, SIGHASH_UTXOS, forkIdSighash } from './forkid.ts';
import { signatureHash } from './index.ts';
import { legacySighash } from './legacy.ts';

// The in-repo copy of the published vectors (fixtures/vectors/README.md says whence).
const VECTORS = new URL('../fixtures/vectors/bch-sighash.json', import.meta.url);
type Row = [string, string, number, number, string, string];
const rows = ((await loadJson(VECTORS)) as unknown[][]).filter((r): r is Row => r.length === 6);

describe('forkid sighash: Bitcoin Cash Node sighash.json', () => {
  test('the vector file has its rows', () => {
    expect(rows.length).toBe(1000);
  });

  test('"regular": the forkid digest (amount 0) when the type has SIGHASH_FORKID, else legacy', () => {
    let forkid = 0;
    let withUtxosBit = 0;
    rows.forEach(([rawTx, script, inputIndex, hashType, regular], n) => {
      const type = hashType >>> 0;
      const tx = decodeTx(hexToBytes(rawTx));
      const scriptCode = hexToBytes(script);
      const digest = type & SIGHASH_FORKID ? forkIdSighash(tx, inputIndex, scriptCode, 0n, type) : legacySighash(tx, inputIndex, scriptCode, type);
      expect(bytesToHex(reverseBytes(digest)), `row ${n}`).toBe(regular);
      if (type & SIGHASH_FORKID) forkid++;
      if (type & SIGHASH_FORKID && type & SIGHASH_UTXOS) withUtxosBit++;
    });
    // The vectors were made without the SIGHASH_UTXOS upgrade enabled: bit 0x20 changes nothing.
    expect(forkid).toBe(494);
    expect(withUtxosBit).toBe(258);
  });

  test('"no fork flag": the legacy digest, whatever the type', () => {
    rows.forEach(([rawTx, script, inputIndex, hashType, , noForkId], n) => {
      const digest = legacySighash(decodeTx(hexToBytes(rawTx)), inputIndex, hexToBytes(script), hashType >>> 0);
      expect(bytesToHex(reverseBytes(digest)), `row ${n}`).toBe(noForkId);
    });
  });
});

describe('forkid sighash through the coin table', () => {
  const bch = chainParams('bitcoin_cash', 'mainnet');
  const btg = chainParams('bitcoin_gold', 'mainnet');

  test.each([
    ['bitcoin_cash', networks.bitcoincash],
    ['bitcoin_gold', networks.bitcoingold],
  ] as const)('%s: P2SH multisig and P2PKH inputs agree with @bitgo/utxo-lib (oracle)', (coin, network) => {
    const params = chainParams(coin, 'mainnet');
    const f = spendFixture(params);
    const oracle = bitgo.UtxoTransaction.fromBuffer<bigint>(Buffer.from(encodeTx(f.tx)), false, 'bigint', network);
    f.tx.inputs.forEach((_, i) => {
      const ours = signatureHash(params, f.tx, i, { scriptCode: f.scriptCodes[i]!, prevouts: f.prevouts });
      const theirs = oracle.hashForSignatureByNetwork(i, Buffer.from(f.scriptCodes[i]!), f.prevouts[i]!.amount, params.hashType);
      expect(bytesToHex(ours)).toBe(bytesToHex(theirs));
    });
  });

  test('the same transaction hashes differently on bitcoin_cash and bitcoin_gold (replay protection)', () => {
    const f = spendFixture(bch);
    for (const i of [0, 1]) {
      const context = { scriptCode: f.scriptCodes[i]!, prevouts: f.prevouts };
      const a = signatureHash(bch, f.tx, i, context);
      const b = signatureHash(btg, f.tx, i, context);
      expect(bytesToHex(a)).not.toBe(bytesToHex(b));
      // A BCH signature does not verify against the BTG digest.
      const sig = signDer(a, PRIVATE_KEYS[0]!);
      expect(verifyDerSignature(a, PUBLIC_KEYS[0]!, sig)).toBe(true);
      expect(verifyDerSignature(b, PUBLIC_KEYS[0]!, sig)).toBe(false);
    }
  });

  test('the digest commits to the amount', () => {
    const f = spendFixture(bch);
    const a = signatureHash(bch, f.tx, 0, { scriptCode: f.redeemScript, amount: 120_000n });
    const b = signatureHash(bch, f.tx, 0, { scriptCode: f.redeemScript, amount: 120_001n });
    expect(bytesToHex(a)).not.toBe(bytesToHex(b));
    expect(bytesToHex(a)).toBe(bytesToHex(signatureHash(bch, f.tx, 0, { scriptCode: f.redeemScript, prevouts: f.prevouts })));
  });

  test('no amount: a CoinError naming the input', () => {
    const f = spendFixture(bch);
    expect(() => signatureHash(bch, f.tx, 1, { scriptCode: f.p2pkhScriptPubKey })).toThrow(CoinError);
    expect(() => signatureHash(bch, f.tx, 1, { scriptCode: f.p2pkhScriptPubKey })).toThrow(/amount of the output spent by input 1 is needed/);
  });

  test('SIGHASH_UTXOS is refused', () => {
    const f = spendFixture(bch);
    expect(() => signatureHash({ ...bch, hashType: 0x61 }, f.tx, 0, { scriptCode: f.redeemScript, prevouts: f.prevouts })).toThrow(/SIGHASH_UTXOS/);
  });

  test('the P2SH scriptPubKey is not a script code: refused when the spent output is known', () => {
    const f = spendFixture(bch);
    expect(() => signatureHash(bch, f.tx, 0, { scriptCode: f.p2shScriptPubKey, prevouts: f.prevouts })).toThrow(/not the redeem script/);
    expect(() => signatureHash(bch, f.tx, 1, { scriptCode: f.redeemScript, prevouts: f.prevouts })).toThrow(/must be the scriptPubKey/);
  });

  test('amounts given twice must agree; prevouts must cover every input', () => {
    const f = spendFixture(bch);
    expect(() => signatureHash(bch, f.tx, 0, { scriptCode: f.redeemScript, prevouts: f.prevouts, amount: 1n })).toThrow(/two different amounts/);
    expect(() => signatureHash(bch, f.tx, 0, { scriptCode: f.redeemScript, prevouts: f.prevouts.slice(0, 1) })).toThrow(/all 2 input/);
  });
});
