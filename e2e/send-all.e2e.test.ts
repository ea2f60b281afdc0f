// The propose screen in Chromium over litecoind -regtest: "Available" leaves out an output an
// unsent payment already spends (and says so apart), and "Send all" pays everything free to one
// address with no change, the fee taken from the amount shown; when nothing is free, it says why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { addressToScript, chainParams, decodeTx } from '../shared/coins/index.ts';
import { unitsToDecimal } from '../shared/coins/units.ts';
import { proposePayment } from '../main/core/payments/propose.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import { createWallet, nextReceiveAddress } from '../main/core/wallets/wallets.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
const shot = (name: string) => session.browser.shot(name);

beforeAll(async () => {
  session = await openDeskInBrowser({}, 'send-all-');
  ({ desk, page } = session);
}, 300_000);
afterAll(() => session?.close());

describe('the propose screen', () => {
  it('counts only free outputs as available, and sends all of them with the fee taken from the amount', async () => {
    const deps = { store: desk.store, api: desk.api, actor: 'treasurer' };
    const wallet = await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Sweep', m: 2, cosigners: ['alice', 'bob', 'carol'].map((n) => testCosigner(n)) });
    for (const amount of [COIN, 2n * COIN]) {
      const receive = await nextReceiveAddress(deps, wallet.id);
      await desk.node.fundScript(addressToScript(params, receive.address), amount);
    }
    await desk.node.mine(1);
    await desk.synced();
    // A payment awaiting signatures holds the 1 LTC output.
    const { utxos } = await desk.api.utxos('litecoin', desk.store.addresses(wallet.id).map((a) => a.address));
    const one = utxos.find((u) => u.amount === COIN)!;
    const two = utxos.find((u) => u.amount === 2n * COIN)!;
    const held = await proposePayment(deps, wallet.id, { to: await desk.node.newAddress('bech32'), amount: COIN / 2n, minersFee: 10_000n, inputs: [`${one.txid}:${one.vout}`] });

    await page.goto(desk.web.openUrl);
    await expect.poll(() => page.getByTestId('service-status').textContent()).toMatch(/connected/);
    await page.evaluate(`location.hash = '#/wallets/${wallet.id}/pay'`);
    await expect.poll(() => page.getByTestId('available').textContent()).toBe('2.00 LTC (regtest)');
    expect(await page.getByTestId('reserved').textContent()).toBe(
      'Not counted: 1.00 LTC (regtest) reserved by a payment awaiting signatures or ready (cancel it to release its outputs).',
    );
    await shot('01-available');

    // A hurried treasurer types an amount first, then ticks send all: the amount becomes everything less the fee.
    const to = await desk.node.newAddress('bech32');
    await page.getByTestId('pay-to').fill(` ${to} `);
    await page.getByTestId('pay-amount').fill('5');
    await page.getByTestId('send-all').check();
    expect(await page.getByTestId('pay-amount').count()).toBe(0);
    await expect.poll(() => page.getByTestId('send-all-amount').textContent()).toMatch(
      /^Amount \(LTC \(regtest\)\): 1\.99\d* \(everything in 1 output, less the miners' fee of 0\.000\d+ LTC \(regtest\); no change\)$/,
    );
    const shown = (await page.getByTestId('send-all-amount').locator('strong').textContent())!;
    expect(await page.locator('.total').textContent()).toMatch(/^Total leaving the wallet: 2\.00 LTC \(regtest\)/);
    await shot('02-send-all');
    await page.getByTestId('propose').click();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('awaiting_signatures');

    const sweep = desk.store.payments(wallet.id).find((p) => p.id !== held.id)!;
    const tx = decodeTx(sweep.unsignedTx, params);
    expect(tx.outputs).toHaveLength(1);
    expect(tx.inputs.map((i) => i.vout)).toEqual([two.vout]);
    expect(sweep.amount + sweep.minersFee).toBe(2n * COIN);
    expect(unitsToDecimal(sweep.amount, 8)).toBe(shown);

    // Now both outputs are reserved: nothing is available, and send all says why before Propose.
    await page.evaluate(`location.hash = '#/wallets/${wallet.id}/pay'`);
    await expect.poll(() => page.getByTestId('available').textContent()).toBe('0.00 LTC (regtest)');
    expect(await page.getByTestId('reserved').textContent()).toMatch(/^Not counted: 3\.00 LTC \(regtest\) reserved by 2 payments awaiting signatures or ready/);
    await page.getByTestId('pay-to').fill(to);
    await page.getByTestId('send-all').check();
    await expect.poll(() => page.getByTestId('send-all-amount').textContent()).toMatch(
      /^sending all: the wallet has no free output; 2 outputs holding 3 LTC \(regtest\) are reserved by payments awaiting signatures or ready \(/,
    );
    await shot('03-nothing-free');
  });
});
