// A treasurer's first start, in Chromium: the desk starts with no embedded-service.json and no chain,
// so it leads them to Settings; there they connect their litecoind -regtest (cookie file, block
// filters on) after the mistakes a hurried treasurer makes (a wrong port, the network left at
// mainnet, a wrong password: each refused in words at its field), test it (chain regtest, height,
// not pruned, filters on), save it, import a BSMS vault with a birthday date, and see its balance.
// The chain's first 101 blocks are dated 2026-01-01 (setmocktime), so a birthday of today is a
// block after them. Screenshots: e2e/artifacts/chains-*.png.
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { BIP32Factory } from 'bip32';
import { payments } from 'bitcoinjs-lib';
import type { Page } from 'playwright-core';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, chainParams } from '../shared/coins/index.ts';
import { startBareDesk, type BareDesk } from '../dev/bare-desk.ts';
import { buildRenderer, openBrowser, type BrowserSession } from './browser.ts';
import { jsNetwork } from '../dev/desk-testing/keys.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const bip32 = BIP32Factory(ecc);
const network = jsNetwork(params);
const PATH = "m/48'/1'/0'/2'";
const signers = ['Ann', 'Ben', 'Cat'].map((name, i) => {
  const root = bip32.fromSeed(Buffer.alloc(32, i + 41), network);
  return { name, fingerprint: Buffer.from(root.fingerprint).toString('hex'), xpub: root.derivePath(PATH).neutered().toBase58() };
});
const firstAddress = (): string => {
  const keys = signers.map((s) => bip32.fromBase58(s.xpub, network).derive(0).derive(0).publicKey).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return payments.p2wsh({ redeem: payments.p2ms({ m: 2, pubkeys: keys, network }), network }).address!;
};
const bsms = (first: string) => ['BSMS 1.0', `wsh(sortedmulti(2,${signers.map((s) => `[${s.fingerprint}${PATH.slice(1)}]${s.xpub}/**`).join(',')}))`, '/0/*,/1/*', first].join('\n');

/** 2026-01-01T00:00:00Z: the maturing blocks' time, long before the vault's birthday. */
const OLD_TIME = 1_767_225_600;

let desk: BareDesk;
let browser: BrowserSession;
let page: Page;
const shot = (name: string) => browser.shot(name);

beforeAll(async () => {
  const built = await buildRenderer();
  desk = await startBareDesk({
    rendererDir: built.rendererDir,
    prepare: async (node) => {
      await node.rpc.call('setmocktime', [OLD_TIME]);
      await node.mine(101);
      await node.rpc.call('setmocktime', [0]);
      await node.mine(5);
    },
  });
  browser = await openBrowser(built, 'chains-');
  page = browser.page;
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await desk?.dispose();
});

/** The words shown at a field of the chain form. */
const errorAt = (field: string) => page.getByTestId(`chain-error-${field}`);

describe('a chain connected from Settings, in Chromium', () => {
  const first = firstAddress();

  it('leads a treasurer with no chain to Settings before it offers a wallet', async () => {
    await page.goto(desk.web.openUrl);
    await expect.poll(() => page.getByTestId('connect-chain-first').isVisible()).toBe(true);
    expect(await page.getByTestId('connect-chain-first').textContent()).toMatch(/None is connected yet/);
    expect(await page.getByText('Create the first wallet').count()).toBe(0);
    await shot('first-start');
    // Even the new-wallet page asks for a chain first.
    await page.goto(`${desk.web.url}/#/wallets/new`);
    await expect.poll(() => page.getByTestId('connect-chain-first').isVisible()).toBe(true);
    await page.getByTestId('connect-chain-link').click();
    await expect.poll(() => page.getByTestId('chain-form').isVisible()).toBe(true);
    expect(await page.getByTestId('chains-notice').textContent()).toMatch(/no chain is connected: connect one in Settings/);
  });

  it('refuses a wrong address, a node of another network and a wrong password, each at its field', async () => {
    const rpc = new URL(desk.node.rpcConfig.url);
    // A hurried treasurer types the p2p port, and leaves the network at mainnet.
    await page.getByTestId('chain-url').fill(`http://127.0.0.1:${desk.node.p2pPort}`);
    await page.getByTestId('chain-cookie').fill(desk.cookieFile);
    await page.getByTestId('chain-test').click();
    await expect.poll(() => errorAt('url').textContent()).toMatch(new RegExp(`nothing answers at http://127\\.0\\.0\\.1:${desk.node.p2pPort}/: check the address and port`));
    expect(await page.getByTestId('chain-save').isDisabled()).toBe(true);

    await page.getByTestId('chain-url').fill(`http://127.0.0.1:${rpc.port}`);
    await page.getByTestId('chain-test').click();
    await expect.poll(() => errorAt('network').textContent()).toBe(`the node at http://127.0.0.1:${rpc.port}/ is on regtest, but this coin is configured for mainnet: connect a litecoin mainnet node, or choose regtest`);
    expect(await errorAt('url').count()).toBe(0);
    await shot('wrong-network');

    await page.getByTestId('chain-network').selectOption('regtest');
    await page.getByTestId('chain-auth-password').check();
    await page.getByTestId('chain-username').fill(desk.node.rpcConfig.username!);
    await page.getByTestId('chain-password').fill('hunter2');
    await page.getByTestId('chain-test').click();
    await expect.poll(() => errorAt('password').textContent()).toMatch(/refused this user and password/);
    await shot('wrong-password');

    // Not a URL at all: refused before anything is asked.
    await page.getByTestId('chain-auth-cookie').check();
    await page.getByTestId('chain-url').fill('127.0.0.1:9332');
    await page.getByTestId('chain-test').click();
    await expect.poll(() => errorAt('url').textContent()).toMatch(/starts with http:\/\/ or https:\/\//);
    await page.getByTestId('chain-cookie').fill(join(desk.node.datadir, '.cookie'));
    await page.getByTestId('chain-url').fill(`http://127.0.0.1:${rpc.port}`);
    await page.getByTestId('chain-test').click();
    await expect.poll(() => errorAt('cookie_file').textContent()).toMatch(/cannot be read: is it the node's \.cookie/);
  });

  it('tests the node through its cookie file, shows what answered, saves it and the service reads the chain', async () => {
    await page.getByTestId('chain-cookie').fill(desk.cookieFile);
    await page.getByTestId('chain-test').click();
    await expect.poll(() => page.getByTestId('chain-answer-chain').textContent()).toBe('regtest (network regtest)');
    expect(await page.getByTestId('chain-answer-height').textContent()).toBe('106');
    expect(await page.getByTestId('chain-answer-pruned').textContent()).toBe('no');
    expect(await page.getByTestId('chain-answer-filters').textContent()).toBe('on (BIP158)');
    expect(await page.getByTestId('chain-answer-software').textContent()).toMatch(/LitecoinCore/);
    expect(await page.getByTestId('chain-answer-replacements').textContent()).toBe('cannot be found out from this server');
    await shot('tested');
    await page.getByTestId('chain-save').click();
    await expect.poll(() => page.getByTestId('chains-done').textContent(), { timeout: 60_000 }).toMatch(/litecoin is connected; the embedded service restarted/);
    expect(await page.getByTestId('chain-row-litecoin').textContent()).toContain(`cookie file ${desk.cookieFile}`);
    // The restarted service watches the chain (no wallet yet, so nothing to read): the header names
    // its tip, and the settings status too.
    await expect.poll(() => page.getByTestId('service-status').getAttribute('title'), { timeout: 60_000 }).toBe('litecoin regtest: block 106 of 106');
    expect(await page.getByTestId('service-status').textContent()).toBe('Service (embedded): connected');
    await expect.poll(() => page.getByTestId('settings-status').textContent(), { timeout: 30_000 }).toBe('connected; litecoin regtest at block 106');
    // Nothing secret, and what was asked, is in the desk's store: the choice, and an audit entry.
    expect(JSON.parse(desk.store.setting('chains.litecoin')!)).toMatchObject({ kind: 'node', network: 'regtest', auth: { kind: 'cookie' } });
    expect(desk.store.auditLog().map((e) => e.action)).toContain('chain.connect');
    await shot('connected');
  });

  it('imports a BSMS vault with a birthday date, and sees its balance', async () => {
    const file = join(browser.work, 'vault.bsms');
    writeFileSync(file, `${bsms(first)}\n`);
    await page.goto(`${desk.web.url}/#/wallets/new`);
    await page.getByTestId('wallet-name').fill('Vault');
    await page.getByTestId('import-setup').setInputFiles(file);
    await expect.poll(() => page.getByTestId('setup-notes').textContent()).toMatch(/BSMS descriptor record, 2 of 3/);
    // BSMS carries no birthday: never the tip; from the beginning unless the treasurer gives a date.
    expect(await page.getByTestId('birthday-genesis').isChecked()).toBe(true);
    expect(await page.getByTestId('birthday-tip').isChecked()).toBe(false);
    await page.getByTestId('birthday-date-choice').check();
    expect(await page.getByTestId('chain-not-served').count()).toBe(0);
    // A date in the future is refused at the field.
    await page.getByTestId('birthday-date').fill('2099-01-01');
    await page.getByTestId('create-wallet').click();
    await expect.poll(() => page.getByTestId('birthday-date-error').textContent()).toMatch(/2099-01-01 is in the future/);
    const today = new Date().toISOString().slice(0, 10);
    await page.getByTestId('birthday-date').fill(today);
    await shot('birthday');
    await page.getByTestId('create-wallet').click();
    await expect.poll(() => page.getByTestId('wallet-birthday').isVisible(), { timeout: 60_000 }).toBe(true);
    // The maturing blocks are dated 2026-01-01, so no block's median time past is today yet: the
    // answer is the next block (107), and the birthday 10 blocks before it (median time lags).
    const birthday = desk.store.wallets()[0]!;
    expect(birthday.birthdaySource).toBe('date');
    expect(birthday.birthdayHeight).toBe(97);
    expect(await page.getByTestId('wallet-birthday').textContent()).toBe(`Read from block ${birthday.birthdayHeight} (the date it was given).`);

    await desk.node.fundScript(addressToScript(params, first), 3n * COIN);
    await desk.node.mine(1);
    await expect.poll(() => page.getByTestId('balance').textContent(), { timeout: 60_000 }).toMatch(/^3(\.0+)? LTC/);
    // A node connected from Settings watches the vault from its birthday (not the whole chain),
    // and the page says how far it has read.
    await expect.poll(() => page.getByTestId('watch-status').textContent(), { timeout: 60_000 }).toMatch(/^Watched from block 97: read to block 107, the node's tip \([\d,]+ blocks? fetched\)$/);
    expect(await page.getByTestId('watch-history-limit').count()).toBe(0);
    await shot('vault-balance');

    await page.getByTestId('rescan-genesis').check();
    await page.getByTestId('rescan-submit').click();
    await expect.poll(() => page.getByTestId('rescan-done').textContent()).toMatch(/a rescan of "Vault" from block 0 is recorded/);
    expect(desk.store.auditLog().map((e) => e.action)).toEqual(expect.arrayContaining(['wallet.birthday', 'wallet.rescan_requested']));
  });
});
