// The offline check of an unsigned vault payment (issue 27), shared by the treasurer (on the
// service's answer) and the co-signer (on a signing request): the right transaction passes with
// the BIP143 hash and the chosen path's keys only; each mistake a faulty service or an altered file
// could make is refused in words.
import { describe, expect, test } from 'vitest';
import { testCosigner } from '../../dev/desk-testing/keys.ts';
import { miniscriptInputHash, unsignedMiniscriptInput } from '../coins/assemble-miniscript.ts';
import { addressToScript } from '../coins/address.ts';
import { bytesToHex } from '../coins/bytes.ts';
import { chainParams } from '../coins/coin-table.ts';
import { compileWshMiniscript, miniscriptPaths } from '../coins/miniscript-spend.ts';
import { encodeTx, type BitcoinTx } from '../coins/tx.ts';
import type { VaultKey } from '../coins/vault-policy.ts';
import { vaultInputSpend } from '../coins/vault-spend.ts';
import { recoveryVault } from '../coins/vault-templates.ts';
import { verifyUnsignedVaultPayment } from './unsigned-payment.ts';

const params = chainParams('litecoin', 'regtest');
const key = (name: string): VaultKey => {
  const c = testCosigner(name, params);
  return { xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath };
};
const [A, B, C, D, E] = ['a', 'b', 'c', 'd', 'e'].map(key) as [VaultKey, VaultKey, VaultKey, VaultKey, VaultKey];
const policy = recoveryVault(params, { threshold: 2, keys: [A, B, C] }, [{ threshold: 1, keys: [D, E], after: { blocks: 144 } }]);
const AMOUNT = 100_000_000n;
const payee = vaultInputSpend(params, policy, false, 9, 0).address.address;

/** A recovery-path spend of the vault's 0/3 address, as the service builds it, with `change` applied. */
function spendOf(change: { version?: number; sequence?: number; pathIndex?: number; scriptIndex?: number; locktime?: number } = {}): Uint8Array {
  const ours = vaultInputSpend(params, policy, false, change.scriptIndex ?? 3, 144);
  const compiled = compileWshMiniscript(ours.descriptor.slice(4, -1));
  const tx: BitcoinTx = {
    version: change.version ?? 2,
    inputs: [{ prevTxid: new Uint8Array(32).fill(5), vout: 1, scriptSig: new Uint8Array(0), sequence: change.sequence ?? 144, witness: unsignedMiniscriptInput(compiled, change.pathIndex ?? 1).witness }],
    outputs: [{ value: AMOUNT - 1_000n, script: addressToScript(params, payee) }],
    locktime: change.locktime ?? 0,
  };
  return encodeTx(tx);
}
const verify = (tx: Uint8Array) => verifyUnsignedVaultPayment(params, policy, 144, tx, [{ amount: AMOUNT, path: '0/3' }], [{ address: payee, amount: AMOUNT - 1_000n, purpose: 'payment' }], 1_000n, 'tampered');

describe('verifyUnsignedVaultPayment', () => {
  test('the service\'s recovery spend: the BIP143 hash, signed by the recovery keys only, with their holders and branches', () => {
    const ours = vaultInputSpend(params, policy, false, 3, 144);
    const [input] = verify(spendOf()).inputs;
    expect(input!.publicKeys.map(bytesToHex)).toEqual(ours.path.keys);
    expect(input!.pathKeys!.map((k) => [k.key, k.path])).toEqual([[3, '0/3'], [4, '0/3']]);
    const compiled = compileWshMiniscript(ours.descriptor.slice(4, -1));
    expect(bytesToHex(input!.hash)).toBe(
      bytesToHex(miniscriptInputHash(params, { version: 2, inputs: [{ prevTxid: new Uint8Array(32).fill(5), vout: 1, scriptSig: new Uint8Array(0), sequence: 144 }], outputs: [{ value: AMOUNT - 1_000n, script: addressToScript(params, payee) }], locktime: 0 }, 0, { compiled, paths: miniscriptPaths(compiled), path: 1, amount: AMOUNT })),
    );
  });

  test('refused in words: version 1, a sequence below older(), another path, another address\'s witness script, another amount', () => {
    expect(() => verify(spendOf({ version: 1 }))).toThrow('the transaction has version 1; a vault spend has version 2 (relative timelocks, BIP68)');
    expect(() => verify(spendOf({ sequence: 143 }))).toThrow("input 0 on path 1 (1 of 2 keys, after 144 blocks): its nSequence 143 is below the path's relative timelock of 144 blocks (older(144))");
    expect(() => verify(spendOf({ sequence: 0xffffffff }))).toThrow('turns relative timelocks off');
    expect(() => verify(spendOf({ pathIndex: 0 }))).toThrow('input 0 is spent on path 0, not on the chosen path 1 (the path that opens after 144 blocks)');
    expect(() => verify(spendOf({ scriptIndex: 4 }))).toThrow(`input 0's witness script is not the one this vault derives at 0/3 (${vaultInputSpend(params, policy, false, 3, 144).address.address})`);
    expect(() => verifyUnsignedVaultPayment(params, policy, 144, spendOf(), [{ amount: AMOUNT, path: '0/3' }], [{ address: payee, amount: AMOUNT - 2_000n, purpose: 'payment' }], 2_000n, 'tampered')).toThrow(/output 0 \(payment\) pays .* instead of/);
  });

  // Issue 31, finding 1: BIP143 signs the version, nLockTime and every nSequence, so a lock the
  // service or an altered file slipped in would be signed; only the path's own older() passes.
  test('refused in words: a lock other than the path\'s older(), on the recovery path and on the primary path', () => {
    expect(() => verify(spendOf({ locktime: 1_233 }))).toThrow('this transaction cannot be mined before block 1,234: nLockTime 1,233, where a spend on the path that opens after 144 blocks carries 0 (no lock)');
    expect(() => verify(spendOf({ sequence: 145 }))).toThrow('input 0 has nSequence 0x91: input 0 is locked for 145 blocks (about 6 hours) after its coin confirms; a spend on the path that opens after 144 blocks spends it with nSequence 144 (older(144))');
    expect(() => verify(spendOf({ version: 3 }))).toThrow('the transaction has version 3; a spend on the path that opens after 144 blocks has version 2');
    const primary = (sequence: number, locktime = 0) => verifyUnsignedVaultPayment(params, policy, 0, primaryOf(sequence, locktime), [{ amount: AMOUNT, path: '0/3' }], [{ address: payee, amount: AMOUNT - 1_000n, purpose: 'payment' }], 1_000n, 'tampered');
    expect(primary(0xffffffff).inputs).toHaveLength(1);
    expect(primary(0xfffffffd).inputs).toHaveLength(1);
    expect(() => primary(0x0040ffff)).toThrow('input 0 has nSequence 0x40ffff: input 0 is locked for about 388.4 days (65,535 periods of 512 seconds) after its coin confirms; a vault spend spends it with nSequence 0xffffffff (final) or 0xfffffffd (replaceable, BIP125)');
    expect(() => primary(0x0000ffff)).toThrow('input 0 is locked for 65,535 blocks (about 113.8 days) after its coin confirms');
    expect(() => primary(0xfffffffe, 4_102_444_800)).toThrow("this transaction cannot be mined before 2100-01-01 00:00 UTC (by the time of the chain's blocks): nLockTime 4,102,444,800, where a vault spend carries 0 (no lock)");
  });
});

/** A primary-path spend of the vault's 0/3 address, as the service builds it but for `sequence` and `locktime`. */
function primaryOf(sequence: number, locktime: number): Uint8Array {
  const ours = vaultInputSpend(params, policy, false, 3, 0);
  const compiled = compileWshMiniscript(ours.descriptor.slice(4, -1));
  return encodeTx({
    version: 2,
    inputs: [{ prevTxid: new Uint8Array(32).fill(5), vout: 1, scriptSig: new Uint8Array(0), sequence, witness: unsignedMiniscriptInput(compiled, ours.path.index).witness }],
    outputs: [{ value: AMOUNT - 1_000n, script: addressToScript(params, payee) }],
    locktime,
  });
}
