// A batch payment in Chromium over litecoind -regtest: the treasurer imports a CSV file with two
// bad rows (refused, each named by its line, nothing proposed), then a good file; the review lists
// every recipient with its label.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { addressToScript, chainParams, scriptToAddress } from '../shared/coins/index.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import { createWallet, nextReceiveAddress } from '../main/core/wallets/wallets.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const mainnet = chainParams('litecoin', 'mainnet');
const COIN = 100_000_000n;

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
const shot = (name: string) => session.browser.shot(name);
const csvFile = (name: string, text: string) => ({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });

beforeAll(async () => {
  // Replacements relayed, as in the demo: new payments are replaceable.
  session = await openDeskInBrowser({ nodeArgs: ['-mempoolreplacement=1'] }, 'batch-');
  ({ desk, page } = session);
}, 300_000);
afterAll(() => session?.close());

describe('a batch payment in Chromium', () => {
  it('refuses a CSV with two bad rows by their line numbers, then proposes a good one and reviews every row', async () => {
    const deps = { store: desk.store, api: desk.api, actor: 'treasurer' };
    const wallet = await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Payroll', m: 2, cosigners: ['alice', 'bob', 'carol'].map((n) => testCosigner(n)) });
    const receive = await nextReceiveAddress(deps, wallet.id);
    await desk.node.fundScript(addressToScript(params, receive.address), 5n * COIN);
    await desk.node.mine(1);
    await desk.synced();

    const payees = await Promise.all([1, 2, 3].map(() => desk.node.newAddress('bech32')));
    // The same kind of address, shown on litecoin mainnet: right checksum, wrong network.
    const onMainnet = scriptToAddress(mainnet, addressToScript(params, payees[0]!))!;

    await page.goto(desk.web.openUrl);
    await expect.poll(() => page.getByTestId('service-status').textContent()).toMatch(/connected/);
    await page.evaluate(`location.hash = '#/wallets/${wallet.id}/pay'`);
    await page.getByTestId('batch-mode').check();

    const bad = ['address,amount,label', `${payees[0]},0.5,Rent`, `${onMainnet},0.25,Wrong network`, `${payees[1]},0.00000001,Too small`, `${payees[2]},1,Fees`].join('\n');
    await page.getByTestId('batch-csv').setInputFiles(csvFile('payroll-march.csv', bad));
    await page.getByTestId('batch-refusals').waitFor();
    const refused = await page.getByTestId('batch-refusals').locator('li').allTextContents();
    expect(refused).toEqual([
      `line 3: "${onMainnet}" is a litecoin mainnet address; this wallet is on regtest`,
      'line 4: the amount 0.00000001 LTC (regtest) is below the dust limit of 0.0000546 LTC (regtest)',
    ]);
    expect(await page.getByText('payroll-march.csv: 2 rows are refused; nothing is proposed until every row is right.').count()).toBe(1);
    expect(await page.getByTestId('propose').isDisabled()).toBe(true);
    await shot('01-batch-refused');
    expect(desk.store.payments(wallet.id)).toHaveLength(0);

    const good = [`${payees[0]},0.5,Rent`, `${payees[1]},0.25,"Payroll, March"`, `${payees[2]},1,Fees`].join('\r\n');
    await page.getByTestId('batch-csv').setInputFiles(csvFile('payroll-march-fixed.csv', good));
    await expect.poll(() => page.getByTestId('batch-to-2').inputValue()).toBe(payees[2]);
    expect(await page.getByTestId('batch-refusals').count()).toBe(0);
    // The normal preset (6 blocks): on regtest the node has no estimate, and the screen says so.
    expect(await page.getByTestId('fee-mode-normal').isChecked()).toBe(true);
    expect(await page.getByTestId('fee-choice').textContent()).toMatch(/Normal \(within 6 blocks\): \d+ litoshi\/vB \(the service's fallback rate: the node has no estimate\)/);
    expect(await page.getByTestId('replaceable-note').textContent()).toMatch(/^Replaceable \(BIP125\)/);
    await expect.poll(() => page.getByTestId('propose').isDisabled()).toBe(false);
    await shot('02-batch-good');
    await page.getByTestId('propose').click();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('awaiting_signatures');

    const rows = await page.getByTestId('payment-outputs').locator('tbody tr').allTextContents();
    expect(rows.slice(0, 3)).toEqual([
      expect.stringMatching(new RegExp(`^Payment · Rent${payees[0]}0\\.50 LTC \\(regtest\\)`)),
      expect.stringMatching(new RegExp(`^Payment · Payroll, March${payees[1]}0\\.25 LTC \\(regtest\\)`)),
      expect.stringMatching(new RegExp(`^Payment · Fees${payees[2]}1\\.00 LTC \\(regtest\\)`)),
    ]);
    expect(rows[3]).toMatch(/^Change/);
    // The fee: in the coin and in USD (the dev service's 80 USD per LTC), its share of the payment, the rate and size.
    expect(await page.getByTestId('fee-summary').textContent()).toMatch(/^Miners' fee 0\.\d+ LTC \(regtest\) \(\$0\.\d\d\): 0\.\d\d% of the payment, \d+\.\d litoshi\/vB over \d+ vbytes \((as signed|estimated with the largest signatures)\); replaceable \(BIP125\)\.$/);
    await shot('03-batch-review');

    // The wallet's unspent outputs: the one the batch spends is reserved by it; freezing is remembered.
    const [utxo] = (await desk.api.utxos('litecoin', [receive.address])).utxos;
    const outpoint = `${utxo!.txid}:${utxo!.vout}`;
    await page.evaluate(`location.hash = '#/wallets/${wallet.id}'`);
    await expect.poll(() => page.getByTestId(`unspent-status-${outpoint}`).textContent(), { timeout: 30_000 }).toMatch(/^spent by an unsent payment/);
    await page.getByTestId(`freeze-${outpoint}`).click();
    await expect.poll(() => page.getByTestId(`freeze-${outpoint}`).textContent()).toBe('Unfreeze');
    await shot('04-unspent-reserved-frozen');
    // Coin control on the propose screen: the reserved output cannot be picked.
    await page.evaluate(`location.hash = '#/wallets/${wallet.id}/pay'`);
    await page.getByTestId('coin-control').check();
    await expect.poll(() => page.getByTestId(`pick-${outpoint}`).isDisabled()).toBe(true);
    await shot('05-coin-control');
  }, 300_000);
});
