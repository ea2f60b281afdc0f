// Amounts typed as a hurried treasurer types them, in Chromium (web mode, litecoind -regtest and
// a hardhat node): a comma, a space, a sign, a letter, other scripts' digits, too many decimals or
// zero is refused beside the field, in words that say what to type, and Propose (or Send) stays
// disabled. The same words come for the single amount, the fixed fee, the operator fee, a batch row,
// a CSV file, and Ether and token sends. The batch form keeps what was typed, counts rows, shows
// whole addresses and refuses a total above the wallet as it is typed. Screenshots:
// e2e/artifacts/amounts-*.png.
import { Wallet } from 'ethers';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, chainParams, scriptToAddress } from '../shared/coins/index.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import { createWallet, nextReceiveAddress } from '../main/core/wallets/wallets.ts';
import { fundEther, mintedToken } from '../dev/chains/hardhat.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const POLL = { timeout: 30_000 };
const LTC = 'LTC (regtest)';
// The longest address a batch row holds: P2WSH, 64 characters on regtest.
const P2WSH = scriptToAddress(params, Uint8Array.from([0x00, 0x20, ...new Array<number>(32).fill(0xab)]))!;

/** Each mistake and the words it must get; `ticker` is the field's unit. */
const mistakes = (ticker: string, places: number, tooFine: string): [string, string][] => [
  ['1,250', '"1,250" has a comma: use no thousands separators, and a point for decimals; type 1250 or 1.25'],
  ['1,25', '"1,25" has a comma: use no thousands separators, and a point for decimals; type 1.25'],
  ['1 000', '"1 000" has a space inside: type the digits together, e.g. 1000'],
  ['-1', '"-1" is negative: an amount is what is paid, so type it without a minus sign'],
  ['+1', '"+1" has a plus sign: type the amount without a sign, e.g. 1'],
  ['0', `"0" is zero: type the amount to pay, more than 0 ${ticker}`],
  ['0.000', `"0.000" is zero: type the amount to pay, more than 0 ${ticker}`],
  [tooFine, `"${tooFine}" has ${places + 1} decimals: an amount of ${ticker} has at most ${places}`],
  ['1e3', '"1e3" is not an amount (it has "e"): type digits 0-9 with at most one decimal point, e.g. 1250 or 1.25'],
  ['abc', '"abc" is not an amount (it has "a"): type digits 0-9 with at most one decimal point, e.g. 1250 or 1.25'],
  ['\u0661\u0662', '"\u0661\u0662" uses digits other than 0-9: type the amount with the digits 0-9'],
];
const LTC_MISTAKES = mistakes(LTC, 8, '1.123456789');

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
const shot = (name: string) => session.browser.shot(name);
const text = (testId: string) => page.getByTestId(testId).textContent();
const csvFile = (name: string, body: string) => ({ name, mimeType: 'text/csv', buffer: Buffer.from(body) });

beforeAll(async () => {
  session = await openDeskInBrowser({ ethereum: {} }, 'amounts-');
  ({ desk, page } = session);
}, 300_000);
afterAll(() => session?.close());

/** Types each mistake into `field` and reads its words in `errorId`; `submit` stays disabled. Ends with `good` typed. */
async function typeMistakes(field: ReturnType<Page['getByTestId']>, errorId: string, submit: string, list: [string, string][], good: string): Promise<void> {
  await field.fill(good);
  await expect.poll(() => page.getByTestId(errorId).count(), POLL).toBe(0);
  await expect.poll(() => page.getByTestId(submit).isDisabled(), POLL).toBe(false);
  for (const [typed, words] of list) {
    await field.fill(typed);
    await expect.poll(() => text(errorId), POLL).toBe(words);
    expect(await page.getByTestId(submit).isDisabled(), typed).toBe(true);
  }
  await field.fill(good);
  await expect.poll(() => page.getByTestId(errorId).count(), POLL).toBe(0);
}

describe('amounts typed wrong, in Chromium', () => {
  let walletId = '';
  const payees: string[] = [];

  it('refuses each mistake in the amount, the fixed fee and the operator fee, in words, with Propose disabled', async () => {
    const deps = { store: desk.store, api: desk.api, actor: 'treasurer' };
    const wallet = await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Treasury', m: 2, cosigners: ['alice', 'bob', 'carol'].map((n) => testCosigner(n)) });
    walletId = wallet.id;
    const receive = await nextReceiveAddress(deps, wallet.id);
    await desk.node.fundScript(addressToScript(params, receive.address), 5n * COIN);
    await desk.node.mine(1);
    await desk.synced();
    payees.push(...(await Promise.all([1, 2].map(() => desk.node.newAddress('bech32')))));

    await page.goto(desk.web.openUrl);
    await expect.poll(() => text('service-status'), POLL).toMatch(/connected/);
    await page.evaluate(`location.hash = '#/wallets/${walletId}/pay'`);
    await page.getByTestId('fee-mode-fixed').check();
    await page.getByTestId('pay-to').fill(payees[0]!);

    // The amount. "1,250" once became 1.25 LTC with Propose enabled.
    await typeMistakes(page.getByTestId('pay-amount'), 'pay-amount-error', 'propose', LTC_MISTAKES, '1.25');
    await page.getByTestId('pay-amount').fill('1,250');
    await expect.poll(() => text('pay-amount-error'), POLL).toMatch(/^"1,250" has a comma/);
    expect(await page.locator('.total strong').textContent()).toBe('—');
    await shot('01-amount-comma');
    // Whitespace around an amount is no mistake; ".5" and "1." are read as 0.5 and 1.
    for (const [typed, total] of [[' 1.5 ', '1.5002'], ['.5', '0.5002'], ['1.', '1.0002']] as const) {
      await page.getByTestId('pay-amount').fill(typed);
      await expect.poll(() => page.locator('.total strong').textContent(), POLL).toBe(`${total} ${LTC}`);
      expect(await page.getByTestId('pay-amount-error').count()).toBe(0);
    }

    // The fixed miners' fee.
    await typeMistakes(page.getByTestId('pay-fee'), 'pay-fee-error', 'propose', LTC_MISTAKES, '0.0002');
    await page.getByTestId('pay-fee').fill('0,0002');
    await expect.poll(() => text('pay-fee-error'), POLL).toBe('"0,0002" has a comma: use no thousands separators, and a point for decimals; type 0.0002');
    await shot('02-fee-comma');
    await page.getByTestId('pay-fee').fill('0.0002');

    // The operator fee.
    await page.getByLabel('Add an operator fee output').check();
    await page.getByLabel(/^Operator fee address/).fill(payees[1]!);
    await typeMistakes(page.getByLabel(/^Operator fee \(/), 'pay-operator-fee-error', 'propose', LTC_MISTAKES, '0.01');
    await page.getByLabel(/^Operator fee \(/).fill('-0.01');
    await expect.poll(() => text('pay-operator-fee-error'), POLL).toMatch(/is negative/);
    await shot('03-operator-fee-negative');
    await page.getByLabel('Add an operator fee output').uncheck();
  }, 300_000);

  it('keeps what was typed as the batch\'s first row, counts refused rows, refuses each mistake in a row and a total above the wallet as typed', async () => {
    await page.getByTestId('pay-amount').fill('0.2');
    await page.getByTestId('batch-mode').check();
    expect(await page.getByTestId('batch-to-0').inputValue()).toBe(payees[0]);
    expect(await page.getByTestId('batch-amount-0').inputValue()).toBe('0.2');
    // And back: the first row becomes the single payment again.
    await page.getByTestId('batch-amount-0').fill('0.25');
    await page.getByTestId('batch-mode').uncheck();
    expect(await page.getByTestId('pay-to').inputValue()).toBe(payees[0]);
    expect(await page.getByTestId('pay-amount').inputValue()).toBe('0.25');
    await page.getByTestId('pay-amount').fill('0.2');
    await page.getByTestId('batch-mode').check();
    expect(await page.getByTestId('batch-amount-0').inputValue()).toBe('0.2');
    await expect.poll(() => page.getByTestId('propose').isDisabled(), POLL).toBe(false);

    // Every mistake in a row's amount, named by its line.
    const row = page.getByTestId('batch-amount-0');
    for (const [typed, words] of LTC_MISTAKES) {
      await row.fill(typed);
      await expect.poll(() => page.getByTestId('batch-refusals').locator('li').allTextContents(), POLL).toEqual([`line 1: ${words}`]);
      expect(await page.getByTestId('propose').isDisabled(), typed).toBe(true);
    }
    await row.fill('1,250');
    await expect.poll(() => page.getByTestId('batch-refusals').locator('li').allTextContents(), POLL).toEqual([`line 1: ${LTC_MISTAKES[0]![1]}`]);
    expect(await page.getByText('one row is refused; nothing is proposed until every row is right.').count()).toBe(1);

    // An empty row added at the end is not refused; a row with a bad address and a bad amount is one row.
    await page.getByTestId('batch-add').click();
    await page.getByTestId('batch-to-1').fill('not-an-address');
    await page.getByTestId('batch-amount-1').fill('1 000');
    await expect.poll(() => page.getByTestId('batch-refusals').locator('li').count(), POLL).toBe(3);
    expect(await page.getByText('2 rows are refused; nothing is proposed until every row is right.').count()).toBe(1);
    await page.getByTestId('batch-to-1').fill('');
    await page.getByTestId('batch-amount-1').fill('');
    await expect.poll(() => page.getByTestId('batch-refusals').locator('li').allTextContents(), POLL).toEqual([`line 1: ${LTC_MISTAKES[0]![1]}`]);
    expect(await page.getByText('one row is refused; nothing is proposed until every row is right.').count()).toBe(1);
    await shot('04-batch-row-comma');

    // More than the wallet holds (5 LTC), refused as typed with the total and the wallet's funds in LTC.
    await row.fill('3');
    await page.getByTestId('batch-to-1').fill(P2WSH);
    await page.getByTestId('batch-amount-1').fill('2.5');
    await expect.poll(() => page.getByTestId('batch-refusals').locator('li').allTextContents(), POLL).toEqual([
      `the batch: the wallet has 5 ${LTC} free to spend; this batch pays 2 recipients 5.5 ${LTC} and needs 5.5002 ${LTC} with the fees, more than that`,
    ]);
    expect(await page.getByText('the batch is refused; nothing is proposed until it is right.').count()).toBe(1);
    expect(await page.getByTestId('propose').isDisabled()).toBe(true);
    // The whole address shows: its input is as wide as its text.
    const cut = await page.evaluate(`(() => { const el = document.querySelector('[data-testid="batch-to-1"]'); return el.scrollWidth > el.clientWidth; })()`);
    expect(cut).toBe(false);
    await shot('05-batch-too-much');
  }, 300_000);

  it('refuses each mistake in a CSV file by its line', async () => {
    const lines = LTC_MISTAKES.map(([typed]) => `${payees[0]},"${typed}",x`);
    await page.getByTestId('batch-csv').setInputFiles(csvFile('mistakes.csv', ['address,amount,label', ...lines].join('\n')));
    await expect.poll(() => page.getByTestId('batch-refusals').locator('li').allTextContents(), POLL).toEqual(LTC_MISTAKES.map(([, words], i) => `line ${i + 2}: ${words}`));
    expect(await page.getByText(`mistakes.csv: ${LTC_MISTAKES.length} rows are refused; nothing is proposed until every row is right.`).count()).toBe(1);
    expect(await page.getByTestId('propose').isDisabled()).toBe(true);
    await shot('06-csv-mistakes');
  }, 120_000);

  it('proposes a batch of three and names it "3 recipients" in its header and in the payments list', async () => {
    await page.getByTestId('batch-csv').setInputFiles(csvFile('good.csv', [`${payees[0]},0.2,Rent`, `${P2WSH},0.3,Vault`, `${payees[1]},0.1,Fees`].join('\n')));
    await expect.poll(() => page.getByTestId('batch-to-2').inputValue(), POLL).toBe(payees[1]);
    await expect.poll(() => page.getByTestId('propose').isDisabled(), POLL).toBe(false);
    await shot('07-batch-good');
    await page.getByTestId('propose').click();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), POLL).toBe('awaiting_signatures');
    expect(await text('payment-payee')).toBe(`to 3 recipients, 0.60 ${LTC} in all (each in the outputs below)`);
    await shot('08-batch-header');
    await page.getByRole('link', { name: 'Payments' }).click();
    // The list loads after the click: wait for its first row rather than read an empty table.
    await expect
      .poll(async () => (await page.getByTestId('payment-row').first().locator('th, td').allTextContents()).slice(0, 2), POLL)
      .toEqual(['3 recipientsfrom Treasury', `0.60 ${LTC}`]);
    await shot('09-payments-list');
  }, 120_000);

  it('refuses each mistake in an Ether and a token amount, with Review disabled', async () => {
    const eth = desk.eth!;
    const owner = Wallet.createRandom();
    await page.getByRole('link', { name: 'Ether accounts', exact: true }).click();
    await page.getByRole('link', { name: 'New account' }).click();
    await page.getByTestId('account-name').fill('Operations');
    await page.getByTestId('account-words').fill(owner.mnemonic!.phrase);
    await page.getByTestId('create-account').click();
    const address = (await text('account-address-shown'))!.trim();
    await fundEther(eth, address, 10n ** 18n);
    const token = await mintedToken(eth, 'Desk Token', 'DSK', address, 10n ** 21n);
    await desk.synced();
    await page.getByTestId('add-token-open').click();
    await page.getByTestId('token-contract').fill(token);
    await page.getByTestId('token-read').click();
    await page.getByTestId('token-add').click();
    await expect.poll(() => page.getByTestId('token-row').count(), POLL).toBe(1);

    await page.getByTestId('send-link').click();
    await page.getByTestId('send-to').fill(Wallet.createRandom().address);
    // Ether has 18 decimals, but the service takes GWEI: at most 9 can be sent.
    await typeMistakes(page.getByTestId('send-amount'), 'send-amount-error', 'send-review', mistakes('ETH (regtest)', 9, '1.0000000001'), '0.5');
    await page.getByTestId('send-amount').fill('1,5');
    await expect.poll(() => text('send-amount-error'), POLL).toBe('"1,5" has a comma: use no thousands separators, and a point for decimals; type 1.5');
    await shot('10-ether-comma');

    await page.getByTestId('send-asset').selectOption({ label: `DSK (ERC20 ${token.slice(0, 8)}…)` });
    await typeMistakes(page.getByTestId('send-amount'), 'send-amount-error', 'send-review', mistakes('DSK', 9, '1.0000000001'), '2');
    await page.getByTestId('send-amount').fill('1.0000000001');
    await expect.poll(() => text('send-amount-error'), POLL).toBe('"1.0000000001" has 10 decimals: an amount of DSK has at most 9');
    await shot('11-token-too-fine');
  }, 300_000);
});
