// A stuck payment on the payment detail screen, in Chromium over litecoind -regtest started with
// -mempoolreplacement=1: a payment sent at 1 unit/vbyte offers a fee bump; a bump that pays no more
// is refused in the service's words; a bump at 20 opens the replacement, which says what it
// replaces; once it is sent the original says "replaced by", and once a block confirms it, "dropped".
// On a node that does not relay replacements (the default), payments still signal replacement (the
// service's word never changes what is signed), the desk says a stuck one is sped up by a child, and offers one. Signing happens in core (the desk's co-signer files), as in the regtest proofs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { addressToScript, chainParams } from '../shared/coins/index.ts';
import { importSignatureFiles } from '../main/core/payments/signature-import.ts';
import { writeSigningRequest } from '../main/core/payments/signing-request.ts';
import { signRequest } from '../main/core/software-signer.ts';
import { submitPayment } from '../main/core/payments/submit.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import { proposeTreasurySpend } from '../main/core/payments/spend.ts';
import { proposePayment } from '../main/core/payments/propose.ts';
import { proposeCpfp } from '../main/core/payments/cpfp.ts';
import { paymentOutpoints, proposeBump } from '../main/core/payments/replace.ts';
import { decodeTx } from '../shared/coins/index.ts';
import { join } from 'node:path';
import { openStore } from '../main/core/store/store.ts';
import { signAndSend as signSubmit } from '../dev/desk-testing/regtest.ts';
import { createWallet, nextReceiveAddress, type CoreDeps } from '../main/core/wallets/wallets.ts';
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

/** A wallet of `cosigners` funded with 2 LTC in a block, and its coin. */
async function fundedWallet(on: DevDesk, d: CoreDeps, name: string, cosigners = [alice, bob, carol]) {
  const w = await createWallet(d, { coin: 'litecoin', network: 'regtest', name, m: 2, cosigners });
  const a = await nextReceiveAddress(d, w.id);
  const txid = await on.node.fundScript(addressToScript(params, a.address), 2n * COIN);
  await on.node.mine(1);
  await on.synced();
  const coin = (await on.api.utxos('litecoin', [a.address])).utxos.find((u) => u.txid === txid)!;
  return { w, coin };
}

/** A payment of 0.5 LTC at 1 unit/vbyte, replaceable, from a new funded wallet: proposed, not signed. */
async function slowPayment(on: DevDesk, d: CoreDeps, name: string, cosigners = [alice, bob, carol]) {
  const { w, coin } = await fundedWallet(on, d, name, cosigners);
  const original = await proposeTreasurySpend(d, w.id, { to: await on.node.newAddress('legacy'), amount: COIN / 2n, inputs: [coin], fee: { rate: 1n }, replaceable: true, kind: 'payment' });
  return { w, original };
}

/** A slow payment sent from a new wallet of `cosigners`, and a child from its change at 5 units/vbyte, sent. */
async function stuckWithChild(name: string, cosigners: typeof alice[]) {
  const { w, original } = await slowPayment(desk, deps, name, cosigners);
  await signAndSend(original.id);
  const sent = desk.store.payment(original.id)!;
  const change = decodeTx(sent.unsignedTx, params).outputs.length - 1;
  const { payment: child } = await proposeCpfp(deps, w.id, { txid: sent.txid!, vout: change }, 5n);
  await signAndSend(child.id);
  return { w, original, child };
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
    const { original } = await slowPayment(desk, deps, 'Stuck treasury');
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
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/refusing the fee bump: .*this one pays 0\.\d+ LTC \(regtest\) at 1\.\d\d litoshi\/vB.*the fee is not higher/);
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

  it('shows a child dropped as soon as a bump of its parent is sent, before any block, linked to both', async () => {
    const { original, child } = await stuckWithChild('Child treasury', [bob, alice, carol]);
    // The bump pays more than the original and its child together (BIP125 rule 3): both leave the mempool.
    const bump = await proposeBump(deps, original.id, 60n);
    await signAndSend(bump.id);

    // No block mined: the child is dropped already.
    const words = new RegExp(`^Dropped: it spends the change of payment ${original.id.slice(0, 8)}\\S*, which payment ${bump.id.slice(0, 8)}\\S* replaced\\.$`);
    await page.goto(`${desk.web.url}/#/payments/${child.id}`);
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('failed');
    await expect.poll(() => page.getByTestId('dropped').textContent(), { timeout: 30_000 }).toMatch(words);
    await shot('07-child-dropped');
    await page.getByTestId('dropped').getByRole('link').nth(1).click();
    await expect.poll(() => page.url()).toContain(bump.id);

    // The block changes nothing on the child's page.
    await desk.node.mine(1);
    await desk.synced();
    await page.goto(`${desk.web.url}/#/payments/${child.id}`);
    await expect.poll(() => page.getByTestId('dropped').textContent(), { timeout: 30_000 }).toMatch(words);
    await page.getByTestId('dropped').getByRole('link').first().click();
    await expect.poll(() => page.url()).toContain(original.id);
  });

  it('shows a child dropped when another desk replaced its parent, naming that transaction', async () => {
    const { w, original, child } = await stuckWithChild('Elsewhere treasury', [carol, alice, bob]);
    const sentOriginal = desk.store.payment(original.id)!;
    // Another desk of the same wallet (a store of its own, knowing nothing of the child) spends the original's coin at 60.
    const other = openStore(join(desk.dir, 'other-desk.sqlite'));
    try {
      const otherDeps: CoreDeps = { store: other, api: desk.api, actor: 'treasurer' };
      const ow = await createWallet(otherDeps, { coin: 'litecoin', network: 'regtest', name: 'Elsewhere treasury', m: 2, cosigners: [carol, alice, bob] });
      await nextReceiveAddress(otherDeps, ow.id);
      const [coin] = paymentOutpoints(sentOriginal, w);
      const theirs = await proposeTreasurySpend(otherDeps, ow.id, { to: await desk.node.newAddress('legacy'), amount: COIN / 2n, inputs: [coin!], fee: { rate: 60n }, replaceable: true, kind: 'payment' });
      const replacement = (await signSubmit(otherDeps, theirs, [alice, bob])).payment;
      await desk.synced();

      await page.goto(`${desk.web.url}/#/payments/${child.id}`);
      await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('failed');
      await expect
        .poll(() => page.getByTestId('dropped').textContent(), { timeout: 30_000 })
        .toMatch(new RegExp(`^Dropped: it spends the change of payment ${original.id.slice(0, 8)}\\S*, which transaction ${replacement.txid}, sent from elsewhere, replaced\\.$`));
      await shot('08-child-dropped-elsewhere');
      await page.getByTestId('dropped').getByRole('link').first().click();
      await expect.poll(() => page.url()).toContain(original.id);
    } finally {
      other.close();
    }
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
    // Building the child reads the parent, its inputs and the wallet's addresses: a busy machine takes a while.
    await expect.poll(() => page.getByTestId('stuck-deposit').textContent(), { timeout: 30_000 }).toMatch(/Child proposed: its own fee is \d\.\d+ LTC \(regtest\) \(\$\d+\.\d\d\) for \d+ vbytes; .* the pair pays \d+\.\d\d litoshi\/vB/);
    await shot('06-deposit-cpfp');
    expect(desk.store.payments(w.id).some((p) => p.kind === 'cpfp' && p.state === 'awaiting_signatures')).toBe(true);
  });
});

// The service is told its node relays replacements, but litecoind runs without
// -mempoolreplacement=1 (an operator who got it wrong): the bump is signed, and the node refuses it.
describe('a bump the node refuses', () => {
  let refused: DeskInBrowser;
  let rdeps: CoreDeps;
  let rpage: Page;
  beforeAll(async () => {
    refused = await openDeskInBrowser({ nodeReplacements: true }, 'refused-');
    rpage = refused.page;
    await refused.desk.synced();
    rdeps = { store: refused.desk.store, api: refused.desk.api, actor: 'treasurer' };
  }, 300_000);
  afterAll(() => refused?.close());
  const sign = async (id: string) => {
    const request = await writeSigningRequest(rdeps, id);
    importSignatureFiles(rdeps, [alice, bob].map((c, i) => ({ name: `r${i}.json`, text: signRequest(request, { xprv: c.accountXprv }).file })));
  };

  it('links the refused bump and the original both ways, and offers the original a child from its change', async () => {
    const d = refused.desk;
    const { w, original } = await slowPayment(d, rdeps, 'Refused treasury');
    await sign(original.id);
    await submitPayment(rdeps, original.id);
    await d.synced();

    await rpage.goto(d.web.openUrl);
    await expect.poll(() => rpage.getByTestId('service-status').textContent(), { timeout: 30_000 }).toMatch(/connected/);
    await rpage.goto(`${d.web.url}/#/payments/${original.id}`);
    await rpage.getByTestId('stuck-rate').fill('20');
    await rpage.getByTestId('bump').click();
    await expect.poll(() => rpage.url(), { timeout: 30_000 }).not.toContain(original.id);
    const bumpId = decodeURIComponent(new URL(rpage.url()).hash.split('/').pop()!);
    await sign(bumpId);
    await rpage.reload();
    await expect.poll(() => rpage.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
    await rpage.getByTestId('submit').click();
    await expect.poll(() => rpage.getByRole('alert').first().textContent(), { timeout: 30_000 }).toMatch(/the network refused payment .* \(it stays ready to retry\): .*txn-mempool-conflict.*the node does not accept this replacement/);
    await rpage.reload();
    // The refused bump names the original and sends the treasurer there.
    await expect.poll(() => rpage.getByTestId('refused-replacement').textContent(), { timeout: 30_000 }).toMatch(
      /^The network refused this fee bump \(its reason is above\), so payment .*, which it was to replace, is still stuck: pull it through there by a child from its change\.$/,
    );
    await refused.browser.shot('01-bump-refused');
    await rpage.getByTestId('refused-replacement').getByRole('link').click();
    await expect.poll(() => rpage.url(), { timeout: 30_000 }).toContain(original.id);

    // The original lists the refused bump and offers a child from its change instead of another bump.
    await expect.poll(() => rpage.getByTestId('replacement-attempt').textContent(), { timeout: 30_000 }).toMatch(/^Fee bump proposed: payment .* \(refused by the network\)\.$/);
    const stuck = rpage.locator('.stuck-payment');
    await expect.poll(() => stuck.textContent(), { timeout: 30_000 }).toMatch(new RegExp(`The network refused payment ${bumpId}, a fee bump of it: pull it through by child-pays-for-parent on its change instead, or cancel payment ${bumpId} to try another\\. A child`));
    expect(await rpage.getByTestId('bump').count()).toBe(0);
    // What a hurried treasurer types: a rate with a unit, then zero; neither can be proposed.
    for (const typed of ['30 lit/vB', '0', '']) {
      await rpage.getByTestId('stuck-rate').fill(typed);
      expect(await rpage.getByTestId('cpfp').isDisabled()).toBe(true);
    }
    await rpage.getByTestId('stuck-rate').fill('30');
    await rpage.getByTestId('cpfp').click();
    await expect.poll(() => rpage.getByTestId('cpfp-review').textContent(), { timeout: 30_000 }).toMatch(/^Child proposed: its own fee is \d\.\d+ LTC \(regtest\) \((\$\d+\.\d\d|no USD rate from the service)\) for \d+ vbytes; with the parent's \d\.\d+ LTC \(regtest\) for \d+ vbytes the pair pays \d+\.\d\d litoshi\/vB\.$/);
    await refused.browser.shot('02-original-offers-cpfp');
    await rpage.getByTestId('replacement-attempt').getByRole('link').click();
    await expect.poll(() => rpage.url(), { timeout: 30_000 }).toContain(bumpId);
    expect(d.store.payments(w.id).filter((p) => p.kind === 'cpfp' && p.state === 'awaiting_signatures')).toHaveLength(1);
  });
});

// litecoind as Litecoin Core ships it (no -mempoolreplacement=1), and the service says so: payments
// asked replaceable signal it all the same (harmless), the desk says where the treasurer chooses that
// a stuck one is sped up by a child, and offers a child from its change, never a bump the co-signers would sign for nothing.
describe('a node that does not relay replacements (Litecoin Core\'s default)', () => {
  let plain: DeskInBrowser;
  let pdeps: CoreDeps;
  let ppage: Page;
  beforeAll(async () => {
    plain = await openDeskInBrowser({}, 'final-');
    ppage = plain.page;
    await plain.desk.synced();
    pdeps = { store: plain.desk.store, api: plain.desk.api, actor: 'treasurer' };
  }, 300_000);
  afterAll(() => plain?.close());

  it('says in Settings and at the fee choice that a stuck payment is sped up by a child, and offers one, no bump', async () => {
    const d = plain.desk;
    const { w } = await fundedWallet(d, pdeps, 'Final treasury');

    await ppage.goto(d.web.openUrl);
    await expect.poll(() => ppage.getByTestId('service-status').textContent(), { timeout: 30_000 }).toMatch(/connected/);
    await ppage.getByRole('link', { name: 'Settings', exact: true }).click();
    await expect.poll(() => ppage.locator('label', { has: ppage.getByTestId('replaceable-setting') }).textContent(), { timeout: 30_000 }).toMatch(
      /where the service's node relays replacements\. Where it does not \(Litecoin Core without -mempoolreplacement=1, and on Litecoin mainnet, where most nodes run without it\), a slow one is pulled through by a child spending its change; Bitcoin Cash, Dash and Zcash payments are final\.$/,
    );
    await ppage.goto(`${d.web.url}/#/wallets/${w.id}/pay`);
    await expect.poll(() => ppage.getByTestId('replaceable-note').textContent(), { timeout: 30_000 }).toBe(
      "Signals replacement (BIP125); the service's node for this coin, or most of its network, does not relay replacements, so a stuck payment is sped up by a child payment spending its change.",
    );
    await plain.browser.shot('01-fee-choice-final');

    // Asked for replaceable, it signals it (harmless here); this node would refuse a bump, so none is offered.
    const p = await proposePayment(pdeps, w.id, { to: await d.node.newAddress('legacy'), amount: COIN / 2n, minersFee: 0n, feeRate: 1n, replaceable: true });
    const request = await writeSigningRequest(pdeps, p.id);
    importSignatureFiles(pdeps, [alice, bob].map((c, i) => ({ name: `f${i}.json`, text: signRequest(request, { xprv: c.accountXprv }).file })));
    await submitPayment(pdeps, p.id);
    await d.synced();

    await ppage.goto(`${d.web.url}/#/payments/${p.id}`);
    const stuck = ppage.locator('.stuck-payment');
    await expect.poll(() => stuck.textContent(), { timeout: 30_000 }).toMatch(/The service's litecoin node does not relay replacements .*: pull it through by child-pays-for-parent on its change instead\. A child/);
    expect(await ppage.getByTestId('bump').count()).toBe(0);
    expect(await ppage.getByTestId('cancel-replace').count()).toBe(0);
    await ppage.getByTestId('stuck-rate').fill('20');
    await ppage.getByTestId('cpfp').click();
    await expect.poll(() => ppage.getByTestId('cpfp-review').textContent(), { timeout: 30_000 }).toMatch(/^Child proposed: its own fee is \d\.\d+ LTC \(regtest\) \((\$\d+\.\d\d|no USD rate from the service)\) for \d+ vbytes; .* the pair pays \d+\.\d\d litoshi\/vB\.$/);
    await plain.browser.shot('02-final-offers-cpfp');
    expect(d.store.payments(w.id).map((q) => q.kind).sort()).toEqual(['cpfp', 'payment']);
  });
});
