// The offline check of an M-of-N payment (the treasurer's on the service's answer, the co-signer's on
// a request file) pins the version, nLockTime and every nSequence (issue 31, finding 1): a segwit
// 2-of-3 and a P2SH 2-of-3 payment pass as the service builds them, and each lock is refused in words.
import { describe, expect, test } from 'vitest';
import { testCosigner } from '../../dev/desk-testing/keys.ts';
import { addressToScript } from '../coins/address.ts';
import { chainParams } from '../coins/coin-table.ts';
import { deriveAddress } from '../coins/multisig-address.ts';
import type { MultisigScriptType } from '../coins/multisig-script.ts';
import { encodeTx } from '../coins/tx.ts';
import { unsignedWitnessInput } from '../coins/unsigned-witness.ts';
import { verifyUnsignedPayment } from './unsigned-payment.ts';

const params = chainParams('litecoin', 'regtest');
const xpubs = ['alice', 'bob', 'carol'].map((n) => testCosigner(n, params).xpub);
const AMOUNT = 100_000_000n;
const PAY = 40_000_000n;
const FEE = 1_000n;
const to = deriveAddress(params, 1, [testCosigner('zed', params).xpub], false, 0, { scriptType: 'p2wsh' }).address;

function check(scriptType: MultisigScriptType, fields: { version?: number; locktime?: number; sequence?: number }) {
  const own = deriveAddress(params, 2, xpubs, false, 0, { scriptType });
  const change = deriveAddress(params, 2, xpubs, true, 0, { scriptType });
  const spends = scriptType === 'p2sh' ? { scriptSig: own.multisigScript } : unsignedWitnessInput(scriptType, own.multisigScript);
  const tx = encodeTx({
    version: fields.version ?? 1,
    inputs: [{ prevTxid: new Uint8Array(32).fill(9), vout: 1, sequence: fields.sequence ?? 0xffffffff, ...spends }],
    outputs: [
      { value: PAY, script: addressToScript(params, to) },
      { value: AMOUNT - PAY - FEE, script: addressToScript(params, change.address) },
    ],
    locktime: fields.locktime ?? 0,
  });
  const expected = [
    { address: to, amount: PAY, purpose: 'payment' as const },
    { address: change.address, amount: AMOUNT - PAY - FEE, purpose: 'change' as const },
  ];
  return () => verifyUnsignedPayment(params, 2, xpubs, tx, [{ amount: AMOUNT, path: '0/0' }], expected, FEE, 'tampered', { scriptType });
}

describe.each<MultisigScriptType>(['p2wsh', 'p2sh'])('verifyUnsignedPayment, %s 2-of-3', (scriptType) => {
  test('as the service builds it: version 1, no lock, final or replaceable', () => {
    expect(check(scriptType, {})().inputs).toHaveLength(1);
    expect(check(scriptType, { sequence: 0xfffffffd })().inputs).toHaveLength(1);
  });
  test('another version, a lock at a block or a time, a relative lock: refused in words', () => {
    expect(check(scriptType, { version: 2 })).toThrow('the transaction has version 2; a payment of this wallet has version 1 (version 2 turns on relative locks, BIP68)');
    expect(check(scriptType, { locktime: 1_233, sequence: 0xfffffffe })).toThrow('this transaction cannot be mined before block 1,234: nLockTime 1,233, where a payment of this wallet carries 0 (no lock); input 0 has nSequence 0xfffffffe;');
    expect(check(scriptType, { locktime: 4_102_444_800, sequence: 0xfffffffd })).toThrow("this transaction cannot be mined before 2100-01-01 00:00 UTC (by the time of the chain's blocks): nLockTime 4,102,444,800");
    expect(check(scriptType, { version: 2, sequence: 0x0040ffff })).toThrow('input 0 has nSequence 0x40ffff: input 0 is locked for about 388.4 days (65,535 periods of 512 seconds) after its coin confirms');
  });
});
