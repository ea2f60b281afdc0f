// The desk on a chain the service is still indexing, then its audit log, in Chromium over a real
// litecoind -regtest. The chain has 1,500 blocks more than the first 101 before the service starts,
// and the service reads blocks through dev/chains/slow-rpc.ts, a proxy that holds each getblock
// request 300 ms (a test-only knob: the service itself is unchanged). While it indexes, the status
// bar shows both heights and the time left, and the wallet's balance is marked provisional; once
// the proxy lets it through, the bar and the badge go. Then the audit screen: filters narrow the
// list, paging, and the CSV export of the filtered rows parsed back and compared.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, chainParams } from '../shared/coins/index.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import { parseCsv } from '../dev/desk-testing/csv-reader.ts';
import { createWallet, nextReceiveAddress } from '../main/core/wallets/wallets.ts';
import { proposePayment } from '../main/core/payments/propose.ts';
import { AUDIT_CSV_HEADER } from '../main/core/audit-export.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
const shot = (name: string) => session.browser.shot(name);
const core = () => ({ store: desk.store, api: desk.connection.api, actor: 'treasurer' });
const cosigners = [alice, bob, carol].map((c) => ({ name: c.name, xpub: c.xpub, derivationPath: c.derivationPath }));
let opsId = '';
let reserveId = '';

beforeAll(async () => {
  session = await openDeskInBrowser({ premine: 1500, slowIndexer: { delayMs: 300 } }, 'sync-audit-');
  ({ desk, page } = session);
}, 300_000);
afterAll(() => session?.close());

describe('indexing progress, in Chromium', () => {
  it('shows the progress and a provisional balance while indexing, and neither once the index is final', async () => {
    // A wallet funded at the tip, which the index has not reached.
    const ops = await createWallet(core(), { coin: 'litecoin', network: 'regtest', name: 'Operating treasury', m: 2, cosigners });
    opsId = ops.id;
    const address = (await nextReceiveAddress(core(), ops.id)).address;
    await desk.node.fundScript(addressToScript(params, address), 3n * COIN);
    await desk.node.mine(1);
    const tip = await desk.node.rpc.call<number>('getblockcount');
    expect(tip).toBe(1602); // genesis is block 0

    await page.goto(desk.web.openUrl);
    await page.getByTestId('sync-bar').waitFor();
    // Both heights, as the service reports them (it reads the node's tip at the start of each pass).
    await expect.poll(() => page.getByTestId('sync-heights').textContent()).toMatch(/^block [\d,]+ of [\d,]+ \(\d+%\)$/);
    // The estimate needs two polls' worth of progress: "working out the time left" until then.
    await expect.poll(() => page.getByTestId('sync-eta').textContent(), { timeout: 30_000 }).toMatch(/(less than a minute|about \d+ min) left$/);
    const [indexed, shownTip] = (await page.getByTestId('sync-heights').textContent())!.match(/^block ([\d,]+) of ([\d,]+)/)!.slice(1).map((x) => Number(x.replace(/,/g, '')));
    expect(shownTip).toBeGreaterThanOrEqual(1601);
    expect(indexed).toBeLessThan(shownTip!);
    expect(await page.getByTestId('service-status').textContent()).toMatch(/litecoin: [\d,]+ blocks? behind/);
    expect(await page.getByTestId('wallet-card').getByTestId('provisional-badge').textContent()).toBe('provisional');
    await shot('01-wallets-indexing');

    await page.getByTestId('wallet-card').click();
    await page.getByTestId('provisional-notice').waitFor();
    expect(await page.getByTestId('provisional-notice').textContent()).toMatch(/^Not final yet\. The service is still indexing litecoin regtest \(block [\d,]+ of [\d,]+, .*\): [\d,]+ blocks behind the node\. The balance may be missing transactions/);
    expect(await page.getByTestId('balance').getAttribute('class')).toContain('provisional');
    expect(await page.getByTestId('provisional-badge').count()).toBeGreaterThanOrEqual(1);
    // The deposit is above the indexed height: the provisional figure does not have it yet.
    expect(await page.getByTestId('balance').textContent()).not.toBe('3.00 LTC (regtest)');
    expect(await page.getByRole('alert').count()).toBe(0);
    await shot('02-wallet-provisional');

    // The proxy stops holding block requests: the index catches up, the figures become final.
    desk.slowRpc!.delayMs = 0;
    await desk.synced();
    await expect.poll(() => page.getByTestId('sync-bar').count(), { timeout: 30_000 }).toBe(0);
    await expect.poll(() => page.getByTestId('provisional-badge').count(), { timeout: 30_000 }).toBe(0);
    await expect.poll(() => page.getByTestId('balance').textContent(), { timeout: 30_000 }).toBe('3.00 LTC (regtest)');
    expect(await page.getByTestId('provisional-notice').count()).toBe(0);
    expect(await page.getByTestId('balance').getAttribute('class')).not.toContain('provisional');
    await expect.poll(() => page.getByTestId('service-status').textContent()).toMatch(/connected/);
    await shot('03-wallet-final');
  }, 300_000);
});

describe('the audit log, in Chromium', () => {
  it('lists every entry newest first, filters, pages, and exports the filtered entries as CSV', async () => {
    const reserve = await createWallet(core(), { coin: 'litecoin', network: 'regtest', name: 'Reserve', m: 1, cosigners: cosigners.slice(0, 2) });
    reserveId = reserve.id;
    const to = await desk.node.newAddress('legacy');
    const payment = await proposePayment(core(), opsId, { to, amount: COIN, minersFee: 20_000n });
    // Entries as the use cases write them, with what spreadsheets choke on in the details.
    desk.store.audit('treasurer', 'signature.import', `payment ${payment.id}: 1 signature(s) by bob, "urgent",\nsee notes`, 'bob.json', { paymentId: payment.id, cosigner: 'bob' });
    desk.store.audit('=HYPERLINK("http://evil.example","x")', 'payment.note', '+1 -1 @me', null, { walletId: reserveId, cosigner: 'alice' });
    for (let i = 0; i < 55; i++) desk.store.audit('treasurer', 'service.connect', `embedded service, check ${i}`);

    await page.getByRole('link', { name: 'Audit log' }).click();
    const total = desk.store.auditLog().length;
    await expect.poll(() => page.getByTestId('audit-count').textContent()).toBe(`Entries 1–50 of ${total}`);
    expect(await page.getByTestId('audit-row').count()).toBe(50);
    expect(await page.getByTestId('audit-row').first().textContent()).toContain('embedded service, check 54'); // newest first
    await shot('04-audit-all');
    await page.getByTestId('audit-older').click();
    await expect.poll(() => page.getByTestId('audit-count').textContent()).toBe(`Entries 51–${total} of ${total}`);
    expect(await page.getByTestId('audit-row').last().textContent()).toMatch(/wallet\.create.*wallet "Operating treasury"/); // the oldest entry
    await shot('05-audit-older');

    // By wallet: the Operating treasury's entries only (its creation, the proposal, the signature).
    await page.getByTestId('audit-wallet').selectOption({ label: 'Operating treasury' });
    await expect.poll(() => page.getByTestId('audit-count').textContent()).toBe('Entries 1–3 of 3');
    expect(await page.getByTestId('audit-row').locator('td:nth-child(3)').allTextContents()).toEqual(['signature.import', 'payment.propose', 'wallet.create']);
    // By payment within it.
    await page.getByTestId('audit-payment').selectOption(payment.id);
    await expect.poll(() => page.getByTestId('audit-count').textContent()).toBe('Entries 1–2 of 2');
    // By co-signer.
    await page.getByTestId('audit-cosigner').selectOption('bob');
    await expect.poll(() => page.getByTestId('audit-count').textContent()).toBe('Entries 1–1 of 1');
    await shot('06-audit-filtered');

    const file = await session.browser.download(() => page.getByTestId('audit-export').click(), 'audit.csv');
    const rows = parseCsv(readFileSync(file, 'utf8'));
    expect(rows[0]).toEqual([...AUDIT_CSV_HEADER]);
    expect(rows.slice(1)).toEqual([
      [expect.stringMatching(/^\d{4}-\d\d-\d\dT/), 'treasurer', 'signature.import', opsId, 'Operating treasury', payment.id, 'bob', `payment ${payment.id}: 1 signature(s) by bob, "urgent",\nsee notes`, 'bob.json'],
    ]);

    // Alice's entries everywhere: the formula-looking cells come back guarded.
    await page.getByTestId('audit-clear').click();
    await page.getByTestId('audit-cosigner').selectOption('alice');
    await expect.poll(() => page.getByTestId('audit-count').textContent()).toBe('Entries 1–1 of 1');
    const aliceFile = await session.browser.download(() => page.getByTestId('audit-export').click(), 'audit-alice.csv');
    expect(parseCsv(readFileSync(aliceFile, 'utf8')).slice(1)).toEqual([
      [expect.any(String), `'=HYPERLINK("http://evil.example","x")`, 'payment.note', reserveId, 'Reserve', '', 'alice', "'+1 -1 @me", ''],
    ]);

    // A date range before today keeps nothing; today's keeps all.
    await page.getByTestId('audit-clear').click();
    await page.getByTestId('audit-to').fill('2020-01-01');
    await expect.poll(() => page.getByTestId('audit-count').textContent()).toBe('No entries match.');
    const today = new Date().toISOString().slice(0, 10);
    await page.getByTestId('audit-to').fill(today);
    await page.getByTestId('audit-from').fill(today);
    await expect.poll(() => page.getByTestId('audit-count').textContent()).toBe(`Entries 1–50 of ${total}`);
    const all = await session.browser.download(() => page.getByTestId('audit-export').click(), 'audit-all.csv');
    expect(parseCsv(readFileSync(all, 'utf8'))).toHaveLength(total + 1);
  }, 120_000);
});
