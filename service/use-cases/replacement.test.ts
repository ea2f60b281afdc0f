// BIP125 rules 3 and 4 as the service applies them before building or broadcasting a replacement.
import { describe, expect, it } from 'vitest';
import { chainParams } from '../../shared/coins/coin-table.ts';
import type { MempoolConflict } from '../chains/backend.ts';
import { checkReplaceable, checkReplacementFees, rateText } from './replacement.ts';

const params = chainParams('litecoin', 'regtest');
const conflict = (txid: string, fee: bigint, vsize: number, replaceable = true): MempoolConflict => ({ txid, fee, vsize, descendantFee: fee, descendantVsize: vsize, replaceable });

describe('checkReplacementFees', () => {
  const old = conflict('aa'.repeat(32), 226n, 226); // 1 unit/vbyte
  it('passes a replacement paying a higher fee and a higher rate', () => {
    expect(() => checkReplacementFees(params, 4520n, 226, [old])).not.toThrow();
    expect(() => checkReplacementFees(params, 227n, 226, [old])).not.toThrow();
  });
  it('refuses an equal fee, or a higher fee at a lower rate, giving both figures', () => {
    expect(() => checkReplacementFees(params, 226n, 226, [old])).toThrow(
      /this one pays 0\.00000226 LTC \(regtest\) at 1\.00 litoshi\/vB \(226 vbytes\); a{64} pays 0\.00000226 LTC \(regtest\) in total .* at 1\.00 litoshi\/vB; the fee is not higher; the rate is not higher/,
    );
    // more fee, but a bigger transaction: 300 / 400 = 0.75 < 1
    expect(() => checkReplacementFees(params, 300n, 400, [old])).toThrow(/pays 0\.000003 LTC \(regtest\) at 0\.75 litoshi\/vB .*; the rate is not higher$/);
  });
  it('counts every conflict and its descendants in the absolute fee, and beats each rate', () => {
    const a = conflict('aa'.repeat(32), 1000n, 200); // 5 / vbyte
    const b = { ...conflict('bb'.repeat(32), 400n, 200), descendantFee: 900n }; // 2 / vbyte, with a child
    expect(() => checkReplacementFees(params, 1900n, 300, [a, b])).toThrow(/pay 0\.000019 LTC \(regtest\) in total .* at 5\.00 litoshi\/vB; the fee is not higher/);
    expect(() => checkReplacementFees(params, 1901n, 300, [a, b])).not.toThrow(); // 6.33 / vbyte
  });
  it('rates text exactly, rounded down', () => expect(rateText(1001n, 1000)).toBe('1.00'));
});

describe('checkReplaceable', () => {
  const relaying = { params: chainParams('litecoin', 'regtest'), relaysReplacements: true };
  it('refuses a conflict that does not signal, and any on a coin whose nodes do not relay replacements', () => {
    expect(() => checkReplaceable(relaying, [conflict('cc'.repeat(32), 1n, 1, false)])).toThrow(/does not signal replaceability/);
    expect(() => checkReplaceable({ params: chainParams('dash', 'regtest'), relaysReplacements: true }, [conflict('cc'.repeat(32), 1n, 1)])).toThrow(/dash nodes do not relay replacements/);
    expect(() => checkReplaceable(relaying, [])).not.toThrow();
  });
  it("refuses any replacement over a node that does not relay them (litecoind's default), naming child-pays-for-parent", () => {
    for (const relaysReplacements of [false, undefined]) {
      expect(() => checkReplaceable({ params: chainParams('litecoin', 'regtest'), ...(relaysReplacements === undefined ? {} : { relaysReplacements }) }, [conflict('cc'.repeat(32), 1n, 1)])).toThrow(
        /this service's litecoin node does not relay replacements \(BIP125\).*child-pays-for-parent/,
      );
    }
  });
});
