// The one rule of a spend's version, nLockTime and nSequence (issue 31, finding 1): each kind's exact
// values, what a co-signer accepts without knowing the kind, and every other lock refused in words.
import { describe, expect, test } from 'vitest';
import { chainParams } from './coin-table.ts';
import { acceptedLocks, canonicalLocks, exactly, lockProblems, lockWords, type SpendKind } from './spend-locks.ts';
import { encodeTx, type BitcoinTx } from './tx.ts';
import { inspectTransaction } from './inspect.ts';

const ltc = chainParams('litecoin', 'regtest');
const btc = chainParams('bitcoin', 'mainnet');
const FINAL = 0xffffffff;
const RBF = 0xfffffffd;

/** A transaction of `n` inputs, each with `sequence` (or the given list). */
function tx(version: number, locktime: number, sequence: number | number[], n = 2): BitcoinTx {
  const seqs = Array.isArray(sequence) ? sequence : new Array<number>(n).fill(sequence);
  return {
    version,
    inputs: seqs.map((s, i) => ({ prevTxid: new Uint8Array(32).fill(i + 1), vout: i, scriptSig: new Uint8Array(0), sequence: s })),
    outputs: [{ value: 1_000n, script: new Uint8Array([0x51]) }],
    locktime,
  };
}

describe('canonicalLocks: the exact values of each kind', () => {
  const multisig = { vault: false, older: 0 };
  const vault = { vault: true, older: 0 };
  test.each<[SpendKind, boolean, number]>([
    ['payment', false, FINAL],
    ['payment', true, RBF],
    ['batch', false, FINAL],
    ['batch', true, RBF],
    ['refresh', true, RBF],
    ['refresh', false, FINAL],
    ['bump', false, RBF],
    ['cancel', false, RBF],
    ['cpfp', true, FINAL],
  ])('%s (replaceable asked: %s): nSequence 0x%s, nLockTime 0, the coin\'s version for M-of-N, 2 for a vault', (kind, replaceable, sequence) => {
    expect(canonicalLocks(ltc, kind, multisig, replaceable)).toEqual({ version: 1, locktime: 0, sequence });
    expect(canonicalLocks(ltc, kind, vault, replaceable)).toEqual({ version: 2, locktime: 0, sequence });
  });

  test("a recovery path: exactly its older(), whatever the kind; a recovery without a path's lock is no recovery", () => {
    for (const kind of ['recovery', 'payment', 'bump', 'cancel'] as const) expect(canonicalLocks(ltc, kind, { vault: true, older: 144 }, true)).toEqual({ version: 2, locktime: 0, sequence: 144 });
    expect(() => canonicalLocks(ltc, 'recovery', vault, false)).toThrow(RangeError);
  });

  test('a Zcash-family coin keeps its own version (the coin table\'s)', () => {
    expect(canonicalLocks(chainParams('zcash', 'mainnet'), 'payment', multisig, false).version).toBe(5);
  });
});

describe('lockProblems: anything but the accepted values, refused in words', () => {
  const payment = exactly(canonicalLocks(ltc, 'payment', { vault: false, older: 0 }, false), 'the payment asked for');
  const vaultRbf = exactly(canonicalLocks(ltc, 'payment', { vault: true, older: 0 }, true), 'the payment asked for');
  const recovery = exactly(canonicalLocks(ltc, 'recovery', { vault: true, older: 144 }, false), 'the payment asked for');

  test('the exact values pass', () => {
    expect(lockProblems(ltc, tx(1, 0, FINAL), payment)).toEqual([]);
    expect(lockProblems(ltc, tx(2, 0, RBF), vaultRbf)).toEqual([]);
    expect(lockProblems(ltc, tx(2, 0, 144), recovery)).toEqual([]);
  });

  test('a wrong version (M-of-N at 2, which turns on relative locks; a vault at 1 or 3)', () => {
    expect(lockProblems(ltc, tx(2, 0, FINAL), payment)).toEqual(['the transaction has version 2; the payment asked for has version 1 (version 2 turns on relative locks, BIP68)']);
    expect(lockProblems(ltc, tx(1, 0, RBF), vaultRbf)).toEqual(['the transaction has version 1; the payment asked for has version 2']);
    expect(lockProblems(ltc, tx(3, 0, RBF), vaultRbf)).toEqual(['the transaction has version 3; the payment asked for has version 2']);
  });

  test('nLockTime at tip + 5: the block, and how far it is when the tip is known', () => {
    const tip = 1_229;
    const locked = tx(2, tip + 5, 0xfffffffe);
    expect(lockProblems(ltc, locked, vaultRbf, tip)).toEqual([
      'this transaction cannot be mined before block 1,235 (5 more blocks must be mined first, about 13 minutes): nLockTime 1,234, where the payment asked for carries 0 (no lock)',
      'input 0 has nSequence 0xfffffffe; the payment asked for spends it with nSequence 0xfffffffd (replaceable, BIP125)',
      'input 1 has nSequence 0xfffffffe; the payment asked for spends it with nSequence 0xfffffffd (replaceable, BIP125)',
    ]);
    // Offline (a co-signer): the block alone.
    expect(lockProblems(ltc, tx(1, 1_233, RBF), payment)[0]).toBe('this transaction cannot be mined before block 1,234: nLockTime 1,233, where the payment asked for carries 0 (no lock)');
  });

  test('a time lock in 2100, even with every input final (the node ignores it today, the signatures keep it)', () => {
    const y2100 = 4_102_444_800;
    expect(lockProblems(ltc, tx(1, y2100, RBF), exactly(canonicalLocks(ltc, 'payment', { vault: false, older: 0 }, true), 'the payment asked for'))).toEqual([
      "this transaction cannot be mined before 2100-01-01 00:00 UTC (by the time of the chain's blocks): nLockTime 4,102,444,800, where the payment asked for carries 0 (no lock)",
    ]);
    expect(lockProblems(ltc, tx(1, y2100, FINAL), payment)[0]).toContain('every input is final, so today the node ignores it; it is signed all the same');
  });

  test('a relative lock of 388 days (65,535 x 512 s) and of 65,535 blocks on primary-path inputs', () => {
    expect(lockProblems(ltc, tx(2, 0, [RBF, 0x0040ffff]), vaultRbf)).toEqual([
      'input 1 has nSequence 0x40ffff: input 1 is locked for about 388.4 days (65,535 periods of 512 seconds) after its coin confirms; the payment asked for spends it with nSequence 0xfffffffd (replaceable, BIP125)',
    ]);
    expect(lockProblems(btc, tx(2, 0, 0xffff, 1), exactly(canonicalLocks(btc, 'cpfp', { vault: true, older: 0 }, false), 'the child-pays-for-parent asked for'))).toEqual([
      'input 0 has nSequence 0xffff: input 0 is locked for 65,535 blocks (about 455.1 days) after its coin confirms; the child-pays-for-parent asked for spends it with nSequence 0xffffffff (final)',
    ]);
  });

  test('a recovery path: its older() exactly; more locks the coins longer, a final or replaceable one is not that path', () => {
    expect(lockProblems(ltc, tx(2, 0, 144), recovery)).toEqual([]);
    expect(lockProblems(ltc, tx(2, 0, [144, 1_000]), recovery)).toEqual(['input 1 has nSequence 0x3e8: input 1 is locked for 1,000 blocks (about 1.7 days) after its coin confirms; the payment asked for spends it with nSequence 144 (older(144))']);
    expect(lockProblems(ltc, tx(2, 0, RBF), recovery)[0]).toBe('input 0 has nSequence 0xfffffffd (replaceable, BIP125); the payment asked for spends it with nSequence 144 (older(144))');
  });

  test("a non-lock that is still not the desk's value (the disable flag set) and a mix of canonical values", () => {
    expect(lockProblems(ltc, tx(2, 0, 0x80000000), vaultRbf)).toEqual(['input 0 has nSequence 0x80000000; the payment asked for spends it with nSequence 0xfffffffd (replaceable, BIP125)', 'input 1 has nSequence 0x80000000; the payment asked for spends it with nSequence 0xfffffffd (replaceable, BIP125)']);
    expect(lockProblems(ltc, tx(1, 0, [FINAL, RBF]), acceptedLocks(ltc, { vault: false, older: 0 }))).toEqual([
      'the inputs carry different nSequence values (0xffffffff (final), 0xfffffffd (replaceable, BIP125)); a payment of this wallet gives every input the same',
    ]);
  });
});

describe("acceptedLocks: a co-signer's check, not knowing the kind", () => {
  test('M-of-N: the coin\'s version, no lock, final or replaceable', () => {
    const a = acceptedLocks(ltc, { vault: false, older: 0 });
    expect(lockProblems(ltc, tx(1, 0, FINAL), a)).toEqual([]);
    expect(lockProblems(ltc, tx(1, 0, RBF), a)).toEqual([]);
    expect(lockProblems(ltc, tx(2, 0, RBF), a)).toEqual(['the transaction has version 2; a payment of this wallet has version 1 (version 2 turns on relative locks, BIP68)']);
  });
  test('a request that says whether the spend signals replacement: exactly that nSequence', () => {
    const rbf = acceptedLocks(ltc, { vault: false, older: 0 }, true);
    expect(lockProblems(ltc, tx(1, 0, RBF), rbf)).toEqual([]);
    expect(lockProblems(ltc, tx(1, 0, FINAL), rbf)).toEqual(['input 0 has nSequence 0xffffffff (final); a payment of this wallet that its request says signals replacement spends it with nSequence 0xfffffffd (replaceable, BIP125)', 'input 1 has nSequence 0xffffffff (final); a payment of this wallet that its request says signals replacement spends it with nSequence 0xfffffffd (replaceable, BIP125)']);
    const final = acceptedLocks(ltc, { vault: true, older: 0 }, false);
    expect(lockProblems(ltc, tx(2, 0, FINAL), final)).toEqual([]);
    expect(lockProblems(ltc, tx(2, 0, RBF), final)).toHaveLength(2);
    // A recovery path's older() whatever the flag says.
    expect(acceptedLocks(ltc, { vault: true, older: 144 }, true).sequences).toEqual([144]);
  });
  test("a vault's recovery path: only its older()", () => {
    const a = acceptedLocks(ltc, { vault: true, older: 144 });
    expect(lockProblems(ltc, tx(2, 0, 144), a)).toEqual([]);
    expect(lockProblems(ltc, tx(2, 0, 145, 1), a)).toEqual(['input 0 has nSequence 0x91: input 0 is locked for 145 blocks (about 6 hours) after its coin confirms; a spend on the path that opens after 144 blocks spends it with nSequence 144 (older(144))']);
  });
});

describe('lockWords: every lock a transaction carries', () => {
  test('none for the canonical values; each lock otherwise', () => {
    expect(lockWords(ltc, tx(1, 0, FINAL))).toEqual([]);
    expect(lockWords(ltc, tx(2, 0, RBF))).toEqual([]);
    expect(lockWords(ltc, tx(2, 0, 144, 1))).toEqual(['input 0 is locked for 144 blocks (about 6 hours) after its coin confirms']);
    expect(lockWords(ltc, tx(1, 1_233, 0xfffffffe, 1), 1_000)).toEqual(['this transaction cannot be mined before block 1,234 (233 more blocks must be mined first, about 9.7 hours)']);
    // Version 1: BIP68 is off, the value locks nothing.
    expect(lockWords(ltc, tx(1, 0, 144, 1))).toEqual([]);
  });
});

describe('countersign tx inspect', () => {
  test('warns of each lock in the same words, and of none on a transaction without', () => {
    const warned = (t: BitcoinTx) => inspectTransaction(ltc, encodeTx(t)).warnings.filter((w) => w.includes('locked') || w.includes('cannot be mined'));
    expect(warned(tx(1, 0, FINAL))).toEqual([]);
    expect(warned(tx(2, 1_233, [0xfffffffe, 0x0040ffff]))).toEqual([
      "this transaction cannot be mined before block 1,234: a payment built by Countersign carries none, except a vault's recovery path (its older())",
      "input 1 is locked for about 388.4 days (65,535 periods of 512 seconds) after its coin confirms: a payment built by Countersign carries none, except a vault's recovery path (its older())",
    ]);
  });
});
