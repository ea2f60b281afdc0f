import { sha256 } from '@noble/hashes/sha2.js';
import { Transaction } from 'bitcoinjs-lib';
import { describe, expect, test } from 'vitest';
import { bytesToHex, hexToBytes } from './bytes.ts';
import { CoinError } from './errors.ts';
import { chainParams } from './coin-table.ts';
import { loadJson } from './fixtures/load-json.ts';
import { spendFixture } from './fixtures/spends.ts';
import { decodeTx, decodeTxHex, encodeTx, encodeTxHex, hasWitness, newTransparentTx, txidHex } from './tx.ts';
import type { Tx, ZcashV5Tx } from './tx.ts';

// The in-repo copies of the published vectors (fixtures/vectors/README.md says whence).
const vectors = async (name: string) =>
  ((await loadJson(new URL(`./fixtures/vectors/${name}`, import.meta.url))) as unknown[][]).filter((r) => r.length > 1) as [string, ...unknown[]][];
const rows = await vectors('bitcoin-sighash.json');
const bchRows = await vectors('bch-sighash.json');
const zip243Rows = await vectors('zcash-zip243.json');
const zip244Rows = await vectors('zcash-zip244.json');
const ZEC = chainParams('zcash', 'mainnet');

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

  test('round-trips every raw transaction of the Bitcoin Cash vectors', () => {
    for (const [raw] of bchRows) expect(encodeTxHex(decodeTxHex(raw))).toBe(raw);
    expect(bchRows.length).toBe(1000);
  });

  test('round-trips every Zcash v4 and v5 vector transaction, field by field', () => {
    for (const [raw] of [...zip243Rows, ...zip244Rows]) {
      const tx = decodeTxHex(raw, 'tx', ZEC);
      expect(tx.format === 'zcash-v4' || tx.format === 'zcash-v5').toBe(true);
      expect(encodeTxHex(tx)).toBe(raw);
    }
    expect(zip243Rows.map(([raw]) => decodeTxHex(raw, 'tx', ZEC).format)).toEqual(Array(10).fill('zcash-v4'));
    expect(zip244Rows.map(([raw]) => decodeTxHex(raw, 'tx', ZEC).format)).toEqual(Array(10).fill('zcash-v5'));
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

describe('Zcash transactions', () => {
  const [v4hex] = zip243Rows[0] ?? [''];
  const [v5hex, v5txid] = zip244Rows[0] ?? ['', ''];

  test('v4 txid is sha256d of the serialization; v5 txid is the ZIP-244 digest, both shown reversed', () => {
    const v4 = decodeTxHex(v4hex, 'tx', ZEC);
    expect(txidHex(v4)).toBe(bytesToHex(sha256(sha256(hexToBytes(v4hex))).reverse()));
    expect(txidHex(decodeTxHex(v5hex, 'tx', ZEC))).toBe(bytesToHex(hexToBytes(String(v5txid)).reverse()));
  });

  test('without the coin, bytes are read as a Bitcoin transaction', () => {
    expect(() => decodeTxHex(v5hex)).toThrow(CoinError);
  });

  test('strictness: trailing bytes, truncation, unknown versions and groups', () => {
    expect(() => decodeTxHex(`${v5hex}00`, 'tx', ZEC)).toThrow(/trailing/);
    expect(() => decodeTxHex(v5hex.slice(0, -2), 'tx', ZEC)).toThrow(/truncated/);
    // v5 header with the v4 version group
    expect(() => decodeTxHex(`05000080${'85202f89'}${v5hex.slice(16)}`, 'tx', ZEC)).toThrow(/unsupported Zcash transaction: version 5/);
    // Overwinter v3
    expect(() => decodeTxHex(`030000807082c403${v4hex.slice(16)}`, 'tx', ZEC)).toThrow(/only Sapling v4 and NU5 v5/);
    // Sprout v2 (not overwintered)
    expect(() => decodeTxHex('02000000000000000000', 'tx', ZEC)).toThrow(/version 2/);
  });

  test('a pre-Overwinter v1 transaction is read in Bitcoin layout', () => {
    const raw = encodeTxHex(sampleSegwitTx(), { witness: false }).replace(/^02000000/, '01000000');
    const tx = decodeTxHex(raw, 'tx', ZEC);
    expect(tx.format).toBeUndefined();
    expect(encodeTxHex(tx)).toBe(raw);
  });

  test('v5 encoding keeps its invariants', () => {
    const tx = zip244Rows.map(([r]) => decodeTxHex(r, 'tx', ZEC) as ZcashV5Tx).find((t) => t.sapling.spends.length > 0);
    const [spend] = tx?.sapling.spends ?? [];
    if (tx === undefined || spend === undefined) throw new Error('no vector with a sapling spend');
    const spends = [spend, { ...spend, anchor: new Uint8Array(32).fill(9) }];
    expect(() => encodeTx({ ...tx, sapling: { ...tx.sapling, spends } })).toThrow(/share one anchor/);
    const empty = newTransparentTx(ZEC, { inputs: [], outputs: [], height: 3_500_000 }) as ZcashV5Tx;
    expect(() => encodeTx({ ...empty, sapling: { ...empty.sapling, valueBalance: 5n } })).toThrow(/no sapling value balance/);
    expect(() => encodeTx({ ...empty, version: 4 as unknown as 5 })).toThrow(/must have version 5/);
  });
});

describe('newTransparentTx: every coin builds in its own format', () => {
  test.each([
    ['bitcoin', undefined, 1],
    ['bitcoin_cash', undefined, 1],
    ['bitcoin_gold', undefined, 1],
    ['bitcoin_private', undefined, 1],
    ['dash', undefined, 1],
    ['zclassic', 'zcash-v4', 4],
    ['zcash', 'zcash-v5', 5],
  ] as const)('%s', (coin, format, version) => {
    const f = spendFixture(chainParams(coin, 'mainnet'));
    expect(f.tx.format).toBe(format);
    expect(f.tx.version).toBe(version);
    expect(f.tx.locktime).toBe(0);
    if (f.tx.format === 'zcash-v4' || f.tx.format === 'zcash-v5') expect(f.tx.expiryHeight).toBe(0);
    const bytes = encodeTx(f.tx);
    expect(encodeTx(decodeTx(bytes, chainParams(coin, 'mainnet')))).toEqual(bytes);
    expect(txidHex(decodeTx(bytes, chainParams(coin, 'mainnet')))).toBe(txidHex(f.tx));
  });

  test('zcash: the branch id follows the height; before NU5, or without a height, it is refused', () => {
    const at = (height: number) => (newTransparentTx(ZEC, { inputs: [], outputs: [], height }) as ZcashV5Tx).consensusBranchId;
    expect(at(1_687_104)).toBe(0xc2d6d0b4);
    expect(at(3_428_143)).toBe(0x37a5165b);
    expect(() => at(1_687_103)).toThrow(/before NU5/);
    expect(() => newTransparentTx(ZEC, { inputs: [], outputs: [] })).toThrow(/chain height is needed/);
    expect((newTransparentTx(chainParams('zcash', 'regtest'), { inputs: [], outputs: [], height: 101 }) as ZcashV5Tx).consensusBranchId).toBe(0x37a5165b);
  });
});
