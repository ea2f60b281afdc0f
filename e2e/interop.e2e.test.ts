// Files other wallets read, in a browser: Debian's Chromium drives the renderer in web mode over a
// real litecoind -regtest. The treasurer creates a wallet by importing a descriptor file, exports
// its BSMS record, proposes a payment and exports it as a PSBT; two co-signers sign that PSBT with
// an independent signer (bitcoinjs-lib, as Sparrow or a Coldcard would); the treasurer imports
// both binary .psbt files, submits, and sees the payment confirmed. Screenshots go to e2e/artifacts/.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIP32Factory } from 'bip32';
import { Psbt } from 'bitcoinjs-lib';
import type { Page } from 'playwright-core';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainParams } from '../shared/coins/index.ts';
import { formatMultisigDescriptor } from '../shared/files/descriptor.ts';
import { jsNetwork, testCosigner } from '../dev/desk-testing/keys.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { fundShownWallet, openDeskInBrowser, proposeOnScreen, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
const bip32 = BIP32Factory(ecc);
const network = jsNetwork(params);

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
let work: string;
const shot = (name: string) => session.browser.shot(name);
const download = (click: () => Promise<void>, name: string) => session.browser.download(click, name);

beforeAll(async () => {
  session = await openDeskInBrowser();
  ({ desk, page } = session);
  work = session.browser.work;
}, 300_000);
afterAll(() => session?.close());

describe('PSBT co-signers and set-up files, in Chromium', () => {
  it('imports a descriptor, exports BSMS and a PSBT, takes back two signed PSBTs and confirms', async () => {
    await page.goto(desk.web.openUrl);
    await expect.poll(() => page.getByTestId('service-status').textContent()).toMatch(/connected/);

    // The wallet comes from a descriptor file another wallet wrote.
    const descriptor = join(work, 'treasury-descriptor.txt');
    writeFileSync(descriptor, `${formatMultisigDescriptor(2, [alice, bob, carol], '/<0;1>/*')}\n`);
    await page.getByRole('link', { name: 'New wallet' }).click();
    await page.getByTestId('wallet-name').fill('PSBT treasury');
    await page.getByTestId('import-setup').setInputFiles(descriptor);
    await expect.poll(() => page.getByTestId('setup-notes').textContent()).toMatch(/output descriptor, 2 of 3/);
    expect(await page.getByTestId('cosigner-xpub-2').inputValue()).toBe(carol.xpub);
    expect(await page.getByTestId('cosigner-path-0').inputValue()).toBe(alice.derivationPath);
    await shot('interop-01-import-setup');
    await page.getByTestId('create-wallet').click();
    await fundShownWallet(page, desk, 2n * COIN, '2.00 LTC (regtest)');
    const bsms = await download(() => page.getByTestId('export-setup-bsms').click(), 'treasury.bsms');
    expect(readFileSync(bsms, 'utf8')).toMatch(/^BSMS 1\.0\nsh\(multi\(2,\[/);
    expect(await page.getByTestId('export-setup-caravan').count()).toBe(0); // Caravan is Bitcoin-only
    await shot('interop-02-wallet-exports');

    // Propose, then hand the co-signers a PSBT.
    await proposeOnScreen(page, desk, { amount: '0.5', fee: '0.0002' }); // a fixed fee rather than the default rate preset
    const exported = readFileSync(await download(() => page.getByTestId('export-psbt').click(), 'payment.psbt'));
    expect([...exported.subarray(0, 5)]).toEqual([0x70, 0x73, 0x62, 0x74, 0xff]); // a binary PSBT file
    await shot('interop-03-payment-psbt');

    // Each co-signer signs in their own wallet (bitcoinjs-lib, from the master key and the PSBT's key origins).
    const signed = [alice, carol].map((c) => {
      const psbt = Psbt.fromBuffer(exported, { network }).signAllInputsHD(bip32.fromBase58(c.masterXprv, network));
      const path = join(work, `${c.name}-signed.psbt`);
      writeFileSync(path, psbt.toBuffer());
      return path;
    });
    await page.getByTestId('import-files').setInputFiles(signed);
    await expect.poll(() => page.getByTestId('import-results').locator('li').allTextContents()).toEqual([
      expect.stringMatching(/^Imported alice-signed.psbt: 1 signature by Key 1 \([0-9a-f]{8}\) imported from the PSBT/),
      expect.stringMatching(/^Imported carol-signed.psbt: 1 signature by Key 3 \([0-9a-f]{8}\) imported from the PSBT/),
    ]);
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state')).toBe('ready');
    await shot('interop-04-psbts-imported');
    await page.getByTestId('submit').click();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state')).toBe('broadcast');
    const txid = (await page.getByTestId('txid').textContent())!.trim();
    await desk.synced();
    await desk.node.mine(1);
    await desk.synced();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('confirmed');
    await shot('interop-05-confirmed');
    expect((await desk.node.rpc.call<{ confirmations: number }>('getrawtransaction', [txid, true])).confirmations).toBe(1);
  }, 300_000);

  it('refuses a malformed set-up file on the new-wallet screen, saying why', async () => {
    // (A sortedmulti descriptor, refused here before wallets carried their key order, is a wallet now:
    // the refusal shown is of a descriptor whose checksum does not match it.)
    const bad = join(work, 'altered.txt');
    writeFileSync(bad, formatMultisigDescriptor(2, [alice, bob], '/<0;1>/*').replace('sh(multi(2,', 'sh(multi(1,'));
    await page.getByRole('link', { name: 'Wallets' }).click();
    await page.getByRole('link', { name: 'New wallet' }).click();
    await page.getByTestId('import-setup').setInputFiles(bad);
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/altered\.txt: .*checksum "[a-z0-9]{8}" does not match the descriptor: it was altered or mistyped/);
    await shot('interop-06-setup-refused');
  }, 60_000);
});
