// Developer text that used to reach the screen, now words a treasurer acts on, in Chromium (web
// mode, real litecoind -regtest): a Ledger asked for on a desk installed without the USB module; a
// descriptor whose checksum was mistyped; a BSMS set-up file, a signing request, a picture, a
// cut-short file, another wallet's PSBT and stray JSON dropped on a payment's signature import. And no page asks for anything that is
// not there (the favicon). Screenshots go to e2e/artifacts/words-*.png.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as bitcoin from 'bitcoinjs-lib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descriptorChecksum } from '../shared/files/descriptor-checksum.ts';
import { formatMultisigDescriptor } from '../shared/files/descriptor.ts';
import { usbConnector } from '../main/core/ledger/transport.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { fundShownWallet, openDeskInBrowser, proposeOnScreen, type DeskInBrowser } from './browser.ts';

const ROOT = join(import.meta.dirname, '..');
const COIN = 100_000_000n;
const cosigners = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
// Words only: none of what Node, a parser or a stack says.
const DEVELOPER_TEXT = /Cannot find|imported from|node_modules|\.ts\b|Unexpected token|JSON\.parse|at position|SyntaxError|\bat \S+ \(/;

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
/** Every answer of 400 or more the page got ("status url"), and every error in its console. */
const failures: string[] = [];
const shot = (name: string) => session.browser.shot(`words-${name}`);

beforeAll(async () => {
  // A desk installed without the USB module: the connector loads a package that is not installed,
  // so Node's own error (with this file's path in it) is what the desk gets.
  const missing = usbConnector(() => import(/* @vite-ignore */ ['@ledgerhq', 'hw-transport-node-hid-not-installed'].join('/')));
  session = await openDeskInBrowser({ ledger: missing });
  ({ desk, page } = session);
  page.on('response', (r) => {
    if (r.status() >= 400) failures.push(`${r.status()} ${r.url()}`);
  });
  // The browser fetches the favicon itself, out of the page's sight: a 404 shows only in the console.
  page.on('console', (m) => {
    if (m.type() === 'error') failures.push(`console: ${m.text()}`);
  });
}, 300_000);
afterAll(() => session?.close());

/** A PSBT of some other wallet: it spends a coin no payment of this desk spends. */
function otherWalletPsbt(): string {
  const prev = new bitcoin.Transaction();
  prev.addInput(new Uint8Array(32).fill(1), 0);
  prev.addOutput(bitcoin.payments.p2pkh({ hash: new Uint8Array(20).fill(2) }).output!, 100_000n);
  const psbt = new bitcoin.Psbt({ network: bitcoin.networks.regtest });
  psbt.addInput({ hash: prev.getId(), index: 0, nonWitnessUtxo: prev.toBuffer() });
  psbt.addOutput({ script: bitcoin.payments.p2pkh({ hash: new Uint8Array(20).fill(3) }).output!, value: 90_000n });
  return psbt.toBase64();
}

async function newWallet(): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Wallets', exact: true }).click();
  await page.getByRole('link', { name: 'New wallet' }).click();
  await page.getByTestId('cosigner-ledger-0').waitFor();
}

/** Drops files on a drop zone as a file manager does (a DataTransfer), binary ones as bytes. */
async function drop(zone: string, files: { name: string; text?: string; bytes?: number[] }[]): Promise<void> {
  const transfer = await page.evaluateHandle((fs) => {
    // Runs in the page; this file is type-checked without the DOM library.
    const { DataTransfer } = globalThis as unknown as { DataTransfer: new () => { items: { add(file: File): void } } };
    const t = new DataTransfer();
    for (const f of fs) t.items.add(new File([f.bytes ? new Uint8Array(f.bytes) : (f.text ?? '')], f.name));
    return t;
  }, files);
  await page.getByTestId(zone).dispatchEvent('dragover', { dataTransfer: transfer });
  await page.getByTestId(zone).dispatchEvent('drop', { dataTransfer: transfer });
}

describe('words, not developer text, in Chromium', () => {
  it('the page links its icon, and the icon is served', async () => {
    await page.goto(desk.web.openUrl);
    await expect.poll(() => page.getByTestId('service-status').textContent(), { timeout: 30_000 }).toMatch(/connected/);
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(href).toMatch(/\.svg$/);
    const icon = await page.request.get(new URL(href!, page.url()).href);
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toBe('image/svg+xml');
  }, 60_000);

  it('a Ledger on a desk installed without USB support: what is missing and what to do, no path', async () => {
    await newWallet();
    await page.getByTestId('cosigner-ledger-0').click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent(), { timeout: 30_000 }).toMatch(/This desk was installed without Ledger USB support, so it cannot reach a Ledger\./);
    const words = (await alert.textContent())!;
    expect(words).toMatch(/install the desk again from a package built with Ledger support/);
    expect(words).toMatch(/sign with files/);
    expect(words).not.toMatch(DEVELOPER_TEXT);
    expect(words).not.toContain('not-installed');
    await shot('01-ledger-without-usb');
  }, 60_000);

  it('a descriptor with a mistyped character: its checksum is called wrong, and the right one is not handed over', async () => {
    const good = formatMultisigDescriptor(2, cosigners, '/<0;1>/*');
    // One character of Bob's xpub mistyped, the checksum left as the wallet wrote it.
    const at = good.indexOf(cosigners[1]!.xpub) + 20;
    const typo = `${good.slice(0, at)}${good[at] === 'a' ? 'b' : 'a'}${good.slice(at + 1)}`;
    const body = typo.slice(0, typo.indexOf('#'));
    await newWallet();
    await drop('import-setup-zone', [{ name: 'treasury.txt', text: `${typo}\n` }]);
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent(), { timeout: 30_000 }).toMatch(/treasury\.txt: .*checksum "[a-z0-9]{8}" does not match the descriptor: it was altered or mistyped/);
    const words = (await alert.textContent())!;
    expect(words).toMatch(/copy the descriptor again from that wallet, do not correct the checksum by hand/);
    // What the old message gave away: the checksum that would make the altered descriptor pass.
    expect(words).not.toContain(descriptorChecksum(body));
    await shot('02-descriptor-checksum');
  }, 60_000);

  it('files dropped on the signature import that are no signature file are named, with where they go', async () => {
    await newWallet();
    await page.getByTestId('wallet-name').fill('Words treasury');
    for (const [i, c] of cosigners.entries()) {
      await page.getByTestId(`cosigner-name-${i}`).fill(c.name);
      await page.getByTestId(`cosigner-xpub-${i}`).fill(c.xpub);
      await page.getByTestId(`cosigner-path-${i}`).fill(c.derivationPath);
    }
    await page.getByTestId('create-wallet').click();
    await fundShownWallet(page, desk, 2n * COIN, '2.00 LTC (regtest)');
    await proposeOnScreen(page, desk, { amount: '0.5' });

    const bsms = readFileSync(join(ROOT, 'shared/files/fixtures/bsms-p2wsh-2of3.bsms'), 'utf8');
    const request = JSON.stringify({ format: 'countersign-signing-request', version: 1, request_id: 'x' });
    const picture = [...readFileSync(join(ROOT, 'build/icon.png'))];
    await drop('import-files-zone', [
      { name: 'wallet.bsms', text: bsms },
      { name: 'request.json', text: request },
      { name: 'icon.png', bytes: picture },
      { name: 'cut.json', text: '{"format": "countersign-signature", "signatures": [' },
      { name: 'empty.json', text: '' },
      { name: 'other-wallet.psbt', text: otherWalletPsbt() },
      { name: 'notes.json', text: '{"hello": "world"}' },
    ]);
    const rows = page.getByTestId('import-results').locator('li');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(7);
    const words = await rows.allTextContents();
    expect(words).toEqual([
      'Refused (malformed) wallet.bsms: not a signature file: it is a BSMS wallet set-up file (descriptor record); import it under Wallets → New wallet → "Import set-up file"',
      'Refused (malformed) request.json: not a signature file: it is a Countersign signing request; send it to a co-signer, who signs it (in Co-signer mode) and sends back the signature file to import here',
      'Refused (malformed) icon.png: not a signature file: it is a binary file (not text); a signature file is JSON text, a PSBT is base64 text or a binary PSBT; this is neither',
      'Refused (malformed) cut.json: not a signature file: it is a file that is not valid JSON (cut short, or edited by hand); ask for the file again',
      'Refused (malformed) empty.json: not a signature file: it is an empty file; choose the file again: this one holds nothing',
      'Refused (unknown_request) other-wallet.psbt: its transaction is no payment of this desk (it spends none of the coins of a proposed payment)',
      'Refused (malformed) notes.json: not a signature file: it has no "format" field saying it is one',
    ]);
    for (const w of words) expect(w).not.toMatch(DEVELOPER_TEXT);
    expect(await page.getByTestId('payment-state').getAttribute('data-state')).toBe('awaiting_signatures');
    await shot('03-signature-import-refusals');
  }, 180_000);

  it('nothing any page asked for was missing (no favicon 404) while going through every screen', async () => {
    await page.goto(desk.web.openUrl);
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const name of ['Wallets', 'Payments', 'Co-signer mode', 'Audit log', 'Settings']) {
      await nav.getByRole('link', { name, exact: true }).click();
      await page.waitForLoadState('networkidle');
    }
    await page.reload();
    await page.waitForLoadState('networkidle');
    expect(failures).toEqual([]);
    await shot('04-no-missing-files');
  }, 60_000);
});
