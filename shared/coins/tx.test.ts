import { Transaction } from 'bitcoinjs-lib';
import { describe, expect, test } from 'vitest';
import { bytesToHex, hexToBytes } from './bytes.ts';
import { CoinError } from './errors.ts';
import { loadJson } from './fixtures/load-json.ts';
import { decodeTx, decodeTxHex, encodeTx, encodeTxHex, hasWitness, txidHex } from './tx.ts';
import type { Tx } from './tx.ts';

// This file is shared/coins/: three levels up is /work, where shared/vectors lives.
const VECTORS = new URL('../../../shared/vectors/bitcoin-sighash.json', import.meta.url);
const rows = ((await loadJson(VECTORS)) as unknown[][]).filter((r) => r.length === 5) as [string, ...unknown[]][];

function sampleSegwitTx(): Tx {
  return {
    version: 2,
    inputs: [
      { prevTxid: new Uint8Array(32).fill(0x11), vout: 1, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [Uint8Array.of(1, 2, 3), new Uint8Array(33).fill(2)] },
      { prevTxid: new Uint8Array(32).fill(0x22), vout: 0, scriptSig: Uint8Array.of(0x51), sequence: 0xffffffff, witness: [] },
    ],
    outputs: [{ value: 12345n, script: Uint8Array.of(0x00, 0x14, ...new Uint8Array(20)) }],
    locktime: 500000,
  };
}

describe('decodeTx / encodeTx', () => {
  test('round-trips every raw transaction of the sighash vectors', () => {
    for (const [raw] of rows) {
      const tx = decodeTx(hexToBytes(raw));
      expect(encodeTxHex(tx)).toBe(raw);
    }
    expect(rows.length).toBe(500);
  });

  test('txids agree with bitcoinjs-lib (oracle) on every vector transaction', () => {
    for (const [raw] of rows) {
      expect(txidHex(decodeTxHex(raw))).toBe(Transaction.fromHex(raw).getId());
    }
  });

  test('prevTxid is kept in display order', () => {
    const [raw] = rows[0] ?? [''];
    const ours = decodeTxHex(raw);
    const theirs = Transaction.fromHex(raw);
    const input = theirs.ins[0];
    if (input === undefined || ours.inputs[0] === undefined) throw new Error('no input');
    expect(bytesToHex(ours.inputs[0].prevTxid)).toBe(bytesToHex(Uint8Array.from(input.hash).reverse()));
  });

  test('negative int32 versions round-trip', () => {
    const negative = rows.map(([raw]) => decodeTxHex(raw)).find((tx) => tx.version < 0);
    expect(negative).toBeDefined();
    if (negative) expect(decodeTx(encodeTx(negative)).version).toBe(negative.version);
  });

  test('segwit serialization round-trips; txid ignores the witness', () => {
    const tx = sampleSegwitTx();
    expect(hasWitness(tx)).toBe(true);
    const bytes = encodeTx(tx);
    expect(bytes[4]).toBe(0x00);
    expect(bytes[5]).toBe(0x01);
    const back = decodeTx(bytes);
    expect(encodeTx(back)).toEqual(bytes);
    expect(back.inputs[0]?.witness?.length).toBe(2);
    expect(txidHex(tx)).toBe(Transaction.fromBuffer(bytes).getId());
    const legacy = encodeTx(tx, { witness: false });
    expect(legacy.length).toBeLessThan(bytes.length);
    expect(txidHex(decodeTx(legacy))).toBe(txidHex(tx));
  });
});

describe('decodeTx: strictness', () => {
  const [raw] = rows[0] ?? [''];
  const bytes = hexToBytes(raw);

  test('truncated transaction', () => {
    expect(() => decodeTx(bytes.subarray(0, bytes.length - 1))).toThrow(/truncated/);
    expect(() => decodeTx(bytes.subarray(0, 3))).toThrow(CoinError);
    expect(() => decodeTx(new Uint8Array(0))).toThrow(CoinError);
  });

  test('trailing bytes', () => {
    expect(() => decodeTx(Uint8Array.of(...bytes, 0x00))).toThrow(/trailing/);
  });

  test('impossible input and output counts', () => {
    // version, then 0xfe 0x7fffffff inputs
    expect(() => decodeTxHex('01000000fe7fffffff00')).toThrow(/cannot fit/);
    // one input of 41 bytes cannot fit in 10
    expect(() => decodeTxHex(`0100000001${'00'.repeat(10)}`)).toThrow(/cannot fit/);
  });

  test('non-canonical compact size', () => {
    const tx = sampleSegwitTx();
    const legacy = encodeTxHex({ ...tx, inputs: tx.inputs.map(({ witness: _w, ...rest }) => rest) });
    // replace the input count 02 by fd0200
    const bad = `${legacy.slice(0, 8)}fd0200${legacy.slice(10)}`;
    expect(() => decodeTxHex(bad)).toThrow(/non-canonical/);
  });

  test('unknown segwit flag and superfluous witness', () => {
    expect(() => decodeTxHex('010000000002')).toThrow(/flag/);
    const tx = sampleSegwitTx();
    const hex = encodeTxHex(tx);
    // Empty every witness but keep the marker: Core refuses such a serialization.
    const emptied = encodeTxHex({ ...tx, inputs: tx.inputs.map((i) => ({ ...i, witness: [] })) }, { witness: false });
    const forged = `${emptied.slice(0, 8)}0001${emptied.slice(8, -8)}0000${emptied.slice(-8)}`;
    expect(hex.length).toBeGreaterThan(forged.length);
    expect(() => decodeTxHex(forged)).toThrow(/empty witnesses/);
  });

  test('bad hex is a CoinError naming the field', () => {
    expect(() => decodeTxHex('zz', 'tx')).toThrow(/field "tx" is not valid hex/);
  });

  test('encodeTx refuses out-of-range fields', () => {
    const tx = decodeTx(bytes);
    expect(() => encodeTx({ ...tx, locktime: -1 })).toThrow(CoinError);
    expect(() => encodeTx({ ...tx, outputs: [{ value: -1n, script: new Uint8Array(0) }] })).toThrow(/value out of range/);
    expect(() => encodeTx({ ...tx, inputs: [{ prevTxid: new Uint8Array(31), vout: 0, scriptSig: new Uint8Array(0), sequence: 0 }] })).toThrow(/32 bytes/);
  });
});
