// Labels and the books in Chromium over litecoind -regtest (USD pinned at 80): a payment proposed
// with its purpose shows it in the lists and on its page; labels edited in place on the history and
// the unspent outputs survive a reload and go out in the BIP329 file; a malformed file is refused
// naming its line, changing nothing; another desk's file comes in with its count on screen. The
// books CSV of a date range sums to the balance, and the chart ends at the balance on the screen.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, chainParams } from '../shared/coins/index.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { exportLabels, setLabel } from '../main/core/labels.ts';
import { importSignatureFiles } from '../main/core/payments/signature-import.ts';
import { writeSigningRequest } from '../main/core/payments/signing-request.ts';
import { signRequest } from '../main/core/software-signer.ts';
import { openStore } from '../main/core/store/store.ts';
import { submitPayment } from '../main/core/payments/submit.ts';
import { parseCsv } from '../dev/desk-testing/csv-reader.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import { walletUnspent } from '../main/core/wallets/funds.ts';
import { createWallet, nextReceiveAddress } from '../main/core/wallets/wallets.ts';
import { ARTIFACTS, openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const cosigners = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
const [alice, bob] = cosigners;

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
let walletId = '';
let paymentId = '';
const deposits: string[] = [];
const startDay = new Date().toISOString().slice(0, 10);
const core = () => ({ store: desk.store, api: desk.connection.api, actor: 'treasurer' });
const shot = (name: string) => session.browser.shot(name);
const download = (click: () => Promise<void>, name: string) => session.browser.download(click, name);
const text = async (testId: string) => ((await page.getByTestId(testId).textContent()) ?? '').trim();
const editLabel = async (testId: string, label: string) => {
  await page.getByTestId(testId).click();
  await page.getByTestId(`${testId}-input`).fill(label);
  await page.getByTestId(`${testId}-input`).press('Enter');
  await expect.poll(() => text(testId)).toBe(label);
};
const mine = async () => {
  await desk.node.mine(1);
  await desk.synced();
};

beforeAll(async () => {
  session = await openDeskInBrowser({}, 'books-');
  ({ desk, page } = session);
  walletId = (await createWallet(core(), { coin: 'litecoin', network: 'regtest', name: 'Books treasury', m: 2, cosigners })).id;
  for (const amount of [2n * COIN, COIN / 2n]) {
    const a = await nextReceiveAddress(core(), walletId);
    deposits.push(await desk.node.fundScript(addressToScript(params, a.address), amount));
    await mine();
  }
}, 300_000);
afterAll(() => session?.close());

describe('labels on screen', () => {
  it('a purpose proposed with the payment, labels edited in place, BIP329 out and in', async () => {
    await page.goto(desk.web.openUrl);
    await page.goto(`${new URL(desk.web.openUrl).origin}/#/wallets/${walletId}`);
    await expect.poll(() => text('balance'), { timeout: 30_000 }).toBe('2.50 LTC (regtest)');

    // The purpose goes in with the proposal and shows on the payment and in both lists.
    await page.getByTestId('propose-link').click();
    await page.getByTestId('pay-to').fill(await desk.node.newAddress('legacy'));
    await page.getByTestId('pay-amount').fill('1');
    await page.getByTestId('fee-mode-fixed').check(); // a fixed fee rather than the default rate preset
    await page.getByTestId('pay-fee').fill('0.0002');
    await page.getByTestId('pay-purpose').fill('March payroll');
    await shot('01-propose-purpose');
    await page.getByTestId('propose').click();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('awaiting_signatures');
    paymentId = decodeURIComponent(page.url().split('/').pop()!);
    expect(await text('payment-purpose-edit')).toBe('March payroll');
    await editLabel('payment-purpose-edit', 'March payroll, team A');
    await shot('02-payment-purpose');
    await page.getByRole('link', { name: 'Payments', exact: true }).first().click();
    await expect.poll(() => text('payment-purpose')).toBe('March payroll, team A');
    await shot('03-payments-list-purpose');

    // A transaction's label and an output's, edited in place, survive a reload.
    await page.goto(`${new URL(desk.web.openUrl).origin}/#/wallets/${walletId}`);
    await expect.poll(() => text('payment-purpose')).toBe('March payroll, team A');
    const [first, second] = deposits as [string, string];
    await editLabel(`tx-label-${first}`, 'seed capital');
    const outputRef = `${second}:${(await walletUnspent(core(), walletId)).find((u) => u.txid === second)!.vout}`;
    await editLabel(`output-label-${outputRef}`, 'cold reserve');
    // Escape puts the label back as it was.
    await page.getByTestId(`tx-label-${first}`).click();
    await page.getByTestId(`tx-label-${first}-input`).fill('never saved');
    await page.getByTestId(`tx-label-${first}-input`).press('Escape');
    expect(await text(`tx-label-${first}`)).toBe('seed capital');
    await page.reload();
    await expect.poll(() => text(`tx-label-${first}`)).toBe('seed capital');
    await expect.poll(() => text(`output-label-${outputRef}`)).toBe('cold reserve');
    expect(desk.store.auditLog().filter((e) => e.action === 'label.set').map((e) => e.detail)).toEqual(
      expect.arrayContaining([expect.stringContaining('"seed capital"'), expect.stringContaining('"cold reserve"'), expect.stringContaining('"March payroll, team A"')]),
    );
    await shot('04-wallet-labels');

    // Exported as BIP329: the file parses, one record a line, with those labels.
    const exported = await download(() => page.getByTestId('labels-export').click(), 'labels.jsonl');
    const records = readFileSync(exported, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; ref: string; label: string });
    expect(records).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'tx', ref: first, label: 'seed capital' }), expect.objectContaining({ type: 'output', ref: outputRef, label: 'cold reserve' })]));

    // Line 3 is not JSON: the file is refused naming line 3, and no label changes.
    const before = desk.store.labels.all(walletId);
    const bad = join(session.browser.work, 'bad-labels.jsonl');
    writeFileSync(bad, `${JSON.stringify({ type: 'tx', ref: first, label: 'overwritten?' })}\n${JSON.stringify({ type: 'tx', ref: second, label: 'x' })}\nthis is not JSON\n`);
    await page.getByTestId('labels-import').setInputFiles(bad);
    await expect.poll(() => text('labels-import-error')).toMatch(/line 3/);
    expect(await text('labels-import-error')).toContain('nothing was imported');
    expect(desk.store.labels.all(walletId)).toEqual(before);
    expect(await text(`tx-label-${first}`)).toBe('seed capital');
    await shot('05-labels-import-refused');

    // Another desk with the same wallet labels the second deposit and an address; two lines are about other wallets.
    const other = openStore(join(session.browser.work, 'other-desk.sqlite'));
    let otherText: string;
    try {
      const otherDeps = { store: other, api: desk.connection.api, actor: 'auditor' };
      const w = await createWallet(otherDeps, { coin: 'litecoin', network: 'regtest', name: 'Treasury (auditor)', m: 2, cosigners });
      const addr = await nextReceiveAddress(otherDeps, w.id);
      setLabel(otherDeps, w.id, { type: 'tx', ref: second, label: 'top-up from the exchange' });
      setLabel(otherDeps, w.id, { type: 'addr', ref: addr.address, label: 'exchange deposits' });
      setLabel(otherDeps, w.id, { type: 'xpub', ref: alice!.xpub, label: 'Alice, CFO' });
      otherText = exportLabels(other, w.id).text;
    } finally {
      other.close();
    }
    const foreign = [
      JSON.stringify({ type: 'addr', ref: await desk.node.newAddress('legacy'), label: 'not ours' }),
      JSON.stringify({ type: 'tx', ref: first, label: 'elsewhere', origin: 'wsh(sortedmulti(2,[00000000]xpubOther))' }),
    ].join('\n');
    const good = join(session.browser.work, 'auditor-labels.jsonl');
    writeFileSync(good, `${otherText}${foreign}\n`);
    await page.getByTestId('labels-import').setInputFiles(good);
    await expect.poll(() => text('labels-import-result')).toBe('auditor-labels.jsonl: 3 labels imported, 2 lines for other wallets left as they were.');
    await expect.poll(() => text(`tx-label-${second}`)).toBe('top-up from the exchange');
    expect(await text(`tx-label-${first}`)).toBe('seed capital');
    await shot('06-labels-imported');
  });
});

describe('the books on screen', () => {
  it('the CSV of a date range sums to the balance; the chart ends at the balance, in the coin and in USD', async () => {
    // The payment is signed and sent, so the books hold a spend with its fee.
    const request = await writeSigningRequest(core(), paymentId);
    importSignatureFiles(core(), [
      { name: 'alice.json', text: signRequest(request, { xprv: alice!.accountXprv }).file },
      { name: 'bob.json', text: signRequest(request, { xprv: bob!.accountXprv }).file },
    ]);
    await submitPayment(core(), paymentId);
    await desk.synced();
    await mine();
    await expect.poll(() => text('balance'), { timeout: 30_000 }).toBe('1.4998 LTC (regtest)');
    await expect.poll(() => page.getByTestId('books-chart-last').getAttribute('data-value')).toBe('1.4998 LTC (regtest)');
    await page.getByTestId('books-chart').scrollIntoViewIfNeeded();
    await shot('07-books-coin');
    await page.getByTestId('books-chart').screenshot({ path: join(ARTIFACTS, 'books-07-chart-coin.png') });

    await page.getByTestId('books-in-usd').click();
    const usdText = await text('balance-usd');
    expect(usdText).toBe('$119.98'); // 1.4998 LTC at 80 USD
    await expect.poll(() => page.getByTestId('books-chart-last').getAttribute('data-value')).toBe(usdText);
    await shot('08-books-usd');
    await page.getByTestId('books-chart').screenshot({ path: join(ARTIFACTS, 'books-08-chart-usd.png') });

    const today = new Date().toISOString().slice(0, 10);
    await page.getByTestId('books-from').fill(startDay);
    await page.getByTestId('books-to').fill(today);
    const csvPath = await download(() => page.getByTestId('books-export').click(), 'books.csv');
    const [header, ...rows] = parseCsv(readFileSync(csvPath, 'utf8'));
    expect(header).toEqual(['date_utc', 'txid', 'amount', 'fee', 'balance_after', 'unit', 'label', 'usd_value']);
    expect(rows.every((r) => r[5] === 'LTC (regtest)')).toBe(true);
    expect(rows).toHaveLength(3);
    const units = (s: string) => BigInt(Math.round(Number(s) * 1e8));
    expect(rows.reduce((sum, r) => sum + units(r[2]!), 0n)).toBe(149_980_000n);
    expect(rows.find((r) => r[1] === deposits[0])![6]).toBe('seed capital');
    expect(rows.find((r) => r[2]!.startsWith('-'))![6]).toBe('March payroll, team A');
    // A range before the wallet existed keeps no row, and says so as a header-only file.
    await page.getByTestId('books-from').fill('2001-01-01');
    await page.getByTestId('books-to').fill('2001-12-31');
    const empty = await download(() => page.getByTestId('books-export').click(), 'books-empty.csv');
    expect(parseCsv(readFileSync(empty, 'utf8'))).toHaveLength(1);
  });
});
