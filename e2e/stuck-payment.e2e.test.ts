// A stuck payment on the payment detail screen, in Chromium over litecoind -regtest started with
// -mempoolreplacement=1: a payment sent at 1 unit/vbyte offers a fee bump; a bump that pays no more
// is refused in the service's words; a bump at 20 opens the replacement, which says what it
// replaces; once it is sent the original says "replaced by", and once a block confirms it, "dropped".
// Signing happens in core (the desk's co-signer files), as in the regtest proofs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { addressToScript, chainParams } from '../shared/coins/index.ts';
import { importSignatureFiles } from '../main/core/signature-import.ts';
import { writeSigningRequest } from '../main/core/signing-request.ts';
import { signRequest } from '../main/core/software-signer.ts';
import { submitPayment } from '../main/core/submit-payment.ts';
import { testCosigner } from '../main/core/testing/keys.ts';
import { proposeTreasurySpend } from '../main/core/treasury-spend.ts';
import { createWallet, nextReceiveAddress, type CoreDeps } from '../main/core/wallets.ts';
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

async function signAndSend(id: string): Promise<void> {
  const request = await writeSigningRequest(deps, id);
  importSignatureFiles(deps, [alice, bob].map((c, i) => ({ name: `s${i}.json`, text: signRequest(request, { xprv: c.accountXprv }).file })));
  await submitPayment(deps, id);
  await desk.synced();
}

beforeAll(async () => {
  session = await openDeskInBrowser({ nodeArgs: ['-mempoolreplacement=1'] }, 'stuck-');
  ({ desk, page } = session);
  await desk.synced();
  deps = { store: desk.store, api: desk.api, actor: 'treasurer' };
}, 300_000);
afterAll(() => session?.close());

describe('a stuck payment on its detail screen', () => {
  it('offers a bump, refuses one that pays no more, and shows the original replaced, then dropped', async () => {
    const w = await createWallet(deps, { coin: 'litecoin', network: 'regtest', name: 'Stuck treasury', m: 2, cosigners: [alice, bob, carol] });
    const a = await nextReceiveAddress(deps, w.id);
    const txid = await desk.node.fundScript(addressToScript(params, a.address), 2n * COIN);
    await desk.node.mine(1);
    await desk.synced();
    const { utxos } = await desk.api.utxos('litecoin', [a.address]);
    const coin = utxos.find((u) => u.txid === txid)!;
    const original = await proposeTreasurySpend(deps, w.id, { to: await desk.node.newAddress('legacy'), amount: COIN / 2n, inputs: [coin], fee: { rate: 1n }, replaceable: true, kind: 'payment' });
    await signAndSend(original.id);

    await page.goto(desk.web.openUrl);
    await expect.poll(() => page.getByTestId('service-status').textContent()).toMatch(/connected/);
    await page.goto(`${desk.web.url}/#/payments/${original.id}`);
    await page.getByText('Stuck? Pull it through').waitFor();
    // The presets come from GET /fee_estimates (the regtest node has none: the fallback).
    await page.getByRole('group', { name: 'Fee rate presets' }).getByRole('button').first().waitFor();
    await shot('01-stuck');

    await page.getByTestId('stuck-rate').fill('1');
    await page.getByTestId('bump').click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/refusing the fee bump: .*this one pays \d+ at 1\.\d\d units\/vbyte.*the fee is not higher/);
    await shot('02-bump-refused');

    await page.getByTestId('stuck-rate').fill('20');
    await page.getByTestId('bump').click();
    await expect.poll(() => page.url()).not.toContain(original.id);
    const bumpId = decodeURIComponent(new URL(page.url()).hash.split('/').pop()!);
    await expect.poll(() => page.getByTestId('replacement-links').textContent()).toMatch(/This is a fee bump\..*Replaces payment/);
    expect(await page.getByTestId('payment-state').getAttribute('data-state')).toBe('awaiting_signatures');
    await shot('03-bump-proposed');

    await signAndSend(bumpId);
    await page.goto(`${desk.web.url}/#/payments/${original.id}`);
    await expect.poll(() => page.getByTestId('replaced-by').textContent()).toMatch(/Replaced by payment/);
    await shot('04-original-replaced');

    await desk.node.mine(1);
    await desk.synced();
    await page.reload();
    await expect.poll(() => page.getByTestId('dropped').textContent(), { timeout: 30_000 }).toMatch(/Dropped: payment .* spent the same coins and confirmed/);
    expect(await page.getByTestId('payment-state').getAttribute('data-state')).toBe('failed');
    await shot('05-original-dropped');
  });

  it('offers an unconfirmed deposit a child that pays for it, and states the package rate', async () => {
    const w = desk.store.wallets().find((x) => x.name === 'Stuck treasury')!;
    const a = await nextReceiveAddress(deps, w.id);
    await desk.node.fundScript(addressToScript(params, a.address), COIN);
    await desk.synced();
    await page.goto(`${desk.web.url}/#/wallets/${w.id}`);
    await page.getByText('Unconfirmed deposits').waitFor({ timeout: 30_000 });
    await page.getByTestId('deposit-rate').fill('50');
    await page.getByTestId('deposit-cpfp').click();
    await expect.poll(() => page.getByTestId('stuck-deposit').textContent()).toMatch(/Child proposed: fee .* the pair pays \d+\.\d\d litoshi\/vB/);
    await shot('06-deposit-cpfp');
    expect(desk.store.payments(w.id).some((p) => p.kind === 'cpfp' && p.state === 'awaiting_signatures')).toBe(true);
  });
});
