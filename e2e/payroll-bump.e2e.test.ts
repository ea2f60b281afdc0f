// The treasury's stuck-payroll story in Chromium over litecoind -regtest started with
// -mempoolreplacement=1: a payroll CSV of five labelled recipients is proposed as one replaceable
// batch at 1 unit/vbyte, two co-signers sign (signing request exported from the screen, signed in
// software, signature files imported on the screen), it is submitted and sits in the mempool; the
// treasurer bumps it to 20 units/vbyte on the payment screen, the bump is signed and submitted, the
// node holds the bump and not the original, a block confirms it, and every recipient is paid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { addressToScript, chainParams } from '../shared/coins/index.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import { createWallet, nextReceiveAddress, type CoreDeps } from '../main/core/wallets/wallets.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { collectAndSubmit, openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
let deps: CoreDeps;
const shot = (name: string) => session.browser.shot(name);
const csvFile = (name: string, text: string) => ({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface RawTx {
  txid: string;
  confirmations?: number;
  vin: { txid: string; vout: number }[];
  vout: { value: number; scriptPubKey: { address?: string; addresses?: string[] } }[];
}
/** The node's decimal coin value in litoshi (rounded: the node prints at most 8 decimals). */
const litoshi = (value: number) => BigInt(Math.round(value * 1e8));

beforeAll(async () => {
  session = await openDeskInBrowser({ nodeArgs: ['-mempoolreplacement=1'] }, 'payroll-');
  ({ desk, page } = session);
  await desk.synced();
  deps = { store: desk.store, api: desk.api, actor: 'treasurer' };
}, 300_000);
afterAll(() => session?.close());

describe('a stuck payroll batch, bumped on the payment screen', () => {
  it('proposes a five-recipient payroll at 1 unit/vbyte, bumps it to 20, and the confirmed bump pays everyone', async () => {
    const w = await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Payroll treasury', m: 2, cosigners: [alice, bob, carol] });
    const receive = await nextReceiveAddress(deps, w.id);
    await desk.node.fundScript(addressToScript(params, receive.address), 5n * COIN);
    await desk.node.mine(1);
    await desk.synced();

    const addresses = await Promise.all([0, 1, 2, 3, 4].map(() => desk.node.newAddress('bech32')));
    const payroll = [
      { label: 'Ada, engineering', amount: '0.40', units: 40_000_000n },
      { label: 'Grace, operations', amount: '0.35', units: 35_000_000n },
      { label: 'Linus', amount: '0.25', units: 25_000_000n },
      { label: 'Margaret, design', amount: '0.125', units: 12_500_000n },
      { label: 'Ken', amount: '0.1', units: 10_000_000n },
    ].map((r, i) => ({ ...r, to: addresses[i]! }));
    const csv = ['address,amount,label', ...payroll.map((r) => `${r.to},${r.amount},"${r.label}"`)].join('\n');

    await page.goto(desk.web.openUrl);
    await expect.poll(() => page.getByTestId('service-status').textContent()).toMatch(/connected/);
    await page.evaluate(`location.hash = '#/wallets/${w.id}/pay'`);
    await page.getByTestId('batch-mode').check();
    await page.getByTestId('batch-csv').setInputFiles(csvFile('payroll-april.csv', csv));
    await expect.poll(() => page.getByTestId('batch-to-4').inputValue()).toBe(payroll[4]!.to);
    expect(await page.getByTestId('batch-refusals').count()).toBe(0);
    for (const [i, r] of payroll.entries()) {
      expect(await page.getByTestId(`batch-to-${i}`).inputValue()).toBe(r.to);
      expect(await page.getByTestId(`batch-label-${i}`).inputValue()).toBe(r.label);
    }
    await page.getByTestId('pay-purpose').fill('April payroll');
    await page.getByTestId('fee-mode-custom').check();
    await page.getByTestId('pay-fee-rate').fill('1');
    expect(await page.getByTestId('replaceable-note').textContent()).toMatch(/^Replaceable \(BIP125\)/);
    await expect.poll(() => page.getByTestId('propose').isDisabled()).toBe(false);
    await shot('01-payroll-imported');
    await page.getByTestId('propose').click();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('awaiting_signatures');
    const originalId = decodeURIComponent(new URL(page.url()).hash.split('/').pop()!);

    // The review: every recipient with its label and amount, then the change; a low, replaceable fee.
    const rows = await page.getByTestId('payment-outputs').locator('tbody tr').allTextContents();
    const amountText = (units: bigint) => `${(Number(units) / 1e8).toFixed(Number(units) % 1_000_000 === 0 ? 2 : 3)} LTC \\(regtest\\)`;
    expect(rows.slice(0, 5)).toEqual(payroll.map((r) => expect.stringMatching(new RegExp(`^Payment · ${escape(r.label)}${r.to}${amountText(r.units)}`))));
    expect(rows[5]).toMatch(/^Change/);
    expect(await page.getByTestId('fee-summary').textContent()).toMatch(/ 1(\.\d+)? litoshi\/vB over \d+ vbytes \((as signed|estimated with the largest signatures)\); replaceable \(BIP125\)\.$/);
    await shot('02-payroll-review');

    const originalTxid = await collectAndSubmit(session.browser, 'original', [{ xprv: alice.accountXprv }, { xprv: bob.accountXprv }]);
    await desk.synced();
    expect(await desk.node.rpc.call<string[]>('getrawmempool', [])).toContain(originalTxid);
    await shot('03-payroll-broadcast');

    // Stuck at 1 unit/vbyte: the treasurer bumps it to 20 on the payment screen.
    await page.getByText('Stuck? Pull it through').waitFor({ timeout: 30_000 });
    await page.getByTestId('stuck-rate').fill('20');
    await shot('04-payroll-stuck');
    await page.getByTestId('bump').click();
    await expect.poll(() => page.url()).not.toContain(originalId);
    const bumpId = decodeURIComponent(new URL(page.url()).hash.split('/').pop()!);
    await expect.poll(() => page.getByTestId('replacement-links').textContent()).toMatch(/This is a fee bump\..*Replaces payment/);
    expect(await page.getByTestId('payment-state').getAttribute('data-state')).toBe('awaiting_signatures');
    // The bump pays every recipient the same amounts, at the higher rate.
    const bumpRows = await page.getByTestId('payment-outputs').locator('tbody tr').allTextContents();
    for (const r of payroll) expect(bumpRows.some((row) => row.includes(r.to) && new RegExp(amountText(r.units)).test(row))).toBe(true);
    expect(await page.getByTestId('fee-summary').textContent()).toMatch(/ 2\d(\.\d+)? litoshi\/vB over \d+ vbytes \((as signed|estimated with the largest signatures)\); replaceable \(BIP125\)\.$/);
    await shot('05-bump-proposed');

    const bumpTxid = await collectAndSubmit(session.browser, 'bump', [{ xprv: alice.accountXprv }, { xprv: bob.accountXprv }]);
    expect(bumpTxid).not.toBe(originalTxid);
    await desk.synced();
    const mempool = await desk.node.rpc.call<string[]>('getrawmempool', []);
    expect(mempool).toContain(bumpTxid);
    expect(mempool).not.toContain(originalTxid);
    await shot('06-bump-broadcast');

    await page.goto(`${desk.web.url}/#/payments/${originalId}`);
    await expect.poll(() => page.getByTestId('replaced-by').textContent()).toMatch(/Replaced by payment/);
    await shot('07-original-replaced');

    await desk.node.mine(1);
    await desk.synced();
    await page.goto(`${desk.web.url}/#/payments/${bumpId}`);
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('confirmed');
    await shot('08-bump-confirmed');
    await page.goto(`${desk.web.url}/#/payments/${originalId}`);
    await expect.poll(() => page.getByTestId('dropped').textContent(), { timeout: 30_000 }).toMatch(/Dropped: payment .* spent the same coins and confirmed/);
    expect(await page.getByTestId('payment-state').getAttribute('data-state')).toBe('failed');
    await shot('09-original-dropped');

    // On the node: the confirmed bump pays every payroll recipient its amount.
    const tx = await desk.node.rpc.call<RawTx>('getrawtransaction', [bumpTxid, true]);
    expect(tx.confirmations).toBe(1);
    const paid = (address: string) => tx.vout.filter((o) => (o.scriptPubKey.address ?? o.scriptPubKey.addresses?.[0]) === address).map((o) => litoshi(o.value));
    for (const r of payroll) expect(paid(r.to)).toEqual([r.units]);
    expect(tx.vout).toHaveLength(payroll.length + 1);
  }, 300_000);
});
