// A treasurer spends a vault on its recovery path from the propose form (issue 32), in Chromium over
// litecoind -regtest: a 2-of-3 of Alice, Bob and Carol, or after 1 day (576 blocks) 1 of Dave and
// Erin. Funded, the form lists both paths: the recovery path is disabled, saying the block it opens
// at and about when. The chain is mined to the block before the opening: the path is offered, the
// payment is proposed on it and reads "0 of 1 signature" (not the vault's "2 of 5"); co-signer mode
// opens its request as 1 of 2 on the recovery path, Dave signs there, the signature file is imported
// ("1 of 1 signature", fully signed on the recovery path), submitted and confirmed. Screenshots at
// 1280 and 760 px: e2e/artifacts/vault-path-*.png.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { addressToScript, chainParams } from '../shared/coins/index.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const PER_DAY = 576; // litecoin: a block every 150 seconds
const [alice, bob, carol, dave, erin] = ['path alice', 'path bob', 'path carol', 'path dave', 'path erin'].map((n) => testCosigner(n, params)) as [
  ReturnType<typeof testCosigner>,
  ReturnType<typeof testCosigner>,
  ReturnType<typeof testCosigner>,
  ReturnType<typeof testCosigner>,
  ReturnType<typeof testCosigner>,
];

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
const blockWords = (n: number) => `block ${n.toLocaleString('en-US')}`;

/** The same page at 1280 and at 760 px wide: e2e/artifacts/vault-path-<name>-1280.png and -760.png. */
async function shots(name: string) {
  await session.browser.shot(`vault-path-${name}-1280`);
  await page.setViewportSize({ width: 760, height: 900 });
  await session.browser.shot(`vault-path-${name}-760`);
  await page.setViewportSize({ width: 1280, height: 900 });
}

const text = async (testId: string) => ((await page.getByTestId(testId).textContent()) ?? '').trim();

beforeAll(async () => {
  session = await openDeskInBrowser();
  ({ desk, page } = session);
}, 300_000);
afterAll(() => session?.close());

describe('a vault spent on its recovery path from the propose form, in Chromium', () => {
  it('offers the recovery path only once it is open, and counts its signatures, not the vault\'s M of N, everywhere', async () => {
    await page.goto(desk.web.openUrl);
    await expect.poll(() => page.getByTestId('service-status').textContent()).toMatch(/connected/);

    // The vault: 2 of Alice, Bob, Carol now, or 1 of Dave, Erin after 1 day.
    await page.getByRole('link', { name: 'New wallet' }).click();
    await page.getByTestId('wallet-name').fill('Path vault');
    for (const [i, c] of [alice, bob, carol].entries()) {
      await page.getByTestId(`cosigner-name-${i}`).fill(['Alice', 'Bob', 'Carol'][i]!);
      await page.getByTestId(`cosigner-xpub-${i}`).fill(c.xpub);
    }
    await page.getByTestId('wallet-with-recovery').check();
    await page.getByTestId('recovery-name-0').fill('Dave');
    await page.getByTestId('recovery-xpub-0').fill(dave.xpub);
    await page.getByTestId('recovery-add-key').click();
    await page.getByTestId('recovery-name-1').fill('Erin');
    await page.getByTestId('recovery-xpub-1').fill(erin.xpub);
    await page.getByTestId('recovery-days').fill('1');
    await expect.poll(() => text('recovery-days-words')).toBe('1 day (576 blocks on litecoin regtest)');
    await page.getByTestId('create-wallet').click();
    await expect.poll(() => page.getByTestId('vault-paths').locator('li').allTextContents(), { timeout: 30_000 }).toEqual(['now: 2 of Alice, Bob, Carol', '576 blocks (about 1 day) after a coin is received: 1 of Dave, Erin']);
    const wallet = page.url();

    // Funded and confirmed: the recovery path opens 576 blocks after the coin's block.
    const first = (await text('receive-address')).trim();
    await desk.node.fundScript(addressToScript(params, first), 3n * COIN);
    await desk.node.mine(1);
    await desk.synced();
    const confirmedAt = await desk.node.rpc.call<number>('getblockcount', []);
    const opensAt = confirmedAt + PER_DAY;

    // The propose form lists both paths; the recovery path is shown with its block and date, disabled.
    await page.getByTestId('propose-link').click();
    await expect.poll(() => text('vault-path-576'), { timeout: 30_000 }).toContain(`opens at ${blockWords(opensAt)}, about`);
    expect(await text('vault-path-0')).toBe('Main path: 2 of 3 (Alice, Bob, Carol), open now');
    expect(await page.getByTestId('vault-path-pick-0').isChecked()).toBe(true);
    expect(await page.getByTestId('vault-path-pick-576').isDisabled()).toBe(true);
    const day = new Date(Date.now() + (PER_DAY - 1) * 150_000).toISOString().slice(0, 10);
    expect(await text('vault-path-why-576')).toMatch(new RegExp(`^Not open yet for the vault's 1 coin: it opens at ${blockWords(opensAt)}, about ${day} \\d\\d:\\d\\d UTC\\.$`));
    expect(await text('vault-path-576')).toMatch(/^Recovery path: 1 of 2 \(Dave, Erin\), open 576 blocks \(about 1 day\) after a coin's block/);
    expect(await text('vault-path-coins-576')).toContain(`3.00 LTC (regtest): opens at ${blockWords(opensAt)}, about ${day}`);
    expect(await text('vault-path-coins-576')).toContain(`(${(PER_DAY - 1).toLocaleString('en-US')} blocks from now)`);
    expect(await text('propose-signers')).toBe('Nothing moves until 2 of 3 (Alice, Bob, Carol) sign, on the main path.');
    await page.getByTestId('pay-to').fill(await desk.node.newAddress('bech32'));
    await page.getByTestId('pay-amount').fill('1');
    await page.getByTestId('fee-mode-custom').check();
    await page.getByTestId('pay-fee-rate').fill('2');
    await page.getByTestId('vault-path-choice').scrollIntoViewIfNeeded();
    await shots('01-recovery-closed');

    // The chain one block short of the opening: still closed, one block to go.
    await desk.node.mine(PER_DAY - 2);
    await desk.synced();
    await expect.poll(() => text('vault-path-why-576'), { timeout: 60_000 }).toContain(`it opens at ${blockWords(opensAt)}`);
    await expect.poll(() => text('vault-path-coins-576'), { timeout: 60_000 }).toContain('(1 block from now)');
    expect(await page.getByTestId('vault-path-pick-576').isDisabled()).toBe(true);

    // One more: the tip is the block before the opening, so a spend enters the next block; the path is offered.
    await desk.node.mine(1);
    await desk.synced();
    await expect.poll(() => page.getByTestId('vault-path-pick-576').isDisabled(), { timeout: 60_000 }).toBe(false);
    expect(await text('vault-path-coins-576')).toContain(`3.00 LTC (regtest): open: spendable on this path from ${blockWords(opensAt)} on`);
    expect(await page.getByTestId('vault-path-why-576').count()).toBe(0);
    await page.getByTestId('vault-path-pick-576').check();
    expect(await text('propose-signers')).toBe('Nothing moves until 1 of 2 (Dave, Erin) sign, on the recovery path.');
    await page.getByTestId('vault-path-choice').scrollIntoViewIfNeeded();
    await shots('02-recovery-open');

    // Proposed on the recovery path: one signature of Dave or Erin, not 2 of the vault's 5 keys.
    await page.getByTestId('propose').click();
    await expect.poll(() => page.url(), { timeout: 30_000 }).toMatch(/#\/payments\//);
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('awaiting_signatures');
    const payment = page.url();
    expect(await text('payment-state')).toContain('Waiting for signatures: 0 of 1 signature so far. Export the signing request, have 1 more of Dave, Erin (the recovery path) sign it');
    expect(await page.getByRole('heading', { name: /^Signatures: / }).textContent()).toBe('Signatures: 0 of 1 signature');
    expect(await text('payment-signing-path')).toBe("Spent on the recovery path: 1 of 2 (Dave, Erin), open 576 blocks (about 1 day) after a coin's block. One of Dave or Erin signs; the vault's other keys have nothing to sign.");
    expect(await page.getByTestId('signer').allTextContents()).toEqual(['○ Dave not yet', '○ Erin not yet']);
    // Its size is the recovery path's (one signature in the witness): the rate shown is the rate asked.
    expect(await page.locator('body').textContent()).toMatch(/, 2\.0 litoshi\/vB over \d+ vbytes/);
    expect(await page.locator('body').textContent()).not.toMatch(/2 of 5|of 2 required/);
    await shots('03-proposed');

    // The payments list says the same.
    await page.getByRole('link', { name: 'Payments', exact: true }).click();
    await expect.poll(() => page.getByTestId('payment-signatures').first().textContent()).toBe('0 of 1 signaturerecovery path');
    await shots('04-list');

    // Co-signer mode reads the request file as the recovery path's 1 of 2, and Dave signs there.
    await page.goto(payment);
    const requestPath = await session.browser.download(() => page.getByTestId('export-request').click(), 'recovery-request.json');
    await page.getByRole('link', { name: 'Co-signer mode' }).click();
    await page.getByTestId('request-file').setInputFiles(requestPath);
    await expect.poll(() => text('request-signing')).toBe("1 signature, by recovery path: 1 of 2 (Dave, Erin), open 576 blocks (about 1 day) after a coin's block");
    expect(await page.getByRole('heading', { name: /^2\. Check what it pays/ }).textContent()).toBe('2. Check what it pays (wallet "Path vault", 1 of 2 on the recovery path)');
    await page.getByTestId('xprv').fill(dave.accountXprv);
    const signature = await session.browser.download(() => page.getByTestId('sign').click(), 'dave-signature.json');
    await page.getByTestId('request-signing').scrollIntoViewIfNeeded();
    await shots('05-cosigner');

    // The signature file imported: fully signed on the recovery path, 1 of 1 signature.
    await page.goto(payment);
    await page.getByTestId('import-files').setInputFiles(signature);
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
    expect(await page.getByTestId('import-results').textContent()).toMatch(/1 signature by Dave imported/);
    expect(await text('payment-state')).toContain('Fully signed: every input has its 1 signature on the recovery path.');
    expect(await page.getByRole('heading', { name: /^Signatures: / }).textContent()).toBe('Signatures: 1 of 1 signature');
    expect(await page.getByTestId('signer').allTextContents()).toEqual(['✓ Dave signed', '○ Erin not needed']);
    expect(await page.locator('td').filter({ hasText: /^\s*1 of 1\s*$/ }).count()).toBe(1);
    expect(await page.locator('body').textContent()).not.toMatch(/2 of 5|of 2 required/);
    await shots('06-signed');

    // Submitted and confirmed.
    await page.getByTestId('submit').click();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('broadcast');
    await desk.node.mine(1);
    await desk.synced();
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 60_000 }).toBe('confirmed');
    expect(await page.getByRole('heading', { name: /^Signatures: / }).textContent()).toBe('Signatures: 1 of 1 signature');
    await shots('07-confirmed');
    await page.goto(wallet);
    await expect.poll(() => page.getByTestId('payment-signatures').first().textContent(), { timeout: 30_000 }).toBe('1 of 1 signaturerecovery path');
  }, 400_000);
});
