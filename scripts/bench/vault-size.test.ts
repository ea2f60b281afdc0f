// The bench's vault sizes: real signed payments whose sizes fall where BIP141 puts them.
import { describe, expect, it } from 'vitest';
import { scriptToAddress } from '../../shared/coins/address.ts';
import { chainParams } from '../../shared/coins/coin-table.ts';
import { miniscriptPaymentSizes, vaultPaymentSizes } from './vault-size.ts';

describe('vaultPaymentSizes', () => {
  it('gives one signed 2-of-3 payment per script type, native segwit the smallest, fee = vsize x rate', () => {
    const params = chainParams('litecoin', 'regtest');
    // A P2WPKH recipient (version 0, a 20-byte program).
    const recipient = scriptToAddress(params, Uint8Array.of(0x00, 0x14, ...new Uint8Array(20).fill(0x42)))!;
    expect(recipient).toMatch(/^rltc1q/);
    const sizes = vaultPaymentSizes(params, recipient, 10n);
    expect(sizes.map((s) => s.scriptType)).toEqual(['p2sh', 'p2sh-p2wsh', 'p2wsh']);
    const [p2sh, nested, native] = sizes;
    expect(native!.vsize).toBeLessThan(nested!.vsize);
    expect(nested!.vsize).toBeLessThan(p2sh!.vsize);
    for (const s of sizes) {
      expect(s.fee).toBe(BigInt(s.vsize) * 10n);
      expect(s.vsize).toBe(Math.ceil(s.weight / 4));
    }
    // A legacy input carries its whole script and signatures at 4 weight units a byte.
    expect(p2sh!.weight % 4).toBe(0);
  });
});

describe('miniscriptPaymentSizes', () => {
  it('gives the miniscript vault payment on each path, both above the plain P2WSH 2-of-3, fee = vsize x rate', () => {
    const params = chainParams('litecoin', 'regtest');
    const recipient = scriptToAddress(params, Uint8Array.of(0x00, 0x14, ...new Uint8Array(20).fill(0x42)))!;
    const plain = vaultPaymentSizes(params, recipient, 10n).find((s) => s.scriptType === 'p2wsh')!;
    const [primary, recovery] = miniscriptPaymentSizes(params, recipient, 10n);
    expect([primary!.path, recovery!.path]).toEqual(['primary', 'recovery']);
    // The witness script carries two more keys and the recovery branch; the change output is the same size.
    expect(primary!.vsize).toBeGreaterThan(plain.vsize);
    // One signature fewer, three empties more: lighter than the primary path.
    expect(recovery!.vsize).toBeLessThan(primary!.vsize);
    for (const s of [primary!, recovery!]) {
      expect(s.fee).toBe(BigInt(s.vsize) * 10n);
      expect(s.vsize).toBe(Math.ceil(s.weight / 4));
    }
  });
});
