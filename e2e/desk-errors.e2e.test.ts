// Mistakes a new treasurer makes, typed into the desk in Chromium (web mode, real litecoind
// -regtest): each refusal is shown in words beside the field it concerns, amounts in the coin's
// unit; a second wallet from the same keys is refused with a link to the first; a payment row
// opens the payment by a click anywhere on it. Screenshots go to e2e/artifacts/errors-*.png.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, chainParams, scriptToAddress } from '../shared/coins/index.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const cosigners = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
// A litecoin mainnet P2PKH address (any 20-byte hash): valid, but for another network.
const MAINNET = scriptToAddress(chainParams('litecoin', 'mainnet'), Uint8Array.from([0x76, 0xa9, 0x14, ...new Uint8Array(20).fill(7), 0x88, 0xac]))!;

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
const shot = (name: string) => session.browser.shot(`errors-${name}`);
const text = (testId: string) => page.getByTestId(testId).textContent();

async function fillWallet(name: string): Promise<void> {
  await page.getByRole('link', { name: 'Wallets' }).click();
  await page.getByRole('link', { name: 'New wallet' }).click();
  await page.getByTestId('wallet-name').fill(name);
  await page.getByTestId('cosigner-ledger-0').waitFor();
  for (const [i, c] of cosigners.entries()) {
    await page.getByTestId(`cosigner-name-${i}`).fill(c.name);
    await page.getByTestId(`cosigner-xpub-${i}`).fill(c.xpub);
    await page.getByTestId(`cosigner-path-${i}`).fill(c.derivationPath);
  }
}

beforeAll(async () => {
  session = await openDeskInBrowser();
  ({ desk, page } = session);
}, 300_000);
afterAll(() => session?.close());

describe('a new treasurer\'s mistakes, in Chromium', () => {
  let walletUrl = '';

  it('makes and funds a wallet with 13 LTC', async () => {
    await page.goto(desk.web.openUrl);
    await expect.poll(() => text('service-status')).toMatch(/connected/);
    await fillWallet('Operating treasury');
    await page.getByTestId('create-wallet').click();
    const address = (await text('receive-address'))!.trim();
    walletUrl = page.url();
    await desk.node.fundScript(addressToScript(params, address), 13n * COIN);
    await desk.node.mine(1);
    await desk.synced();
    await expect.poll(() => text('balance'), { timeout: 30_000 }).toBe('13.00 LTC (regtest)');
  }, 120_000);

  it('refuses each mistyped field beside it, in words, as it is typed', async () => {
    await page.getByTestId('propose-link').click();
    const propose = page.getByTestId('propose');

    await page.getByTestId('fee-mode-fixed').check(); // a fixed fee (0.0002 as typed) rather than the default rate preset
    // A mistyped address: the codec's reason, not "something unexpected went wrong".
    await page.getByTestId('pay-to').fill('QNotAnAddress123');
    await page.getByTestId('pay-amount').fill('1');
    await expect.poll(() => text('pay-to-error')).toBe('address "QNotAnAddress123" is not a valid litecoin regtest address: bad checksum (a character is mistyped or missing)');
    expect(await propose.isDisabled()).toBe(true);
    // Beside its field: the message is inside the field's label, and the input is marked invalid.
    expect(await page.getByTestId('pay-to').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Pay to (address)').getAttribute('data-testid')).toBe('pay-to');
    await shot('01-mistyped-address');

    // An address of the coin's other network.
    await page.getByTestId('pay-to').fill(MAINNET);
    await expect.poll(() => text('pay-to-error')).toBe(`"${MAINNET}" is a litecoin mainnet address; this wallet is on regtest`);
    expect(await propose.isDisabled()).toBe(true);
    await shot('02-wrong-network');

    // A good address; then more than the wallet holds.
    await page.getByTestId('pay-to').fill(await desk.node.newAddress('legacy'));
    await expect.poll(() => page.getByTestId('pay-to-error').count()).toBe(0);
    await page.getByTestId('pay-amount').fill('50');
    await expect.poll(() => text('pay-amount-error')).toBe("The wallet has 13 LTC (regtest) free to spend; this payment needs 50.0002 LTC (regtest) for the amount and the miners' fee.");
    expect(await propose.isDisabled()).toBe(true);
    await shot('03-too-much');

    // Dust.
    await page.getByTestId('pay-amount').fill('0.00001');
    await expect.poll(() => text('pay-amount-error')).toBe('The amount is below the dust limit of 0.0000546 LTC (regtest): the network does not relay so small an output.');
    expect(await propose.isDisabled()).toBe(true);
    await shot('04-dust');

    // Corrected: the refusals go and the payment is proposed.
    await page.getByTestId('pay-amount').fill('1.25');
    await expect.poll(() => page.getByTestId('pay-amount-error').count()).toBe(0);
    await expect.poll(() => propose.isDisabled()).toBe(false);
    await propose.click();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('awaiting_signatures');
  }, 120_000);

  it('lists payments by recipient, amount and state, and opens one by a click anywhere on its row', async () => {
    const paymentUrl = page.url();
    await page.getByRole('link', { name: 'Payments' }).click();
    const row = page.getByTestId('payment-row').first();
    await row.waitFor();
    const cells = await row.locator('th, td').allTextContents();
    expect(cells.slice(0, 3)).toEqual([expect.stringMatching(/^[mn][1-9A-HJ-NP-Za-km-z]{25,34}from Operating treasury$/), '1.25 LTC (regtest)', 'Awaiting signatures']);
    await shot('05-payments');
    // Not the link: the amount cell.
    await row.locator('td').first().click();
    await expect.poll(() => page.url()).toBe(paymentUrl);
    await page.getByTestId('payment-state').waitFor();
    // Keyboard: the row's link is reachable and opens the payment with Enter.
    await page.getByRole('link', { name: 'Payments' }).click();
    await page.getByTestId('payment-row').first().getByRole('link').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toBe(paymentUrl);
  }, 60_000);

  it('refuses a second wallet from the same keys, linking to the first', async () => {
    await fillWallet('Copy of the treasury');
    await page.getByTestId('create-wallet').click();
    await expect.poll(() => text('wallet-refusal')).toBe(
      'These co-signers\' keys, threshold (2-of-3) and script already make the wallet "Operating treasury": a second wallet would share its coins, so the treasury would count them twice. Open "Operating treasury" instead.',
    );
    await shot('06-duplicate-wallet');
    await page.getByTestId('existing-wallet-link').click();
    await expect.poll(() => page.url()).toBe(walletUrl);
    await expect.poll(() => text('balance')).toMatch(/LTC \(regtest\)$/);
  }, 60_000);
});
