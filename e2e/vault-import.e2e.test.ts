// A treasurer brings a vault another wallet made, in Chromium over litecoind -regtest: bitcoinjs-lib
// plays that wallet (it makes the three keys and the BSMS record of a 2-of-3 P2WSH vault with
// sorted keys, first address included). The treasurer imports the record, sees the address type
// and key order the record says, creates the wallet, sees its balance once funded, proposes a
// payment (vsize and fee rate on the review), one co-signer signs the exported PSBT in the other
// wallet, one signs a signature file in co-signer mode here; both are imported, the payment is
// submitted and confirmed. The mistakes: a taproot descriptor, and the same record twice.
// Screenshots: e2e/artifacts/vault-*.png.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import { Psbt, payments } from 'bitcoinjs-lib';
import type { Page } from 'playwright-core';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, chainParams } from '../shared/coins/index.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';
import { jsNetwork } from '../dev/desk-testing/keys.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const bip32 = BIP32Factory(ecc);
// The other wallet's view of the chain: litecoin regtest's prefixes (it never sees the node).
const network = jsNetwork(params);
const PATH = "m/48'/1'/0'/2'"; // BIP48 P2WSH account of a test network

/** The other wallet's three co-signers: masters from fixed seeds, an account key each. */
const signers = ['Ann', 'Ben', 'Cat'].map((name, i) => {
  const root = bip32.fromSeed(Buffer.alloc(32, i + 11), network);
  const account = root.derivePath(PATH);
  return { name, root, fingerprint: Buffer.from(root.fingerprint).toString('hex'), xpub: account.neutered().toBase58() };
});
const ann = signers[0]!;
const ben = signers[1]!;

/** The vault's first receive address as the other wallet computes it: sorted keys at 0/0, P2WSH. */
function firstAddress(): string {
  const keys = signers.map((s) => bip32.fromBase58(s.xpub, network).derive(0).derive(0).publicKey).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return payments.p2wsh({ redeem: payments.p2ms({ m: 2, pubkeys: keys, network }), network }).address!;
}
/** The BSMS descriptor record (BIP129) the other wallet writes for the vault. */
const bsmsRecord = (first: string) =>
  ['BSMS 1.0', `wsh(sortedmulti(2,${signers.map((s) => `[${s.fingerprint}${PATH.slice(1)}]${s.xpub}/**`).join(',')}))`, '/0/*,/1/*', first].join('\n');

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
let work: string;
const shot = (name: string) => session.browser.shot(name);
const download = (click: () => Promise<void>, name: string) => session.browser.download(click, name);
const master = (root: BIP32Interface) => bip32.fromBase58(root.toBase58(), network);

beforeAll(async () => {
  session = await openDeskInBrowser();
  ({ desk, page } = session);
  work = session.browser.work;
}, 300_000);
afterAll(() => session?.close());

describe('a P2WSH vault another wallet made, in Chromium', () => {
  const first = firstAddress();
  const record = () => {
    const path = join(work, 'vault.bsms');
    writeFileSync(path, `${bsmsRecord(first)}\n`);
    return path;
  };

  it('imports its BSMS record, pays with a PSBT signed there and a signature file signed here, and sees it confirmed', async () => {
    expect(first).toMatch(/^rltc1q/);
    await page.goto(desk.web.openUrl);
    await expect.poll(() => page.getByTestId('service-status').textContent()).toMatch(/connected/);

    await page.getByRole('link', { name: 'New wallet' }).click();
    await page.getByTestId('wallet-name').fill('Vault');
    // The form starts at another choice, so taking the record's values is visible.
    await page.getByTestId('wallet-script-type').selectOption('p2sh');
    await page.getByTestId('wallet-key-order').selectOption('given');
    await page.getByTestId('import-setup').setInputFiles(record());
    await expect.poll(() => page.getByTestId('setup-notes').textContent()).toMatch(/vault\.bsms: BSMS descriptor record, 2 of 3, P2WSH, keys sorted \(BIP67\)/);
    expect(await page.getByTestId('setup-notes').textContent()).toContain(`first address ${first} matches the record`);
    expect(await page.getByTestId('wallet-script-type').inputValue()).toBe('p2wsh');
    expect(await page.getByTestId('wallet-script-type').locator('option:checked').textContent()).toBe('Native segwit (P2WSH)');
    expect(await page.getByTestId('wallet-key-order').locator('option:checked').textContent()).toBe('Sorted (BIP67)');
    expect(await page.getByTestId('cosigner-xpub-1').inputValue()).toBe(ben.xpub);
    expect(await page.getByTestId('cosigner-path-0').inputValue()).toBe(PATH);
    await shot('vault-01-import');

    await page.getByTestId('create-wallet').click();
    await expect.poll(() => page.getByTestId('wallet-script').textContent()).toBe('native segwit (P2WSH), keys sorted (BIP67)');
    // The desk's first address is the one the other wallet wrote in its record.
    expect((await page.getByTestId('receive-address').textContent())!.trim()).toBe(first);
    await desk.node.fundScript(addressToScript(params, first), 2n * COIN);
    await desk.node.mine(1);
    await desk.synced();
    await expect.poll(() => page.getByTestId('balance').textContent(), { timeout: 30_000 }).toBe('2.00 LTC (regtest)');
    await shot('vault-02-new-wallet');

    await page.getByTestId('propose-link').click();
    await page.getByTestId('pay-to').fill(await desk.node.newAddress('bech32'));
    await page.getByTestId('pay-amount').fill('0.5');
    await page.getByTestId('fee-mode-fixed').check(); // a fixed fee rather than the default rate preset
    await page.getByTestId('pay-fee').fill('0.0002');
    await page.getByTestId('propose').click();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('awaiting_signatures');
    const paymentUrl = page.url();
    expect(await page.getByTestId('fee-rate').textContent()).toMatch(/^\d+ vbytes · \d+\.\d litoshi\/vB$/);
    await shot('vault-03-review');

    // Ann signs the PSBT in the other wallet, which finds her key through the PSBT's key origins.
    const exported = readFileSync(await download(() => page.getByTestId('export-psbt').click(), 'vault-payment.psbt'));
    const psbt = Psbt.fromBuffer(exported, { network });
    expect(psbt.data.inputs[0]!.witnessScript && psbt.data.inputs[0]!.witnessUtxo && psbt.data.inputs[0]!.nonWitnessUtxo).toBeTruthy();
    const annPsbt = join(work, 'ann-signed.psbt');
    writeFileSync(annPsbt, psbt.signAllInputsHD(master(ann.root)).toBuffer());

    // Ben signs a signature file here, in co-signer mode, with his master key.
    const request = await download(() => page.getByTestId('export-request').click(), 'vault-request.json');
    await page.getByRole('link', { name: 'Co-signer mode' }).click();
    await page.getByTestId('request-file').setInputFiles(request);
    await page.getByTestId('request-outputs').waitFor();
    expect(await page.getByTestId('request-outputs').textContent()).toContain('0.50 LTC (regtest)');
    await page.getByTestId('xprv').fill(ben.root.toBase58());
    const benSig = await download(() => page.getByTestId('sign').click(), 'signature-ben.json');

    await page.goto(paymentUrl);
    await page.getByTestId('import-files').setInputFiles([annPsbt, benSig]);
    // A BSMS record names no co-signers: the desk names them by position and fingerprint.
    await expect.poll(() => page.getByTestId('import-results').locator('li').allTextContents()).toEqual([
      `Imported ann-signed.psbt: 1 signature by Key 1 (${ann.fingerprint}) imported from the PSBT`,
      `Imported signature-ben.json: 1 signature by Key 2 (${ben.fingerprint}) imported`,
    ]);
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state')).toBe('ready');
    await page.getByTestId('submit').click();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state')).toBe('broadcast');
    const txid = (await page.getByTestId('txid').textContent())!.trim();
    await desk.synced();
    await desk.node.mine(1);
    await desk.synced();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('confirmed');
    expect(await page.getByTestId('payment-state').textContent()).toMatch(/confirmed/i);
    await shot('vault-04-confirmed');
    const onChain = await desk.node.rpc.call<{ confirmations: number; vin: { txinwitness?: string[] }[] }>('getrawtransaction', [txid, true]);
    expect(onChain.confirmations).toBe(1);
    expect(onChain.vin[0]!.txinwitness).toHaveLength(4);
  }, 300_000);

  it('refuses a taproot descriptor naming it, and the same record twice as the existing wallet', async () => {
    await page.getByRole('link', { name: 'Wallets' }).click();
    await page.getByRole('link', { name: 'New wallet' }).click();
    const taproot = join(work, 'taproot.txt');
    writeFileSync(taproot, `tr([${ann.fingerprint}/86'/1'/0']${ann.xpub}/<0;1>/*)\n`);
    await page.getByTestId('import-setup').setInputFiles(taproot);
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/taproot\.txt: unsupported descriptor: tr\(\.\.\.\) is taproot, which this desk does not spend/);
    await shot('vault-05-taproot-refused');

    await page.getByTestId('import-setup').setInputFiles(record());
    await expect.poll(() => page.getByTestId('wallet-refusal').textContent()).toMatch(/already make the wallet "Vault"/);
    expect(await page.getByTestId('existing-wallet-link').textContent()).toBe('Open the existing wallet');
    await shot('vault-06-same-record-refused');
  }, 60_000);
});
