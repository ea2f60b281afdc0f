// Issue 32, point 5, in Chromium over litecoind -regtest (started with -mempoolreplacement=1): the
// payments list says what a replaced original, a fee bump, a child-pays-for-parent and a vault refresh
// are; a child names and links its parent both ways, on a plain wallet "back to the wallet", with no
// raw sequence number; "1.250" is said to be read as 1.25; the send-all refusal names payments as the
// list does and holds Propose back; at 760 px no page scrolls sideways, the navigation stays on one
// row and the status is whole; no frame around the page after a navigation. Screenshots at 1280 and
// 760 px go to e2e/artifacts/small-*.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { addressToScript, chainParams, decodeTx } from '../shared/coins/index.ts';
import { importSignatureFiles } from '../main/core/payments/signature-import.ts';
import { writeSigningRequest } from '../main/core/payments/signing-request.ts';
import { signRequest } from '../main/core/software-signer.ts';
import { submitPayment } from '../main/core/payments/submit.ts';
import { proposeTreasurySpend } from '../main/core/payments/spend.ts';
import { proposePayment } from '../main/core/payments/propose.ts';
import { proposeCpfp } from '../main/core/payments/cpfp.ts';
import { proposeBump } from '../main/core/payments/replace.ts';
import { proposeRefresh } from '../main/core/vaults/refresh.ts';
import { createVault } from '../main/core/vaults/vaults.ts';
import { testCosigner, type TestCosigner } from '../dev/desk-testing/keys.ts';
import { createWallet, nextReceiveAddress, type CoreDeps } from '../main/core/wallets/wallets.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol, lawyer] = ['alice', 'bob', 'carol', 'lawyer'].map((n) => testCosigner(n)) as [TestCosigner, TestCosigner, TestCosigner, TestCosigner];
const purpose = (walletId: string, paymentId: string, label: string) => desk.store.labels.put(walletId, { type: 'payment', ref: paymentId, label, spendable: null }, new Date().toISOString());
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
let deps: CoreDeps;
const shot = (name: string) => session.browser.shot(`small-${name}`);

/** Each wallet of this file has co-signers of its own (the desk refuses a second wallet of the same keys). */
const signersOf = new Map<string, TestCosigner[]>();

async function signAndSend(id: string): Promise<void> {
  const signers = signersOf.get(desk.store.payment(id)!.walletId)!.slice(0, 2);
  const request = await writeSigningRequest(deps, id);
  importSignatureFiles(deps, signers.map((c, i) => ({ name: `s${i}.json`, text: signRequest(request, { xprv: c.accountXprv }).file })));
  await submitPayment(deps, id);
  await desk.synced();
}

async function fundedWallet(name: string, amounts = [2n * COIN]) {
  const cosigners = ['a', 'b', 'c'].map((k) => testCosigner(`${name} ${k}`));
  const w = await createWallet(deps, { coin: 'litecoin', network: 'regtest', name, m: 2, cosigners });
  signersOf.set(w.id, cosigners);
  const txids: string[] = [];
  for (const amount of amounts) txids.push(await desk.node.fundScript(addressToScript(params, (await nextReceiveAddress(deps, w.id)).address), amount));
  await desk.node.mine(1);
  await desk.synced();
  const { utxos } = await desk.api.utxos('litecoin', desk.store.addresses(w.id).map((a) => a.address));
  return { w, coins: txids.map((t) => utxos.find((u) => u.txid === t)!) };
}

const rowOf = (id: string) => page.getByTestId('payment-row').filter({ has: page.locator(`a[href*="${id}"]`) });

beforeAll(async () => {
  session = await openDeskInBrowser({ nodeArgs: ['-mempoolreplacement=1'] }, '');
  ({ desk, page } = session);
  await desk.synced();
  deps = { store: desk.store, api: desk.api, actor: 'treasurer' };
  await page.goto(desk.web.openUrl);
  await page.getByTestId('service-status').filter({ hasText: 'connected' }).waitFor();
}, 300_000);
afterAll(() => session?.close());

describe('words and small things', () => {
  it('the list says an original was replaced by its bump (not a red "Failed"), and what the bump is', async () => {
    const { w, coins } = await fundedWallet('Bumped treasury');
    const original = await proposeTreasurySpend(deps, w.id, { to: await desk.node.newAddress('legacy'), amount: COIN / 2n, inputs: [coins[0]!], fee: { rate: 1n }, replaceable: true, kind: 'payment' });
    purpose(w.id, original.id, 'Office rent');
    await signAndSend(original.id);
    const bump = await proposeBump(deps, original.id, 20n);
    await signAndSend(bump.id);
    await desk.node.mine(1);
    await desk.synced();
    await expect.poll(() => desk.store.payment(original.id)!.state, { timeout: 30_000 }).toBe('failed');

    await page.goto(`${desk.web.url}/#/payments`);
    const originalRow = rowOf(original.id);
    await expect.poll(() => originalRow.getByTestId('payment-role').textContent(), { timeout: 30_000 }).toMatch(/^Replaced by payment of 0\.5 LTC \(regtest\) to \S+ \("Office rent"\)$/);
    expect(await originalRow.locator('.badge').textContent()).toBe('Replaced');
    expect(await rowOf(bump.id).getByTestId('payment-role').textContent()).toMatch(/^Fee bump of payment of 0\.5 LTC \(regtest\) to \S+ \("Office rent"\)$/);
    await shot('01-replaced-in-list');

    // The desk's own labels file, imported back: every line is this wallet's, the replaced original's too.
    await page.goto(`${desk.web.url}/#/wallets/${w.id}`);
    const file = await session.browser.download(() => page.getByTestId('labels-export').click(), 'bumped-labels.jsonl');
    await page.getByTestId('labels-import').setInputFiles(file);
    await expect.poll(() => page.getByTestId('labels-import-result').textContent(), { timeout: 30_000 }).toBe('bumped-labels.jsonl: 2 labels imported.');
    await shot('01b-labels-back');
  });

  it('a child-pays-for-parent has its own words, links both ways, goes back to the wallet, and shows no sequence number', async () => {
    const { w, coins } = await fundedWallet('Child treasury');
    const parent = await proposeTreasurySpend(deps, w.id, { to: await desk.node.newAddress('legacy'), amount: COIN / 2n, inputs: [coins[0]!], fee: { rate: 1n }, replaceable: false, kind: 'payment' });
    await signAndSend(parent.id);
    const sent = desk.store.payment(parent.id)!;
    const { payment: child } = await proposeCpfp(deps, w.id, { txid: sent.txid!, vout: decodeTx(sent.unsignedTx, params).outputs.length - 1 }, 5n);
    await signAndSend(child.id);

    await page.goto(`${desk.web.url}/#/payments/${child.id}`);
    await expect.poll(() => page.locator('h1').textContent(), { timeout: 30_000 }).toMatch(/^Speed-up of 1\.49\d* LTC \(regtest\)$/);
    expect(await page.getByTestId('payment-role').textContent()).toMatch(/^Speed-up of payment of 0\.5 LTC \(regtest\) to \S+ \(child pays for parent\)$/);
    const up = page.getByTestId('cpfp-parent');
    expect(await up.textContent()).toMatch(/back to the wallet, and its fee pays for both/);
    expect(await up.locator('a').getAttribute('href')).toContain(parent.id);
    const stuck = page.locator('.stuck-payment');
    await expect.poll(() => stuck.textContent(), { timeout: 30_000 }).toMatch(/This payment was sent as final, without signalling replacement \(BIP125\)/);
    const words = (await page.locator('main').textContent())!;
    expect(words).not.toMatch(/sequence|0xffffffff/);
    expect(words).not.toMatch(/back to the vault/);
    expect(words).not.toMatch(UUID);
    await shot('02-child');

    await up.locator('a').click();
    await expect.poll(() => page.url()).toContain(parent.id);
    const down = page.getByTestId('cpfp-child');
    await expect.poll(() => down.textContent(), { timeout: 30_000 }).toMatch(/^Sped up by a child paying for it \(child pays for parent, sent\)\.$/);
    expect(await down.locator('a').getAttribute('href')).toContain(child.id);
    await shot('03-parent');

    await page.goto(`${desk.web.url}/#/payments`);
    await expect.poll(() => rowOf(child.id).getByTestId('payment-role').textContent(), { timeout: 30_000 }).toMatch(/^Speed-up of payment of 0\.5 LTC \(regtest\) to \S+ \(child pays for parent\)$/);
  });

  it('the fee is the estimate with the largest signatures until signed, then the real size and rate, as the node counts them', async () => {
    const { w, coins } = await fundedWallet('Sized treasury');
    const p = await proposeTreasurySpend(deps, w.id, { to: await desk.node.newAddress('legacy'), amount: COIN / 2n, inputs: [coins[0]!], fee: { rate: 9n }, replaceable: false, kind: 'payment' });
    const summary = page.getByTestId('fee-summary');
    const sizeOf = async () => {
      const m = / (\d+\.\d) litoshi\/vB over (\d+) vbytes \((as signed|estimated with the largest signatures)\);/.exec((await summary.textContent())!);
      return m ? { rate: m[1]!, vsize: Number(m[2]), how: m[3]! } : null;
    };
    await page.goto(`${desk.web.url}/#/payments/${p.id}`);
    await expect.poll(sizeOf, { timeout: 30_000 }).toMatchObject({ how: 'estimated with the largest signatures' });
    const estimate = (await sizeOf())!;
    await shot('09-fee-estimated');

    await signAndSend(p.id);
    const sent = desk.store.payment(p.id)!;
    const entry = await desk.node.rpc.call<{ vsize: number }>('getmempoolentry', [sent.txid]);
    await page.reload();
    await expect.poll(sizeOf, { timeout: 30_000 }).toMatchObject({ how: 'as signed', vsize: entry.vsize });
    const real = (await sizeOf())!;
    expect(real.vsize).toBeLessThan(estimate.vsize);
    const tenths = (sent.minersFee * 10n) / BigInt(entry.vsize);
    expect(real.rate).toBe(`${tenths / 10n}.${tenths % 10n}`);
    expect(Number(real.rate)).toBeGreaterThanOrEqual(Number(estimate.rate));
    await shot('10-fee-signed');
  });

  it('a key added without its path says so in words, and the set-up export warns before it is used', async () => {
    const keys = ['a', 'b', 'c'].map((k) => testCosigner(`Pathless ${k}`));
    const w = await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Pathless treasury', m: 2, cosigners: keys.map((c, i) => (i === 2 ? { name: 'Rex', xpub: c.xpub } : c)) });
    await page.goto(`${desk.web.url}/#/wallets/${w.id}`);
    await expect.poll(() => page.getByTestId('cosigner-path').allTextContents(), { timeout: 30_000 }).toEqual([keys[0]!.derivationPath, keys[1]!.derivationPath, 'path unknown (the key was added without one)']);
    expect(await page.getByTestId('export-setup-no-path').textContent()).toMatch(/^The derivation path of Rex's key is unknown: it was added without one\..*Ask its holder for the path/);
    expect(await page.locator('main').textContent()).not.toMatch(/Rex m\b/);
    await page.getByTestId('export-setup-no-path').scrollIntoViewIfNeeded();
    await shot('11-path-unknown');
  });

  it('a vault refresh is listed as a refresh, not a payment to its own address', async () => {
    const co = (c: typeof alice) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivationPath });
    const vault = await createVault(deps, { template: 'recovery', coin: 'litecoin', network: 'regtest', name: 'Refreshed vault', primary: { threshold: 2, cosigners: [alice, bob, carol].map(co) }, recovery: [{ threshold: 1, cosigners: [co(lawyer)], after: { days: 2 } }] });
    const txid = await desk.node.fundScript(addressToScript(params, (await nextReceiveAddress(deps, vault.id)).address), COIN);
    await desk.node.mine(1);
    await desk.synced();
    const { utxos } = await desk.api.utxos('litecoin', desk.store.addresses(vault.id).map((a) => a.address));
    const coin = utxos.find((u) => u.txid === txid)!;
    const refresh = await proposeRefresh(deps, vault.id, { outpoints: [`${coin.txid}:${coin.vout}`], feeRate: 2n });

    await page.goto(`${desk.web.url}/#/payments`);
    await expect.poll(() => rowOf(refresh.id).getByTestId('payment-role').textContent(), { timeout: 30_000 }).toBe('Refresh: the coins paid back to the vault, restarting their recovery clock');
    await shot('04-refresh-in-list');
  });

  it('says how an amount was read, and the send-all refusal names payments as the list does and holds Propose back', async () => {
    const { w, coins } = await fundedWallet('Sweep treasury', [COIN, 2n * COIN]);
    const held = await proposePayment(deps, w.id, { to: await desk.node.newAddress('bech32'), amount: COIN / 2n, minersFee: 10_000n, inputs: [`${coins[0]!.txid}:${coins[0]!.vout}`] });
    purpose(w.id, held.id, 'Payroll');
    const other = await proposePayment(deps, w.id, { to: await desk.node.newAddress('bech32'), amount: COIN, minersFee: 10_000n, inputs: [`${coins[1]!.txid}:${coins[1]!.vout}`] });

    await page.goto(`${desk.web.url}/#/wallets/${w.id}/pay`);
    await page.getByTestId('pay-to').fill(await desk.node.newAddress('bech32'));
    await page.getByTestId('pay-amount').fill('1.250');
    await expect.poll(() => page.getByTestId('pay-amount-read').textContent()).toBe('read as 1.25 LTC (regtest)');
    await page.getByTestId('pay-amount').fill('1.25');
    expect(await page.getByTestId('pay-amount-read').count()).toBe(0);
    await page.getByTestId('pay-amount').fill('.5');
    await expect.poll(() => page.getByTestId('pay-amount-read').textContent()).toBe('read as 0.5 LTC (regtest)');
    await shot('05-read-as');

    await page.getByTestId('send-all').check();
    const refusal = page.getByTestId('send-all-amount');
    await expect.poll(() => refusal.textContent(), { timeout: 30_000 }).toMatch(/^sending all: the wallet has no free output; 2 outputs holding 3 LTC \(regtest\) are reserved by payments awaiting signatures or ready \(/);
    const words = (await refusal.textContent())!;
    expect(words).toContain('payment of 0.5 LTC (regtest) to ');
    expect(words).toContain('("Payroll")');
    expect(words).toContain('payment of 1 LTC (regtest) to ');
    expect(words).not.toContain(held.id);
    expect(words).not.toContain(other.id);
    expect(await page.getByTestId('propose').isDisabled()).toBe(true);
    await shot('06-send-all-refused');
  });

  it('at 760 px no page scrolls sideways, the navigation keeps one row, the status is whole; screenshots at 1280 and 760', async () => {
    const w = desk.store.wallets().find((x) => x.name === 'Child treasury')!;
    const p = desk.store.payments(w.id)[0]!;
    const pages = { wallets: '#/wallets', wallet: `#/wallets/${w.id}`, pay: `#/wallets/${w.id}/pay`, payments: '#/payments', payment: `#/payments/${p.id}`, cosigner: '#/cosigner', audit: '#/audit', settings: '#/settings', accounts: '#/accounts' };
    for (const width of [1280, 760]) {
      await page.setViewportSize({ width, height: 900 });
      for (const [name, hash] of Object.entries(pages)) {
        await page.goto(`${desk.web.url}/${hash}`);
        await page.locator('main h1').first().waitFor();
        await page.waitForLoadState('networkidle');
        const layout = await page.evaluate(() => {
          const { document, window } = globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number }; querySelectorAll(s: string): ArrayLike<{ getBoundingClientRect(): { top: number; left: number; right: number } }>; querySelector(s: string): { getBoundingClientRect(): { top: number; left: number; right: number } } | null }; window: { innerWidth: number } };
          const links = Array.from(document.querySelectorAll('nav[aria-label="Main"] a')).map((a) => a.getBoundingClientRect().top);
          const status = document.querySelector('[data-testid="service-status"]')!.getBoundingClientRect();
          return { sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth, rows: new Set(links.map(Math.round)).size, status: { left: status.left, right: status.right }, width: window.innerWidth };
        });
        if (layout.sideways > 0) await shot(`07-${width}-${name}`);
        const wide = layout.sideways > 0 ? await page.evaluate(() => {
          const { document } = globalThis as unknown as { document: { documentElement: { clientWidth: number }; querySelectorAll(s: string): ArrayLike<{ tagName: string; className: string; getAttribute(n: string): string | null; getBoundingClientRect(): { right: number } }> } };
          return Array.from(document.querySelectorAll('main *')).filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth).slice(0, 8).map((e) => `${e.tagName}.${e.className}[${e.getAttribute('data-testid')}] ${Math.round(e.getBoundingClientRect().right)}`);
        }) : [];
        expect({ page: name, width, sideways: layout.sideways, rows: layout.rows, wide }).toEqual({ page: name, width, sideways: 0, rows: 1, wide: [] });
        expect(layout.status.left).toBeGreaterThanOrEqual(0);
        expect(layout.status.right).toBeLessThanOrEqual(layout.width);
        await shot(`07-${width}-${name}`);
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('no frame around the page after a navigation; focus still moves to the page for a screen reader', async () => {
    await page.goto(`${desk.web.url}/#/wallets`);
    await page.locator('main h1').first().waitFor();
    // Keyboard navigation: the case where Chromium shows a focus ring on what gets focus.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payments', exact: true }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toContain('#/payments');
    await page.locator('main h1').first().waitFor();
    // The URL changes on hashchange, before React's effect moves focus: wait for the move itself.
    const focus = () => page.evaluate(() => {
      const { document, getComputedStyle } = globalThis as unknown as { document: { activeElement: { id: string; closest(s: string): unknown } | null }; getComputedStyle(e: unknown): { outlineStyle: string } };
      const el = document.activeElement!;
      return { inMain: el.closest('main') !== null, outline: getComputedStyle(el).outlineStyle };
    });
    await expect.poll(focus).toEqual({ inMain: true, outline: 'none' });
    await shot('08-after-navigation');
  });
});
