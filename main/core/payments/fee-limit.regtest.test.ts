// The treasurer's maximum fee per payment (issue 31, finding 2) on a real litecoind -regtest and the
// embedded service: a payment, a fee bump and a child-pays-for-parent above the maximum are refused
// in words and nothing is stored; the default ($100, or 0.1 LTC where the service has no USD rate)
// holds without any setting; a maximum in USD the desk cannot check is refused, not waved through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainParams, decodeTx } from '../../../shared/coins/index.ts';
import { fundWallet, signAndSend, startWalletDesk, type WalletDesk } from '../../../dev/desk-testing/regtest.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import type { CoordinatorStore, PaymentRow } from '../store/store.ts';
import type { CoreDeps } from '../wallets/wallets.ts';
import { proposeCpfp } from './cpfp.ts';
import { proposePayment } from './propose.ts';
import { proposeBump } from './replace.ts';
import { proposeTreasurySpend } from './spend.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob] = [testCosigner('alice'), testCosigner('bob')];

let fixture: WalletDesk;
let store: CoordinatorStore;
let deps: CoreDeps;
let walletId: string;

const paymentCount = () => store.payments(walletId).length;
/** A maximum per payment as Settings saves it (settings.maxFee; its typos and audit are main/bridge/settings.test.ts's). */
const maxFee = (unit: 'coin' | 'usd', amount: bigint | null) => store.setSettings({ 'max_fee.litecoin': amount === null ? null : JSON.stringify({ unit, amount: amount.toString() }) });
/** `units` litoshi at most. */
const maxLtc = (units: bigint) => maxFee('coin', units);

async function stuck(amount: bigint): Promise<PaymentRow> {
  const txid = await fundWallet(fixture.desk, deps, walletId, amount);
  const { utxos } = await fixture.desk.api.utxos('litecoin', store.addresses(walletId).map((a) => a.address));
  const coin = utxos.find((u) => u.txid === txid)!;
  const p = await proposeTreasurySpend(deps, walletId, { to: await fixture.desk.node.newAddress('legacy'), amount: COIN / 2n, inputs: [coin], fee: { rate: 1n }, replaceable: true, kind: 'payment' });
  const sent = (await signAndSend(deps, p, [alice, bob])).payment;
  await fixture.desk.synced();
  return sent;
}

beforeAll(async () => {
  fixture = await startWalletDesk('Fee limit');
  ({ store, deps, walletId } = fixture);
  await fundWallet(fixture.desk, deps, walletId, 3n * COIN);
});
afterAll(async () => fixture?.dispose());

describe('the maximum fee per payment', () => {
  it('by default: 0.1 LTC where the service has no USD rate (Core -maxtxfee); a fee above it is refused in words', async () => {
    expect(store.setting('max_fee.litecoin')).toBeNull();
    const before = paymentCount();
    await expect(proposePayment(deps, walletId, { to: await fixture.desk.node.newAddress('bech32'), amount: COIN / 10n, minersFee: 20_000_000n })).rejects.toThrow(
      'refusing the proposed payment: the fee 0.2 LTC (regtest) is above the default maximum of 0.1 LTC (regtest) per payment (the service has no USD rate for the $100 default); raise it in Settings if you mean it',
    );
    expect(paymentCount()).toBe(before);
  });

  it('refuses a payment above the maximum in LTC, and takes one at it', async () => {
    maxLtc(10_000n);
    const before = paymentCount();
    const to = await fixture.desk.node.newAddress('bech32');
    await expect(proposePayment(deps, walletId, { to, amount: COIN / 10n, minersFee: 10_001n })).rejects.toThrow(
      'refusing the proposed payment: the fee 0.00010001 LTC (regtest) is above your maximum of 0.0001 LTC (regtest) per payment; raise it in Settings if you mean it',
    );
    expect(paymentCount()).toBe(before);
    const at = await proposePayment(deps, walletId, { to, amount: COIN / 10n, minersFee: 10_000n });
    expect(at.minersFee).toBe(10_000n);
    maxFee('coin', null);
  });

  it('refuses a fee bump and a child above it: the same check for every kind of spend', async () => {
    const original = await stuck(2n * COIN);
    maxLtc(10_000n);
    const before = paymentCount();
    // 100 litoshi/vB over a 2-of-3 payment of some 300 vbytes: about 0.0003 LTC.
    await expect(proposeBump(deps, original.id, 100n)).rejects.toThrow(/^refusing the proposed fee bump: the fee 0\.000\d+ LTC \(regtest\) is above your maximum of 0\.0001 LTC \(regtest\) per payment; raise it in Settings if you mean it$/);
    const change = decodeTx(original.unsignedTx, params).outputs.length - 1;
    await expect(proposeCpfp(deps, walletId, { txid: original.txid!, vout: change }, 200n)).rejects.toThrow(
      /^refusing the proposed child-pays-for-parent: the fee 0\.00\d+ LTC \(regtest\) is above your maximum of 0\.0001 LTC \(regtest\) per payment; raise it in Settings if you mean it$/,
    );
    expect(paymentCount()).toBe(before);
    // Under the maximum, both go through.
    maxLtc(1_000_000n);
    expect((await proposeBump(deps, original.id, 100n)).kind).toBe('bump');
    maxFee('coin', null);
  });

  it('refuses what it cannot check: a maximum in USD with no USD rate from the service', async () => {
    maxFee('usd', 500n);
    await expect(proposePayment(deps, walletId, { to: await fixture.desk.node.newAddress('bech32'), amount: COIN / 10n, minersFee: 5_000n })).rejects.toThrow(
      'refusing the proposed payment: the fee 0.00005 LTC (regtest) cannot be checked against your maximum of $5.00 per payment: the service has no USD rate for litecoin now; set the maximum in LTC in Settings, or try again later',
    );
    maxFee('coin', null);
  });
});
