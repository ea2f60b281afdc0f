// The treasurer's maximum fee per payment (issue 31, finding 2) on a real litecoind -regtest and the
// embedded service: a payment, a fee bump and a child-pays-for-parent above the maximum are refused
// in words and nothing is stored; the default ($100, or 0.1 LTC where the service has no USD rate)
// holds without any setting; a maximum in USD the desk cannot check is refused, not waved through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainParams, decodeTx } from '../../../shared/coins/index.ts';
import { fundWallet, signAndSend, startWalletDesk, type WalletDesk } from '../../../dev/desk-testing/regtest.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import type { CoordinatorStore, PaymentRow } from '../store/store.ts';
import type { CoreDeps } from '../wallets.ts';
import { proposeCpfp } from './cpfp.ts';
import { maxFeeOf, saveMaxFee, typedMaxFee } from './fee-limit.ts';
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
/** A maximum of `text` LTC per payment, as Settings saves it. */
const maxLtc = (text: string) => saveMaxFee(deps, 'litecoin', { unit: 'coin', amount: typedMaxFee('litecoin', 'coin', text) });

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
    expect(maxFeeOf(store, 'litecoin')).toEqual({ unit: 'usd', amount: 100_00n, isDefault: true });
    const before = paymentCount();
    await expect(proposePayment(deps, walletId, { to: await fixture.desk.node.newAddress('bech32'), amount: COIN / 10n, minersFee: 20_000_000n })).rejects.toThrow(
      'refusing the proposed payment: the fee 0.2 LTC (regtest) is above the default maximum of 0.1 LTC (regtest) per payment (the service has no USD rate for the $100 default); raise it in Settings if you mean it',
    );
    expect(paymentCount()).toBe(before);
  });

  it('refuses a payment above the maximum in LTC, and takes one at it', async () => {
    maxLtc('0.0001');
    const before = paymentCount();
    const to = await fixture.desk.node.newAddress('bech32');
    await expect(proposePayment(deps, walletId, { to, amount: COIN / 10n, minersFee: 10_001n })).rejects.toThrow(
      'refusing the proposed payment: the fee 0.00010001 LTC (regtest) is above your maximum of 0.0001 LTC (regtest) per payment; raise it in Settings if you mean it',
    );
    expect(paymentCount()).toBe(before);
    const at = await proposePayment(deps, walletId, { to, amount: COIN / 10n, minersFee: 10_000n });
    expect(at.minersFee).toBe(10_000n);
    expect(store.auditLog().some((a) => a.action === 'settings.max_fee' && a.detail === 'the maximum miners\' fee per litecoin payment is 0.0001 LTC')).toBe(true);
    saveMaxFee(deps, 'litecoin', null);
  });

  it('refuses a fee bump and a child above it: the same check for every kind of spend', async () => {
    const original = await stuck(2n * COIN);
    maxLtc('0.0001');
    const before = paymentCount();
    // 100 litoshi/vB over a 2-of-3 payment of some 300 vbytes: about 0.0003 LTC.
    await expect(proposeBump(deps, original.id, 100n)).rejects.toThrow(/^refusing the proposed fee bump: the fee 0\.000\d+ LTC \(regtest\) is above your maximum of 0\.0001 LTC \(regtest\) per payment; raise it in Settings if you mean it$/);
    const change = decodeTx(original.unsignedTx, params).outputs.length - 1;
    await expect(proposeCpfp(deps, walletId, { txid: original.txid!, vout: change }, 200n)).rejects.toThrow(
      /^refusing the proposed child-pays-for-parent: the fee 0\.00\d+ LTC \(regtest\) is above your maximum of 0\.0001 LTC \(regtest\) per payment; raise it in Settings if you mean it$/,
    );
    expect(paymentCount()).toBe(before);
    // Under the maximum, both go through.
    maxLtc('0.01');
    expect((await proposeBump(deps, original.id, 100n)).kind).toBe('bump');
    saveMaxFee(deps, 'litecoin', null);
  });

  it('refuses what it cannot check: a maximum in USD with no USD rate from the service', async () => {
    saveMaxFee(deps, 'litecoin', { unit: 'usd', amount: typedMaxFee('litecoin', 'usd', '5') });
    await expect(proposePayment(deps, walletId, { to: await fixture.desk.node.newAddress('bech32'), amount: COIN / 10n, minersFee: 5_000n })).rejects.toThrow(
      'refusing the proposed payment: the fee 0.00005 LTC (regtest) cannot be checked against your maximum of $5.00 per payment: the service has no USD rate for litecoin now; set the maximum in LTC in Settings, or try again later',
    );
    saveMaxFee(deps, 'litecoin', null);
  });

  it('reads a hurried typo as a refusal in words, never as another amount', () => {
    expect(() => typedMaxFee('litecoin', 'coin', '0,001')).toThrow(/"0,001" has a comma/);
    expect(() => typedMaxFee('litecoin', 'coin', '0.0.1')).toThrow(/"0\.0\.1"/);
    expect(() => typedMaxFee('litecoin', 'coin', '0')).toThrow('a maximum fee of zero would refuse every payment; type the most you would pay in one payment\'s fee, in LTC');
    expect(() => typedMaxFee('litecoin', 'usd', '1.234')).toThrow(/1\.234/);
    expect(typedMaxFee('litecoin', 'coin', ' 0.001 ')).toBe(100_000n);
  });
});
