// Lists that follow the chain, and the words around them, in Chromium over litecoind -regtest (USD
// pinned at 80). The desk's payment follower runs as the app's does, every 300 ms here: two payments
// confirm while the treasurer stays on the Payments list, newest first, and the list, the wallet
// card and the audit filter change state without the payment being opened. A bitcoin mainnet wallet
// on this litecoin-only service is refused as it is typed and at Create; one that exists already
// opens on a page that names it. A wallet paid on 45 addresses says it is checking addresses until
// its balance is whole. Then the small words: "within 1 block", the Coldcard export for keys in given
// order, the audit in LTC, the books' unit column, purposes in History, and co-signer mode's purpose
// and USD value. Signing happens in core (the co-signers' files). Screenshots: e2e/artifacts/lists-*.png.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, chainParams } from '../shared/coins/index.ts';
import { importSignatureFiles } from '../main/core/payments/signature-import.ts';
import { writeSigningRequest } from '../main/core/payments/signing-request.ts';
import { signRequest } from '../main/core/software-signer.ts';
import { submitPayment } from '../main/core/payments/submit.ts';
import { proposePayment } from '../main/core/payments/propose.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import { parseCsv } from '../dev/desk-testing/csv-reader.ts';
import { walletAddress } from '../main/core/wallets/script.ts';
import { createWallet, nextReceiveAddress, requireWallet, walletParams, type CoreDeps } from '../main/core/wallets/wallets.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
let deps: CoreDeps;
const shot = (name: string) => session.browser.shot(name);
const text = (testId: string) => page.getByTestId(testId).first().textContent();
let opsId = '';
const ids = { rent: '', payroll: '' };

async function fund(walletId: string, amount: bigint): Promise<string> {
  const a = await nextReceiveAddress(deps, walletId);
  const txid = await desk.node.fundScript(addressToScript(params, a.address), amount);
  await desk.node.mine(1);
  await desk.synced();
  return txid;
}

async function signAndSend(id: string): Promise<void> {
  const request = await writeSigningRequest(deps, id);
  importSignatureFiles(deps, [alice, bob].map((c, i) => ({ name: `${id}-${i}.json`, text: signRequest(request, { xprv: c.accountXprv }).file })));
  await submitPayment(deps, id);
  await desk.synced();
}

beforeAll(async () => {
  session = await openDeskInBrowser({ followEveryMs: 300 }, 'lists-');
  ({ desk, page } = session);
  await desk.synced();
  deps = { store: desk.store, api: desk.connection.api, actor: 'treasurer' };
}, 300_000);
afterAll(() => session?.close());

describe('lists that follow the chain', () => {
  it('shows the newest payment first, and both confirm on the Payments list without being opened', async () => {
    const ops = await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Operating treasury', m: 2, cosigners: [alice, bob, carol] });
    opsId = ops.id;
    await fund(ops.id, 3n * COIN);
    await fund(ops.id, 3n * COIN);
    const rent = await proposePayment(deps, ops.id, { to: await desk.node.newAddress('legacy'), amount: COIN, minersFee: 10_000n, purpose: 'March rent' });
    await signAndSend(rent.id);
    const payroll = await proposePayment(deps, ops.id, { to: await desk.node.newAddress('legacy'), amount: COIN / 2n, minersFee: 10_000n, purpose: 'March payroll' });
    await signAndSend(payroll.id);
    Object.assign(ids, { rent: rent.id, payroll: payroll.id });

    await page.goto(desk.web.openUrl);
    await expect.poll(() => text('service-status')).toMatch(/connected/);
    await expect.poll(() => text('wallet-card')).toContain('2 open payments');
    await page.getByRole('link', { name: 'Payments', exact: true }).click();
    await page.getByTestId('payment-row').nth(1).waitFor();
    const rows = page.getByTestId('payment-row');
    // Newest first, as the page says: the payroll was proposed after the rent.
    // Polled: the rows may be drawn before their purposes have loaded.
    await expect.poll(() => rows.locator('[data-testid="payment-purpose"]').allTextContents()).toEqual(['March payroll', 'March rent']);
    await expect.poll(() => rows.locator('.badge').allTextContents()).toEqual(['Broadcast', 'Broadcast']);
    await shot('01-payments-broadcast');

    // A block confirms both while the treasurer stays here: the list changes by itself.
    await desk.node.mine(1);
    await desk.synced();
    await expect.poll(() => rows.locator('.badge').allTextContents(), { timeout: 30_000 }).toEqual(['Confirmed', 'Confirmed']);
    expect(page.url()).toMatch(/#\/payments$/);
    await shot('02-payments-confirmed');

    // The wallet card no longer counts them open; the audit filter names them confirmed.
    await page.getByRole('link', { name: 'Wallets', exact: true }).click();
    await page.getByTestId('wallet-card').first().waitFor();
    await expect.poll(() => text('wallet-card')).not.toContain('open payment');
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByTestId('audit-row').first().waitFor();
    const options = await page.getByTestId('audit-payment').locator('option').allTextContents();
    expect(options.filter((o) => o.includes('Operating treasury'))).toEqual([expect.stringMatching(/, confirmed\)$/), expect.stringMatching(/, confirmed\)$/)]);
    // The confirmation is logged with its block and block time, amounts in the coin's unit.
    const details = await page.getByTestId('audit-row').locator('td:last-child').allTextContents();
    const tip = await desk.node.rpc.call<number>('getblockcount');
    expect(details.filter((d) => d.includes('confirmed in block'))).toEqual([
      expect.stringMatching(new RegExp(`^payment ${ids.payroll}: confirmed in block ${tip} at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ \\(block time; 1 confirmation when seen\\)$`)),
      expect.stringMatching(new RegExp(`^payment ${ids.rent}: confirmed in block ${tip} at `)),
    ]);
    expect(details.find((d) => d.startsWith(`payment ${ids.rent}: 1 LTC (regtest) to `))).toMatch(/miners fee 0\.0001 LTC \(regtest\)/);
    await shot('03-audit-confirmed');
  }, 180_000);
});

describe('a wallet on a coin the service does not serve', () => {
  it('is refused in words as it is chosen and at Create', async () => {
    const btc = ['dave', 'erin'].map((n) => testCosigner(n, chainParams('bitcoin', 'mainnet')));
    await page.getByRole('link', { name: 'Wallets', exact: true }).click();
    await page.getByRole('link', { name: 'New wallet' }).click();
    await page.getByTestId('wallet-name').fill('Main street');
    await page.getByTestId('wallet-coin').selectOption('bitcoin');
    await page.getByTestId('wallet-network').selectOption('mainnet');
    expect(await text('wallet-coin-unserved')).toBe('The service this desk uses serves litecoin regtest, not bitcoin mainnet: a wallet here could show no balance and make no payment.');
    await page.getByRole('button', { name: 'Remove co-signer 3' }).click();
    for (const [i, c] of btc.entries()) {
      await page.getByTestId(`cosigner-name-${i}`).fill(c.name);
      await page.getByTestId(`cosigner-xpub-${i}`).fill(c.xpub);
      await page.getByTestId(`cosigner-path-${i}`).fill(c.derivationPath);
    }
    await page.getByTestId('create-wallet').click();
    await expect.poll(() => text('wallet-refusal')).toBe(
      'refusing the wallet: the service this desk uses serves litecoin regtest only, not bitcoin mainnet: a bitcoin mainnet wallet there can show no balance and make no payment. Choose a coin and network it serves, or point the desk at a service that serves bitcoin mainnet (Settings).',
    );
    expect(page.url()).toMatch(/#\/wallets\/new$/);
    expect(desk.store.wallets().map((w) => w.name)).not.toContain('Main street');
    await shot('04-unserved-refused');
  }, 60_000);

  it('opens one that exists already on a page that names it and says why', async () => {
    // Made before the desk's service changed: stored directly, as an older desk left it.
    const btc = ['dave', 'erin'].map((n) => testCosigner(n, chainParams('bitcoin', 'mainnet')));
    desk.store.insertWallet({ id: 'w-old-btc', coin: 'bitcoin', network: 'mainnet', name: 'Old bitcoin vault', m: 1, createdAt: new Date().toISOString() }, btc.map((c, position) => ({ position, name: c.name, xpub: c.xpub, fingerprint: '00000000', derivationPath: c.derivationPath })));
    await page.goto(`${desk.web.url}/#/wallets/w-old-btc`);
    await page.getByTestId('wallet-unserved').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Old bitcoin vault');
    expect(await text('wallet-unserved')).toBe(
      'This wallet cannot be followed here. The service this desk uses serves litecoin regtest only, not bitcoin mainnet: a bitcoin mainnet wallet there can show no balance and make no payment. Its keys and payments are kept: point the desk at a service that serves bitcoin mainnet in Settings, or go back to Wallets.',
    );
    await shot('05-unserved-existing');
    await page.getByTestId('wallet-unserved').getByRole('link', { name: 'Wallets' }).click();
    await expect.poll(() => page.getByTestId('wallet-card').filter({ hasText: 'Old bitcoin vault' }).textContent()).toContain("not served by this desk's service");
  }, 60_000);
});

describe('a wallet whose addresses are still being checked', () => {
  it('says so beside a partial balance, then shows the whole balance', async () => {
    const vault = await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Imported vault', m: 2, cosigners: [carol, bob, alice] });
    // Paid on receive addresses 0..44 by another desk: this one knows only the first of each chain.
    const w = requireWallet(deps, vault.id);
    const xpubs = desk.store.cosigners(w.id).map((c) => c.xpub);
    const paid = Array.from({ length: 45 }, (_, i) => walletAddress(walletParams(w), w, xpubs, false, i).address);
    await desk.node.walletRpc.call('sendmany', ['', Object.fromEntries(paid.map((a) => [a, 0.1]))]);
    await desk.node.mine(1);
    await desk.synced();

    await page.goto(`${desk.web.url}/#/wallets/${vault.id}`);
    await page.getByTestId('scan-notice').waitFor();
    expect(await text('scan-notice')).toMatch(/^Not final yet: checking addresses… \(\d+ of \d+\)\. The desk is still finding which of this wallet's addresses have been used; the balance counts only those found so far and will grow\.$/);
    expect(await page.getByTestId('balance').getAttribute('class')).toContain('provisional');
    await shot('06-scanning');
    await expect.poll(() => text('balance'), { timeout: 60_000 }).toBe('4.50 LTC (regtest)');
    await expect.poll(() => page.getByTestId('scan-notice').count()).toBe(0);
    expect(await page.getByTestId('balance').getAttribute('class')).not.toContain('provisional');
    await shot('07-scanned');
  }, 120_000);
});

describe('the small words', () => {
  it('names purposes in History, disables the Coldcard export for keys in given order, and adds the books unit', async () => {
    await page.goto(`${desk.web.url}/#/wallets/${opsId}`);
    const rentTx = desk.store.payment(ids.rent)!.txid!;
    await expect.poll(() => page.getByTestId(`tx-label-${rentTx}`).textContent()).toBe('March rent');
    // P2SH in the co-signers' order: a Coldcard (always BIP67) would show other addresses.
    expect(await page.getByTestId('export-setup-coldcard').isDisabled()).toBe(true);
    expect(await text('export-setup-coldcard-hint')).toBe(
      "Not for this wallet: a Coldcard always sorts the keys (BIP67), and this wallet keeps them in the co-signers' order, so a Coldcard would show other addresses. Use the BSMS record or the descriptor.",
    );
    expect(await page.getByTestId('export-setup-bsms').isDisabled()).toBe(false);
    await shot('08-history-purposes');
    const csv = await session.browser.download(() => page.getByTestId('books-export').click(), 'books.csv');
    const [header, ...rows] = parseCsv(readFileSync(csv, 'utf8'));
    expect(header).toEqual(['date_utc', 'txid', 'amount', 'fee', 'balance_after', 'unit', 'label', 'usd_value']);
    expect(rows.map((r) => r[5])).toEqual(rows.map(() => 'LTC (regtest)'));
  }, 60_000);

  it('says "within 1 block" among the fee presets', async () => {
    await page.getByTestId('propose-link').click();
    await expect.poll(() => page.getByTestId('fee-choice').textContent()).toMatch(/Fast \(within 1 block\)/);
    expect(await page.getByTestId('fee-choice').textContent()).not.toMatch(/1 blocks/);
    await shot('09-fee-presets');
  }, 60_000);

  it('shows the co-signer the purpose and the USD value of what is signed', async () => {
    const p = await proposePayment(deps, opsId, { to: await desk.node.newAddress('legacy'), amount: COIN / 4n, minersFee: 10_000n, purpose: 'Audit fee, Q1' });
    const file = join(session.browser.work, 'request.json');
    writeFileSync(file, await writeSigningRequest(deps, p.id));
    await page.getByRole('link', { name: 'Co-signer mode' }).click();
    await page.getByTestId('request-file').setInputFiles(file);
    await page.getByTestId('request-outputs').or(page.getByRole('alert')).first().waitFor();
    expect(await page.getByRole('alert').allTextContents()).toEqual([]);
    expect(await text('request-purpose')).toBe('“Audit fee, Q1” (as the treasurer wrote it; it is not part of what you sign)');
    // 0.25 LTC and a 0.0001 LTC fee at 80 USD.
    expect(await text('request-leaving')).toBe("0.2501 LTC (regtest), fee included: $20.01 at today's rate");
    // When it can be mined, before signing: an M-of-N payment carries no lock (issue 31).
    expect(await text('request-locks')).toBe('as soon as it is sent (no time lock)');
    await shot('10-cosigner-purpose');
  }, 60_000);
});
