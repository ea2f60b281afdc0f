// Issue 5's proof in a browser: Debian's Chromium drives the renderer in web mode over a real
// litecoind -regtest. A treasurer makes a 2-of-3 wallet from three xpubs, sees funds arrive,
// proposes a payment, exports the request; two co-signers sign it in co-signer mode; the treasurer
// imports both files at once, submits, and sees the payment confirmed. Screenshots of every screen
// go to e2e/artifacts/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UTXO_COIN_NAMES, addressToScript, chainParams } from '../shared/coins/index.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
/** The payment the first test makes, for the session test to open in other tabs. */
let paymentUrl = '';
const shot = (name: string) => session.browser.shot(name);
const download = (click: () => Promise<void>, name: string) => session.browser.download(click, name);

beforeAll(async () => {
  session = await openDeskInBrowser();
  ({ desk, page } = session);
}, 300_000);
afterAll(() => session?.close());

describe('the treasurer and two co-signers, in Chromium', () => {
  it('creates a 2-of-3 wallet, funds it, pays, collects two signatures, submits and confirms', async () => {
    await page.goto(desk.web.openUrl);
    await expect.poll(() => page.getByTestId('service-status').textContent()).toMatch(/connected/);
    await page.getByText('No wallets yet').waitFor();
    expect(page.url()).not.toContain('token='); // the token leaves the address bar at once
    await shot('01-wallets-empty');

    // Create the wallet from three co-signers' xpubs.
    await page.getByRole('link', { name: 'New wallet' }).click();
    await page.getByTestId('wallet-name').fill('Operating treasury');
    // The coins offered come from the coin table over the bridge (coins.list): every UTXO coin.
    await expect.poll(() => page.getByTestId('wallet-coin').locator('option').allTextContents()).toEqual([...UTXO_COIN_NAMES]);
    expect(await page.getByTestId('wallet-coin').inputValue()).toBe('litecoin');
    // Litecoin has a Ledger app: each co-signer's key can be read from one.
    await page.getByTestId('cosigner-ledger-0').waitFor();
    for (const [i, c] of [alice, bob, carol].entries()) {
      await page.getByTestId(`cosigner-name-${i}`).fill(c.name);
      await page.getByTestId(`cosigner-xpub-${i}`).fill(c.xpub);
      await page.getByTestId(`cosigner-path-${i}`).fill(c.derivationPath);
    }
    // Litecoin has segwit: native segwit with BIP67-sorted keys is the default; this treasury picks nested segwit.
    expect(await page.getByTestId('wallet-script-type').inputValue()).toBe('p2wsh');
    expect(await page.getByTestId('wallet-key-order').inputValue()).toBe('sorted');
    await page.getByTestId('wallet-script-type').selectOption('p2sh-p2wsh');
    await shot('02-new-wallet');
    await page.getByTestId('create-wallet').click();
    const address = (await page.getByTestId('receive-address').textContent())!.trim();
    expect(address).toMatch(/^Q/);
    await shot('03-wallet-new');

    // Funds arrive: one confirmed deposit, then one still in the mempool.
    await desk.node.fundScript(addressToScript(params, address), 3n * COIN);
    await desk.node.mine(1);
    await desk.synced();
    await expect.poll(() => page.getByTestId('balance').textContent(), { timeout: 30_000 }).toBe('3.00 LTC (regtest)');
    await expect.poll(() => page.getByTestId('history').locator('tbody tr').count()).toBe(1);
    await shot('04-wallet-funded');

    // Propose a payment.
    const to = await desk.node.newAddress('legacy');
    await page.getByTestId('propose-link').click();
    await page.getByTestId('pay-to').fill(to);
    await page.getByTestId('pay-amount').fill('1.25');
    await page.getByTestId('fee-mode-fixed').check(); // a fixed fee rather than the default rate preset
    await page.getByTestId('pay-fee').fill('0.0002');
    await shot('05-propose');
    await page.getByTestId('propose').click();
    // The first proposal derives and cross-checks the wallet's first 20 change addresses.
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('awaiting_signatures');
    paymentUrl = page.url();
    // The review shows the virtual size and the fee rate beside the fee.
    expect(await page.getByTestId('fee-rate').textContent()).toMatch(/^\d+ vbytes · \d+\.\d litoshi\/vB$/);
    await shot('06-payment-awaiting');
    const request = await download(() => page.getByTestId('export-request').click(), 'signing-request.json');
    expect(JSON.parse(readFileSync(request, 'utf8'))).toMatchObject({ format: 'countersign-signing-request', wallet: { m: 2 } });

    // Two co-signers sign in co-signer mode (Alice with her master key, Bob with his account key).
    await page.getByRole('link', { name: 'Co-signer mode' }).click();
    await page.getByTestId('request-file').setInputFiles(request);
    await page.getByTestId('request-outputs').waitFor();
    expect(await page.getByTestId('request-outputs').textContent()).toContain('1.25 LTC (regtest)');
    await shot('07-cosigner-open');
    await page.getByTestId('xprv').fill(alice.masterXprv);
    const aliceSig = await download(() => page.getByTestId('sign').click(), 'signature-alice.json');
    expect(await page.getByTestId('xprv').inputValue()).toBe(''); // the key is forgotten after use
    await shot('08-cosigner-signed');
    await page.getByTestId('xprv').fill(bob.accountXprv);
    const bobSig = await download(() => page.getByTestId('sign').click(), 'signature-bob.json');

    // Files dropped on the import zone: a tampered copy of Bob's and a file that is no signature
    // file are refused, each saying why, and nothing is collected.
    await page.goto(paymentUrl);
    const tampered = JSON.parse(readFileSync(bobSig, 'utf8')) as { payment_hash: string };
    tampered.payment_hash = `${tampered.payment_hash.slice(0, -1)}${tampered.payment_hash.endsWith('0') ? '1' : '0'}`;
    const dropped = await page.evaluateHandle(
      (files) => {
        // Runs in the page; this file is type-checked without the DOM library.
        const { DataTransfer } = globalThis as unknown as { DataTransfer: new () => { items: { add(file: File): void } } };
        const transfer = new DataTransfer();
        for (const f of files) transfer.items.add(new File([f.text], f.name, { type: 'application/json' }));
        return transfer;
      },
      [
        { name: 'bob-tampered.json', text: JSON.stringify(tampered) },
        { name: 'notes.json', text: '{"hello": "world"}' },
      ],
    );
    await page.getByTestId('import-files-zone').dispatchEvent('dragover', { dataTransfer: dropped });
    await page.getByTestId('import-files-zone').dispatchEvent('drop', { dataTransfer: dropped });
    await expect.poll(() => page.getByTestId('import-results').locator('li').allTextContents()).toEqual([
      expect.stringMatching(/^Refused \(tampered\) bob-tampered.json: its payment hash [0-9a-f]{64} is not the hash of payment/),
      expect.stringMatching(/^Refused \(malformed\) notes.json: not a signature file: it has no "format" field saying it is one$/),
    ]);
    expect(await page.getByTestId('payment-state').getAttribute('data-state')).toBe('awaiting_signatures');
    await shot('09a-import-refused');

    // The treasurer imports both real files at once, then submits.
    await page.getByTestId('import-files').setInputFiles([aliceSig, bobSig]);
    await expect.poll(() => page.getByTestId('import-results').locator('li').allTextContents()).toEqual([
      expect.stringMatching(/^Imported .*signature-alice.json: 1 signature by alice imported/),
      expect.stringMatching(/^Imported .*signature-bob.json: 1 signature by bob imported/),
    ]);
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state')).toBe('ready');
    await shot('09-payment-ready');
    await page.getByTestId('submit').click();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state')).toBe('broadcast');
    const txid = (await page.getByTestId('txid').textContent())!.trim();
    await shot('10-payment-broadcast');

    await desk.synced();
    await desk.node.mine(1);
    await desk.synced();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('confirmed');
    await shot('11-payment-confirmed');
    const onChain = await desk.node.rpc.call<{ confirmations: number }>('getrawtransaction', [txid, true]);
    expect(onChain.confirmations).toBe(1);

    await page.getByRole('link', { name: /Operating treasury/ }).click();
    await expect.poll(() => page.getByTestId('balance').textContent(), { timeout: 30_000 }).toBe('1.7498 LTC (regtest)');
    await shot('12-wallet-after');
    await page.getByRole('link', { name: 'Payments' }).click();
    await page.getByTestId('payment-row').first().waitFor();
    await shot('13-payments');
    await page.getByRole('link', { name: 'Wallets' }).click();
    await page.getByTestId('wallet-card').waitFor();
    await shot('14-wallets');
  }, 300_000);

  it('shows the embedded service in Settings and refuses a remote one that does not answer', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect.poll(() => page.getByTestId('service-mode').getAttribute('data-mode')).toBe('embedded');
    expect(await page.getByTestId('current-service').textContent()).toContain(desk.serviceUrl);
    await expect.poll(() => page.getByTestId('settings-status').textContent()).toMatch(/^connected; litecoin regtest at block \d+/);
    expect(await page.getByTestId('key-storage-current').textContent()).toMatch(/web mode keeps the API key in the memory.*gone when the desk stops/);
    await shot('15-settings');

    // A remote address that does not answer is refused, the key field is emptied, nothing changes.
    await page.getByTestId('mode-remote').check();
    await page.getByTestId('remote-url').fill('http://127.0.0.1:9');
    await page.getByTestId('remote-key').fill('cs_typed_once');
    await page.getByTestId('save-service').click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/did not answer.*the connection was not changed/);
    expect(await page.getByTestId('remote-key').inputValue()).toBe('');
    expect(await page.getByTestId('service-mode').getAttribute('data-mode')).toBe('embedded');
    await shot('16-settings-refused');
  }, 60_000);
});

describe('the web-mode session, in Chromium', () => {
  it('keeps the session in a new tab of the same browser, and refuses a browser that never opened the printed URL', async () => {
    expect(paymentUrl).toMatch(/#\/payments\//);
    const route = new URL(paymentUrl).hash;
    // The printed URL, opened once in a tab of its own, then the payment from there.
    const first = await session.browser.context.newPage();
    await first.goto(desk.web.openUrl);
    await expect.poll(() => first.getByTestId('service-status').textContent()).toMatch(/connected/);
    await first.goto(`${desk.web.url}/${route}`);
    await expect.poll(() => first.getByTestId('payment-state').getAttribute('data-state')).toBe('confirmed');

    // The payment's address pasted in a NEW tab: no fragment token, no sessionStorage of its own.
    const tab = await session.browser.context.newPage();
    await tab.goto(`${desk.web.url}/${route}`);
    await expect.poll(() => tab.getByTestId('payment-state').getAttribute('data-state')).toBe('confirmed');
    expect(await tab.evaluate(() => (globalThis as unknown as { sessionStorage: { length: number } }).sessionStorage.length)).toBe(0);
    expect(await tab.getByTestId('service-status').textContent()).toMatch(/connected/);
    expect(await tab.locator('body').textContent()).not.toContain('no access token');
    // The cookie is HttpOnly: the page itself cannot read it.
    expect(await tab.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe('');
    await tab.screenshot({ path: join(ARTIFACTS, '17-session-new-tab.png'), fullPage: true });
    await tab.close();
    await first.close();

    // A fresh browser (no cookie) with the bare URL is refused with the existing message.
    const other = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      const stranger = await (await other.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      await stranger.goto(`${desk.web.url}/${route}`);
      await expect.poll(() => stranger.getByRole('alert').textContent()).toMatch(/this page has no access token: open the URL the desk printed when it started/);
      expect(await stranger.getByTestId('service-status').textContent()).toMatch(/no access token/);
      expect(await stranger.getByTestId('payment-state').count()).toBe(0);
      await stranger.screenshot({ path: join(ARTIFACTS, '18-session-fresh-browser-refused.png'), fullPage: true });
    } finally {
      await other.close();
    }
  }, 120_000);
});
