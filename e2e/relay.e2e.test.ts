// Issue 35's proof in four browsers: a treasurer's desk (with litecoind -regtest and its service),
// two co-signers' desks and an approver's desk that reach the same service, each in its own
// Chromium. Invitations; alice joins bound by her key, bob and the approver by a compared code; the
// treasurer sets the wallet's spending rule (its mistakes refused in words); a payment above it goes
// to the approver first, and to the co-signers only once approved; both sign by relay, it is
// submitted and confirms, with the approval on the payment, in the audit log and its export. Then
// bob is offline and signs by file while alice signs by relay. Last, the treasurer rotates bob's key
// and removes the approver, whose desk is then refused in words.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
let approver: { desk: RelayDesk; browser: BrowserSession };
const DANA = 'Dana (CFO)';
const base = (desk: { web: { openUrl: string } }) => desk.web.openUrl.split('#')[0];

beforeAll(async () => {
  treasurer = await openDeskInBrowser({}, 'relay-treasurer-');
  page = treasurer.page;
  for (const name of ['alice', 'bob', 'dana']) {
    const desk = await startRelayDesk({ rendererDir: treasurer.browser.rendererDir, serviceUrl: treasurer.desk.serviceUrl, actor: name });
    const browser = await openBrowser({ rendererDir: treasurer.browser.rendererDir, work: mkdtempSync(join(tmpdir(), `countersign-e2e-${name}-`)) }, `relay-${name}-`);
    if (name === 'dana') approver = { desk, browser };
    else cosigners.push({ desk, browser });
  }
}, 300_000);
afterAll(async () => {
  for (const c of [...cosigners, ...(approver ? [approver] : [])]) {
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

/** The treasurer's desk reads the relay on every page (the badge): wait for its payment page to say `words`. */
async function approvalsShow(words: RegExp): Promise<void> {
  await expect.poll(async () => (await page.getByTestId('payment-approvals').textContent({ timeout: 1_000 }).catch(() => null)) ?? '', { timeout: 30_000 }).toMatch(words);
}

/** Dana approves the payment waiting for her; the words of what it pays are on her screen first. */
async function approveByRelay(amount: string, shot: string): Promise<void> {
  const d = approver.browser.page;
  await d.getByTestId('relay-approve').first().waitFor({ timeout: 30_000 });
  expect(await d.getByTestId('relay-waiting-pays').first().textContent()).toMatch(new RegExp(`^It pays ${amount.replace('.', '\\.')} LTC \\(regtest\\) to \\S+; [0-9.]+ LTC \\(regtest\\) leaves the wallet with the miners' fee\\.$`));
  await approver.browser.shot(shot);
  await d.getByTestId('relay-approve').first().click();
  await d.getByTestId('relay-nothing-waiting').waitFor({ timeout: 30_000 });
}

/** A co-signer's desk reads the room now (a reload syncs) and has nothing waiting: it was not asked. */
async function notAsked(i: number): Promise<void> {
  const p = cosigners[i]!.browser.page;
  await p.reload();
  await p.getByTestId('relay-rooms').waitFor();
  expect(await p.getByTestId('relay-nothing-waiting').textContent()).toBe('Nothing waits for you.');
}

async function signByRelay(i: number, xprv: string, shot: string): Promise<void> {
  const p = cosigners[i]!.browser.page;
  await p.getByTestId('relay-sign-secret').first().waitFor({ timeout: 30_000 });
  await cosigners[i]!.browser.shot(shot);
  await p.getByTestId('relay-sign-secret').first().fill(xprv);
  await p.getByTestId('relay-sign').first().click();
  await p.getByTestId('relay-nothing-waiting').waitFor({ timeout: 30_000 });
}

describe('four desks (a treasurer, two co-signers, an approver), one service, co-signers anywhere', () => {
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

    // An approver, Dana, who holds no key: invited by name, joined by a compared code.
    await page.getByTestId('relay-invite-who').selectOption('approver');
    await page.getByTestId('relay-invite-approver').fill(DANA);
    await page.getByTestId('relay-invite').click();
    await expect.poll(async () => (await page.getByTestId('relay-invitation-code').textContent()) ?? '').not.toBe(codes[1]!);
    const danaInvite = (await page.getByTestId('relay-invitation-code').textContent())!.trim();
    const d = approver.browser.page;
    await d.goto(approver.desk.web.openUrl);
    await d.goto(`${base(approver.desk)}#/relay`);
    await d.getByTestId('relay-join-code').fill(danaInvite);
    await d.getByTestId('relay-join-name').fill('Dana');
    await d.getByTestId('relay-join').click();
    const danaCode = (await d.getByTestId('relay-comparison').textContent())!.trim();
    await expect.poll(async () => (await page.getByTestId(`relay-pending-code-${DANA}`).textContent({ timeout: 1_000 }).catch(() => null)) ?? '', { timeout: 30_000 }).toBe(danaCode);
    await page.getByTestId(`relay-codes-match-${DANA}`).click();
    await expect.poll(() => page.getByTestId('relay-rooms').textContent(), { timeout: 30_000 }).toContain(`${DANA} (verified by code)`);

    // The wallet's spending rule, typed by a hurried treasurer: each mistake refused in words.
    await page.goto(`${base(treasurer.desk)}#/wallets`);
    await page.getByRole('link', { name: 'Relay treasury' }).first().click();
    await expect.poll(() => page.getByTestId('approval-rule').textContent()).toBe('No approval needed: co-signers are asked as soon as a payment is sent by relay.');
    const limitError = async (typed: string) => {
      await page.getByTestId('rule-limit').fill(typed);
      await page.getByTestId('rule-save').click();
      return page.getByTestId('rule-limit-error').textContent();
    };
    expect(await limitError('')).toBe('no amount: type an amount in LTC (regtest), e.g. 0.5');
    expect(await limitError('-1')).toBe('"-1" is negative: an amount is what is paid, so type it without a minus sign');
    expect(await limitError('0.123456789')).toBe('"0.123456789" has 9 decimals: an amount of LTC (regtest) has at most 8');
    expect(await limitError('1 LTC')).toBe('"1 LTC" has a space inside: type the digits together');
    expect(await limitError('one')).toBe('"one" is not an amount (it has "o"): type digits 0-9 with at most one decimal point, e.g. 1250 or 1.25');
    await treasurer.browser.shot('04-rule-mistake');
    await page.getByTestId('rule-limit').fill('1');
    await page.getByTestId('rule-period').selectOption('day');
    await page.getByTestId('rule-save').click();
    await page.getByTestId('rule-saved').waitFor();
    await expect.poll(() => page.getByTestId('approval-rule').textContent()).toBe('1 approval needed above 1.00 LTC (regtest) spent per day.');
    await treasurer.browser.shot('05-rule-saved');

    // A payment above the rule: sent by relay, it goes to Dana first; the co-signers are not asked.
    await propose('1.25');
    // The desk names a payment by what it pays, never by its id.
    const named = 'payment of 1\\.25 LTC \\(regtest\\) to \\w+';
    await page.getByTestId('relay-request').click();
    expect(await page.getByTestId('relay-sent').textContent()).toBe(' Sent to the approvers first (0 of 1 approvals: co-signers are asked once approved).');
    await approver.browser.page.getByTestId('relay-approve').first().waitFor({ timeout: 30_000 });
    await notAsked(0);
    await notAsked(1);
    await approveByRelay('1.25', '06-dana-approves');
    // The approval on the payment, signed by Dana's device; then the request goes on to the co-signers.
    await approvalsShow(new RegExp(`^approved by Dana \\(CFO\\) \\(verified by code\\)Dana \\(CFO\\) approved .+, signed by their device \\(verified by code\\)$`));
    await treasurer.browser.shot('07-approved');
    await signByRelay(0, alice.accountXprv, '08-alice-waiting');
    await signByRelay(1, bob.accountXprv, '08-bob-waiting');
    await submitAndConfirm();
    await approvalsShow(/^approved by Dana \(CFO\) \(verified by code\)/);
    await treasurer.browser.shot('09-confirmed');

    // The approval in the audit log and its export.
    await page.goto(`${base(treasurer.desk)}#/audit`);
    await expect.poll(() => page.locator('body').textContent(), { timeout: 30_000 }).toMatch(new RegExp(`${named}: approved by Dana \\(CFO\\) \\(verified by code\\)`));
    const csv = readFileSync(await treasurer.browser.download(() => page.getByTestId('audit-export').click(), 'relay-audit.csv'), 'utf8');
    expect(csv).toMatch(new RegExp(`${named}: approved by Dana \\(CFO\\) \\(verified by code\\)`));
    expect(csv).toContain('wallet Relay treasury: approval rule set: 1 approval above 1 LTC (regtest) spent per day');

    // What the treasurer sent, beside what waits: the request to Dana, seen by her (she answered after it).
    await page.goto(`${base(treasurer.desk)}#/relay`);
    const sent = page.getByTestId('relay-sent-list');
    await expect.poll(() => sent.textContent(), { timeout: 30_000 }).toMatch(new RegExp(`Signing request for the ${named} in Relay treasury, .+, to Dana \\(CFO\\): delivered \\(message \\d+\\); seen by Dana \\(CFO\\)`));
    expect(await sent.textContent()).toMatch(new RegExp(`Signing request for the ${named} in Relay treasury, .+, to alice, bob: delivered \\(message \\d+\\); seen by (alice, bob|bob, alice)`));
    await treasurer.browser.shot('10-sent');
  }, 300_000);

  it('bob is offline and signs by file; alice signs by relay: both count in one payment', async () => {
    // 1.25 already spent today: 0.5 more is above the rule too, so Dana approves first.
    await propose('0.5');
    const request = await treasurer.browser.download(() => page.getByTestId('export-request').click(), 'relay-request.json');
    await page.getByTestId('relay-request').click();
    await page.getByTestId('relay-sent').waitFor();
    await approveByRelay('0.5', '11-dana-approves-again');
    const bobFile = join(treasurer.browser.work, 'bob-offline.json');
    writeFileSync(bobFile, signRequest(readFileSync(request, 'utf8'), { xprv: bob.accountXprv }).file);
    await page.getByTestId('import-files').setInputFiles([bobFile]);
    await expect.poll(() => page.getByTestId('import-results').locator('li').allTextContents()).toEqual([expect.stringMatching(/^Imported bob-offline\.json: 1 signature by bob imported/)]);
    await signByRelay(0, alice.accountXprv, '12-alice-waiting-again');
    await submitAndConfirm();
    await treasurer.browser.shot('13-mixed-confirmed');
  }, 300_000);

  it("rotates bob's key and removes the approver, each after a confirmation; the removed desk is refused in words", async () => {
    await page.goto(`${base(treasurer.desk)}#/relay`);
    // bob's key: a new invitation for him; his desk joins again with a new key; the old device goes.
    await page.getByTestId('relay-rotate-bob').click();
    await treasurer.browser.shot('14-rotate-confirm');
    await page.getByTestId('relay-member-confirm-yes').click();
    const code = (await page.getByTestId('relay-rotation-code').textContent())!.trim();
    const b = cosigners[1]!.browser.page;
    await b.getByTestId('relay-join-code').fill(code);
    await b.getByTestId('relay-join-name').fill('bob');
    await b.getByTestId('relay-join').click();
    const bobCode = (await b.getByTestId('relay-comparison').textContent())!.trim();
    await expect.poll(async () => (await page.getByTestId('relay-pending-code-bob').textContent({ timeout: 1_000 }).catch(() => null)) ?? '', { timeout: 30_000 }).toBe(bobCode);
    await page.getByTestId('relay-codes-match-bob').click();
    await page.goto(`${base(treasurer.desk)}#/audit`);
    await expect.poll(() => page.locator('body').textContent(), { timeout: 30_000 }).toMatch(/bob's key rotated in the relay room of wallet Relay treasury: the new device admitted, verified by code; the old device removed at message \d+, nothing from it counts any more/);

    // Dana removed: her desk is refused by the service in words, and nothing she sends counts.
    await page.goto(`${base(treasurer.desk)}#/relay`);
    await page.getByTestId(`relay-remove-${DANA}`).click();
    expect(await page.getByTestId('relay-member-confirm').textContent()).toContain(`Remove ${DANA}'s device from the room of Relay treasury? Nothing is sealed to it any more, and nothing it sends counts.`);
    await page.getByTestId('relay-member-confirm-yes').click();
    expect(await page.getByTestId('relay-member-done').textContent()).toBe(`${DANA} was removed from the room of Relay treasury: nothing their device sends counts any more, and it reads nothing new.`);
    await expect.poll(() => page.getByTestId('relay-rooms').textContent()).not.toContain(DANA);
    await treasurer.browser.shot('15-removed');
    const d = approver.browser.page;
    await d.reload();
    await expect.poll(() => d.getByTestId('relay-rooms').textContent({ timeout: 1_000 }).catch(() => ''), { timeout: 30_000 }).toContain(
      "the service refuses this desk's device in the room of Relay treasury: the treasurer removed it or rotated its key; ask them for a new invitation if that is a mistake",
    );
    await approver.browser.shot('16-dana-removed');
  }, 120_000);
});
