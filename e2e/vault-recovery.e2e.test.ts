// A treasurer makes a vault that survives lost keys (issue 27), in Chromium over litecoind -regtest:
// a 2-of-3 of Alice, Bob and Carol, or after 90 days the Lawyer's key alone. A hurried entry ("90
// days") and one past BIP68 (500 days, 113 at most on litecoin) are refused in words at the field
// with Create disabled; 90 is shown with its blocks. The vault's descriptor is exported, parsed back,
// its BIP380 checksum recomputed here, and its first address derived by rust-miniscript (the test
// oracle) equals the desk's. Funded, the page says at which block (and about when) the Lawyer's
// path opens for that coin. Screenshots: e2e/artifacts/recovery-*.png.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Descriptor } from '@bitgo/wasm-miniscript';
import { address as bjsAddress } from 'bitcoinjs-lib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { addressToScript, chainParams, deriveXpubChild, encodeXpub, parseXpub } from '../shared/coins/index.ts';
import { parseVaultDescriptor, parseWalletPolicy } from '../shared/files/miniscript-descriptor.ts';
import { collectAndSubmit, openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const PER_DAY = 576; // litecoin: a block every 150 seconds

/** BIP380's descriptor checksum, written from the spec here so the desk's own is not its judge. */
function descriptorChecksum(desc: string): string {
  const INPUT = '0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
  const CHARS = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
  const GEN = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn];
  const polymod = (c: bigint, v: number) => {
    const c0 = c >> 35n;
    c = ((c & 0x7ffffffffn) << 5n) ^ BigInt(v);
    GEN.forEach((g, i) => {
      if ((c0 >> BigInt(i)) & 1n) c ^= g;
    });
    return c;
  };
  let c = 1n;
  let cls = 0;
  let count = 0;
  for (const ch of desc) {
    const pos = INPUT.indexOf(ch);
    if (pos < 0) throw new Error(`not a descriptor character: ${ch}`);
    c = polymod(c, pos & 31);
    cls = cls * 3 + (pos >> 5);
    if (++count === 3) {
      c = polymod(c, cls);
      cls = 0;
      count = 0;
    }
  }
  if (count > 0) c = polymod(c, cls);
  for (let j = 0; j < 8; j++) c = polymod(c, 0);
  c ^= 1n;
  return Array.from({ length: 8 }, (_, j) => CHARS[Number((c >> BigInt(5 * (7 - j))) & 31n)]).join('');
}

const [alice, bob, carol, lawyer] = ['vault alice', 'vault bob', 'vault carol', 'vault lawyer'].map((n) => testCosigner(n, params)) as [
  ReturnType<typeof testCosigner>,
  ReturnType<typeof testCosigner>,
  ReturnType<typeof testCosigner>,
  ReturnType<typeof testCosigner>,
];

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
let descriptorPath = '';
const shot = (name: string) => session.browser.shot(name);

/** The New wallet form, named, with Alice, Bob and Carol as its co-signers and a recovery path asked for. */
async function newVaultForm(name: string) {
  await page.getByRole('link', { name: 'New wallet' }).click();
  await page.getByTestId('wallet-name').fill(name);
  for (const [i, c] of [alice, bob, carol].entries()) {
    await page.getByTestId(`cosigner-name-${i}`).fill(['Alice', 'Bob', 'Carol'][i]!);
    await page.getByTestId(`cosigner-xpub-${i}`).fill(c.xpub);
  }
  await page.getByTestId('wallet-with-recovery').check();
}

/** Days typed into a path's field (`field`: its test id) are refused there in these words, and Create waits. */
async function daysRefused(field: string, typed: string, words: string) {
  await page.getByTestId(field).fill(typed);
  await expect.poll(() => page.getByTestId(`${field}-error`).textContent()).toBe(words);
  expect(await page.getByTestId('create-wallet').isDisabled()).toBe(true);
}

/** Days typed into a path's field are shown as days and blocks. */
async function daysRead(field: string, typed: string, words: string) {
  await page.getByTestId(field).fill(typed);
  await expect.poll(() => page.getByTestId(`${field}-words`).textContent()).toBe(words);
  expect(await page.getByTestId(`${field}-error`).count()).toBe(0);
}

beforeAll(async () => {
  session = await openDeskInBrowser();
  ({ desk, page } = session);
}, 300_000);
afterAll(() => session?.close());

describe('a vault with a recovery key after 90 days, in Chromium', () => {
  it('is made (hurried days refused in words), exported as a descriptor that parses back, funded, and says when its recovery path opens', async () => {
    await page.goto(desk.web.openUrl);
    await expect.poll(() => page.getByTestId('service-status').textContent()).toMatch(/connected/);
    await newVaultForm('Reserve vault');
    await page.getByTestId('recovery-name-0').fill('Lawyer');
    await page.getByTestId('recovery-xpub-0').fill(lawyer.xpub);

    // Hurried: words instead of a number, then a time no relative lock can count on this chain.
    await daysRefused('recovery-days', '90 days', 'type the days as a whole number, like 90; "90 days" is not one');
    await daysRefused('recovery-days', '500', '500 days is 288,000 blocks on litecoin regtest; a relative timelock counts at most 65,535 blocks (BIP68), 113 days there');
    await shot('recovery-01-days-refused');

    // The other hurried mistakes: a sign, a fraction, nothing, none at all.
    for (const [typed, words] of [
      ['-5', 'a path opens after a number of days from now on, not before; "-5" is negative'],
      ['1,5', 'type whole days, like 90; "1,5" has a fraction (a relative timelock counts whole blocks, days here)'],
      ['0', 'a recovery path opens after a whole number of days, at least 1; got 0'],
      ['', 'type when the recovery path opens, in whole days (for example 90)'],
    ]) {
      await daysRefused('recovery-days', typed!, words!);
    }

    await daysRead('recovery-days', '90', '90 days (51,840 blocks on litecoin regtest)');
    // A second path that opens sooner than the first is refused at its field; then it is removed.
    await page.getByTestId('recovery-add-path').click();
    await page.getByTestId('recovery-2-name-0').fill('Heirs');
    await daysRefused('recovery-2-days', '60', 'each recovery path opens later than the one before it: this one needs more than 90 days (the path above opens after 90); 60 is not later');
    await daysRead('recovery-2-days', '100', '100 days (57,600 blocks on litecoin regtest)');
    expect(await page.getByTestId('create-wallet').textContent()).toMatch(/with 2 recovery paths \(1-of-1, then 1-of-1\)/);
    await shot('recovery-02a-two-paths');
    await page.getByTestId('recovery-2-remove').click();
    // The remaining path's days are read again (Create waits for them).
    await expect.poll(() => page.getByTestId('create-wallet').isDisabled()).toBe(false);
    expect(await page.getByTestId('recovery-days-error').count()).toBe(0);
    expect(await page.getByTestId('create-wallet').textContent()).toMatch(/Create 2-of-3 vault with a 1-of-1 recovery path/);
    await shot('recovery-02-form');

    await page.getByTestId('create-wallet').click();
    await expect.poll(() => page.getByTestId('vault-paths').locator('li').allTextContents(), { timeout: 30_000 }).toEqual([
      'now: 2 of Alice, Bob, Carol',
      '51,840 blocks (about 90 days) after a coin is received: 1 of Lawyer',
    ]);
    const first = (await page.getByTestId('receive-address').textContent())!.trim();
    expect(first).toMatch(/^rltc1q/);

    // The descriptor file: its checksum is right, it parses back to the same keys, and rust-miniscript
    // derives the desk's first receive address from it.
    descriptorPath = await session.browser.download(() => page.getByTestId('vault-export-descriptor').click(), 'reserve-descriptor.txt');
    const file = readFileSync(descriptorPath, 'utf8').trim();
    const [body, checksum] = file.split('#') as [string, string];
    expect(checksum).toBe(descriptorChecksum(body));
    expect(body).toContain('older(51840)');
    const parsed = parseVaultDescriptor(file);
    expect(parsed.policy.keys.map((k) => k.xpub)).toEqual([alice.xpub, bob.xpub, carol.xpub, lawyer.xpub]);
    const receive = body.replace(/<(\d+);(\d+)>/g, (_m, a: string) => a);
    const script = Descriptor.fromString(receive, 'derivable').atDerivationIndex(0).scriptPubkey();
    expect(bjsAddress.fromOutputScript(Buffer.from(script), { bech32: params.bech32Hrp!, pubKeyHash: 0, scriptHash: 0, wif: 0, bip32: { public: 0, private: 0 }, messagePrefix: '' })).toBe(first);
    // A tampered file is refused by the desk's parser: the checksum no longer matches.
    expect(() => parseVaultDescriptor(file.replace('older(51840)', 'older(51841)'))).toThrow(/checksum/i);

    // The BIP388 policy a hardware wallet registers: the same template and keys.
    const policy = parseWalletPolicy(readFileSync(await session.browser.download(() => page.getByTestId('vault-export-bip388').click(), 'reserve-bip388.json'), 'utf8'));
    expect(policy.name).toBe('Reserve vault');
    expect(policy.policy.template).toBe(parsed.policy.template);
    expect(await page.getByTestId('wallet-script').textContent()).toBe('native segwit miniscript (P2WSH)');
    // The page head describes the vault's paths, not an M-of-N.
    const about = (await page.getByTestId('wallet-about').textContent())!;
    expect(about).toContain('vault: 2 of Alice, Bob, Carol now, or 1 of Lawyer after 51,840 blocks (about 90 days)');
    expect(about).not.toMatch(/multi-signature|of-4/);

    await desk.node.fundScript(addressToScript(params, first), 3n * COIN);
    await desk.node.mine(1);
    await desk.synced();
    const height = await desk.node.rpc.call<number>('getblockcount', []);
    const opensAt = height + 90 * PER_DAY;
    await expect
      .poll(() => page.getByTestId('vault-coins').textContent(), { timeout: 30_000 })
      .toContain(`at block ${opensAt.toLocaleString('en-US')}, about`);
    const row = (await page.getByTestId('vault-coins').textContent())!;
    expect(row).toContain('3.00 LTC (regtest)');
    expect(row).toContain(`(${(90 * PER_DAY - 1).toLocaleString('en-US')} blocks from now)`);
    const day = new Date(Date.now() + (90 * PER_DAY - 1) * 150_000).toISOString().slice(0, 10);
    expect(row).toContain(`about ${day}`);
    // The balance moves on its own poll: the screenshot waits for it.
    await expect.poll(() => page.getByTestId('balance').textContent(), { timeout: 30_000 }).toContain('3.00 LTC (regtest)');
    await page.getByTestId('vault-paths').scrollIntoViewIfNeeded();
    await shot('recovery-03-vault-page');
  }, 300_000);

  it('warns of a coin whose recovery path opens within the window set in Settings, and refreshes it on the main path', async () => {
    // 30 days by default: the coin's path opens in about 90, so nothing is flagged yet.
    await expect.poll(() => page.getByTestId('vault-refresh-coins').textContent()).toContain('3.00 LTC');
    expect(await page.getByTestId('vault-refresh-warning').count()).toBe(0);
    const wallet = page.url();

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByTestId('vault-warning-days').fill('120 days');
    await page.getByTestId('vault-warning-save').click();
    await expect.poll(() => page.getByTestId('vault-warning-error').textContent()).toBe('type the days as a whole number, like 30; "120 days" is not one');
    await page.getByTestId('vault-warning-days').fill('120');
    await page.getByTestId('vault-warning-save').click();
    await expect.poll(() => page.getByTestId('vault-warning-saved').textContent()).toBe('Saved: coins are flagged 120 days before their recovery path opens.');
    await page.getByTestId('vault-warning-days').scrollIntoViewIfNeeded();
    await shot('recovery-05-settings');

    // The wallets list flags the vault; its page says which coin, what it means, and offers the refresh.
    await page.getByRole('link', { name: 'Wallets', exact: true }).click();
    await expect.poll(() => page.getByTestId('wallet-card-refresh').textContent()).toBe("1 coin's recovery path opens within 120 days: refresh it");
    await shot('recovery-06-wallets-flagged');
    await page.goto(wallet);
    await expect
      .poll(() => page.getByTestId('vault-refresh-warning').textContent())
      .toContain("1 coin's recovery path opens within 120 days: refresh it. After that date the recovery keys alone (1 of Lawyer) can move this coin, without the co-signers.");
    expect(await page.getByTestId('vault-coin-due').count()).toBe(1);
    const picks = page.getByTestId('vault-refresh-coins').locator('input[type=checkbox]');
    expect(await picks.count()).toBe(1);
    expect(await picks.first().isChecked()).toBe(true);
    await page.getByTestId('vault-refresh-go').click();
    await page.getByTestId('fee-mode-custom').check();
    await page.getByTestId('pay-fee-rate').fill('2');
    expect(await page.getByTestId('vault-refresh-propose').textContent()).toBe('Refresh 1 coin');
    await shot('recovery-07-refresh');
    // One payment through the proposal pipeline: the coin whole, back to the vault, awaiting two signatures.
    await page.getByTestId('vault-refresh-propose').click();
    await expect.poll(() => page.url(), { timeout: 30_000 }).toMatch(/#\/payments\//);
    await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('awaiting_signatures');
    expect(await page.getByTestId('payment-purpose-edit').textContent()).toBe('Refresh of 1 coin: back to the vault on the main path, restarting its recovery clock');
    // Signed on the primary path: Alice, Bob and Carol are asked, not the Lawyer.
    expect(await page.getByTestId('signer').allTextContents()).toEqual(['○ Alice not yet', '○ Bob not yet', '○ Carol not yet']);
    await shot('recovery-08-refresh-proposed');

    // Alice and Bob sign it, it is sent and confirmed: the coin is the refresh's output, and its
    // recovery path now opens 51,840 blocks after the refresh's block.
    const txid = await collectAndSubmit(session.browser, 'refresh', [alice, bob].map((c) => ({ xprv: c.accountXprv })));
    await desk.node.mine(1);
    await desk.synced();
    const refreshed = await desk.node.rpc.call<number>('getblockcount', []);
    await page.goto(wallet);
    await expect
      .poll(() => page.getByTestId('vault-coins').textContent(), { timeout: 30_000 })
      .toContain(`at block ${(refreshed + 90 * PER_DAY).toLocaleString('en-US')}, about`);
    expect(await page.getByTestId('vault-coins').textContent()).toContain(`${txid.slice(0, 8)}`);
    // Still within the 120 days asked for (the path is 90): flagged again, for the new coin only.
    expect(await page.getByTestId('vault-coin-due').count()).toBe(1);
    await page.getByTestId('vault-coins').scrollIntoViewIfNeeded();
    await shot('recovery-08b-refreshed');
  }, 120_000);

  it('makes a decaying multisig: 2 of 3 now, 1 of the same 3 after 100 days (past BIP68 refused at the field)', async () => {
    await page.getByRole('link', { name: 'Wallets', exact: true }).click();
    await newVaultForm('Decaying reserve');
    await page.getByTestId('vault-shape-decaying').check();
    await daysRefused('decay-days', '365', '365 days is 210,240 blocks on litecoin regtest; a relative timelock counts at most 65,535 blocks (BIP68), 113 days there');
    await daysRead('decay-days', '100', '100 days (57,600 blocks on litecoin regtest)');
    // Already down to one signature: no later, lower step can follow.
    expect(await page.getByTestId('decay-add').isDisabled()).toBe(true);
    expect(await page.getByTestId('create-wallet').textContent()).toBe('Create 2-of-3 vault that decays to 1-of-3 after 100 days');
    await shot('recovery-09-decaying-form');
    await page.getByTestId('create-wallet').click();
    await expect.poll(() => page.getByTestId('vault-paths').locator('li').allTextContents(), { timeout: 30_000 }).toEqual([
      'now: 2 of Alice, Bob, Carol',
      '57,600 blocks (about 100 days) after a coin is received: 1 of Alice, Bob, Carol',
    ]);
    expect(await page.getByTestId('wallet-about').textContent()).toContain('vault: 2 of Alice, Bob, Carol now, or 1 of Alice, Bob, Carol after 57,600 blocks (about 100 days)');
  }, 60_000);

  it('imports a vault descriptor through the set-up file drop: the same vault is named as already in the desk, a tampered one refused', async () => {
    await page.getByRole('link', { name: 'Wallets', exact: true }).click();
    await page.getByRole('link', { name: 'New wallet' }).click();
    await page.getByTestId('wallet-name').fill('Reserve again');
    await page.getByTestId('import-setup').setInputFiles(descriptorPath);
    await expect.poll(() => page.getByTestId('setup-notes').textContent()).toMatch(/reserve-descriptor\.txt: a vault with recovery paths/);
    expect(await page.getByTestId('create-wallet').textContent()).toBe('Create vault from the file');
    await page.getByTestId('create-wallet').click();
    await expect.poll(() => page.getByTestId('wallet-refusal').textContent()).toBe('this vault is already in the desk as "Reserve vault": it derives the same addresses');

    const tampered = join(session.browser.work, 'tampered.txt');
    writeFileSync(tampered, readFileSync(descriptorPath, 'utf8').replace('older(51840)', 'older(51841)'));
    await page.getByTestId('import-setup').setInputFiles(tampered);
    await page.getByTestId('create-wallet').click();
    // A refusal of the file itself is named at the file.
    await expect.poll(() => page.getByTestId('vault-file-error').textContent()).toMatch(/^tampered\.txt: .*checksum/i);
    expect(await page.getByTestId('wallet-refusal').count()).toBe(0);
    await shot('recovery-04-import-refused');
  }, 60_000);

  it('refuses at the file, in words, a vault whose script Bitcoin would never let spend (217 operations)', async () => {
    // thresh(2 of 70 keys) now, or one recovery key after 144 blocks: a 2,622-byte script, under
    // the 3,600-byte size, over the 201 operations a script may run.
    const base = parseXpub(params, alice.xpub);
    const keys = Array.from({ length: 71 }, (_, i) => encodeXpub(deriveXpubChild(base, 1000 + i)));
    const subs = Array.from({ length: 70 }, (_, i) => (i === 0 ? 'pk(@0/**)' : `s:pk(@${i}/**)`)).join(',');
    const big = join(session.browser.work, 'seventy.json');
    writeFileSync(big, JSON.stringify({ name: 'Seventy', descriptor_template: `wsh(or_d(thresh(2,${subs}),and_v(v:pkh(@70/**),older(144))))`, keys_info: keys }));
    await page.getByRole('link', { name: 'Wallets', exact: true }).click();
    await page.getByRole('link', { name: 'New wallet' }).click();
    await page.getByTestId('wallet-name').fill('Seventy');
    await page.getByTestId('import-setup').setInputFiles(big);
    await expect.poll(() => page.getByTestId('setup-notes').textContent()).toMatch(/seventy\.json: a vault with recovery paths/);
    const before = desk.store.wallets().length;
    await page.getByTestId('create-wallet').click();
    await expect
      .poll(() => page.getByTestId('vault-file-error').textContent())
      .toBe('seventy.json: the miniscript is refused: its script has 217 operations; Bitcoin allows 201: coins sent to it could never be spent. Use fewer keys in its thresh() of 70 parts');
    expect(desk.store.wallets()).toHaveLength(before);
    await shot('recovery-10-limit-refused');
  }, 60_000);
});
