// The maximum fee per payment (issue 31, finding 2) in Chromium over litecoind -regtest: Settings
// refuses a hurried typo of the maximum in words at the field (a comma, a ticker typed along, zero)
// and saves it once it is an amount; a payment whose miners' fee is above it is then refused on the
// payment screen in words naming the fee (in LTC and USD) and the maximum, and nothing is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { addressToScript, chainParams } from '../shared/coins/index.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import { createWallet, nextReceiveAddress } from '../main/core/wallets/wallets.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const POLL = { timeout: 30_000 };

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
const text = (id: string) => page.getByTestId(id).textContent();

beforeAll(async () => {
  session = await openDeskInBrowser({}, 'max-fee-');
  ({ desk, page } = session);
  await desk.synced();
}, 300_000);
afterAll(() => session?.close());

describe('the maximum fee per payment', () => {
  it('refuses a hurried typo in Settings, then refuses a payment above it in words on the payment screen', async () => {
    const deps = { store: desk.store, api: desk.api, actor: 'treasurer' };
    const w = await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Capped', m: 2, cosigners: ['alice', 'bob', 'carol'].map((n) => testCosigner(n)) });
    const receive = await nextReceiveAddress(deps, w.id);
    await desk.node.fundScript(addressToScript(params, receive.address), 2n * COIN);
    await desk.node.mine(1);
    await desk.synced();

    await page.goto(desk.web.openUrl);
    await expect.poll(() => text('service-status'), POLL).toMatch(/connected/);
    await page.evaluate(`location.hash = '#/settings'`);
    await page.getByTestId('max-fee-coin').selectOption('litecoin');
    await expect.poll(() => text('max-fee-current'), POLL).toBe("Now: at most $100.00 in miners' fees per payment (the default; 0.1 LTC where the service has no USD rate).");
    await page.getByTestId('max-fee-unit').selectOption('coin');
    // Hurried typos: each refused in words at the field, nothing saved.
    const typos: [string, RegExp][] = [
      ["0,001", /^"0,001" has a comma: use no thousands separators, and a point for decimals; type 0001 or 0\.001$/],
      ['0.001 LTC', /"0\.001 LTC"/],
      ['0', /^a maximum fee of zero would refuse every payment; type the most you would pay in one payment's fee, in LTC$/],
    ];
    for (const [typed, words] of typos) {
      await page.getByTestId('max-fee-amount').fill(typed);
      await page.getByTestId('max-fee-save').click();
      await expect.poll(() => text('max-fee-error'), POLL).toMatch(words);
    }
    expect(desk.store.setting('max_fee.litecoin')).toBeNull();
    await session.browser.shot('01-typo-refused');
    await page.getByTestId('max-fee-amount').fill('0.001');
    await page.getByTestId('max-fee-save').click();
    await expect.poll(() => text('max-fee-current'), POLL).toBe("Now: at most 0.001 LTC in miners' fees per payment.");

    // A payment with a fee of 0.002 LTC: refused on screen, in words; nothing stored.
    await page.evaluate(`location.hash = '#/wallets/${w.id}/pay'`);
    await page.getByTestId('fee-mode-fixed').check();
    await page.getByTestId('pay-to').fill(await desk.node.newAddress('bech32'));
    await page.getByTestId('pay-amount').fill('0.1');
    await page.getByTestId('pay-fee').fill('0.002');
    await expect.poll(() => page.getByTestId('propose').isDisabled(), POLL).toBe(false);
    await page.getByTestId('propose').click();
    await expect
      .poll(() => page.getByRole('alert').allTextContents(), POLL)
      .toContain('refusing the proposed payment: the fee 0.002 LTC (regtest) ($0.16) is above your maximum of 0.001 LTC (regtest) per payment; raise it in Settings if you mean it');
    await session.browser.shot('02-payment-refused');
    expect(desk.store.payments(w.id)).toHaveLength(0);
  });
});
