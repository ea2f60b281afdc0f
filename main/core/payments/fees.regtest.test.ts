// Fee rates and replaceability on litecoind -regtest: a proposal at a rate from the service's
// estimates pays exactly rate x vsize (checked by the desk), signals BIP125 when asked, and a
// service that builds another fee than the rate asked is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainParams, decodeTx, decodeTxHex, encodeTxHex } from '../../../shared/coins/index.ts';
import { REPLACEABLE_SETTING, feePresets, feeShare, rateFeeRefusal, relaysReplacements, replaceableByDefault } from './fees.ts';
import { cancelPayment } from './payments.ts';
import { proposePayment } from './propose.ts';
import type { CoordinatorStore } from '../store/store.ts';
import { apiWith, startWalletDesk, type RegtestDesk, type WalletDesk, fundWallet } from '../../../dev/desk-testing/regtest.ts';
import type { CoreDeps } from '../wallets/wallets.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;

let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: CoreDeps;
let walletId: string;

let fixture: WalletDesk | undefined;

beforeAll(async () => {
  fixture = await startWalletDesk('Fees');
  ({ desk, store, deps, walletId } = fixture);
  await fundWallet(desk, deps, walletId, 3n * COIN);
}, 300_000);
afterAll(async () => fixture?.dispose());

describe('fee rates', () => {
  it('offers fast / normal / slow from the estimates and says when they are the fallback', async () => {
    const presets = feePresets(await desk.api.feeEstimates('litecoin'));
    expect(presets.map((p) => [p.name, p.blocks])).toEqual([['fast', 1], ['normal', 6], ['slow', 24]]);
    // A regtest node has no estimates: every preset is the configured fallback.
    expect(presets.every((p) => p.fallback && p.rate >= 1n)).toBe(true);
  });

  it('proposes at a rate, replaceable: the fee is rate x vsize and every input signals BIP125', async () => {
    const to = await desk.node.newAddress('bech32');
    const p = await proposePayment(deps, walletId, { to, amount: COIN, minersFee: 0n, feeRate: 7n, replaceable: true });
    const tx = decodeTx(p.unsignedTx, params);
    expect(tx.inputs.every((i) => i.sequence === 0xfffffffd)).toBe(true);
    const outputs = tx.outputs.reduce((s, o) => s + o.value, 0n);
    expect(p.minersFee).toBe(p.totalInputValue - outputs);
    expect(p.minersFee % 7n).toBe(0n);
    expect(p.minersFee).toBeGreaterThan(7n * 100n);
    expect(store.auditLog().at(-1)!.detail).toMatch(/\(7 litoshi\/vB\), replaceable/);
    cancelPayment(deps, p.id, 'test: releases the one output for the next test');
  });

  it('refuses a service whose fee is not the rate asked', async () => {
    const before = store.payments().length;
    const greedy = { ...deps, api: apiWith(desk.api, {
      createMultisig: async (coin, body) => {
        const created = await desk.api.createMultisig(coin, body);
        const tx = decodeTxHex(created.tx);
        tx.outputs[1]!.value -= 5000n; // the change, 5000 more to the miners
        return { ...created, tx: encodeTxHex(tx), miners_fee: (created.miners_fee ?? 0n) + 5000n };
      },
    }) };
    await expect(proposePayment(greedy, walletId, { to: await desk.node.newAddress('bech32'), amount: COIN / 10n, minersFee: 0n, feeRate: 3n })).rejects.toThrow(/refusing the proposed payment: the fee 0\.\d+ LTC \(regtest\) is not 3 litoshi\/vB x \d+ vbytes/);
    expect(store.payments()).toHaveLength(before);
  });
});

describe('fee arithmetic', () => {
  it('accepts dust change given to the miners, within bounds', () => {
    expect(rateFeeRefusal(params, 2n, 200, 400n, true)).toBeNull();
    expect(rateFeeRefusal(params, 2n, 200, 401n, true)).toMatch(/is not 2 litoshi\/vB x 200 vbytes/);
    expect(rateFeeRefusal(params, 2n, 200, 399n, false)).toMatch(/is below/);
    expect(rateFeeRefusal(params, 2n, 200, 400n + 5000n, false)).toBeNull();
    expect(rateFeeRefusal(params, 2n, 200, 2n * 243n + params.dustLimit, false)).toMatch(/is above/);
  });

  it("assumes replacements relayed only on coins whose networks relay them by default (not Litecoin Core's)", () => {
    expect(relaysReplacements('bitcoin')).toBe(true);
    expect(relaysReplacements('litecoin')).toBe(false);
    expect(relaysReplacements('dash')).toBe(false);
    expect(relaysReplacements('bitcoin_cash')).toBe(false);
  });

  it('makes new payments replaceable by default; the desk setting turns it off and on', () => {
    expect(replaceableByDefault(store)).toBe(true);
    store.setSettings({ [REPLACEABLE_SETTING]: 'false' });
    expect(replaceableByDefault(store)).toBe(false);
    store.setSettings({ [REPLACEABLE_SETTING]: null });
    expect(replaceableByDefault(store)).toBe(true);
  });

  it('says what share of the payment the fee is', () => {
    expect(feeShare(226n, 100_000_000n)).toBe('0.01%');
    expect(feeShare(1_000n, 10_000n)).toBe('10.00%');
    expect(feeShare(1n, 0n)).toBe('—');
  });
});
