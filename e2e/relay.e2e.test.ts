// Issue 35's proof in three browsers: a treasurer's desk (with litecoind -regtest and its service)
// and two co-signers' desks that reach the same service, each in its own Chromium. Invitations;
// alice joins bound by her key, bob by a compared code; a payment gets both signatures by relay,
// is submitted and confirms; then bob is offline and signs by file while alice signs by relay.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, chainParams } from '../shared/coins/index.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import { startRelayDesk, type RelayDesk } from '../dev/relay-testing/relay-desk.ts';
import { signRequest } from '../main/core/software-signer.ts';
import { openBrowser, openDeskInBrowser, type BrowserSession, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];

let treasurer: DeskInBrowser;
let page: Page;
const cosigners: { desk: RelayDesk; browser: BrowserSession }[] = [];

beforeAll(async () => {
  treasurer = await openDeskInBrowser({}, 'relay-treasurer-');
  page = treasurer.page;
  for (const name of ['alice', 'bob']) {
    const desk = await startRelayDesk({ rendererDir: treasurer.browser.rendererDir, serviceUrl: treasurer.desk.serviceUrl, actor: name });
    const browser = await openBrowser({ rendererDir: treasurer.browser.rendererDir, work: mkdtempSync(join(tmpdir(), `countersign-e2e-${name}-`)) }, `relay-${name}-`);
    cosigners.push({ desk, browser });
  }
}, 300_000);
afterAll(async () => {
  for (const c of cosigners) {
    await c.browser.close().catch(() => undefined);
    await c.desk.dispose().catch(() => undefined);
  }
  await treasurer?.close();
});

async function propose(amount: string): Promise<string> {
  await page.goto(`${treasurer.desk.web.openUrl.split('#')[0]}#/wallets`);
  await page.getByRole('link', { name: 'Relay treasury' }).first().click();
  await page.getByTestId('propose-link').click();
  await page.getByTestId('pay-to').fill(await treasurer.desk.node.newAddress('legacy'));
  await page.getByTestId('pay-amount').fill(amount);
  await page.getByTestId('fee-mode-fixed').check();
  await page.getByTestId('pay-fee').fill('0.0002');
  await page.getByTestId('propose').click();
  await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('awaiting_signatures');
  return page.url();
}

async function submitAndConfirm(): Promise<void> {
  await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 60_000 }).toBe('ready');
  await page.getByTestId('submit').click();
  await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('broadcast');
  await treasurer.desk.node.mine(1);
  await treasurer.desk.synced();
  await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 60_000 }).toBe('confirmed');
}

async function signByRelay(i: number, xprv: string, shot: string): Promise<void> {
  const p = cosigners[i]!.browser.page;
  await p.getByTestId('relay-sign-secret').first().waitFor({ timeout: 30_000 });
  await cosigners[i]!.browser.shot(shot);
  await p.getByTestId('relay-sign-secret').first().fill(xprv);
  await p.getByTestId('relay-sign').first().click();
  await p.getByTestId('relay-nothing-waiting').waitFor({ timeout: 30_000 });
}

describe('three desks, one service, co-signers anywhere', () => {
  it('invites, joins by key and by code, and collects two signatures by relay', async () => {
    await page.goto(treasurer.desk.web.openUrl);
    await page.getByText('No wallets yet').waitFor();
    await page.getByRole('link', { name: 'New wallet' }).click();
    await page.getByTestId('wallet-name').fill('Relay treasury');
    for (const [i, c] of [alice, bob, carol].entries()) {
      await page.getByTestId(`cosigner-name-${i}`).fill(c.name);
      await page.getByTestId(`cosigner-xpub-${i}`).fill(c.xpub);
      await page.getByTestId(`cosigner-path-${i}`).fill(c.derivationPath);
    }
    await page.getByTestId('create-wallet').click();
    const address = (await page.getByTestId('receive-address').textContent())!.trim();
    await treasurer.desk.node.fundScript(addressToScript(params, address), 3n * COIN);
    await treasurer.desk.node.mine(1);
    await treasurer.desk.synced();

    // Invitations for alice and bob.
    await page.goto(`${treasurer.desk.web.openUrl.split('#')[0]}#/relay`);
    const codes: string[] = [];
    for (const who of ['0', '1']) {
      await page.getByTestId('relay-invite-who').selectOption(who);
      await page.getByTestId('relay-invite').click();
      await expect.poll(async () => (await page.getByTestId('relay-invitation-code').textContent()) ?? '').not.toBe(codes[0] ?? '');
      codes.push((await page.getByTestId('relay-invitation-code').textContent())!.trim());
    }
    await treasurer.browser.shot('01-invitations');

    // alice joins with her key: bound by key. bob joins without: a code to compare.
    const [a, b] = cosigners.map((c) => c.browser.page);
    await a!.goto(`${cosigners[0]!.desk.web.openUrl}`);
    await a!.goto(`${cosigners[0]!.desk.web.openUrl.split('#')[0]}#/relay`);
    await a!.getByTestId('relay-join-code').fill(codes[0]!);
    await a!.getByTestId('relay-join-name').fill('alice');
    await a!.getByTestId('relay-join-secret').fill(alice.accountXprv);
    await a!.getByTestId('relay-join').click();
    await a!.getByText('Your key vouched for this desk.').waitFor();
    await b!.goto(`${cosigners[1]!.desk.web.openUrl}`);
    await b!.goto(`${cosigners[1]!.desk.web.openUrl.split('#')[0]}#/relay`);
    await b!.getByTestId('relay-join-code').fill(codes[1]!);
    await b!.getByTestId('relay-join-name').fill('bob');
    await b!.getByTestId('relay-join').click();
    const bobCode = (await b!.getByTestId('relay-comparison').textContent())!.trim();
    await cosigners[1]!.browser.shot('02-bob-comparison');

    // The treasurer sees bob's code, the same as on bob's screen, and confirms it.
    await expect.poll(async () => (await page.getByTestId('relay-pending-code-bob').textContent({ timeout: 1_000 }).catch(() => null)) ?? '', { timeout: 30_000 }).toBe(bobCode);
    await treasurer.browser.shot('03-compare-code');
    await page.getByTestId('relay-codes-match-bob').click();
    await expect.poll(() => page.getByTestId('relay-rooms').textContent(), { timeout: 30_000 }).toMatch(/alice \(bound by key\).*bob \(verified by code\)|bob \(verified by code\).*alice \(bound by key\)/);

    // A payment, sent by relay; both sign on their desks; it is submitted and confirms.
    await propose('1.25');
    await page.getByTestId('relay-request').click();
    await page.getByTestId('relay-sent').waitFor();
    await signByRelay(0, alice.accountXprv, '04-alice-waiting');
    await signByRelay(1, bob.accountXprv, '04-bob-waiting');
    await submitAndConfirm();
    await treasurer.browser.shot('05-confirmed');
  }, 300_000);

  it('bob is offline and signs by file; alice signs by relay: both count in one payment', async () => {
    await propose('0.5');
    const request = await treasurer.browser.download(() => page.getByTestId('export-request').click(), 'relay-request.json');
    await page.getByTestId('relay-request').click();
    await page.getByTestId('relay-sent').waitFor();
    const bobFile = join(treasurer.browser.work, 'bob-offline.json');
    writeFileSync(bobFile, signRequest((await import('node:fs')).readFileSync(request, 'utf8'), { xprv: bob.accountXprv }).file);
    await page.getByTestId('import-files').setInputFiles([bobFile]);
    await expect.poll(() => page.getByTestId('import-results').locator('li').allTextContents()).toEqual([expect.stringMatching(/^Imported bob-offline\.json: 1 signature by bob imported/)]);
    await signByRelay(0, alice.accountXprv, '06-alice-waiting-again');
    await submitAndConfirm();
    await treasurer.browser.shot('07-mixed-confirmed');
  }, 300_000);
});
